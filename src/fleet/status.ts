/**
 * `fleet status` and the fleet brief: pure replays of the verified fleet thread. Running them
 * on a copy of the thread in an empty root gives byte-identical output: nothing else is read.
 */
import { fleetThread, validateFleetId } from "./ids.ts";
import { readFleetEvents, unknownFleet } from "./fleetLog.ts";
import { type FleetPromotion, type FleetState, type PlainJson, promotionJson, summarizeFleetEvents } from "./replay.ts";
import { reviewStatuses, type TrustTier } from "./vocabulary.ts";

/** The replayed state of a fleet, for library callers (checkout lane, MCP, bench). */
export interface FleetBrief {
  fleetId: string;
  thread: string;
  summary: string | null;
  createdActor: string | null;
  agents: Array<{ agentId: string; trustTier: TrustTier }>;
  /** Every canonical promotion, first-recorded first, with its current status. */
  promotions: FleetPromotion[];
  eventCount: number;
}

/** The fleet's state by replay of its verified thread; unknown fleet: exit 2. */
export async function fleetState(root: string, fleetId: string): Promise<FleetState> {
  validateFleetId(fleetId);
  const state = summarizeFleetEvents(fleetId, await readFleetEvents(root, fleetId));
  if (!state.created) throw unknownFleet(fleetId);
  return state;
}

/**
 * @example
 * const brief = await fleetBrief(".eventloom", "alpha");
 * brief.promotions.filter((p) => p.reviewStatus === "active");
 */
export async function fleetBrief(root: string, fleetId: string): Promise<FleetBrief> {
  const state = await fleetState(root, fleetId);
  return {
    fleetId,
    thread: fleetThread(fleetId),
    summary: state.summary,
    createdActor: state.createdActor,
    agents: [...state.agents].map(([agentId, trustTier]) => ({ agentId, trustTier })),
    promotions: [...state.promotions.values()],
    eventCount: state.eventCount,
  };
}

/** The status document of a replayed state (keys documented in docs/fleet.md). */
export function fleetStatusDocument(state: FleetState): { [key: string]: PlainJson } {
  const thread = fleetThread(state.fleetId);
  const promotions = [...state.promotions.values()];
  const counts: { [status: string]: PlainJson } = {};
  for (const status of reviewStatuses) counts[status] = promotions.filter((p) => p.reviewStatus === status).length;
  return {
    fleet_id: state.fleetId,
    thread,
    summary: state.summary,
    created_actor: state.createdActor,
    event_count: state.eventCount,
    head: state.head === null ? null : { seq: state.head.seq, hash: state.head.hash },
    agents: [...state.agents].map(([agent_id, trust_tier]) => ({ agent_id, trust_tier })),
    agent_count: state.agents.size,
    promotion_count: promotions.length,
    active_promotion_count: promotions.filter((p) => p.reviewStatus === "active").length,
    status_counts: counts,
    promotions: promotions.map((p) => promotionJson(p, thread)),
  };
}

export async function fleetStatus(root: string, fleetId: string): Promise<{ [key: string]: PlainJson }> {
  return fleetStatusDocument(await fleetState(root, fleetId));
}
