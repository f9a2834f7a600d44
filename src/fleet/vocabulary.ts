/**
 * The fleet plane's vocabulary (DESIGN §10; reference §5.4, Python `fleet.py`): visibility
 * scopes, trust tiers and the ceiling each tier may propose, promotion kinds, review statuses
 * and the nine fleet event types. These strings are written into logs and read back by the
 * Python implementation: they must never change.
 */
import { inputError } from "../errors.ts";

/** Narrowest first; a scope's index is its breadth. */
export const visibilityScopes = ["private", "session", "mission", "fleet", "global"] as const;
export type VisibilityScope = (typeof visibilityScopes)[number];
export const defaultVisibilityScope: VisibilityScope = "session";
/** A promotion must reach at least the fleet: narrower scopes stay with their agent. */
export const promotableScopes = ["fleet", "global"] as const satisfies readonly VisibilityScope[];
/** What the CLI and library promote to when no scope is given. */
export const defaultPromotionScope: VisibilityScope = "fleet";

/** Least trusted first. */
export const trustTiers = ["untrusted", "member", "trusted", "steward"] as const;
export type TrustTier = (typeof trustTiers)[number];
export const defaultTrustTier: TrustTier = "member";

/** The broadest scope each tier may propose (DESIGN §10). */
export const maxProposableScope: Readonly<Record<TrustTier, VisibilityScope>> = Object.freeze({
  untrusted: "session",
  member: "fleet",
  trusted: "global",
  steward: "global",
});

export const promotionKinds = ["skill", "outcome", "rule"] as const;
export type PromotionKind = (typeof promotionKinds)[number];

export const reviewStatuses = ["pending", "active", "rejected", "deferred", "superseded", "rolled_back"] as const;
export type ReviewStatus = (typeof reviewStatuses)[number];
export const reviewDecisions = ["accepted", "rejected", "deferred"] as const;
export type ReviewDecision = (typeof reviewDecisions)[number];

export const nonAuthoritative = "non_authoritative";
/** The evolution-gate op every promotion is decided under. */
export const promoteOp = "promote";
/**
 * The reserved fleet id: `fleet.global` is the deployment-wide thread of visibility scope
 * `global` (one Eventloom root; federation across roots is out of scope, design I7 Q3). It is
 * never an ordinary fleet: creating or addressing it as one is bad input (`reserved_fleet_id`).
 */
export const globalFleetId = "global";

export const fleetEventTypes = {
  created: "fleet.created",
  agentEnrolled: "fleet.agent.enrolled",
  trustAssigned: "fleet.trust.assigned",
  skillPromoted: "fleet.skill.promoted",
  outcomePropagated: "fleet.outcome.propagated",
  rulePropagated: "fleet.rule.propagated",
  promotionReviewed: "fleet.promotion.reviewed",
  promotionRolledBack: "fleet.promotion.rolled_back",
  memorySuperseded: "fleet.memory.superseded",
} as const;

/**
 * A promotion refused by the trust check, recorded in the proposer's own session (never on the
 * fleet thread, which stays byte-identical): an audit record, not a fleet memory.
 */
export const promotionRefusedEventType = "fleet.promotion.refused";

/** The event type that records a promotion of each kind. */
export const promotionEventType: Readonly<Record<PromotionKind, string>> = Object.freeze({
  skill: fleetEventTypes.skillPromoted,
  outcome: fleetEventTypes.outcomePropagated,
  rule: fleetEventTypes.rulePropagated,
});

export function kindOfPromotionEvent(type: string): PromotionKind | undefined {
  for (const kind of promotionKinds) if (promotionEventType[kind] === type) return kind;
  return undefined;
}

export function scopeRank(scope: VisibilityScope): number {
  return visibilityScopes.indexOf(scope);
}

/** Whether an agent of `tier` may propose a memory visible at `scope`. */
export function scopePermits(tier: TrustTier, scope: VisibilityScope): boolean {
  return scopeRank(scope) <= scopeRank(maxProposableScope[tier]);
}

function oneOf<T extends string>(values: readonly T[], value: unknown, field: string, code: string): T {
  if (typeof value === "string" && (values as readonly string[]).includes(value)) return value as T;
  const valid = values.join(", ");
  throw inputError(code, `${field} must be one of: ${valid} (got ${value === undefined ? "nothing" : JSON.stringify(value)})`, { field, expected: valid });
}

export function parseVisibilityScope(value: unknown, field = "visibility_scope"): VisibilityScope {
  return oneOf(visibilityScopes, value, field, "invalid_visibility_scope");
}

export function parseTrustTier(value: unknown, field = "trust_tier"): TrustTier {
  return oneOf(trustTiers, value, field, "invalid_trust_tier");
}

export function parsePromotionKind(value: unknown, field = "kind"): PromotionKind {
  return oneOf(promotionKinds, value, field, "invalid_promotion_kind");
}

export function parseReviewDecision(value: unknown, field = "decision"): ReviewDecision {
  return oneOf(reviewDecisions, value, field, "invalid_review_decision");
}

/** A promotion's scope: fleet or global (narrower scopes are never promoted). */
export function parsePromotionScope(value: unknown, field = "visibility_scope"): VisibilityScope {
  const scope = parseVisibilityScope(value, field);
  if (!(promotableScopes as readonly string[]).includes(scope)) {
    throw inputError("invalid_visibility_scope", `${field} must be fleet or global for a promotion (got ${JSON.stringify(scope)})`, {
      field,
      expected: promotableScopes.join(", "),
    });
  }
  return scope;
}
