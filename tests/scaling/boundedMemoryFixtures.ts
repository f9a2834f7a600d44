/**
 * Seeded inputs for tests/scaling/bounded_memory_test.ts (not a test file itself): a mixed agent
 * session with a fixed clock (so its hashes, citations and outputs are the same every run), an
 * audit-bench log, and synthetic memories with a small vocabulary (many near-threshold pairs).
 *
 * The expected digests in the test were produced by the binary before the bounded-memory change
 * (commit 8db34e7) on exactly these inputs: changing a generator here invalidates them.
 */
import { createHash } from "node:crypto";
import { fromJs } from "../../src/canonical/mod.ts";
import { appendEvents } from "../../src/events/append.ts";
import { batchEventsMax } from "../../src/limits.ts";
import { mixedSessionItems } from "../../src/bench/mixedSession.ts";
import { writeAuditBenchLog } from "../../src/bench/compactionAuditBench.ts";
import type { ConsolidationMemory } from "../../src/consolidation/triggerMemories.ts";
import { citationUri } from "../../src/eventloom/root.ts";
import { Rng } from "../testkit/rng.ts";

export const mixedSessionId = "s";
export const mixedSessionEvents = 3000;
export const mixedSessionSeed = 7;
export const auditBenchEvents = 3000;
export const auditBenchSeed = 20261125;

export function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** The mixed session under `root`, every event 1.000003 s after the last from a fixed start. */
export async function writeSeededMixedSession(root: string): Promise<void> {
  const { items } = mixedSessionItems(mixedSessionEvents, mixedSessionSeed);
  let micros = Date.UTC(2026, 10, 1) * 1000;
  const clock = () => (micros += 1_000_003);
  for (let start = 0; start < items.length; start += batchEventsMax) {
    await appendEvents(root, mixedSessionId, items.slice(start, start + batchEventsMax), { clock });
  }
}

export function writeSeededAuditLog(path: string): void {
  writeAuditBenchLog({ path, events: auditBenchEvents, seed: auditBenchSeed });
}

/** `count` memories of 8 words over 300 (oldest first), a quarter of them goals. */
export function overlappingMemories(count: number, seed: number): ConsolidationMemory[] {
  const rng = new Rng(seed);
  const vocabulary = Array.from({ length: 300 }, (_, i) => `w${i}`);
  const hash = "ab".repeat(32);
  return Array.from({ length: count }, (_, i) => {
    const seq = i + 1;
    const entityType = i % 4 === 0 ? "goal" : "note";
    return {
      name: `m-${seq}`,
      entityType,
      summary: Array.from({ length: 8 }, () => rng.pick(vocabulary)).join(" "),
      validFrom: new Date(Date.UTC(2026, 0, 1) + seq * 977_000).toISOString(),
      sourceEventSeq: seq,
      sourceEventHash: hash,
      citation: citationUri("t", seq, hash),
    };
  });
}

/**
 * `pairCount` pairs of large near-identical notes (`wordsPerNote` words, the pair's own
 * vocabulary, the second differing in its last word) in a log at `root`/`sessionId`: every pair
 * is a two-event cluster whose representatives' context texts are each ~`wordsPerNote` × 16
 * bytes (the payload appears twice in an event's context).
 */
export async function writeLargeNotePairs(root: string, sessionId: string, pairCount: number, wordsPerNote: number): Promise<void> {
  let micros = Date.UTC(2026, 10, 2) * 1000;
  const clock = () => (micros += 1_000_003);
  const pairsPerBatch = 16;
  for (let first = 0; first < pairCount; first += pairsPerBatch) {
    const items = [];
    for (let pair = first; pair < Math.min(pairCount, first + pairsPerBatch); pair++) {
      const words = Array.from({ length: wordsPerNote }, (_, j) => `p${pair}w${j}`);
      const twin = [...words.slice(0, -1), `p${pair}twin`];
      for (const text of [words, twin]) items.push({ type: "note.recorded", actor: "agent", payload: fromJs({ text: text.join(" "), ref: `NOTE-${pair}` }) });
    }
    await appendEvents(root, sessionId, items, { clock });
  }
}
