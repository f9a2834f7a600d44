/**
 * The governed fleet memory plane (DESIGN §10; reference §5.4): agents share skills, outcomes
 * and rules through a fleet thread `fleet.<id>` (`<root>/fleet.<id>.jsonl`). Trust tiers cap
 * what each agent may propose; every promotion passes the evolution gate (op `promote`),
 * cites the sealed events it came from, and stays non-authoritative; conflicts are resolved by
 * additive supersession; rollback re-activates what a rolled-back winner had superseded. Fleet
 * state is a pure replay of the thread, and `fleetAudit` answers "which agent taught the fleet
 * this, from which sealed event".
 *
 * @example
 * import { createFleet, enrollAgent, promote, fleetStatus } from "./mod.ts";
 * await createFleet(root, { fleetId: "alpha", summary: "Auth workers" });           // coordinator = steward
 * await enrollAgent(root, { fleetId: "alpha", agentId: "w1", actor: "coordinator" });
 * const r = await promote(root, "skill", { fleetId: "alpha", actor: "w1", originSession: "w1",
 *   sourceEvents: [{ seq: 2, hash }], confidence: 0.9, skillId: "jwks-refresh", skillVersion: "2" });
 * r.rejected; r.review_status; // false, "active"
 * (await fleetStatus(root, "alpha")).active_promotion_count; // 1
 */
export * from "./vocabulary.ts";
export * from "./ids.ts";
export * from "./payloads.ts";
export * from "./replay.ts";
export { readFleetEvents, readVerifiedSession, requireSealedSources } from "./fleetLog.ts";
export { assignTrust, createActorDefault, createFleet, enrollAgent, type MembershipOptions, type MembershipResult } from "./membership.ts";
export { type FleetWriteOptions, insufficientTrustReason, keystoneHoldReason, promote, type PromotionInput, type PromotionResult, promotionOutcomes } from "./promote.ts";
export { type LifecycleResult, reviewableStatuses, reviewPromotion, rollbackPromotion, type RollbackOptions } from "./lifecycle.ts";
export { type FleetBrief, fleetBrief, fleetState, fleetStatus, fleetStatusDocument } from "./status.ts";
export { fleetAudit } from "./audit.ts";
