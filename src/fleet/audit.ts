/**
 * `fleet audit`: for every promotion, which agent taught the fleet this and from which sealed
 * event. Each source ref becomes an `eventloom://<origin_session>/events/<seq>#<hash12>`
 * citation and is checked against the origin session's verified log (same seq, same full
 * hash); each gate ref must be an `evolution.gate.evaluated` event of the fleet thread. Refs
 * that do not resolve are listed, and so are the fleet events the replay refused for want of
 * authority (`unauthorised_governance_events`, replay.ts); the audit is `ok` only when there
 * are neither.
 */
import { citationUri, type SourceEventRef } from "../eventloom/root.ts";
import type { EventRecord } from "../eventloom/envelope.ts";
import { isZaxyError } from "../errors.ts";
import { gateEventType } from "../governance/evolutionGate.ts";
import { readFleetEvents, readVerifiedSession, unknownFleet } from "./fleetLog.ts";
import { fleetThread, validateFleetId } from "./ids.ts";
import { type PlainJson, summarizeFleetEvents } from "./replay.ts";

type OriginLog = { events: EventRecord[] } | { problem: string };

function resolveRef(origin: OriginLog, ref: SourceEventRef): string | null {
  if ("problem" in origin) return origin.problem;
  const event = origin.events[ref.seq - 1];
  if (event === undefined) return `no event ${ref.seq} (the log has ${origin.events.length})`;
  if (event.hash !== ref.hash) return `event ${ref.seq} has hash ${event.hash}, not ${ref.hash}`;
  return null;
}

async function loadOrigin(root: string, session: string): Promise<OriginLog> {
  try {
    const events = await readVerifiedSession(root, session);
    return events === undefined ? { problem: `origin session ${JSON.stringify(session)} has no log` } : { events };
  } catch (error) {
    if (isZaxyError(error)) return { problem: error.message };
    throw error;
  }
}

/**
 * @example
 * const audit = await fleetAudit(".eventloom", "alpha");
 * audit.ok; // true when every source and gate ref resolves to a sealed event with that hash
 */
export async function fleetAudit(root: string, fleetId: string): Promise<{ [key: string]: PlainJson; ok: boolean }> {
  validateFleetId(fleetId);
  const thread = fleetThread(fleetId);
  const fleetEvents = await readFleetEvents(root, fleetId);
  const state = summarizeFleetEvents(fleetId, fleetEvents);
  if (!state.created) throw unknownFleet(fleetId);
  const origins = new Map<string, OriginLog>();
  const unresolved: { [key: string]: PlainJson }[] = [];
  const promotions: { [key: string]: PlainJson }[] = [];
  let refCount = 0;
  for (const promotion of state.promotions.values()) {
    let origin = origins.get(promotion.originSession);
    if (origin === undefined) {
      origin = await loadOrigin(root, promotion.originSession);
      origins.set(promotion.originSession, origin);
    }
    const sourceRefs = promotion.sourceEvents.map((ref) => {
      refCount++;
      const citation = citationUri(promotion.originSession, ref.seq, ref.hash);
      const problem = resolveRef(origin, ref);
      if (problem !== null) unresolved.push({ promotion_id: promotion.promotionId, ref: "source_event", citation, seq: ref.seq, hash: ref.hash, problem });
      const event = "events" in origin && problem === null ? origin.events[ref.seq - 1] : undefined;
      return { seq: ref.seq, hash: ref.hash, citation, resolved: problem === null, event_type: event?.type ?? null, event_actor: event?.actor ?? null };
    });
    let gate: { [key: string]: PlainJson } | null = null;
    if (promotion.gateEvent === null) {
      unresolved.push({ promotion_id: promotion.promotionId, ref: "gate_event", citation: null, seq: null, hash: null, problem: "the promotion cites no gate event" });
    } else {
      refCount++;
      const ref = promotion.gateEvent;
      const citation = citationUri(thread, ref.seq, ref.hash);
      let problem = resolveRef({ events: fleetEvents }, ref);
      const event = problem === null ? fleetEvents[ref.seq - 1] : undefined;
      if (event !== undefined && event.type !== gateEventType) problem = `event ${ref.seq} is ${event.type}, not ${gateEventType}`;
      if (problem === null && ref.seq >= promotion.event.seq) problem = `gate event ${ref.seq} does not precede the promotion (seq ${promotion.event.seq})`;
      if (problem !== null) unresolved.push({ promotion_id: promotion.promotionId, ref: "gate_event", citation, seq: ref.seq, hash: ref.hash, problem });
      const decision = event?.payload.get("decision");
      gate = { seq: ref.seq, hash: ref.hash, citation, resolved: problem === null, decision: typeof decision === "string" ? decision : null };
    }
    promotions.push({
      promotion_id: promotion.promotionId,
      kind: promotion.kind,
      review_status: promotion.reviewStatus,
      summary: promotion.summary,
      actor: promotion.actor,
      origin_actor: promotion.originActor,
      origin_session: promotion.originSession,
      promotion_event: { seq: promotion.event.seq, hash: promotion.event.hash, citation: citationUri(thread, promotion.event.seq, promotion.event.hash) },
      gate_event: gate,
      source_refs: sourceRefs,
    });
  }
  const unauthorised = state.unauthorised.map((event) => ({ ...event, citation: citationUri(thread, event.seq, event.hash) }));
  return {
    fleet_id: fleetId,
    thread,
    ok: unresolved.length === 0 && unauthorised.length === 0,
    promotion_count: promotions.length,
    ref_count: refCount,
    unresolved_count: unresolved.length,
    promotions,
    unresolved,
    // Fleet events no fleet command would have written there (not folded into the fleet's state).
    unauthorised_governance_event_count: unauthorised.length,
    unauthorised_governance_events: unauthorised,
  };
}
