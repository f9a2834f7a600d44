/**
 * The checkout fleet lane (DESIGN §6, §10; reference §5.4 "Checkout fleet lane"). Opt-in twice
 * over: the root's config.json must set `fleet_enabled: true` and the checkout must name fleets
 * (`--fleet-id`, `fleet_ids`); otherwise checkout never calls this module and its output is
 * byte-identical to a build without it.
 *
 * For each named fleet, in the order given, the fleet thread is verified and replayed. The
 * asking agent (`agent_id`, default the session id) must be enrolled with a tier other than
 * `untrusted`; a fleet where it is not contributes nothing. Of that fleet's promotions only
 * those whose replayed status is `active` and whose scope is `fleet` or `global` enter the lane
 * (pending, rejected, deferred, superseded, rolled back and mission-scoped ones never do), each
 * once per promotion_id. The lane is not relevance-filtered: an agent that asks a fleet gets
 * what the fleet currently teaches.
 *
 * Each item is a cited context `source: "fleet"` scored by the promotion's confidence (0.5 when
 * it has none), cited as `eventloom://fleet.<id>/events/<seq>#<hash12>` (the sealed promotion
 * event) and marked non-authoritative: a fleet promotion informs, it never becomes truth.
 *
 * What must never change: a fleet item is never authoritative, always cites its promotion event
 * and its origin source events, and an agent that is not enrolled (or is untrusted) receives
 * nothing.
 *
 * @example
 * const lane = await buildFleetLane({ root: ".eventloom", fleetIds: ["platform"], agentId: "agent-b" });
 * lane.diagnostics.count;                        // active fleet/global promotions agent-b may see
 * lane.contexts[0]?.metadata.non_authoritative;  // true
 */
import { citationUri } from "../eventloom/root.ts";
import { isZaxyError } from "../errors.ts";
import type { CheckoutLane, LaneContext } from "../checkout/lane.ts";
import { type FleetPromotion, type PlainJson } from "./replay.ts";
import { fleetBrief } from "./status.ts";
import { globalAuthors, type MemberEvent, reachesFleet, readMemberEvents } from "./memberEvents.ts";
import { globalFleetId, nonAuthoritative, type TrustTier } from "./vocabulary.ts";

/** The lane, source and source-lane name of fleet items. */
export const fleetLaneName = "fleet";

/** Scopes a promotion must have to reach other agents' checkouts. */
export const fleetLaneScopes: ReadonlySet<string> = new Set(["fleet", "global"]);

/** Score of a promotion without a usable confidence (Python's fallback). */
export const neutralFleetScore = 0.5;

/** The entity type fleet items carry (the graph projection's name for a promotion). */
export const fleetPromotionEntityType = "fleet_promotion";

/** The entity type of a member event replayed into the lane (visibility_scope fleet or global). */
export const fleetMemberEventEntityType = "fleet_member_event";

export interface FleetLaneInput {
  root: string;
  /** Fleets to read, in order; repeats are ignored. */
  fleetIds: readonly string[];
  /** The asking agent: must be enrolled and not untrusted in a fleet to receive its items. */
  agentId: string;
  /** The checkout's own session: its events are never member events of its own lane. */
  sessionId?: string;
  warn?: (message: string) => void;
}

/** Types, not interfaces: plain JSON objects, as a lane's diagnostics must be. */
export type FleetLaneItem = {
  fleet_id: string;
  promotion_id: string;
  kind: string;
  summary: string;
  citation: string;
  source_event_citations: string[];
  review_status: string;
  visibility_scope: string;
  keystone: boolean;
  confidence: number | null;
  origin_actor: string;
  origin_session: string;
  non_authoritative: true;
  authority_status: string;
};

/** A member event replayed into the lane (only present when there are any). */
export type FleetLaneMemberEvent = {
  /** The fleet whose lane carried it, or `global` for the reserved deployment-wide scope. */
  fleet_id: string;
  session_id: string;
  seq: number;
  hash: string;
  citation: string;
  event_type: string;
  actor: string;
  visibility_scope: string;
  non_authoritative: true;
  authority_status: string;
};

export type FleetLaneDiagnostics = {
  /** Every item of the lane: promotions and member events. */
  count: number;
  non_authoritative: true;
  items: FleetLaneItem[];
  member_events?: FleetLaneMemberEvent[];
  /** Fleets whose thread could not be read (broken chain); only present when there are any. */
  unavailable?: Array<{ fleet_id: string; reason: string }>;
};

/** A fleet item as a retrieved context (`source` and `sourceLane` are `fleet`). */
export type FleetContext = LaneContext<typeof fleetLaneName>;

export interface FleetLane {
  contexts: FleetContext[];
  diagnostics: FleetLaneDiagnostics;
  /** The line listed under "Checkout Diagnostics" (without "- "). */
  promptLine: string;
  /** One guidance line per active keystone in the lane (`guidance.mandatory`), in lane order. */
  mandatoryGuidance: string[];
  /**
   * What the lane left out and why, in the order it was warned (also passed to `warn`): a fleet
   * the agent may not read, a fleet or member session that failed verification. Checkout lists
   * these in its `warnings`, so a caller without stderr (MCP) learns that a fleet it named was
   * dropped.
   */
  warnings: string[];
}

/**
 * The mandatory guidance line of an active keystone (design I7 Q2: "keystone=true fleet rules
 * surfaced as mandatory checkout guidance, non-authoritative + cited + reversible"), e.g.
 * `Keystone rule of fleet alpha (eventloom://fleet.alpha/events/5#…): rotate keys before expiry
 * [when: jwks] — follow it; non-authoritative, reversible by fleet rollback`.
 */
export function keystoneGuidanceLine(fleetId: string, citation: string, promotion: FleetPromotion): string {
  const trigger = promotion.kind === "rule" && promotion.fields.trigger !== undefined ? ` [when: ${promotion.fields.trigger}]` : "";
  return `Keystone ${promotion.kind} of fleet ${fleetId} (${citation}): ${promotion.summary}${trigger} — follow it; non-authoritative, reversible by fleet rollback`;
}

function round6(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

/** Whether an agent of this tier may read a fleet's promotions. */
export function tierReceivesFleetItems(tier: TrustTier | undefined): boolean {
  return tier !== undefined && tier !== "untrusted";
}

function contentOf(promotion: FleetPromotion): string {
  const outcome = promotion.kind === "outcome" && promotion.fields.outcome !== undefined ? ` (${promotion.fields.outcome})` : "";
  const trigger = promotion.kind === "rule" && promotion.fields.trigger !== undefined ? ` [when: ${promotion.fields.trigger}]` : "";
  return `Fleet ${promotion.kind}${outcome} from ${promotion.originActor}: ${promotion.summary}${trigger}`;
}

function laneEntry(fleetId: string, thread: string, promotion: FleetPromotion): { context: FleetContext; item: FleetLaneItem } {
  const citation = citationUri(thread, promotion.event.seq, promotion.event.hash);
  const sourceCitations = promotion.sourceEvents.map((ref) => citationUri(promotion.originSession, ref.seq, ref.hash));
  const confidence = promotion.confidence !== null && Number.isFinite(promotion.confidence) ? promotion.confidence : null;
  const score = round6(confidence ?? neutralFleetScore);
  const metadata: { [key: string]: PlainJson } = {
    assembly_lane: fleetLaneName,
    source_lane: fleetLaneName,
    citation,
    source_event_citations: sourceCitations,
    non_authoritative: true,
    authority_status: nonAuthoritative,
    fleet_id: fleetId,
    promotion_id: promotion.promotionId,
    kind: promotion.kind,
    review_status: promotion.reviewStatus,
    visibility_scope: promotion.visibilityScope,
    keystone: promotion.keystone,
    origin_actor: promotion.originActor,
    origin_session: promotion.originSession,
    entity_type: fleetPromotionEntityType,
    entity_name: promotion.promotionId,
  };
  const context: FleetContext = {
    content: contentOf(promotion),
    source: fleetLaneName,
    sourceLane: fleetLaneName,
    score,
    validFrom: promotion.event.timestamp,
    validTo: null,
    citation,
    eventSeq: promotion.event.seq,
    eventHash: promotion.event.hash,
    entityName: promotion.promotionId,
    entityType: fleetPromotionEntityType,
    // Checkout's fact and evidence records carry the score explanation but not the metadata,
    // so the authority boundary is stated here too, on every item.
    scoreExplanation: {
      fleet_confidence: score,
      non_authoritative: true,
      authority_status: nonAuthoritative,
      review_status: promotion.reviewStatus,
      fleet_id: fleetId,
      promotion_id: promotion.promotionId,
    },
    metadata,
  };
  const item: FleetLaneItem = {
    fleet_id: fleetId,
    promotion_id: promotion.promotionId,
    kind: promotion.kind,
    summary: promotion.summary,
    citation,
    source_event_citations: sourceCitations,
    review_status: promotion.reviewStatus,
    visibility_scope: promotion.visibilityScope,
    keystone: promotion.keystone,
    confidence,
    origin_actor: promotion.originActor,
    origin_session: promotion.originSession,
    non_authoritative: true,
    authority_status: nonAuthoritative,
  };
  return { context, item };
}

function memberEntry(fleetId: string, member: MemberEvent): { context: FleetContext; item: FleetLaneMemberEvent } {
  const score = neutralFleetScore;
  const entityName = `${member.sessionId}#${member.event.seq}`;
  const context: FleetContext = {
    content: member.content,
    source: fleetLaneName,
    sourceLane: fleetLaneName,
    score,
    validFrom: member.event.timestamp,
    validTo: null,
    citation: member.citation,
    eventSeq: member.event.seq,
    eventHash: member.event.hash,
    entityName,
    entityType: fleetMemberEventEntityType,
    scoreExplanation: { fleet_confidence: score, non_authoritative: true, authority_status: nonAuthoritative, fleet_id: fleetId, visibility_scope: member.scope },
    metadata: {
      assembly_lane: fleetLaneName,
      source_lane: fleetLaneName,
      citation: member.citation,
      non_authoritative: true,
      authority_status: nonAuthoritative,
      fleet_id: fleetId,
      visibility_scope: member.scope,
      origin_actor: member.event.actor,
      origin_session: member.sessionId,
      entity_type: fleetMemberEventEntityType,
      entity_name: entityName,
    },
  };
  const item: FleetLaneMemberEvent = {
    fleet_id: fleetId,
    session_id: member.sessionId,
    seq: member.event.seq,
    hash: member.event.hash,
    citation: member.citation,
    event_type: member.event.type,
    actor: member.event.actor,
    visibility_scope: member.scope,
    non_authoritative: true,
    authority_status: nonAuthoritative,
  };
  return { context, item };
}

/**
 * The fleet lane of one checkout. An unknown fleet is bad input (exit 2, the caller named it);
 * a fleet whose thread fails verification is skipped, reported under `unavailable` and warned
 * about, so one corrupt fleet never takes an agent's checkout down.
 */
export async function buildFleetLane(input: FleetLaneInput): Promise<FleetLane> {
  const warnings: string[] = [];
  const warn = (message: string): void => {
    warnings.push(message);
    input.warn?.(message);
  };
  const contexts: FleetContext[] = [];
  const items: FleetLaneItem[] = [];
  const unavailable: Array<{ fleet_id: string; reason: string }> = [];
  const seen = new Set<string>();
  const mandatoryGuidance: string[] = [];
  const memberItems: FleetLaneMemberEvent[] = [];
  const memberContexts: FleetContext[] = [];
  const seenMembers = new Set<string>();
  let members: MemberEvent[] | undefined;
  let eligibleInAnyFleet = false;
  for (const fleetId of new Set(input.fleetIds)) {
    let brief;
    try {
      brief = await fleetBrief(input.root, fleetId);
    } catch (error) {
      // Bad input (unknown fleet, bad id) stops the checkout; a check failure (broken chain) degrades it.
      if (!isZaxyError(error) || error.exitCode !== 1) throw error;
      unavailable.push({ fleet_id: fleetId, reason: error.message });
      warn(`fleet lane: fleet ${JSON.stringify(fleetId)} skipped: ${error.message}`);
      continue;
    }
    const tier = brief.agents.find((agent) => agent.agentId === input.agentId)?.trustTier;
    if (!tierReceivesFleetItems(tier)) {
      warn(
        `fleet lane: agent ${JSON.stringify(input.agentId)} is ${tier === undefined ? "not enrolled" : `'${tier}'`} in fleet ${JSON.stringify(fleetId)}; no items from it`,
      );
      continue;
    }
    for (const promotion of brief.promotions) {
      if (promotion.reviewStatus !== "active" || !fleetLaneScopes.has(promotion.visibilityScope)) continue;
      if (seen.has(promotion.promotionId)) continue;
      seen.add(promotion.promotionId);
      const entry = laneEntry(fleetId, brief.thread, promotion);
      contexts.push(entry.context);
      items.push(entry.item);
      if (promotion.keystone) mandatoryGuidance.push(keystoneGuidanceLine(fleetId, entry.item.citation, promotion));
    }
    eligibleInAnyFleet = true;
    members ??= await readMemberEvents(input.root, input.sessionId, warn);
    for (const member of members) {
      if (!reachesFleet(member, brief) || seenMembers.has(member.citation)) continue;
      seenMembers.add(member.citation);
      const entry = memberEntry(fleetId, member);
      memberContexts.push(entry.context);
      memberItems.push(entry.item);
    }
  }
  if (eligibleInAnyFleet && members !== undefined && members.some((m) => m.scope === "global")) {
    const authors = await globalAuthors(input.root);
    for (const member of members) {
      if (member.scope !== "global" || !authors.has(member.event.actor) || seenMembers.has(member.citation)) continue;
      seenMembers.add(member.citation);
      const entry = memberEntry(globalFleetId, member);
      memberContexts.push(entry.context);
      memberItems.push(entry.item);
    }
  }
  contexts.push(...memberContexts);
  const diagnostics: FleetLaneDiagnostics = { count: contexts.length, non_authoritative: true, items };
  if (memberItems.length > 0) diagnostics.member_events = memberItems;
  if (unavailable.length > 0) diagnostics.unavailable = unavailable;
  const fleetCount = new Set(input.fleetIds).size;
  const promptLine = `Fleet: fleets=${fleetCount}, items=${contexts.length}` +
    (unavailable.length > 0 ? `, unavailable=${unavailable.length}` : "") + `, authority=${nonAuthoritative}`;
  return { contexts, diagnostics, promptLine, mandatoryGuidance, warnings };
}

/**
 * The fleet lane as a checkout lane: items join retrieval by score (a fleet item goes before the
 * first retrieved context that scores lower; ties keep retrieval first) and come on top of the
 * context limit; its section (`diagnostics.fleet`, the "Fleet" prompt line, keystones as
 * mandatory guidance) is listed when the lane has items or a fleet was unavailable.
 */
export function fleetCheckoutLane(lane: FleetLane): CheckoutLane {
  const reported = lane.diagnostics.count > 0 || lane.diagnostics.unavailable !== undefined;
  return {
    name: fleetLaneName,
    contexts: lane.contexts,
    // Fleet promotions are other memories than the session's own graph: no same-entity rule.
    merge: { contextsMax: null, sameEntityFirst: false },
    countedWhenEmpty: false,
    raisesContextLimit: true,
    report: reported
      ? { key: "fleet", diagnostics: lane.diagnostics, promptLine: lane.promptLine, mandatoryGuidance: lane.mandatoryGuidance }
      : null,
  };
}
