/**
 * Fleet membership: creation (the creator is enrolled as the first steward), enrolment and
 * trust changes. Only stewards enrol agents and change tiers; a fleet with no agents enrolls
 * its first agent on trust-on-first-use. Every decision is made under the fleet thread's lock
 * on the state it appends to; a refusal writes nothing.
 */
import { appendedEventJson, type AppendedEventJson } from "../eventloom/append.ts";
import { appendPlanned } from "../events/append.ts";
import type { MicrosClock } from "../eventloom/timestamp.ts";
import { inputError } from "../errors.ts";
import { requireFleetLog, unknownFleet } from "./fleetLog.ts";
import { fleetThread, validateFleetId } from "./ids.ts";
import { agentEnrolledPayload, fleetCreatedPayload, trustAssignedPayload } from "./payloads.ts";
import { type PlainJson, summarizeFleetEvents } from "./replay.ts";
import { readFleetDefaultTrustTier } from "./fleetConfig.ts";
import { fleetEventTypes, parseTrustTier, type TrustTier } from "./vocabulary.ts";
import { requireAgentId, requireFleetText } from "./validate.ts";

export const createActorDefault = "coordinator";

export interface MembershipOptions {
  clock?: MicrosClock;
  lockWaitMs?: number;
}

/** A membership change: `refused` (with `reason`) when the check said no; nothing was written then. */
export interface MembershipResult {
  [key: string]: PlainJson;
  fleet_id: string;
  thread: string;
  refused: boolean;
  reason: string;
  events: AppendedEventJson[];
}

/**
 * Creates a fleet: `fleet.created {fleet_id, summary}` and the creator's enrolment as
 * `steward`, in one batch. An existing fleet is refused (`refused: true`, exit 1).
 *
 * @example
 * await createFleet(".eventloom", { fleetId: "alpha", summary: "Auth workers" });
 */
export async function createFleet(root: string, input: { fleetId: string; summary: string; actor?: string }, options: MembershipOptions = {}): Promise<MembershipResult> {
  const fleetId = validateFleetId(input.fleetId);
  const summary = requireFleetText(input.summary, "summary");
  const actor = requireAgentId(input.actor ?? createActorDefault, "actor");
  const thread = fleetThread(fleetId);
  const result = await appendPlanned<string>(root, thread, (existing) => {
    const state = summarizeFleetEvents(fleetId, existing);
    if (state.created) return { rejected: `fleet ${JSON.stringify(fleetId)} already exists (created by '${state.createdActor}')` };
    return [
      { type: fleetEventTypes.created, actor, payload: fleetCreatedPayload(fleetId, summary) },
      { type: fleetEventTypes.agentEnrolled, actor, payload: agentEnrolledPayload(fleetId, actor, "steward") },
    ];
  }, options);
  return {
    fleet_id: fleetId,
    thread,
    refused: result.rejection !== undefined,
    reason: result.rejection ?? `created fleet ${JSON.stringify(fleetId)}; '${actor}' enrolled as steward`,
    summary,
    actor,
    events: result.events.map(appendedEventJson),
  };
}

function notSteward(actor: string, tier: TrustTier | undefined, action: string): string {
  return `actor '${actor}' (${tier === undefined ? "not enrolled" : `tier '${tier}'`}) may not ${action}: only a steward may`;
}

/**
 * Enrolls an agent. Steward-only once the fleet has agents; an empty fleet accepts its first
 * agent (trust on first use). Re-enrolling never changes a tier (use `assignTrust`): it is
 * reported with `already_enrolled: true` and nothing is written.
 */
export async function enrollAgent(
  root: string,
  input: { fleetId: string; agentId: string; actor: string; trustTier?: string },
  options: MembershipOptions = {},
): Promise<MembershipResult> {
  const fleetId = validateFleetId(input.fleetId);
  const agentId = requireAgentId(input.agentId, "agent_id");
  const actor = requireAgentId(input.actor, "actor");
  // No tier named: the root's `fleet_default_trust_tier` (design I7 §6; default member).
  const trustTier = input.trustTier === undefined ? readFleetDefaultTrustTier(root) : parseTrustTier(input.trustTier);
  const thread = fleetThread(fleetId);
  requireFleetLog(root, fleetId);
  let alreadyTier: TrustTier | undefined;
  const result = await appendPlanned<string>(root, thread, (existing) => {
    const state = summarizeFleetEvents(fleetId, existing);
    if (!state.created) throw unknownFleet(fleetId);
    const actorTier = state.agents.get(actor);
    if (state.agents.size > 0 && actorTier !== "steward") return { rejected: notSteward(actor, actorTier, "enroll agents") };
    alreadyTier = state.agents.get(agentId);
    if (alreadyTier !== undefined) return [];
    return [{ type: fleetEventTypes.agentEnrolled, actor, payload: agentEnrolledPayload(fleetId, agentId, trustTier) }];
  }, options);
  const refused = result.rejection !== undefined;
  return {
    fleet_id: fleetId,
    thread,
    refused,
    reason: result.rejection ?? (alreadyTier !== undefined ? `'${agentId}' is already enrolled as '${alreadyTier}'; enrolment never changes a tier` : `enrolled '${agentId}' as '${trustTier}'`),
    agent_id: agentId,
    trust_tier: refused ? null : (alreadyTier ?? trustTier),
    already_enrolled: alreadyTier !== undefined,
    actor,
    events: result.events.map(appendedEventJson),
  };
}

/** Changes an enrolled agent's tier (steward only); records the prior tier. */
export async function assignTrust(
  root: string,
  input: { fleetId: string; agentId: string; trustTier: string; actor: string; rationale?: string },
  options: MembershipOptions = {},
): Promise<MembershipResult> {
  const fleetId = validateFleetId(input.fleetId);
  const agentId = requireAgentId(input.agentId, "agent_id");
  const actor = requireAgentId(input.actor, "actor");
  const trustTier = parseTrustTier(input.trustTier);
  const rationale = input.rationale === undefined ? undefined : requireFleetText(input.rationale, "rationale");
  const thread = fleetThread(fleetId);
  requireFleetLog(root, fleetId);
  let priorTier: TrustTier | undefined;
  const result = await appendPlanned<string>(root, thread, (existing) => {
    const state = summarizeFleetEvents(fleetId, existing);
    if (!state.created) throw unknownFleet(fleetId);
    const actorTier = state.agents.get(actor);
    if (actorTier !== "steward") return { rejected: notSteward(actor, actorTier, "assign trust") };
    priorTier = state.agents.get(agentId);
    if (priorTier === undefined) {
      throw inputError("unknown_agent", `agent_id '${agentId}' is not enrolled in fleet ${JSON.stringify(fleetId)}; enroll it first`, {
        field: "agent_id",
        expected: "an enrolled agent",
      });
    }
    return [{ type: fleetEventTypes.trustAssigned, actor, payload: trustAssignedPayload(fleetId, agentId, trustTier, priorTier, rationale) }];
  }, options);
  const refused = result.rejection !== undefined;
  return {
    fleet_id: fleetId,
    thread,
    refused,
    reason: result.rejection ?? `'${agentId}': '${priorTier}' -> '${trustTier}'`,
    agent_id: agentId,
    trust_tier: refused ? null : trustTier,
    prior_tier: priorTier ?? null,
    actor,
    events: result.events.map(appendedEventJson),
  };
}
