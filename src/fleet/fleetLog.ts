/**
 * Reading the logs a fleet operation depends on: the fleet thread itself and the origin
 * sessions its promotions cite. Both are verified first; a broken chain is never read (exit 1).
 */
import * as fs from "node:fs";
import { inputError } from "../errors.ts";
import type { SourceEventRef } from "../eventloom/root.ts";
import type { EventRecord } from "../eventloom/envelope.ts";
import { readVerifiedEvents } from "../eventloom/replay.ts";
import { sessionLogPath } from "../eventloom/root.ts";
import { fleetThread, validateFleetId } from "./ids.ts";

/** Verified events of a session log, or undefined when it has no log. Broken chain: exit 1. */
export async function readVerifiedSession(root: string, sessionId: string): Promise<EventRecord[] | undefined> {
  return (await readVerifiedEvents(sessionLogPath(root, sessionId, "read"), { sessionId }))?.events;
}

/** The fleet thread's verified events; a fleet without a log is bad input (exit 2). */
export async function readFleetEvents(root: string, fleetId: string): Promise<EventRecord[]> {
  validateFleetId(fleetId);
  const events = await readVerifiedSession(root, fleetThread(fleetId));
  if (events === undefined) throw unknownFleet(fleetId);
  return events;
}

export function unknownFleet(fleetId: string) {
  return inputError("unknown_fleet", `Unknown fleet ${JSON.stringify(fleetId)}: no fleet.created event in thread ${fleetThread(fleetId)}`, {
    field: "fleet_id",
    hint: `create it with \`zaxy fleet create ${fleetId} --summary ...\``,
  });
}

/**
 * Checks that every cited source event is a sealed event of the origin session (same seq, same
 * hash). Unknown origin session or an uncited ref is bad input (exit 2) naming the ref.
 */
export async function requireSealedSources(
  root: string,
  originSession: string,
  sourceEvents: readonly SourceEventRef[],
  field = "source_events",
  originField = "origin_session",
): Promise<void> {
  const events = await readVerifiedSession(root, originSession);
  if (events === undefined) {
    throw inputError("unknown_origin_session", `${originField} ${JSON.stringify(originSession)} has no log under ${root}: the source events must be sealed events of that session`, {
      field: originField,
      expected: "a session with a log under the Eventloom root",
    });
  }
  for (const [index, ref] of sourceEvents.entries()) {
    const event = events[ref.seq - 1];
    if (event === undefined || event.hash !== ref.hash) {
      throw inputError(
        "unsealed_source_event",
        `${field}${sourceEvents.length > 1 || !field.startsWith("--") ? `[${index}]` : ""} ${ref.seq}:${ref.hash} is not a sealed event of origin session ${JSON.stringify(originSession)}` +
          (event === undefined ? ` (it has ${events.length} events)` : ` (event ${ref.seq} has hash ${event.hash})`),
        { field: `${field}[${index}]`, expected: "the seq and hash of a sealed event of the origin session" },
      );
    }
  }
}

/**
 * Refuses (exit 2) an operation on a fleet whose thread has no log, before anything could
 * create the file: only `createFleet` starts a fleet thread.
 */
export function requireFleetLog(root: string, fleetId: string): void {
  if (!fs.existsSync(sessionLogPath(root, fleetThread(fleetId), "append to"))) throw unknownFleet(fleetId);
}
