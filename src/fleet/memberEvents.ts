/**
 * Member events in the fleet lane (design I7 §1a and Architecture: "any enrolled agent's
 * fleet-scoped projection is a pure replay function of that thread plus member events whose
 * visibility_scope reaches fleet").
 *
 * A member event is an ordinary event of an agent's own session whose payload says
 * `visibility_scope: "fleet"` or `"global"`. It is replayed, never copied: the item cites the
 * sealed event in its origin session. The rules, all decided by replay of the logs:
 *
 * - `private`, `session`, `mission` and events without the field (pre-I7 events are `session`)
 *   never leave their session; neither do `fleet.*` events (the plane's own records, such as a
 *   `fleet.promotion.refused` audit record) nor events of the reserved `fleet.` threads.
 * - `fleet`: the author (the event's actor) must be enrolled in the fleet with a tier whose
 *   ceiling reaches `fleet` (member, trusted, steward); a payload `fleet_id` restricts the event
 *   to that fleet.
 * - `global`: the reserved deployment-wide scope (the `fleet.global` thread of one Eventloom
 *   root; federation across roots is out of scope): the author must be trusted or steward in at
 *   least one fleet of the root; the event then reaches every enrolled agent of every fleet the
 *   checkout names, reported once under fleet id `global`.
 * - The checkout's own session is skipped (its events are already the session's memory); a
 *   session log that fails verification is skipped with a warning.
 *
 * What must never change: a member event never crosses into another agent's checkout unless its
 * own payload opts into fleet or global and its author's trust tier permits that scope; every item
 * cites the sealed origin event and is non-authoritative.
 */
import { isZaxyError } from "../errors.ts";
import { citationUri, sessionIdOfPath, sessionLogsUnderRoot } from "../eventloom/root.ts";
import type { EventRecord } from "../eventloom/envelope.ts";
import { readVerifiedEvents } from "../eventloom/replay.ts";
import { rawEventText } from "../vector/textAnalysis.ts";
import { type FleetBrief, fleetBrief } from "./status.ts";
import { globalFleetId, scopePermits, type TrustTier, type VisibilityScope } from "./vocabulary.ts";

/** Scopes a member event may carry to be replayed into fleet lanes. */
export const memberEventScopes: ReadonlySet<string> = new Set(["fleet", "global"]);

/** Characters of an event's text kept in a member-event item (as retrieval's own limit). */
export const memberEventContentCharsMax = 600;

const fleetThreadPrefix = "fleet.";

/** A sealed event of a member session whose payload reaches fleet or global. */
export interface MemberEvent {
  sessionId: string;
  event: EventRecord;
  scope: Extract<VisibilityScope, "fleet" | "global">;
  /** The payload's `fleet_id`, when it names one. */
  fleetId: string | null;
  citation: string;
  content: string;
}

function scopeOf(event: EventRecord): MemberEvent["scope"] | null {
  const scope = event.payload.get("visibility_scope");
  return typeof scope === "string" && memberEventScopes.has(scope) ? scope as MemberEvent["scope"] : null;
}

function contentOf(sessionId: string, event: EventRecord, scope: string): string {
  const text = `Fleet member event from ${event.actor} (session ${sessionId}, scope ${scope}): ${rawEventText(event)}`;
  return text.length > memberEventContentCharsMax ? `${text.slice(0, memberEventContentCharsMax - 1)}…` : text;
}

/**
 * Every sealed event of the root's member sessions (not `fleet.*` threads, not `ownSessionId`)
 * whose payload opts into fleet or global scope, in log-name then seq order.
 */
export async function readMemberEvents(root: string, ownSessionId: string | undefined, warn?: (message: string) => void): Promise<MemberEvent[]> {
  const found: MemberEvent[] = [];
  for (const logPath of sessionLogsUnderRoot(root)) {
    const sessionId = sessionIdOfPath(logPath);
    if (sessionId.startsWith(fleetThreadPrefix) || sessionId === ownSessionId) continue;
    let events: EventRecord[];
    try {
      events = (await readVerifiedEvents(logPath, { sessionId }))?.events ?? [];
    } catch (error) {
      // One broken member log must not take every agent's checkout down.
      if (!isZaxyError(error) || error.exitCode !== 1) throw error;
      warn?.(`fleet lane: member session ${JSON.stringify(sessionId)} skipped: ${error.message}`);
      continue;
    }
    for (const event of events) {
      if (event.type.startsWith(fleetThreadPrefix)) continue;
      const scope = scopeOf(event);
      if (scope === null) continue;
      const fleetId = event.payload.get("fleet_id");
      found.push({
        sessionId,
        event,
        scope,
        fleetId: typeof fleetId === "string" ? fleetId : null,
        citation: citationUri(sessionId, event.seq, event.hash),
        content: contentOf(sessionId, event, scope),
      });
    }
  }
  return found;
}

/** Whether a fleet-scoped member event reaches fleet `brief`'s lane. */
export function reachesFleet(member: MemberEvent, brief: FleetBrief): boolean {
  if (member.scope !== "fleet" || (member.fleetId !== null && member.fleetId !== brief.fleetId)) return false;
  const tier = brief.agents.find((agent) => agent.agentId === member.event.actor)?.trustTier;
  return tier !== undefined && scopePermits(tier, "fleet");
}

/**
 * The agents of the root allowed to author `global` events: trusted or steward in at least one
 * readable fleet (the reserved `fleet.global` thread is never a fleet). Broken fleets are skipped.
 */
export async function globalAuthors(root: string): Promise<Set<string>> {
  const authors = new Set<string>();
  for (const logPath of sessionLogsUnderRoot(root)) {
    const thread = sessionIdOfPath(logPath);
    if (!thread.startsWith(fleetThreadPrefix)) continue;
    const fleetId = thread.slice(fleetThreadPrefix.length);
    if (fleetId === globalFleetId) continue;
    let brief: FleetBrief;
    try {
      brief = await fleetBrief(root, fleetId);
    } catch (error) {
      if (isZaxyError(error)) continue;
      throw error;
    }
    for (const agent of brief.agents) if (scopePermits(agent.trustTier as TrustTier, "global")) authors.add(agent.agentId);
  }
  return authors;
}
