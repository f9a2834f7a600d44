/**
 * Steward review and rollback of promotions. A review is a disposition (accepted → active,
 * rejected, deferred), never a promotion to truth; accepting supersedes conflicting active
 * non-keystone memories additively. A rollback marks the promotion `rolled_back`; replay then
 * re-activates whatever it had superseded. Both are decided under the fleet thread's lock.
 */
import { inputError } from "../errors.ts";
import { appendedEventJson, type AppendedEventJson, type PlannedItem } from "../eventloom/append.ts";
import { appendPlanned } from "../events/append.ts";
import type { SourceEventRef } from "../eventloom/root.ts";
import { systemClock, timestampMicros } from "../eventloom/timestamp.ts";
import { type EvolutionPolicy, resolveEvolutionPolicy } from "../governance/evolutionGate.ts";
import { requireFleetLog, unknownFleet } from "./fleetLog.ts";
import { fleetThread, promotionIdPattern, validateFleetId } from "./ids.ts";
import type { MembershipOptions } from "./membership.ts";
import { promotionReviewedPayload, promotionRolledBackPayload } from "./payloads.ts";
import { activeConflicts, type FleetPromotion, type FleetState, type PlainJson, summarizeFleetEvents } from "./replay.ts";
import { supersessionItem } from "./supersession.ts";
import { fleetEventTypes, parseReviewDecision, type ReviewStatus } from "./vocabulary.ts";
import { requireAgentId, requireFleetText } from "./validate.ts";

/** Statuses a review may change: a memory waiting for (or deferred by) a steward. */
export const reviewableStatuses: readonly ReviewStatus[] = ["pending", "deferred"];

export interface LifecycleResult {
  [key: string]: PlainJson;
  fleet_id: string;
  promotion_id: string;
  refused: boolean;
  reason: string;
  review_status: string | null;
  events: AppendedEventJson[];
}

function requirePromotionId(value: unknown): string {
  const id = requireFleetText(value, "promotion_id");
  if (!promotionIdPattern.test(id)) {
    throw inputError("invalid_promotion_id", `promotion_id ${JSON.stringify(id)} is not a promotion id`, { field: "promotion_id", expected: "fleetpromo:<24 lowercase hex>" });
  }
  return id;
}

function findPromotion(state: FleetState, promotionId: string): FleetPromotion {
  if (!state.created) throw unknownFleet(state.fleetId);
  const promotion = state.promotions.get(promotionId);
  if (promotion === undefined) {
    throw inputError("unknown_promotion", `Unknown promotion ${promotionId} in fleet ${JSON.stringify(state.fleetId)}`, {
      field: "promotion_id",
      hint: `list promotions with \`zaxy fleet status ${state.fleetId} --json\``,
    });
  }
  return promotion;
}

const reviewStatusOf = { accepted: "active", rejected: "rejected", deferred: "deferred" } as const;

/**
 * A steward's review of a pending or deferred promotion. `accepted` makes it active and
 * supersedes conflicting active non-keystone memories (each citing the loser's and the accepted
 * promotion's events).
 */
export async function reviewPromotion(
  root: string,
  input: { fleetId: string; promotionId: string; decision: string; actor: string; rationale?: string },
  options: MembershipOptions = {},
): Promise<LifecycleResult> {
  const fleetId = validateFleetId(input.fleetId);
  const promotionId = requirePromotionId(input.promotionId);
  const decision = parseReviewDecision(input.decision);
  const actor = requireAgentId(input.actor, "actor");
  const rationale = input.rationale === undefined ? undefined : requireFleetText(input.rationale, "rationale");
  requireFleetLog(root, fleetId);
  const result = await appendPlanned<string>(root, fleetThread(fleetId), (existing) => {
    const state = summarizeFleetEvents(fleetId, existing);
    const promotion = findPromotion(state, promotionId);
    const tier = state.agents.get(actor);
    if (tier !== "steward") return { rejected: `actor '${actor}' (${tier === undefined ? "not enrolled" : `tier '${tier}'`}) may not review promotions: only a steward may` };
    if (!reviewableStatuses.includes(promotion.reviewStatus)) {
      return { rejected: `promotion ${promotionId} is ${promotion.reviewStatus}; only pending or deferred promotions are reviewed (use rollback to reverse an active one)` };
    }
    const promotionRef: SourceEventRef = { seq: promotion.event.seq, hash: promotion.event.hash };
    const items: PlannedItem[] = [
      { type: fleetEventTypes.promotionReviewed, actor, payload: promotionReviewedPayload(fleetId, promotionId, decision, [promotionRef], rationale) },
    ];
    if (decision === "accepted" && promotion.conflictKey !== null) {
      const losers = activeConflicts(state, promotionId, promotion.conflictKey, promotion.conflictValue).filter((c) => !c.keystone);
      for (const loser of losers) {
        items.push(() => supersessionItem(fleetId, actor, loser, { promotionId, kind: promotion.kind, conflictKey: promotion.conflictKey as string, event: promotionRef }));
      }
    }
    return items;
  }, options);
  return {
    fleet_id: fleetId,
    promotion_id: promotionId,
    refused: result.rejection !== undefined,
    reason: result.rejection ?? `${decision} by steward '${actor}'`,
    decision,
    review_status: result.rejection !== undefined ? null : reviewStatusOf[decision],
    actor,
    events: result.events.map(appendedEventJson),
  };
}

export interface RollbackOptions extends MembershipOptions {
  /** The policy whose rollback window is reported; default `resolveEvolutionPolicy(root)`. */
  policy?: EvolutionPolicy;
}

/**
 * Rolls back a promotion (a steward, or the agent that proposed it). Records whether it is
 * still within the policy's rollback window; a promotion already rolled back is refused.
 */
export async function rollbackPromotion(
  root: string,
  input: { fleetId: string; promotionId: string; reason: string; actor: string },
  options: RollbackOptions = {},
): Promise<LifecycleResult> {
  const fleetId = validateFleetId(input.fleetId);
  const promotionId = requirePromotionId(input.promotionId);
  const reason = requireFleetText(input.reason, "reason");
  const actor = requireAgentId(input.actor, "actor");
  requireFleetLog(root, fleetId);
  const policy = options.policy ?? resolveEvolutionPolicy(root);
  const clock = options.clock ?? systemClock;
  let within = false;
  let reactivated: string[] = [];
  const result = await appendPlanned<string>(root, fleetThread(fleetId), (existing) => {
    const state = summarizeFleetEvents(fleetId, existing);
    const promotion = findPromotion(state, promotionId);
    const tier = state.agents.get(actor);
    if (tier !== "steward" && actor !== promotion.actor) {
      return { rejected: `actor '${actor}' may not roll back ${promotionId}: only a steward or its proposer '${promotion.actor}' may` };
    }
    if (promotion.reviewStatus === "rolled_back") return { rejected: `promotion ${promotionId} is already rolled back` };
    const promotedAt = timestampMicros(promotion.event.timestamp);
    within = promotedAt !== null && clock() - promotedAt <= policy.rollbackWindowSeconds * 1_000_000;
    reactivated = [...state.promotions.values()].filter((p) => p.reviewStatus === "superseded" && p.supersededBy === promotionId).map((p) => p.promotionId);
    return [{
      type: fleetEventTypes.promotionRolledBack,
      actor,
      payload: promotionRolledBackPayload(fleetId, promotionId, reason, within, [{ seq: promotion.event.seq, hash: promotion.event.hash }], promotion.gateEvent),
    }];
  }, { clock: options.clock, lockWaitMs: options.lockWaitMs });
  const refused = result.rejection !== undefined;
  return {
    fleet_id: fleetId,
    promotion_id: promotionId,
    refused,
    reason: result.rejection ?? reason,
    review_status: refused ? null : "rolled_back",
    within_rollback_window: refused ? null : within,
    reactivated: refused ? [] : reactivated,
    actor,
    events: result.events.map(appendedEventJson),
  };
}

