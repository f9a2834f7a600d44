/**
 * The evolution gate (DESIGN §10, reference §5.1; Python `evolution_policy.py`): every
 * active-memory evolution — consolidate, update, forget, rule_generate, promote — asks one
 * policy whether it may auto-apply or must be held for review, and the answer is recorded as a
 * non-authoritative `evolution.gate.evaluated` event, so autonomy is visible and reversible.
 *
 * The functions here are pure (no I/O): callers resolve the policy (`resolveEvolutionPolicy`,
 * which reads config.json and the environment, lives in `policySettings.ts` and is re-exported
 * here), evaluate, and append `gateEventPayload(decision, ref)` in the same batch as whatever
 * the decision allows. Reason strings and payload keys must stay byte-identical to Python's.
 *
 * @example
 * const decision = evaluateEvolutionGate("rule_generate", 0.9, defaultEvolutionPolicy);
 * decision.reason; // "rule_generate: auto-applied under auto_with_rollback (confidence 0.900 >= threshold 0.850); reversible within 86400s"
 * gateEventPayload(decision, { seq: 4, hash: "…" }); // the evolution.gate.evaluated payload
 */
import { type JsonObject, JsonNumber, type JsonValue, pythonFixed3 } from "../canonical/mod.ts";
import { inputError } from "../errors.ts";

export const evolutionOps = ["consolidate", "update", "forget", "rule_generate", "promote"] as const;
export type EvolutionOp = (typeof evolutionOps)[number];

/** Conservative-first, as in Python `AUTONOMY_TIERS`. */
export const autonomyTiers = ["propose_only", "auto_with_rollback", "require_review"] as const;
export type AutonomyTier = (typeof autonomyTiers)[number];

export const gateEventType = "evolution.gate.evaluated";
export const decisionAutoApply = "auto_apply";
export const decisionRequiresReview = "requires_review";
export type GateDecisionKind = typeof decisionAutoApply | typeof decisionRequiresReview;

export const defaultAutonomyTier: AutonomyTier = "auto_with_rollback";
export const defaultConfidenceThreshold = 0.85;
export const defaultRollbackWindowSeconds = 86_400;

export interface EvolutionPolicy {
  /** Tier for every op without an `opTiers` entry. */
  defaultTier: AutonomyTier;
  /** Confidence at or above which an `auto_with_rollback` op auto-applies (0..1). */
  confidenceThreshold: number;
  /** How long an auto-applied evolution stays reversible, in seconds (>= 0). */
  rollbackWindowSeconds: number;
  opTiers: Partial<Record<EvolutionOp, AutonomyTier>>;
  opThresholds: Partial<Record<EvolutionOp, number>>;
}

export const defaultEvolutionPolicy: EvolutionPolicy = Object.freeze({
  defaultTier: defaultAutonomyTier,
  confidenceThreshold: defaultConfidenceThreshold,
  rollbackWindowSeconds: defaultRollbackWindowSeconds,
  opTiers: Object.freeze({}),
  opThresholds: Object.freeze({}),
}) as EvolutionPolicy;

export interface GateDecision {
  op: EvolutionOp;
  tier: AutonomyTier;
  confidence: number;
  threshold: number;
  decision: GateDecisionKind;
  auto_apply: boolean;
  requires_review: boolean;
  rollback_window_seconds: number;
  reason: string;
}

/** What a gate decision is about; only the non-null keys are kept in the event. */
export interface CandidateRef {
  candidate_id?: string | null;
  seq?: number | null;
  hash?: string | null;
  name?: string | null;
  entity_type?: string | null;
}

export const candidateRefKeys = ["candidate_id", "seq", "hash", "name", "entity_type"] as const;

export function isEvolutionOp(value: unknown): value is EvolutionOp {
  return typeof value === "string" && (evolutionOps as readonly string[]).includes(value);
}

export function isAutonomyTier(value: unknown): value is AutonomyTier {
  return typeof value === "string" && (autonomyTiers as readonly string[]).includes(value);
}

/** The op, or bad input (exit 2) listing the valid ops. `field` names the argument. */
export function parseEvolutionOp(value: unknown, field = "op"): EvolutionOp {
  if (isEvolutionOp(value)) return value;
  const valid = evolutionOps.join(", ");
  throw inputError("invalid_evolution_op", `${field} must be one of: ${valid} (got ${JSON.stringify(value) ?? "nothing"})`, {
    field,
    expected: valid,
  });
}

/** The tier, or bad input (exit 2) listing the valid tiers. */
export function parseAutonomyTier(value: unknown, field = "tier"): AutonomyTier {
  if (isAutonomyTier(value)) return value;
  const valid = autonomyTiers.join(", ");
  throw inputError("invalid_autonomy_tier", `${field} must be one of: ${valid} (got ${JSON.stringify(value) ?? "nothing"})`, {
    field,
    expected: valid,
  });
}

/**
 * A confidence or threshold: a finite number in 0..1. Strings (from flags, env, config text)
 * must be a plain decimal number; booleans are refused as Python refuses them.
 */
export function parseUnitInterval(value: unknown, field: string): number {
  let n: number | undefined;
  if (typeof value === "number") n = value;
  else if (typeof value === "string" && /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/.test(value)) n = Number(value);
  if (n === undefined || !Number.isFinite(n) || n < 0 || n > 1) {
    throw inputError("invalid_confidence", `${field} must be a number between 0.0 and 1.0 (got ${JSON.stringify(value) ?? "nothing"})`, {
      field,
      expected: "a number in 0..1",
    });
  }
  return n;
}

/** A rollback window: a non-negative integer number of seconds. */
export function parseRollbackWindowSeconds(value: unknown, field: string): number {
  let n: number | undefined;
  if (typeof value === "number") n = value;
  else if (typeof value === "string" && /^\s*\+?\d+\s*$/.test(value)) n = Number(value);
  if (n === undefined || !Number.isSafeInteger(n) || n < 0) {
    throw inputError("invalid_rollback_window", `${field} must be a non-negative integer number of seconds (got ${JSON.stringify(value) ?? "nothing"})`, {
      field,
      expected: "an integer >= 0",
    });
  }
  return n;
}

export function tierFor(policy: EvolutionPolicy, op: EvolutionOp): AutonomyTier {
  return policy.opTiers[op] ?? policy.defaultTier;
}

export function thresholdFor(policy: EvolutionPolicy, op: EvolutionOp): number {
  return policy.opThresholds[op] ?? policy.confidenceThreshold;
}

/**
 * Decides whether `op` may auto-apply. `propose_only` and `require_review` always hold for
 * review; `auto_with_rollback` auto-applies when confidence >= the op's threshold.
 * Throws bad input (exit 2) for an unknown op or a confidence outside 0..1.
 */
export function evaluateEvolutionGate(op: EvolutionOp, confidence: number, policy: EvolutionPolicy): GateDecision {
  parseEvolutionOp(op);
  // Typed callers only: a string or boolean confidence is refused here as Python refuses it
  // (flags are parsed to numbers by `parseUnitInterval` before they get here).
  if (typeof confidence !== "number") {
    throw inputError("invalid_confidence", `confidence must be a number between 0.0 and 1.0 (got ${JSON.stringify(confidence) ?? "nothing"})`, {
      field: "confidence",
      expected: "a number in 0..1",
    });
  }
  parseUnitInterval(confidence, "confidence");
  const tier = tierFor(policy, op);
  const threshold = thresholdFor(policy, op);
  // Forgetting destroys the content's key: no window in which it could be undone.
  const window = op === "forget" ? 0 : policy.rollbackWindowSeconds;
  const decide = (autoApply: boolean, reason: string): GateDecision => ({
    op,
    tier,
    confidence,
    threshold,
    decision: autoApply ? decisionAutoApply : decisionRequiresReview,
    auto_apply: autoApply,
    requires_review: !autoApply,
    rollback_window_seconds: window,
    reason,
  });
  if (tier === "auto_with_rollback" && confidence >= threshold) {
    return decide(
      true,
      `${op}: auto-applied under auto_with_rollback (confidence ${pythonFixed3(confidence)} >= threshold ${pythonFixed3(threshold)}); ` +
        (op === "forget" ? "irreversible: forgetting cannot be rolled back" : `reversible within ${window}s`),
    );
  }
  if (tier === "auto_with_rollback") {
    return decide(false, `${op}: held for review under auto_with_rollback (confidence ${pythonFixed3(confidence)} < threshold ${pythonFixed3(threshold)})`);
  }
  if (tier === "require_review") return decide(false, `${op}: held for review (tier require_review)`);
  return decide(false, `${op}: proposed for review (tier propose_only; no autonomous promotion)`);
}

/**
 * The `candidate_ref` snapshot: only the non-null keys among candidate_id, seq, hash, name,
 * entity_type (others dropped). Empty → bad input, as in Python.
 */
export function candidateRefSnapshot(ref: CandidateRef): JsonObject {
  const out: JsonObject = new Map();
  for (const key of candidateRefKeys) {
    const value = ref[key];
    if (value === undefined || value === null) continue;
    out.set(key, key === "seq" ? JsonNumber.int(value as number) : (value as string));
  }
  if (out.size === 0) {
    throw inputError("invalid_candidate_ref", "candidate_ref must include at least one of candidate_id, seq, hash, name", {
      field: "candidate_ref",
      expected: "candidate_id, seq, hash, name or entity_type",
    });
  }
  return out;
}

/**
 * The `evolution.gate.evaluated` payload, keys in Python's order: op, tier, confidence,
 * threshold, decision, auto_apply, requires_review, rollback_window_seconds, reason,
 * authority_status ("non_authoritative"), then candidate_ref when given. Confidence and
 * threshold are floats (Python `float(...)`), so `1` is written `1.0`.
 */
export function gateEventPayload(decision: GateDecision, candidateRef?: CandidateRef): JsonObject {
  const payload: JsonObject = new Map<string, JsonValue>([
    ["op", decision.op],
    ["tier", decision.tier],
    ["confidence", JsonNumber.float(decision.confidence)],
    ["threshold", JsonNumber.float(decision.threshold)],
    ["decision", decision.decision],
    ["auto_apply", decision.auto_apply],
    ["requires_review", decision.requires_review],
    ["rollback_window_seconds", JsonNumber.int(decision.rollback_window_seconds)],
    ["reason", decision.reason],
    ["authority_status", "non_authoritative"],
  ]);
  if (candidateRef !== undefined) payload.set("candidate_ref", candidateRefSnapshot(candidateRef));
  return payload;
}

export { type EvolutionPolicyOverrides, resolveEvolutionPolicy } from "./policySettings.ts";
