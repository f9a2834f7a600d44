/**
 * Outcome learning (DESIGN §10, reference §5.2; Python `outcome_learning.py`): an agent reports
 * how recalled memory worked out (`memory.outcome.recorded`); a failure or partial outcome
 * with a lesson proposes a preventive rule through the evolution gate (op `rule_generate`),
 * written as `memory.rule.generated` (auto-applied, review_status `active`) or
 * `memory.rule.proposed` (held, review_status `pending`). Pure builders, no I/O.
 *
 * Payload key orders and the rule id must stay byte-compatible with Python:
 * `rule_id = "rule:" + sha256(canonical {rule, trigger, source_events})[:24]`.
 *
 * @example
 * ruleId("Run the migration dry-run first", "deploy failed", [{ seq: 7, hash: "ab…" }]); // "rule:<24 hex>"
 */
import { canonicalJson, JsonNumber, type JsonObject, type JsonValue } from "../canonical/mod.ts";
import { sourceEventRefJson } from "../eventloom/root.ts";
import { inputError } from "../errors.ts";
import { sha256Hex } from "../platform/mod.ts";
import { ruleGeneratedEventType, ruleProposedEventType } from "../events/ruleEvents.ts";

export const outcomes = ["success", "failure", "partial"] as const;
export type Outcome = (typeof outcomes)[number];

export const outcomeEventType = "memory.outcome.recorded";
export const ruleIdHexChars = 24;

/** Failure is a strong signal (auto-applies under the default tier); partial is weaker. */
export const defaultRuleConfidence: Readonly<Record<"failure" | "partial", number>> = { failure: 0.9, partial: 0.7 };
/** The observed value a prior is compared with to get the prediction error (surprise). */
export const outcomeActual: Readonly<Record<Outcome, number>> = { success: 1.0, failure: 0.0, partial: 0.5 };

export const outcomeActorDefault = "zaxy-agent";

export interface EventRef {
  seq: number;
  hash: string;
}

const hashPattern = /^[0-9a-f]{64}$/;

export function parseOutcome(value: unknown, field = "outcome"): Outcome {
  if (typeof value === "string" && (outcomes as readonly string[]).includes(value)) return value as Outcome;
  const valid = outcomes.join(", ");
  throw inputError("invalid_outcome", `${field} must be one of: ${valid} (got ${JSON.stringify(value) ?? "nothing"})`, { field, expected: valid });
}

/** A non-empty (after trimming) string, else bad input naming `field`. */
export function requireNonEmpty(value: unknown, field: string): string {
  if (typeof value !== "string" || value.trim() === "") {
    throw inputError("invalid_outcome_request", `${field} must be a non-empty string (got ${JSON.stringify(value) ?? "nothing"})`, {
      field,
      expected: "a non-empty string",
    });
  }
  return value;
}

/** `|actual − prior|`: 0 when fully anticipated, 1 when maximally surprising. */
export function predictionError(outcome: Outcome, prior: number): number {
  return Math.abs(outcomeActual[outcome] - prior);
}

/** The explicit confidence, else the outcome's default (failure 0.9, partial 0.7). */
export function preventiveRuleConfidence(outcome: Outcome, explicit?: number): number {
  if (explicit !== undefined) return explicit;
  return outcome === "failure" || outcome === "partial" ? defaultRuleConfidence[outcome] : 0.7;
}

function refJson(ref: EventRef): JsonObject {
  if (!Number.isSafeInteger(ref.seq) || ref.seq < 1 || !hashPattern.test(ref.hash)) {
    throw inputError("invalid_event_ref", `event ref must be {seq >= 1, hash: 64 lowercase hex} (got ${JSON.stringify(ref)})`, {
      field: "source_events",
      expected: "{seq, hash}",
    });
  }
  return sourceEventRefJson(ref);
}

/**
 * The deterministic rule id (Python `_rule_id`), the only implementation (the fleet's
 * `fleetRuleId` is this function).
 *
 * @example
 * ruleId("Pin the lockfile", "build failed", [{ seq: 3, hash: "0".repeat(64) }]);
 */
export function ruleId(rule: string, trigger: string, sourceEvents: readonly EventRef[]): string {
  const identity: JsonObject = new Map<string, JsonValue>([
    ["rule", rule],
    ["trigger", trigger],
    ["source_events", sourceEvents.map(refJson)],
  ]);
  return `rule:${sha256Hex(canonicalJson(identity)).slice(0, ruleIdHexChars)}`;
}

export interface OutcomePayloadInput {
  outcome: Outcome;
  summary: string;
  target?: EventRef;
  taskId?: string;
  prior?: number;
  predictionError?: number;
}

/** `memory.outcome.recorded`: outcome, summary, authority_status, target?, task_id?, prior?, prediction_error?. */
export function outcomePayload(input: OutcomePayloadInput): JsonObject {
  const payload: JsonObject = new Map<string, JsonValue>([
    ["outcome", input.outcome],
    ["summary", input.summary],
    ["authority_status", "non_authoritative"],
  ]);
  if (input.target !== undefined) payload.set("target", refJson(input.target));
  if (input.taskId !== undefined) payload.set("task_id", input.taskId);
  if (input.prior !== undefined) payload.set("prior", JsonNumber.float(input.prior));
  if (input.predictionError !== undefined) payload.set("prediction_error", JsonNumber.float(input.predictionError));
  return payload;
}

export interface RulePayloadInput {
  autoApplied: boolean;
  rule: string;
  trigger: string;
  confidence: number;
  outcome: Outcome;
  sourceEvents: readonly EventRef[];
}

/**
 * The rule event: type `memory.rule.generated` when auto-applied (review_status `active`),
 * else `memory.rule.proposed` (`pending`). Payload keys: rule_id, rule, trigger, confidence,
 * outcome, source_events, review_status, authority_status.
 */
export function ruleEvent(input: RulePayloadInput): { type: string; payload: JsonObject; ruleId: string; reviewStatus: "active" | "pending" } {
  if (input.sourceEvents.length === 0) {
    throw inputError("invalid_rule", "source_events must cite at least one event", { field: "source_events", expected: "at least one {seq, hash}" });
  }
  const id = ruleId(input.rule, input.trigger, input.sourceEvents);
  const reviewStatus = input.autoApplied ? "active" : "pending";
  const payload: JsonObject = new Map<string, JsonValue>([
    ["rule_id", id],
    ["rule", input.rule],
    ["trigger", input.trigger],
    ["confidence", JsonNumber.float(input.confidence)],
    ["outcome", input.outcome],
    ["source_events", input.sourceEvents.map(refJson)],
    ["review_status", reviewStatus],
    ["authority_status", "non_authoritative"],
  ]);
  return { type: input.autoApplied ? ruleGeneratedEventType : ruleProposedEventType, payload, ruleId: id, reviewStatus };
}
