/**
 * The promotion algorithm (DESIGN §10; reference §5.4 `_propose`), decided and appended under
 * the fleet thread's exclusive lock so every decision is made on the state it appends to:
 *
 * 1. Trust: the actor must be enrolled with a tier whose ceiling reaches the requested scope.
 *    A rejection appends nothing at all (not even a gate event).
 * 2. Idempotency: a promotion_id already recorded is returned as it stands; nothing appended.
 * 3. The evolution gate (op `promote`) decides auto-apply or review under the root's policy.
 * 4. An auto-applied promotion that conflicts with an active keystone is held `pending`.
 * 5. The gate event is appended first, then the promotion citing it and its source events.
 * 6. An auto-applied promotion supersedes each conflicting active non-keystone memory with an
 *    additive `fleet.memory.superseded` (sorted by promotion_id) citing both promotion events.
 *
 * @example
 * const result = await promote(".eventloom", "outcome", {
 *   fleetId: "alpha", actor: "agent-1", originSession: "agent-1",
 *   sourceEvents: [{ seq: 3, hash: "…" }], confidence: 0.95,
 *   outcome: "failure", summary: "JWKS cache expiry caused the auth failure", claimKey: "auth.failure.cause",
 * });
 * result.review_status; // "active"
 */
import { fromJs, type JsonObject, JsonNumber, toJs } from "../canonical/mod.ts";
import { inputError } from "../errors.ts";
import { type AppendedEvent, type AppendItem, type PlannedItem } from "../eventloom/append.ts";
import { appendEvents, appendPlanned } from "../events/append.ts";
import { citationUri, type SourceEventRef, validateSessionId } from "../eventloom/root.ts";
import type { MicrosClock } from "../eventloom/timestamp.ts";
import { type EvolutionPolicy, evaluateEvolutionGate, gateEventPayload, gateEventType, parseUnitInterval, resolveEvolutionPolicy } from "../governance/evolutionGate.ts";
import { requireFleetLog, requireSealedSources, unknownFleet } from "./fleetLog.ts";
import { fleetPromotionId, fleetRuleId, fleetThread, validateFleetId } from "./ids.ts";
import { promotionEntityType, promotionPayload, type PromotionSubject } from "./payloads.ts";
import { activeConflicts, type FleetPromotion, type FleetState, type PlainJson, summarizeFleetEvents } from "./replay.ts";
import { supersessionItem } from "./supersession.ts";
import {
  defaultPromotionScope,
  maxProposableScope,
  nonAuthoritative,
  parsePromotionKind,
  parsePromotionScope,
  promotionEventType,
  type PromotionKind,
  promotionRefusedEventType,
  promoteOp,
  scopePermits,
  type TrustTier,
  trustTiers,
  type VisibilityScope,
} from "./vocabulary.ts";
import { requireAgentId, requireFleetText, requireSourceRefs } from "./validate.ts";

/** The fields of a promotion; which kind-specific ones are required depends on the kind. */
export interface PromotionInput {
  fleetId: string;
  /** The enrolled agent proposing the promotion (and the gate and promotion events' actor). */
  actor: string;
  /** The session whose sealed events justify it. */
  originSession: string;
  /** The agent that learned it; default `actor`. */
  originActor?: string;
  sourceEvents: readonly SourceEventRef[];
  confidence: number;
  /** fleet (default) or global. */
  visibilityScope?: string;
  /** Skill and rule promotions only. */
  keystone?: boolean;
  skillId?: string;
  skillVersion?: string;
  /** Outcome: success, failure or partial. */
  outcome?: string;
  summary?: string;
  claimKey?: string;
  rule?: string;
  trigger?: string;
}

export interface FleetWriteOptions {
  clock?: MicrosClock;
  lockWaitMs?: number;
  /** The gate policy; default `resolveEvolutionPolicy(root)` (config.json, env). */
  policy?: EvolutionPolicy;
  /** Check that the source events are sealed events of the origin session (default true). */
  verifySources?: boolean;
  /**
   * The proposer's own session, where a trust refusal is recorded as `fleet.promotion.refused`
   * (the fleet thread never is); default the origin session.
   */
  refusalSessionId?: string;
}

/** Python's `FleetPromotionResult.to_dict()`, plus `idempotent` and the promotion's `citation`. */
export interface PromotionResult {
  [key: string]: PlainJson;
  fleet_id: string;
  kind: PromotionKind;
  promotion_id: string;
  rejected: boolean;
  idempotent: boolean;
  reason: string;
  review_status: string | null;
  auto_applied: boolean;
  actor: string;
  gate_event: { seq: number; hash: string } | null;
  promotion_event: { seq: number; hash: string } | null;
  citation: string | null;
  supersessions: Array<{ superseded_promotion_id: string; superseding_promotion_id: string; event_seq: number; event_hash: string }>;
  gate_decision: { [key: string]: PlainJson } | null;
  /** A trust refusal's audit record in the proposer's session; null unless rejected. */
  refusal_event: { session_id: string; seq: number; hash: string; citation: string } | null;
}

export const promotionOutcomes = ["success", "failure", "partial"] as const;

interface ValidPromotion {
  fleetId: string;
  kind: PromotionKind;
  actor: string;
  originSession: string;
  originActor: string;
  sourceEvents: SourceEventRef[];
  confidence: number;
  scope: VisibilityScope;
  subject: PromotionSubject;
  summary: string;
  conflictKey: string | null;
  conflictValue: string | null;
  promotionId: string;
}

function validate(kindValue: string, input: PromotionInput): ValidPromotion {
  const kind = parsePromotionKind(kindValue);
  const fleetId = validateFleetId(input.fleetId);
  const actor = requireAgentId(input.actor, "actor");
  const originSession = requireFleetText(input.originSession, "origin_session");
  validateSessionId(originSession, "cite");
  const originActor = input.originActor === undefined ? actor : requireAgentId(input.originActor, "origin_actor");
  const sourceEvents = requireSourceRefs(input.sourceEvents);
  const confidence = parseUnitInterval(input.confidence, "confidence");
  const scope = parsePromotionScope(input.visibilityScope ?? defaultPromotionScope);
  const keystone = input.keystone === true;
  if (kind === "outcome" && input.keystone === true) {
    throw inputError("invalid_fleet_request", "keystone applies to skill and rule promotions only", { field: "keystone" });
  }
  let subject: PromotionSubject;
  let summary: string;
  let conflictKey: string | null;
  let conflictValue: string;
  if (kind === "skill") {
    const skillId = requireFleetText(input.skillId, "skill_id");
    const skillVersion = requireFleetText(input.skillVersion, "skill_version");
    subject = { kind, skillId, skillVersion, keystone };
    summary = `skill ${skillId}@${skillVersion}`;
    conflictKey = `skill:${skillId}`;
    conflictValue = skillVersion;
  } else if (kind === "outcome") {
    const outcome = requireFleetText(input.outcome, "outcome");
    if (!(promotionOutcomes as readonly string[]).includes(outcome)) {
      throw inputError("invalid_fleet_request", `outcome must be one of: ${promotionOutcomes.join(", ")} (got ${JSON.stringify(outcome)})`, {
        field: "outcome",
        expected: promotionOutcomes.join(", "),
      });
    }
    summary = requireFleetText(input.summary, "summary");
    const claimKey = input.claimKey === undefined ? undefined : requireFleetText(input.claimKey, "claim_key");
    subject = { kind, outcome, summary, claimKey };
    conflictKey = claimKey ?? null;
    conflictValue = outcome;
  } else {
    const rule = requireFleetText(input.rule, "rule");
    const trigger = requireFleetText(input.trigger, "trigger");
    subject = { kind, ruleId: fleetRuleId(rule, trigger, sourceEvents), rule, trigger, keystone };
    summary = rule;
    conflictKey = `rule:${trigger}`;
    conflictValue = rule;
  }
  return {
    fleetId,
    kind,
    actor,
    originSession,
    originActor,
    sourceEvents,
    confidence,
    scope,
    subject,
    summary,
    conflictKey,
    conflictValue,
    promotionId: fleetPromotionId(fleetId, kind, originSession, sourceEvents),
  };
}

/** Python's rejection text, e.g. `insufficient trust: actor 'bob' (tier 'member') may not propose visibility_scope 'global'; max proposable scope is 'fleet'`. */
export function insufficientTrustReason(actor: string, tier: string | undefined, scope: string): string {
  const label = tier === undefined ? "not enrolled" : `tier '${tier}'`;
  const ceiling = tier === undefined ? "none" : maxProposableScope[tier as keyof typeof maxProposableScope];
  return `insufficient trust: actor '${actor}' (${label}) may not propose visibility_scope '${scope}'; max proposable scope is '${ceiling}'`;
}

export const keystoneHoldReason = "held pending steward review: conflicts with an active keystone";

function baseResult(p: ValidPromotion): PromotionResult {
  return {
    fleet_id: p.fleetId,
    kind: p.kind,
    promotion_id: p.promotionId,
    rejected: false,
    idempotent: false,
    reason: "",
    review_status: null,
    auto_applied: false,
    actor: p.actor,
    gate_event: null,
    promotion_event: null,
    citation: null,
    supersessions: [],
    gate_decision: null,
    refusal_event: null,
  };
}

function idempotentResult(p: ValidPromotion, existing: FleetPromotion): PromotionResult {
  const thread = fleetThread(p.fleetId);
  return {
    ...baseResult(p),
    idempotent: true,
    reason: `idempotent: promotion ${p.promotionId} is already recorded (status ${existing.reviewStatus})`,
    review_status: existing.reviewStatus,
    auto_applied: existing.initialStatus === "active",
    actor: existing.actor,
    gate_event: existing.gateEvent === null ? null : { seq: existing.gateEvent.seq, hash: existing.gateEvent.hash },
    promotion_event: { seq: existing.event.seq, hash: existing.event.hash },
    citation: citationUri(thread, existing.event.seq, existing.event.hash),
  };
}

/**
 * Proposes a promotion of `kind` (skill, outcome, rule) into a fleet. Bad input throws (exit
 * 2) before anything is read or written; a trust rejection is returned with `rejected: true`
 * (the CLI exits 1) and writes nothing.
 */
export async function promote(root: string, kind: string, input: PromotionInput, options: FleetWriteOptions = {}): Promise<PromotionResult> {
  const p = validate(kind, input);
  if (options.verifySources !== false) await requireSealedSources(root, p.originSession, p.sourceEvents);
  requireFleetLog(root, p.fleetId);
  const policy = options.policy ?? resolveEvolutionPolicy(root);
  let result = baseResult(p);
  const thread = fleetThread(p.fleetId);
  const refusalSessionId = options.refusalSessionId ?? p.originSession;
  validateSessionId(refusalSessionId, "append to");
  // Filled in by the plan when the trust check refuses (the plan runs under the fleet lock).
  const seen: { refusal?: RefusalFacts } = {};
  const appended = await appendPlanned<string>(
    root,
    thread,
    (existing) => {
      const state: FleetState = summarizeFleetEvents(p.fleetId, existing);
      if (!state.created) throw unknownFleet(p.fleetId);
      const tier = state.agents.get(p.actor);
      if (tier === undefined || !scopePermits(tier, p.scope)) {
        const head = existing.at(-1);
        seen.refusal = { actualTier: tier ?? null, fleetHead: head === undefined ? null : { seq: head.seq, hash: head.hash } };
        return { rejected: insufficientTrustReason(p.actor, tier, p.scope) };
      }
      const already = state.promotions.get(p.promotionId);
      if (already !== undefined) {
        result = idempotentResult(p, already);
        return [];
      }
      const decision = evaluateEvolutionGate(promoteOp, p.confidence, policy);
      const gatePayload = gateEventPayload(decision, {
        candidate_id: p.promotionId,
        seq: p.sourceEvents[0].seq,
        hash: p.sourceEvents[0].hash,
        name: p.summary,
        entity_type: promotionEntityType(p.kind),
      });
      const conflicts = activeConflicts(state, p.promotionId, p.conflictKey, p.conflictValue);
      const keystoneHold = decision.auto_apply && conflicts.some((c) => c.keystone);
      const active = decision.auto_apply && !keystoneHold;
      result.gate_decision = toJs(gatePayload) as { [key: string]: PlainJson };
      result.auto_applied = active;
      result.review_status = active ? "active" : "pending";
      result.reason = keystoneHold ? keystoneHoldReason : decision.reason;
      const items: PlannedItem[] = [
        { type: gateEventType, actor: p.actor, payload: gatePayload },
        (sealed: readonly AppendedEvent[]): AppendItem => ({
          type: promotionEventType[p.kind],
          actor: p.actor,
          payload: promotionPayload({
            promotionId: p.promotionId,
            fleetId: p.fleetId,
            subject: p.subject,
            originSession: p.originSession,
            originActor: p.originActor,
            visibilityScope: p.scope,
            confidence: p.confidence,
            sourceEvents: p.sourceEvents,
            gateEvent: { seq: sealed[0].seq, hash: sealed[0].hash },
            reviewStatus: active ? "active" : "pending",
          }),
        }),
      ];
      if (active) {
        for (const loser of conflicts) {
          items.push((sealed) => supersessionItem(p.fleetId, p.actor, loser, { promotionId: p.promotionId, kind: p.kind, conflictKey: p.conflictKey as string, event: sealed[1] }));
        }
      }
      return items;
    },
    { clock: options.clock, lockWaitMs: options.lockWaitMs },
  );
  if (appended.rejection !== undefined) {
    // Audited, never on the fleet thread (design I7 §1b): the proposer's own log keeps the attempt.
    const facts = seen.refusal;
    if (facts === undefined) throw new Error("promote: a rejection without the trust check's facts");
    const recorded = await appendEvents(root, refusalSessionId, [{
      type: promotionRefusedEventType,
      actor: p.actor,
      payload: refusalPayload(p, facts, appended.rejection),
    }], { clock: options.clock, lockWaitMs: options.lockWaitMs });
    const event = recorded.events[0];
    return {
      ...result,
      rejected: true,
      reason: appended.rejection,
      refusal_event: { session_id: refusalSessionId, seq: event.seq, hash: event.hash, citation: event.citation },
    };
  }
  if (appended.events.length === 0) return result;
  const [gate, promotion, ...supersessions] = appended.events;
  return {
    ...result,
    gate_event: { seq: gate.seq, hash: gate.hash },
    promotion_event: { seq: promotion.seq, hash: promotion.hash },
    citation: promotion.citation,
    supersessions: supersessions.map((event) => ({
      superseded_promotion_id: stringAt(event, appended.records, "superseded_promotion_id"),
      superseding_promotion_id: p.promotionId,
      event_seq: event.seq,
      event_hash: event.hash,
    })),
  };
}

/** What the trust check saw when it refused: the actor's tier and the fleet thread's head. */
interface RefusalFacts {
  actualTier: TrustTier | null;
  fleetHead: { seq: number; hash: string } | null;
}

/**
 * The record of a refused promotion: which fleet, promotion, kind and scope were attempted, the
 * cited evidence (`{seq, hash}` of the origin session), the tier the scope needs and the tier
 * the actor had (null: not enrolled), and the fleet head the decision was made on.
 */
function refusalPayload(p: ValidPromotion, facts: RefusalFacts, reason: string): JsonObject {
  const payload = fromJs({
    fleet_id: p.fleetId,
    fleet_thread: fleetThread(p.fleetId),
    promotion_id: p.promotionId,
    kind: p.kind,
    agent_id: p.actor,
    origin_session: p.originSession,
    origin_actor: p.originActor,
    // Not `visibility_scope`: this record stays in its session; it never opts into a fleet lane.
    requested_scope: p.scope,
    confidence: p.confidence,
    summary: p.summary,
    source_events: p.sourceEvents.map((ref) => ({ seq: ref.seq, hash: ref.hash })),
    required_tier: leastTierFor(p.scope),
    actual_tier: facts.actualTier,
    fleet_head: facts.fleetHead,
    reason,
    authority_status: nonAuthoritative,
  }) as JsonObject;
  // A float, as every fleet confidence is written (`1.0`, not `1`).
  payload.set("confidence", JsonNumber.float(p.confidence));
  return payload;
}

/** The least trusted tier whose ceiling reaches `scope`. */
function leastTierFor(scope: VisibilityScope): TrustTier {
  return trustTiers.find((tier) => scopePermits(tier, scope)) as TrustTier;
}

function stringAt(event: AppendedEvent, records: readonly { seq: number; payload: JsonObject }[], key: string): string {
  const record = records.find((r) => r.seq === event.seq);
  const value = record?.payload.get(key);
  return typeof value === "string" ? value : "";
}
