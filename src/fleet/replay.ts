/**
 * Fleet state is a pure replay of the fleet thread (reference §5.4 "summarize_fleet_events"):
 * nothing about a fleet is stored anywhere else, so deleting every derived file loses nothing.
 *
 * - `fleet.created` gives the summary and creator; enrolment and `fleet.trust.assigned` give
 *   each agent's latest tier (enrolment order kept).
 * - The first promotion event per promotion_id is canonical; later duplicates are inert (they
 *   never demote, never revert a steward's acceptance). Its initial status is `active` only
 *   when its payload says so, else `pending`.
 * - Reviews: accepted → active, rejected → rejected, deferred → deferred.
 * - `fleet.memory.superseded` marks the older memory `superseded` and remembers the winner;
 *   `fleet.promotion.rolled_back` marks a promotion `rolled_back` and re-activates every memory
 *   that it had superseded (additive: nothing is ever deleted).
 * Events of other types (the gate events) and malformed fleet events are ignored.
 *
 * Authority: the thread is written only by the fleet commands, which check who may act. The
 * replay applies the same checks, on the state it has folded so far, and an event that fails
 * them is not folded but listed in `unauthorised` (docs/fleet.md, "Events the fleet commands
 * did not write"): an enrolment or trust change by an actor who was not a steward (an empty
 * fleet takes its first agent on trust), a second `fleet.created`, a promotion by an actor not
 * enrolled or above its tier's scope ceiling, a review by a non-steward, a rollback by neither a
 * steward nor the proposer, a supersession by an actor not enrolled, and a `fleet.*` type the
 * commands never write to a fleet thread. Such events can only come from an older zaxy whose
 * plain append accepted them, or from another writer; the log still verifies, and `fleet
 * audit` reports them.
 */
import { isJsonObject, JsonNumber, type JsonObject, type JsonValue } from "../canonical/mod.ts";
import { citationUri, type SourceEventRef } from "../eventloom/root.ts";
import type { EventRecord } from "../eventloom/envelope.ts";
import {
  fleetEventTypes,
  kindOfPromotionEvent,
  maxProposableScope,
  type PromotionKind,
  type ReviewStatus,
  scopeRank,
  type TrustTier,
  trustTiers,
  type VisibilityScope,
  visibilityScopes,
} from "./vocabulary.ts";

export interface FleetPromotion {
  promotionId: string;
  kind: PromotionKind;
  fleetId: string;
  /** Who proposed it (the promotion event's actor). */
  actor: string;
  originActor: string;
  originSession: string;
  visibilityScope: string;
  confidence: number | null;
  sourceEvents: SourceEventRef[];
  gateEvent: SourceEventRef | null;
  initialStatus: ReviewStatus;
  reviewStatus: ReviewStatus;
  keystone: boolean;
  /** Skill `skill <id>@<version>`, outcome summary, rule text. */
  summary: string;
  /** Skill `skill:<id>`, outcome claim_key, rule `rule:<trigger>`; null when it cannot conflict. */
  conflictKey: string | null;
  /** Skill version, outcome, rule text. */
  conflictValue: string | null;
  /** The promotion event in the fleet thread. */
  event: { seq: number; hash: string; timestamp: string };
  /** The promotion that superseded this one while it is `superseded`. */
  supersededBy: string | null;
  /** The kind-specific payload fields (skill_id, skill_version, outcome, claim_key, rule_id, rule, trigger). */
  fields: { [key: string]: string };
}

export interface FleetState {
  fleetId: string;
  created: boolean;
  summary: string | null;
  createdActor: string | null;
  /** Latest tier per agent, in enrolment order. */
  agents: Map<string, TrustTier>;
  /** Canonical promotions in the order they were first recorded. */
  promotions: Map<string, FleetPromotion>;
  eventCount: number;
  head: SourceEventRef | null;
  /** Fleet events the replay did not fold because their actor lacked the authority the fleet commands require. */
  unauthorised: UnauthorisedFleetEvent[];
}

/** A fleet event no fleet command would have written at that point of the thread. */
export interface UnauthorisedFleetEvent {
  seq: number;
  hash: string;
  event_type: string;
  actor: string;
  reason: string;
}

const knownFleetTypes: ReadonlySet<string> = new Set(Object.values(fleetEventTypes));

function notSteward(state: FleetState, actor: string, action: string): string | undefined {
  const tier = state.agents.get(actor);
  return tier === "steward" ? undefined : `actor '${actor}' (${tier === undefined ? "not enrolled" : `tier '${tier}'`}) may not ${action}: only a steward may`;
}

/** Why the fleet commands would not have written `event` on `state`, or undefined when they would. */
function authorityProblem(state: FleetState, event: EventRecord): string | undefined {
  const type = event.type;
  if (!type.startsWith("fleet.")) return undefined;
  if (!knownFleetTypes.has(type)) return `${type} is not an event the fleet commands write to a fleet thread`;
  if (type === fleetEventTypes.created) return state.created ? "the fleet already exists" : undefined;
  if (!state.created) return `no fleet.created precedes it`;
  const actor = event.actor;
  switch (type) {
    case fleetEventTypes.agentEnrolled:
      if (state.agents.size > 0) return notSteward(state, actor, "enroll agents");
      return undefined;
    case fleetEventTypes.trustAssigned:
      return notSteward(state, actor, "assign trust");
    case fleetEventTypes.promotionReviewed:
      return notSteward(state, actor, "review promotions");
    case fleetEventTypes.promotionRolledBack: {
      const promotion = state.promotions.get(text(event.payload, "promotion_id") ?? "");
      if (promotion !== undefined && promotion.actor === actor) return undefined;
      return notSteward(state, actor, "roll back a promotion it did not propose");
    }
    case fleetEventTypes.memorySuperseded:
      return state.agents.has(actor) ? undefined : `actor '${actor}' is not enrolled in the fleet`;
    default: {
      const tier = state.agents.get(actor);
      if (tier === undefined) return `actor '${actor}' is not enrolled in the fleet`;
      const scope = text(event.payload, "visibility_scope");
      if (scope !== undefined && (visibilityScopes as readonly string[]).includes(scope) && scopeRank(scope as VisibilityScope) > scopeRank(maxProposableScope[tier])) {
        return `actor '${actor}' (tier '${tier}') may not promote to scope '${scope}': its ceiling is '${maxProposableScope[tier]}'`;
      }
      return undefined;
    }
  }
}

function text(payload: JsonObject, key: string): string | undefined {
  const value = payload.get(key);
  return typeof value === "string" ? value : undefined;
}

function ref(value: JsonValue | undefined): SourceEventRef | null {
  if (!isJsonObject(value)) return null;
  const seq = value.get("seq");
  const hash = value.get("hash");
  if (!(seq instanceof JsonNumber) || seq.isFloat || typeof hash !== "string") return null;
  const n = Number(seq.lexeme);
  return Number.isSafeInteger(n) && n >= 1 ? { seq: n, hash } : null;
}

function refs(value: JsonValue | undefined): SourceEventRef[] {
  if (!Array.isArray(value)) return [];
  return value.map(ref).filter((r): r is SourceEventRef => r !== null);
}

function isTier(value: string | undefined): value is TrustTier {
  return value !== undefined && (trustTiers as readonly string[]).includes(value);
}

const kindFieldKeys: Record<PromotionKind, string[]> = {
  skill: ["skill_id", "skill_version"],
  outcome: ["outcome", "summary", "claim_key"],
  rule: ["rule_id", "rule", "trigger"],
};

function promotionFrom(event: EventRecord, kind: PromotionKind, fallbackFleetId: string): FleetPromotion | null {
  const payload = event.payload;
  const promotionId = text(payload, "promotion_id");
  if (promotionId === undefined) return null;
  const fields: { [key: string]: string } = {};
  for (const key of kindFieldKeys[kind]) {
    const value = text(payload, key);
    if (value !== undefined) fields[key] = value;
  }
  let summary: string;
  let conflictKey: string | null;
  let conflictValue: string | null;
  if (kind === "skill") {
    summary = `skill ${fields.skill_id ?? ""}@${fields.skill_version ?? ""}`;
    conflictKey = fields.skill_id === undefined ? null : `skill:${fields.skill_id}`;
    conflictValue = fields.skill_version ?? null;
  } else if (kind === "outcome") {
    summary = fields.summary ?? "";
    conflictKey = fields.claim_key ?? null;
    conflictValue = fields.outcome ?? null;
  } else {
    summary = fields.rule ?? "";
    conflictKey = fields.trigger === undefined ? null : `rule:${fields.trigger}`;
    conflictValue = fields.rule ?? null;
  }
  const confidence = payload.get("confidence");
  const status: ReviewStatus = text(payload, "review_status") === "active" ? "active" : "pending";
  return {
    promotionId,
    kind,
    fleetId: text(payload, "fleet_id") ?? fallbackFleetId,
    actor: event.actor,
    originActor: text(payload, "origin_actor") ?? event.actor,
    originSession: text(payload, "origin_session") ?? "",
    visibilityScope: text(payload, "visibility_scope") ?? "",
    confidence: confidence instanceof JsonNumber ? confidence.toNumber() : null,
    sourceEvents: refs(payload.get("source_events")),
    gateEvent: ref(payload.get("gate_event")),
    initialStatus: status,
    reviewStatus: status,
    keystone: payload.get("keystone") === true,
    summary,
    conflictKey,
    conflictValue,
    event: { seq: event.seq, hash: event.hash, timestamp: event.timestamp },
    supersededBy: null,
    fields,
  };
}

const reviewOutcome: Record<string, ReviewStatus> = { accepted: "active", rejected: "rejected", deferred: "deferred" };

/**
 * Folds a fleet thread's events into its state. Pure: the same events always give the same
 * state.
 *
 * @example
 * const state = summarizeFleetEvents("alpha", events);
 * [...state.promotions.values()].filter((p) => p.reviewStatus === "active");
 */
export function summarizeFleetEvents(fleetId: string, events: readonly EventRecord[]): FleetState {
  const state: FleetState = {
    fleetId,
    created: false,
    summary: null,
    createdActor: null,
    agents: new Map(),
    promotions: new Map(),
    eventCount: events.length,
    head: events.length === 0 ? null : { seq: events[events.length - 1].seq, hash: events[events.length - 1].hash },
    unauthorised: [],
  };
  for (const event of events) {
    const payload = event.payload;
    const problem = authorityProblem(state, event);
    if (problem !== undefined) {
      state.unauthorised.push({ seq: event.seq, hash: event.hash, event_type: event.type, actor: event.actor, reason: problem });
      continue;
    }
    switch (event.type) {
      case fleetEventTypes.created:
        if (!state.created) {
          state.created = true;
          state.summary = text(payload, "summary") ?? null;
          state.createdActor = event.actor;
        }
        break;
      case fleetEventTypes.agentEnrolled:
      case fleetEventTypes.trustAssigned: {
        const agent = text(payload, "agent_id");
        const tier = text(payload, "trust_tier");
        if (agent !== undefined && isTier(tier)) state.agents.set(agent, tier);
        break;
      }
      case fleetEventTypes.promotionReviewed: {
        const promotion = state.promotions.get(text(payload, "promotion_id") ?? "");
        const status = reviewOutcome[text(payload, "decision") ?? ""];
        if (promotion !== undefined && status !== undefined) {
          promotion.reviewStatus = status;
          promotion.supersededBy = null;
        }
        break;
      }
      case fleetEventTypes.memorySuperseded: {
        const loser = state.promotions.get(text(payload, "superseded_promotion_id") ?? "");
        const winner = text(payload, "superseding_promotion_id");
        if (loser !== undefined && winner !== undefined) {
          loser.reviewStatus = "superseded";
          loser.supersededBy = winner;
        }
        break;
      }
      case fleetEventTypes.promotionRolledBack: {
        const id = text(payload, "promotion_id");
        const promotion = state.promotions.get(id ?? "");
        if (promotion === undefined) break;
        promotion.reviewStatus = "rolled_back";
        promotion.supersededBy = null;
        for (const other of state.promotions.values()) {
          if (other.reviewStatus === "superseded" && other.supersededBy === id) {
            other.reviewStatus = "active";
            other.supersededBy = null;
          }
        }
        break;
      }
      default: {
        const kind = kindOfPromotionEvent(event.type);
        if (kind === undefined) break;
        const promotion = promotionFrom(event, kind, fleetId);
        // First record wins: a duplicate is inert and can never demote or revert a review.
        if (promotion !== null && !state.promotions.has(promotion.promotionId)) state.promotions.set(promotion.promotionId, promotion);
      }
    }
  }
  return state;
}

/** Active promotions that conflict with a memory keyed `conflictKey` holding `conflictValue`. */
export function activeConflicts(state: FleetState, promotionId: string, conflictKey: string | null, conflictValue: string | null): FleetPromotion[] {
  if (conflictKey === null) return [];
  return [...state.promotions.values()]
    .filter((p) => p.promotionId !== promotionId && p.reviewStatus === "active" && p.conflictKey === conflictKey && p.conflictValue !== conflictValue)
    .sort((a, b) => (a.promotionId < b.promotionId ? -1 : a.promotionId > b.promotionId ? 1 : 0));
}

export type PlainJson = null | boolean | number | string | PlainJson[] | { [key: string]: PlainJson };

/** One promotion as plain JSON (status, brief and MCP output). */
export function promotionJson(promotion: FleetPromotion, thread: string): { [key: string]: PlainJson } {
  return {
    promotion_id: promotion.promotionId,
    kind: promotion.kind,
    review_status: promotion.reviewStatus,
    summary: promotion.summary,
    visibility_scope: promotion.visibilityScope,
    confidence: promotion.confidence,
    keystone: promotion.keystone,
    actor: promotion.actor,
    origin_actor: promotion.originActor,
    origin_session: promotion.originSession,
    conflict_key: promotion.conflictKey,
    superseded_by: promotion.supersededBy,
    ...promotion.fields,
    source_events: promotion.sourceEvents.map((r) => ({ seq: r.seq, hash: r.hash })),
    gate_event: promotion.gateEvent === null ? null : { seq: promotion.gateEvent.seq, hash: promotion.gateEvent.hash },
    promotion_event: { seq: promotion.event.seq, hash: promotion.event.hash },
    timestamp: promotion.event.timestamp,
    citation: citationUri(thread, promotion.event.seq, promotion.event.hash),
  };
}
