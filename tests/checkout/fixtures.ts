/**
 * Hand-built retrieval results and events for the checkout tests (not a test file itself).
 */
import type { JsonObject, JsonValue } from "../../src/canonical/mod.ts";
import { citationUri } from "../../src/eventloom/root.ts";
import type { EventRecord } from "../../src/eventloom/envelope.ts";
import type { RetrievalResult, RetrievedContext } from "../../src/retrieval/types.ts";

/** A deterministic 64-hex hash for event `seq`. */
export function hashFor(seq: number): string {
  return (seq.toString(16).padStart(4, "0") + "abcdef0123456789").repeat(4).slice(0, 64);
}

export function citationFor(seq: number, thread = "default"): string {
  return citationUri(thread, seq, hashFor(seq));
}

/** A cited, current graph context for the source event `seq`; override anything. */
export function context(seq: number, content: string, overrides: Partial<RetrievedContext> = {}): RetrievedContext {
  return {
    content,
    source: "graph",
    sourceLane: "keyword",
    score: 0.5,
    validFrom: `2026-01-01T00:00:${String(seq).padStart(2, "0")}Z`,
    validTo: null,
    citation: citationFor(seq),
    eventSeq: seq,
    eventHash: hashFor(seq),
    scoreExplanation: {},
    metadata: {},
    ...overrides,
  };
}

export function retrieval(contexts: RetrievedContext[], overrides: Partial<RetrievalResult> = {}): RetrievalResult {
  return { contexts, laneCounts: { keyword: contexts.length }, degraded: false, ...overrides };
}

export function event(seq: number, type: string, actor: string, payload: [string, JsonValue][] = []): EventRecord {
  const body: JsonObject = new Map(payload);
  return {
    seq,
    timestamp: `2026-01-01T00:00:${String(seq).padStart(2, "0")}Z`,
    type,
    actor,
    thread: "default",
    payload: body,
    security: null,
    prevHash: seq === 1 ? null : hashFor(seq - 1),
    hash: hashFor(seq),
    id: null,
    parentEventId: null,
    causedBy: [],
    envelope: "legacy",
  };
}
