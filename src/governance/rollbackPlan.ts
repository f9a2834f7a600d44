/**
 * `memory.rolled_back`: the explicit, cited reversal of an earlier evolution event (reference
 * §2.10; Python `editable.py`). Nothing is deleted: the rollback is a new event, and its effect
 * exists only in replay — a rolled-back consolidation review no longer counts, so the
 * candidate returns to its previous surviving review status (`folds/consolidationStatus.ts`); a rolled-back rule
 * (`memory.rule.generated` or `.proposed`) is `rolled_back` and leaves checkout
 * (`folds/ruleStatus.ts`; `reverts.rule_id` names it). Gate decisions, fleet reviews and
 * corrections are recorded as audit markers only, as in Python.
 *
 * `planRollback` is the single place that decides whether a rollback is allowed and what it
 * writes; a governance gate can wrap it later without another copy of the rules. The rules:
 * the target must be an event of this session with exactly that hash, of a rollbackable type;
 * a consolidation review may be rolled back only when it is its candidate's latest review, and
 * only once.
 *
 * Payload (Python's key order): `rollback_id` (`rollback:` + 24 hex of SHA-256 over canonical
 * `{target, reason}`), `target {seq, hash}`, `reason`, `authority_status`, `reverts
 * {event_type[, candidate_id, to_status]}`.
 */
import { canonicalJson, fromJs, intField, isJsonObject, type JsonObject, JsonNumber, type JsonValue, stringField } from "../canonical/mod.ts";
import { inputError } from "../errors.ts";
import type { AppendItem } from "../eventloom/append.ts";
import type { EventRecord } from "../eventloom/envelope.ts";
import { sha256Hex } from "../platform/mod.ts";
import type { PlainJson } from "../projection/types.ts";
import { requireText } from "../consolidation/candidate.ts";
import { candidateReviewedType, nonAuthoritative } from "../events/consolidationEvents.ts";
import { reviewedStatus } from "../events/candidateStanding.ts";
import { replayConsolidation, rollbackEventType } from "../folds/consolidationStatus.ts";
import { isRuleEventType } from "../folds/ruleStatus.ts";
import { extractEvent } from "../projection/extract/mod.ts";
import { gateEventType } from "./evolutionGate.ts";

/** The evolution events a rollback may reverse (Python `ROLLBACKABLE_EVENT_TYPES`). */
export const rollbackableEventTypes = [
  "consolidation.candidate.reviewed",
  "evolution.gate.evaluated",
  "fleet.promotion.reviewed",
  "memory.corrected",
  "memory.rule.generated",
  "memory.rule.proposed",
] as const;

export const rollbackActorDefault = "zaxy-editor";

const eventHashPattern = /^[0-9a-f]{64}$/;

export interface RollbackRequest {
  targetSeq: unknown;
  targetHash: unknown;
  reason: unknown;
  /** Clock for `within_rollback_window` (ms since the epoch); default now. */
  nowMs?: number;
}

/** What rolling back a rule does, for the caller's report (not written to the log). */
export interface RuleRollback {
  rule_id: string;
  previous_review_status: "active" | "pending";
  review_status: "rolled_back";
  /** The window recorded by the rule's rule_generate gate decision; null when none is found. */
  rollback_window_seconds: number | null;
  /**
   * Whether the rollback falls inside that window (auto-applied rules only; null for a pending
   * rule or when no gate decision is found). Informational: a rule may be rolled back at any
   * time, because refusing would leave a wrong guardrail active with no remedy.
   */
  within_rollback_window: boolean | null;
}

export interface RollbackPlan {
  /** The `memory.rolled_back` payload to append. */
  payload: { [key: string]: PlainJson };
  target: { seq: number; hash: string };
  reverts: { [key: string]: PlainJson };
  targetEventType: string;
  /** Set when the target is a rule. */
  rule?: RuleRollback;
}

function refused(code: string, message: string, field: string, expected: string): never {
  throw inputError(code, message, { field, expected });
}

const correctedType = "memory.corrected";

/**
 * What rolling back a correction restores: the fact's content before it (`restore_content`),
 * only while the correction is still the fact's latest statement. A fact stated again after the
 * correction keeps that statement; the rollback is then an audit marker only, as in Python.
 */
function correctionRestore(events: readonly EventRecord[], correction: EventRecord): { [key: string]: PlainJson } {
  const name = stringField(correction.payload, "entity_name");
  const entityType = stringField(correction.payload, "entity_type");
  if (name === undefined || entityType === undefined || !correction.payload.has("previous_content")) return {};
  for (const later of events.slice(correction.seq)) {
    if (extractEvent(later).entities.some((entity) => entity.name === name && entity.entityType === entityType)) return {};
  }
  const previous = correction.payload.get("previous_content");
  return { entity_name: name, entity_type: entityType, restore_content: typeof previous === "string" ? previous : null };
}

/** Hex characters kept in a rollback id: this binary's own format, unchanged since it was introduced. */
const rollbackIdHexChars = 24;

/**
 * @example
 * rollbackId({ seq: 5, hash: "ab…" }, "accepted by mistake") // "rollback:<24 hex>"
 */
export function rollbackId(target: { seq: number; hash: string }, reason: string): string {
  const identity: JsonObject = new Map<string, JsonValue>([
    ["target", new Map<string, JsonValue>([["seq", JsonNumber.int(target.seq)], ["hash", target.hash]])],
    ["reason", reason],
  ]);
  return `rollback:${sha256Hex(canonicalJson(identity)).slice(0, rollbackIdHexChars)}`;
}

/**
 * Decides a rollback against the session's verified events. Throws a `ZaxyError` (exit 2)
 * naming the field for anything it refuses; returns what to append otherwise.
 */
export function planRollback(sessionId: string, events: readonly EventRecord[], request: RollbackRequest): RollbackPlan {
  const { targetSeq, targetHash } = request;
  if (typeof targetSeq !== "number" || !Number.isSafeInteger(targetSeq) || targetSeq < 1) {
    refused("invalid_rollback_target", `target_seq must be a positive integer (got ${JSON.stringify(targetSeq) ?? "nothing"})`, "target_seq", "an integer >= 1");
  }
  if (typeof targetHash !== "string" || !eventHashPattern.test(targetHash)) {
    refused("invalid_rollback_target", `target_hash must be exactly 64 lowercase hex characters (got ${JSON.stringify(targetHash) ?? "nothing"})`, "target_hash", "64 lowercase hex");
  }
  const reason = requireText(request.reason, "reason", "invalid_rollback");
  const event = events[targetSeq - 1];
  if (event === undefined || event.seq !== targetSeq) {
    refused("unknown_rollback_target", `No event at seq ${targetSeq} in session ${JSON.stringify(sessionId)} (it has ${events.length} events)`, "target_seq", `a seq in 1..${events.length}`);
  }
  if (event.hash !== targetHash) {
    refused("rollback_hash_mismatch", `target_hash does not match the sealed event at seq ${targetSeq} (its hash is ${event.hash})`, "target_hash", event.hash);
  }
  if (!(rollbackableEventTypes as readonly string[]).includes(event.type)) {
    const valid = rollbackableEventTypes.join(", ");
    refused("not_rollbackable", `Event ${targetSeq} (${event.type}) is not a reversible evolution; rollback supports: ${valid}`, "target_seq", valid);
  }
  // A forget's gate decision cannot be reversed: the erased content's key is destroyed, and a
  // rollback record would claim a reversal that never happened.
  if (event.type === "evolution.gate.evaluated" && stringField(event.payload, "op") === "forget") {
    refused(
      "forget_irreversible",
      `Cannot roll back event ${targetSeq}: it is the gate decision of a forget, and forgetting cannot be rolled back (the erased content's key is destroyed). Nothing was written.`,
      "target_seq",
      "an evolution that is not a forget",
    );
  }
  const target = { seq: event.seq, hash: event.hash };
  const reverts: { [key: string]: PlainJson } = { event_type: event.type };
  if (event.type === candidateReviewedType) {
    const candidateId = stringField(event.payload, "candidate_id");
    const replay = replayConsolidation(events);
    const candidate = candidateId === undefined ? undefined : replay.candidates.get(candidateId);
    if (candidate !== undefined) {
      const latest = candidate.reviews[candidate.reviews.length - 1];
      if (latest.seq !== event.seq) {
        refused(
          "rollback_not_latest_review",
          `Cannot roll back the superseded consolidation review at seq ${event.seq}: a later review (seq ${latest.seq}) exists for candidate ` +
            `${JSON.stringify(candidateId)}; only the current (latest) review is reversible`,
          "target_seq",
          `seq ${latest.seq}, the latest review of ${candidateId}`,
        );
      }
      if (latest.rolledBack) {
        refused("already_rolled_back", `The consolidation review at seq ${event.seq} is already rolled back`, "target_seq", "a review that is not rolled back yet");
      }
      reverts.candidate_id = candidateId!;
      reverts.to_status = reviewedStatus(candidate, event.seq);
    }
  } else if (replayConsolidation(events).rolledBackTargets.has(`${target.seq}:${target.hash}`)) {
    refused("already_rolled_back", `Event ${event.seq} (${event.type}) is already rolled back`, "target_seq", "an event that is not rolled back yet");
  }
  if (event.type === correctedType) Object.assign(reverts, correctionRestore(events, event));
  let rule: RuleRollback | undefined;
  if (isRuleEventType(event.type)) {
    // Rules are reversed by replay (folds/ruleStatus.ts): the rolled-back rule leaves checkout.
    rule = ruleRollback(events, event, request.nowMs ?? Date.now());
    reverts.rule_id = rule.rule_id;
  }
  const payload: { [key: string]: PlainJson } = {
    rollback_id: rollbackId(target, reason),
    target: { seq: target.seq, hash: target.hash },
    reason,
    authority_status: nonAuthoritative,
    reverts,
  };
  return { payload, target, reverts, targetEventType: event.type, ...(rule === undefined ? {} : { rule }) };
}

/**
 * The rule a rollback reverses, with the rollback window its gate decision recorded: the latest
 * `rule_generate` gate event before the rule whose candidate_ref is the rule's source outcome.
 */
function ruleRollback(events: readonly EventRecord[], rule: EventRecord, nowMs: number): RuleRollback {
  const ruleId = stringField(rule.payload, "rule_id") ?? `rule:${rule.seq}`;
  const previous = rule.type === "memory.rule.generated" ? "active" : "pending";
  const sources = rule.payload.get("source_events");
  const source = Array.isArray(sources) && isJsonObject(sources[0]) ? sources[0] : undefined;
  let windowSeconds: number | null = null;
  for (let i = rule.seq - 2; i >= 0 && source !== undefined; i--) {
    const event = events[i];
    if (event.type !== gateEventType || stringField(event.payload, "op") !== "rule_generate") continue;
    const ref = event.payload.get("candidate_ref");
    if (!isJsonObject(ref) || intField(ref, "seq") !== intField(source, "seq") || stringField(ref, "hash") !== stringField(source, "hash")) continue;
    windowSeconds = intField(event.payload, "rollback_window_seconds") ?? null;
    break;
  }
  const appliedMs = Date.parse(rule.timestamp);
  const within = previous === "active" && windowSeconds !== null && Number.isFinite(appliedMs) ? nowMs - appliedMs <= windowSeconds * 1000 : null;
  return { rule_id: ruleId, previous_review_status: previous, review_status: "rolled_back", rollback_window_seconds: windowSeconds, within_rollback_window: within };
}

export function rollbackItem(actor: string, plan: RollbackPlan): AppendItem {
  return { type: rollbackEventType, actor, payload: fromJs(plan.payload) };
}
