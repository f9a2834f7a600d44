/**
 * Hand-built event records for fold and extractor tests (not a test file itself): seq-derived
 * hashes and timestamps, a legacy envelope, and a chain link to the previous seq, so a test
 * states only what the event says.
 *
 * @example
 * fakeEventRecord(3, "decision.made", { decision: "use sqlite" }, { thread: "sess-1" });
 */
import { fromJs, type JsonObject } from "../../src/canonical/mod.ts";
import type { EventRecord } from "../../src/eventloom/envelope.ts";

/** A 64-hex hash that names `seq` (not a real event hash). */
export const fakeHash = (seq: number): string => seq.toString(16).padStart(64, "0");

/** One second per seq from 2026-01-01T00:00:00Z. */
export const fakeTimestamp = (seq: number): string => new Date(Date.UTC(2026, 0, 1) + seq * 1000).toISOString();

export function fakeEventRecord(
  seq: number,
  type: string,
  payload: Record<string, unknown>,
  options: { actor?: string; thread: string; timestamp?: string },
): EventRecord {
  return {
    seq,
    timestamp: options.timestamp ?? fakeTimestamp(seq),
    type,
    actor: options.actor ?? "agent-a",
    thread: options.thread,
    payload: fromJs(payload) as JsonObject,
    security: null,
    prevHash: seq > 1 ? fakeHash(seq - 1) : null,
    hash: fakeHash(seq),
    id: null,
    parentEventId: null,
    causedBy: [],
    envelope: "legacy",
  };
}
