/**
 * Builders of the nine fleet event payloads (reference §5.4). Every payload carries `fleet_id`
 * and `authority_status: "non_authoritative"`: a fleet memory is derived, reviewable and
 * reversible, never truth. Keys are in Python's order (as in the FleetBench log,
 * fixtures/interop/v1-fleet.fleetbench.jsonl); confidences are floats (`1.0`, not `1`).
 */
import { JsonNumber, type JsonObject, type JsonValue } from "../canonical/mod.ts";
import { type SourceEventRef, sourceEventRefJson, sourceEventsJson } from "../eventloom/root.ts";
import { nonAuthoritative, type PromotionKind, type ReviewDecision, type TrustTier, type VisibilityScope } from "./vocabulary.ts";

export function fleetCreatedPayload(fleetId: string, summary: string): JsonObject {
  return new Map<string, JsonValue>([["fleet_id", fleetId], ["summary", summary], ["authority_status", nonAuthoritative]]);
}

export function agentEnrolledPayload(fleetId: string, agentId: string, trustTier: TrustTier): JsonObject {
  return new Map<string, JsonValue>([["fleet_id", fleetId], ["agent_id", agentId], ["trust_tier", trustTier], ["authority_status", nonAuthoritative]]);
}

export function trustAssignedPayload(fleetId: string, agentId: string, trustTier: TrustTier, priorTier: TrustTier, rationale?: string): JsonObject {
  const payload = new Map<string, JsonValue>([
    ["fleet_id", fleetId],
    ["agent_id", agentId],
    ["trust_tier", trustTier],
    ["prior_tier", priorTier],
    ["authority_status", nonAuthoritative],
  ]);
  if (rationale !== undefined) payload.set("rationale", rationale);
  return payload;
}

/** The kind-specific fields of a promotion, already validated. */
export type PromotionSubject =
  | { kind: "skill"; skillId: string; skillVersion: string; keystone: boolean }
  | { kind: "outcome"; outcome: string; summary: string; claimKey?: string }
  | { kind: "rule"; ruleId: string; rule: string; trigger: string; keystone: boolean };

export interface PromotionRecordFields {
  promotionId: string;
  fleetId: string;
  subject: PromotionSubject;
  originSession: string;
  originActor: string;
  visibilityScope: VisibilityScope;
  confidence: number;
  sourceEvents: readonly SourceEventRef[];
  gateEvent: SourceEventRef;
  reviewStatus: "active" | "pending";
}

/** `fleet.skill.promoted`, `fleet.outcome.propagated` or `fleet.rule.propagated`. */
export function promotionPayload(fields: PromotionRecordFields): JsonObject {
  const payload = new Map<string, JsonValue>([["promotion_id", fields.promotionId], ["fleet_id", fields.fleetId]]);
  const subject = fields.subject;
  if (subject.kind === "skill") {
    payload.set("skill_id", subject.skillId);
    payload.set("skill_version", subject.skillVersion);
  } else if (subject.kind === "outcome") {
    payload.set("outcome", subject.outcome);
    payload.set("summary", subject.summary);
  } else {
    payload.set("rule_id", subject.ruleId);
    payload.set("rule", subject.rule);
    payload.set("trigger", subject.trigger);
  }
  payload.set("origin_session", fields.originSession);
  payload.set("origin_actor", fields.originActor);
  payload.set("visibility_scope", fields.visibilityScope);
  payload.set("confidence", JsonNumber.float(fields.confidence));
  payload.set("source_events", sourceEventsJson(fields.sourceEvents));
  payload.set("gate_event", sourceEventRefJson(fields.gateEvent));
  payload.set("review_status", fields.reviewStatus);
  if (subject.kind !== "outcome") payload.set("keystone", subject.keystone);
  payload.set("authority_status", nonAuthoritative);
  if (subject.kind === "outcome" && subject.claimKey !== undefined) payload.set("claim_key", subject.claimKey);
  return payload;
}

export function promotionReviewedPayload(fleetId: string, promotionId: string, decision: ReviewDecision, sourceEvents: readonly SourceEventRef[], rationale?: string): JsonObject {
  const payload = new Map<string, JsonValue>([
    ["promotion_id", promotionId],
    ["fleet_id", fleetId],
    ["decision", decision],
    ["source_events", sourceEventsJson(sourceEvents)],
    ["authority_status", nonAuthoritative],
  ]);
  if (rationale !== undefined) payload.set("rationale", rationale);
  return payload;
}

export function promotionRolledBackPayload(
  fleetId: string,
  promotionId: string,
  reason: string,
  withinRollbackWindow: boolean,
  sourceEvents: readonly SourceEventRef[],
  gateEvent: SourceEventRef | null,
): JsonObject {
  const payload = new Map<string, JsonValue>([
    ["promotion_id", promotionId],
    ["fleet_id", fleetId],
    ["reason", reason],
    ["within_rollback_window", withinRollbackWindow],
    ["source_events", sourceEventsJson(sourceEvents)],
    ["authority_status", nonAuthoritative],
  ]);
  if (gateEvent !== null) payload.set("gate_event", sourceEventRefJson(gateEvent));
  return payload;
}

/** What a supersession is about: the contested claim key, or the skill id. */
export type SupersessionSubject = { claimKey: string } | { skillId: string };

export function memorySupersededPayload(
  fleetId: string,
  supersededPromotionId: string,
  supersedingPromotionId: string,
  reason: string,
  sourceEvents: readonly SourceEventRef[],
  subject: SupersessionSubject,
): JsonObject {
  const payload = new Map<string, JsonValue>([
    ["fleet_id", fleetId],
    ["superseded_promotion_id", supersededPromotionId],
    ["superseding_promotion_id", supersedingPromotionId],
    ["reason", reason],
    ["source_events", sourceEventsJson(sourceEvents)],
    ["authority_status", nonAuthoritative],
  ]);
  if ("claimKey" in subject) payload.set("claim_key", subject.claimKey);
  else payload.set("skill_id", subject.skillId);
  return payload;
}

/** The entity type a gate candidate_ref names for a promotion of `kind` (`fleet.outcome`, …). */
export function promotionEntityType(kind: PromotionKind): string {
  return `fleet.${kind}`;
}

/** Plain JSON for output documents. */
export function plainSourceEvents(sourceEvents: readonly SourceEventRef[]): Array<{ seq: number; hash: string }> {
  return sourceEvents.map((ref) => ({ seq: ref.seq, hash: ref.hash }));
}
