// test-lane: full (slow)
/**
 * Issue 14 item 3, bounded memory (docs/memory-model.md): `memory consolidation trigger` and
 * `compact LOG --audit` keep sparse state and stream the log, and their answers are unchanged.
 *
 * "Unchanged" is checked against digests the binary printed BEFORE the change (commit 8db34e7)
 * on the same seeded inputs (tests/scaling/boundedMemoryFixtures.ts): the same candidates in the
 * same order, the same audit JSON, byte for byte. Each expectation also names a readable figure
 * (candidate count, cluster count) so a mismatch says roughly what moved. The trigger's
 * statistics have since been aligned with design 004 (`pairs_evaluated` is n(n-1)/2, the figure
 * the digests hold is now `pairs_compared`; `max_memories` is at most 10000): `earlierStatistics`
 * puts them back in the shape the digests were taken of, so everything else is still compared
 * byte for byte.
 *
 * The peak-RSS test runs the audit as a child process on a log whose representatives carry large
 * texts: before the change it peaked at 1.6 GB (every representative's haystack held at once,
 * plus a fresh dense array per cluster), after it at ~280 MB; the bound is 700 MB. The trigger's
 * peak is measured by `zaxy bench trigger` and on the 100k-event session (README), not here: the
 * inputs where its old peak stood out take minutes.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, test } from "node:test";
import { PairKeySet } from "../../src/consolidation/pairKeySet.ts";
import { SparseEmbeddings } from "../../src/consolidation/similarityEmbeddings.ts";
import { similarPairs } from "../../src/consolidation/similarityPairs.ts";
import { triggerConsolidation } from "../../src/consolidation/trigger.ts";
import type { TriggerStrategy } from "../../src/consolidation/triggerParameters.ts";
import { memoryEmbeddingText } from "../../src/consolidation/triggerMemories.ts";
import { validateTriggerParameters } from "../../src/consolidation/triggerParameters.ts";
import { hashEmbedEach, hashEmbedMany } from "../../src/vector/mod.ts";
import { runZaxy, zaxyInvocation } from "../cli/zaxy.ts";
import { Rng } from "../testkit/rng.ts";
import {
  mixedSessionId,
  overlappingMemories,
  sha256,
  writeLargeNotePairs,
  writeSeededAuditLog,
  writeSeededMixedSession,
} from "./boundedMemoryFixtures.ts";

/** Produced by the pre-change library on `overlappingMemories(6000, 20261125)`, threshold 0.5, max 5000. */
const libraryExpected: Record<TriggerStrategy, { doc: string; candidates: string; count: number; rescored: number; evaluated: number }> = {
  similarity: {
    doc: "af6b9dfc9de0993e4b460ee2b89a6dee7de6ac4c7db7cefc2c461cac416b5dce",
    candidates: "f2c4c51a4c65bdc4a4bd048d66e5c436863904f214fc91c9d25747130bccb3dd",
    count: 77,
    rescored: 51435,
    evaluated: 222,
  },
  temporal: {
    doc: "0473efc2540ab0c31ebc05f731180fb2ec772bae985958c5263f68851a31ce52",
    candidates: "7559823b9a45f1498cb60a8fe1427dee19a3d35e5e494f7f4eac4144e2e8c72f",
    count: 1,
    rescored: 51435,
    evaluated: 5,
  },
  semantic: {
    doc: "6f3244fdcf6f9c35fee083595e10c7b7cc026dcf9601b8cffed81788bce2875c",
    candidates: "eb903e98bdfd6d7aa9bfe1e7c46776b86b00ef27f34fd82f9eefe754c919c4b4",
    count: 11,
    rescored: 51435,
    evaluated: 36,
  },
};

/**
 * The trigger statistics in the shape the digests were taken of: `pairs_evaluated` then counted
 * the pairs compared after the pre-filter (now `pairs_compared`), and `max_memories_limit` is the
 * limit the digest's run asked for.
 */
function earlierStatistics(statistics: { [key: string]: unknown }, maxMemoriesLimit = statistics.max_memories_limit): { [key: string]: unknown } {
  return {
    pairs_evaluated: statistics.pairs_compared,
    pairs_consolidated: statistics.pairs_consolidated,
    strategy: statistics.strategy,
    similarity_threshold: statistics.similarity_threshold,
    max_memories_limit: maxMemoriesLimit,
    fingerprints_analyzed: statistics.fingerprints_analyzed,
    memories_analyzed: statistics.memories_analyzed,
  };
}

/**
 * Produced by the pre-change binary: `memory consolidation trigger ARGS --json` on the seeded
 * mixed session. The first run asked for `--max-memories 100000` (all memories); it now asks for
 * 10000, the most allowed, which is still all of the session's memories.
 */
const cliTriggerExpected: Array<{ args: string[]; stdout: string; count: number; maxMemoriesLimit?: number }> = [
  { args: ["--max-memories", "10000"], maxMemoriesLimit: 100000, stdout: "b34cca34ae2b339ba548572cc51da5568e062e267d4b73623d70326828550854", count: 664 },
  { args: ["--strategy", "temporal", "--min-similarity", "0.6"], stdout: "9295682a6605c933abf0b3ab18def85147681754e32e85e833d043052259ad3a", count: 210 },
  { args: ["--strategy", "semantic", "--min-similarity", "0.5"], stdout: "f500af87979ca6c8fe3e0267372878f0783acc3f14f307d76e5dd108edc2a731", count: 215 },
];

/** Produced by the pre-change binary: `compact LOG --audit ARGS --json` (exit 1: both logs lose identities). */
const cliAuditExpected: Array<{ name: string; log: string; args: string[]; stdout: string; clusters: number }> = [
  { name: "the audit-bench log", log: "audit.jsonl", args: [], stdout: "6cf8d6b627cccc08228202f3910abbc023782e320ef109cf172a555729140a3e", clusters: 2986 },
  { name: "the mixed session", log: ".eventloom/s.jsonl", args: [], stdout: "f95f7426d03a59ca5466ac3ff8b3ca24691684fd287d95aa5ee633f0cc27d5cf", clusters: 2658 },
  {
    name: "the mixed session, exemplars",
    log: ".eventloom/s.jsonl",
    args: ["--strategy", "exemplar"],
    stdout: "07a87ed82f74f43500a314e2f5234dc3099bf57b2d3267065f87e88bbd739ee6",
    clusters: 2658,
  },
];

/** Peak RSS allowed for the audit of the large-representatives log (before: 1.6 GB; after: ~280 MB). */
const auditLargeRepresentativesRssMaxBytes = 700 * 2 ** 20;

function withTempDir<T>(run: (dir: string) => Promise<T>): Promise<T> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "zaxy-boundmem-"));
  return run(dir).finally(() => fs.rmSync(dir, { recursive: true, force: true }));
}

/** The child's peak RSS in bytes via `/usr/bin/time -f %M` (KiB); null where that tool is missing. */
function peakRssOf(args: string[], cwd: string): { code: number | null; rssBytes: number | null } {
  const timeTool = "/usr/bin/time";
  if (!fs.existsSync(timeTool)) return { code: null, rssBytes: null };
  const report = path.join(cwd, "time.out");
  const run = spawnSync(timeTool, ["-f", "%M", "-o", report, zaxyInvocation.command, ...zaxyInvocation.args, ...args], {
    cwd,
    encoding: "utf8",
    maxBuffer: 1 << 28,
    timeout: 120_000,
  });
  const kib = Number(fs.readFileSync(report, "utf8").trim().split("\n").at(-1));
  return { code: run.status, rssBytes: Number.isFinite(kib) ? kib * 1024 : null };
}

describe("bounded memory: trigger_consolidation answers are unchanged", () => {
  test("PairKeySet counts distinct pair keys exactly as a Set does, across its growth", () => {
    const rng = new Rng(1125);
    const set = new PairKeySet();
    const reference = new Set<number>();
    const rowCount = 300_000;
    for (let i = 0; i < 200_000; i++) {
      const a = rng.int(rowCount - 1);
      const b = a + 1 + rng.int(Math.min(50, rowCount - 1 - a));
      const key = a * rowCount + b;
      assert.equal(set.add(key), !reference.has(key), `seed 1125, step ${i}, key ${key}`);
      reference.add(key);
    }
    assert.equal(set.size, reference.size);
  });

  test("hashEmbedEach gives every text the vector hashEmbedMany gives it", () => {
    const texts = ["Straße repaired", "", "  ", "alpha beta alpha", "ünïcödé ΣΑΣ 𝔘 text", "x".repeat(5000)];
    const dense = hashEmbedMany(texts, 1536);
    const seen: number[] = [];
    hashEmbedEach(texts, 1536, (i, vector) => {
      seen.push(i);
      assert.deepEqual(Array.from(vector), Array.from(dense[i]), `text ${i}`);
    });
    assert.deepEqual(seen, [0, 1, 2, 3, 4, 5]);
  });

  test("maxCosineWith gives every row, bit for bit, the highest cosineWith over all targets (goal alignments without all pairs)", () => {
    const rng = new Rng(20261127);
    const vocabulary = Array.from({ length: 300 }, (_, i) => `w${i}`);
    const text = (words: number) => Array.from({ length: words }, () => vocabulary[rng.int(rng.int(2) === 0 ? 20 : vocabulary.length)]).join(" ");
    // "a a" and "" give vectors whose direction differs from any other: cancellation cannot be
    // planted by hand, so rows sharing nothing with any target (cosine 0 everywhere) stand in.
    const rows = [...Array.from({ length: 400 }, () => text(1 + rng.int(12))), "", "zz-only-here", "w0 w0 w0"];
    const goals = [...Array.from({ length: 60 }, () => text(1 + rng.int(6))), ""];
    for (const dim of [64, 1536]) {
      const embeddings = SparseEmbeddings.embed(rows, dim);
      for (const targets of [goals, goals.slice(0, 1), [], ["only-its-own-words here"]]) {
        const goalEmbeddings = SparseEmbeddings.embed(targets, dim);
        const fast = embeddings.maxCosineWith(goalEmbeddings);
        for (let row = 0; row < rows.length; row++) {
          let expected = targets.length === 0 ? 0 : -Infinity;
          for (let t = 0; t < targets.length; t++) expected = Math.max(expected, embeddings.cosineWith(row, goalEmbeddings, t));
          assert.ok(Object.is(fast[row], expected), `dim ${dim}, ${targets.length} targets, row ${row} (${JSON.stringify(rows[row])}): ${fast[row]} vs ${expected}`);
        }
      }
    }
  });

  test("similarPairs lists each pair once, ordered by a then b, with its exact cosine", async () => {
    const memories = overlappingMemories(3000, 7);
    const embeddings = SparseEmbeddings.embed(memories.map(memoryEmbeddingText), 1536);
    const { pairs, candidatesRescored } = await similarPairs(embeddings, 0.45);
    assert.ok(pairs.length > 10, `expected pairs above 0.45, got ${pairs.length}`);
    assert.ok(candidatesRescored >= pairs.length);
    for (let i = 0; i < pairs.length; i++) {
      assert.ok(pairs.a(i) < pairs.b(i));
      if (i > 0) assert.ok(pairs.a(i - 1) < pairs.a(i) || (pairs.a(i - 1) === pairs.a(i) && pairs.b(i - 1) < pairs.b(i)), `pair ${i} out of order`);
      assert.equal(pairs.cosine(i), embeddings.cosine(pairs.a(i), pairs.b(i)));
      assert.ok(pairs.cosine(i) >= 0.45);
    }
  });

  for (const strategy of ["similarity", "temporal", "semantic"] as const) {
    test(`design 004: trigger (${strategy}) over 6,000 seeded memories gives the pre-change document and every candidate in the same order`, async () => {
      const memories = overlappingMemories(6000, 20261125);
      const outcome = await triggerConsolidation(memories, validateTriggerParameters({ strategy, minSimilarity: 0.5, maxMemories: 5000 }));
      const lines = Array.from(outcome.candidates, (c) => `${c.memories[0].sourceEventSeq}-${c.memories[1].sourceEventSeq}:${c.similarity}:${c.alignments[0]}:${c.alignments[1]}`);
      const expected = libraryExpected[strategy];
      assert.equal(outcome.candidates.length, expected.count);
      assert.equal(outcome.document.statistics.pairs_compared, expected.evaluated);
      assert.equal(outcome.document.statistics.pairs_evaluated, (5000 * 4999) / 2, "design 004: n(n-1)/2 of the 5000 analysed");
      assert.equal(outcome.candidatesRescored, expected.rescored);
      assert.equal(sha256(lines.join("\n")), expected.candidates);
      assert.equal(sha256(JSON.stringify({ ...outcome.document, statistics: earlierStatistics(outcome.document.statistics) })), expected.doc);
    });
  }

  test("design 004: `memory consolidation trigger --json` on a seeded 3,000-event mixed session prints the pre-change bytes for every strategy", async () => {
    await withTempDir(async (dir) => {
      const root = path.join(dir, ".eventloom");
      await writeSeededMixedSession(root);
      for (const expected of cliTriggerExpected) {
        const run = runZaxy(["--eventloom-path", root, "--session-id", mixedSessionId, "memory", "consolidation", "trigger", ...expected.args, "--json"], { cwd: dir });
        assert.equal(run.code, 0, run.stderr);
        const doc = JSON.parse(run.stdout);
        assert.equal(doc.consolidation_result.candidate_count, expected.count, expected.args.join(" "));
        const n = doc.statistics.fingerprints_analyzed;
        assert.equal(doc.statistics.pairs_evaluated, (n * (n - 1)) / 2);
        // The statistics object is flat, so its compact text is replaced whole.
        const earlier = run.stdout.replace(/"statistics":\{[^{}]*\}/, `"statistics":${JSON.stringify(earlierStatistics(doc.statistics, expected.maxMemoriesLimit ?? doc.statistics.max_memories_limit))}`);
        assert.equal(sha256(earlier), expected.stdout, `stdout of trigger ${expected.args.join(" ")}`);
      }
    });
  });
});

describe("bounded memory: the compaction audit", () => {
  test("design 002: `compact LOG --audit --json` prints the pre-change bytes on the audit-bench log and a mixed session", async () => {
    await withTempDir(async (dir) => {
      await writeSeededMixedSession(path.join(dir, ".eventloom"));
      writeSeededAuditLog(path.join(dir, "audit.jsonl"));
      for (const expected of cliAuditExpected) {
        const run = runZaxy(["compact", expected.log, "--audit", ...expected.args, "--json"], { cwd: dir });
        assert.equal(run.code, 1, run.stderr);
        assert.equal(JSON.parse(run.stdout).cluster_count, expected.clusters, expected.name);
        assert.equal(sha256(run.stdout), expected.stdout, `audit JSON of ${expected.name}`);
      }
    });
  });

  test("the audit of a log whose representatives carry ~130 KB texts peaks under 700 MB (1.6 GB before: every haystack held at once)", async (t) => {
    await withTempDir(async (dir) => {
      await writeLargeNotePairs(path.join(dir, ".eventloom"), "big", 150, 8000);
      const measured = peakRssOf(["compact", ".eventloom/big.jsonl", "--audit", "--json"], dir);
      if (measured.rssBytes === null) {
        t.skip("/usr/bin/time is not installed: the peak RSS is left to `zaxy bench compaction-audit`");
        return;
      }
      assert.equal(measured.code, 0);
      assert.ok(
        measured.rssBytes <= auditLargeRepresentativesRssMaxBytes,
        `peak RSS ${Math.round(measured.rssBytes / 2 ** 20)} MiB > ${auditLargeRepresentativesRssMaxBytes / 2 ** 20} MiB`,
      );
    });
  });
});
