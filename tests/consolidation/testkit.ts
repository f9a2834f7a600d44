/** Fake verified events for the consolidation unit tests (not a test file itself). */
import { fromJs, type JsonObject } from "../../src/canonical/mod.ts";
import type { EventRecord } from "../../src/eventloom/envelope.ts";

/** A distinct 64-hex hash per seq. */
export const hashOf = (seq: number): string => seq.toString(16).padStart(64, "0");

/** A sequence of events with seqs 1..n, as the verified reader returns them. */
export function events(specs: Array<[type: string, payload: Record<string, unknown>, thread?: string]>): EventRecord[] {
  return specs.map(([type, payload, thread], i) => ({
    seq: i + 1,
    timestamp: "2026-01-01T00:00:00Z",
    type,
    actor: "agent",
    thread: thread ?? "agent-1",
    payload: fromJs(payload) as JsonObject,
    security: null,
    prevHash: i === 0 ? null : hashOf(i),
    hash: hashOf(i + 1),
    id: null,
    parentEventId: null,
    causedBy: [],
    envelope: "legacy",
  }));
}
