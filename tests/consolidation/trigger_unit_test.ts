/**
 * trigger_consolidation in the library (DESIGN §8, docs/trigger-consolidation.md): every pair the
 * float math puts at or above the threshold is found and nothing below it; the pre-filter counts
 * exactly the pairs at or above threshold × 0.9; the temporal 24 h boundary; semantic alignment
 * ≥ 0.5 and |Δ alignment| ≤ 0.05; the combined alignment formula; max_memories picks the most
 * recent; the document's exact keys; parameter validation messages.
 *
 * Expectations are computed independently with `hashEmbeddingReference` (plain TypeScript
 * embedding) and `cosineSimilarity` (dense float64 loop), not with the code under test.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SparseEmbeddings } from "../../src/consolidation/similarityEmbeddings.ts";
import { combinedAlignment, triggerConsolidation } from "../../src/consolidation/trigger.ts";
import { type ConsolidationMemory, memoryEmbeddingText } from "../../src/consolidation/triggerMemories.ts";
import { validateTriggerParameters } from "../../src/consolidation/triggerParameters.ts";
import { timestampMicros } from "../../src/eventloom/timestamp.ts";
import { isZaxyError } from "../../src/errors.ts";
import { cosineSimilarity } from "../../src/retrieval/engine.ts";
import { hashEmbeddingReference } from "../../src/vector/mod.ts";

const slow = { timeout: 60_000 };
const hash = "ab".repeat(32);

function memory(seq: number, name: string, summary: string, options: { type?: string; validFrom?: string } = {}): ConsolidationMemory {
  return {
    name,
    entityType: options.type ?? "note",
    summary,
    validFrom: options.validFrom ?? "2026-05-20T00:00:00Z",
    sourceEventSeq: seq,
    sourceEventHash: hash,
    citation: `eventloom://t/events/${seq}#${hash.slice(0, 12)}`,
  };
}

/** The float math: dense reference embeddings, dense cosine. */
function referenceCosine(a: ConsolidationMemory, b: ConsolidationMemory): number {
  return cosineSimilarity(hashEmbeddingReference(memoryEmbeddingText(a)), hashEmbeddingReference(memoryEmbeddingText(b)));
}

function pairKey(a: ConsolidationMemory, b: ConsolidationMemory): string {
  return `${a.name}|${b.name}`;
}

/**
 * Families of two memories each: a base of `length` family-unique words and a variant with the
 * first `replaced` words changed, under its own name. Cosines are about (length + 1 − replaced) /
 * (length + 2), give or take bucket collisions; families share only the type token.
 */
function families(shapes: Array<[length: number, replaced: number]>, copies: number): ConsolidationMemory[] {
  const out: ConsolidationMemory[] = [];
  let family = 0;
  for (const [length, replaced] of shapes) {
    for (let copy = 0; copy < copies; copy++, family++) {
      const words = Array.from({ length }, (_, j) => `f${family}w${j}`);
      const variant = words.map((word, j) => (j < replaced ? `${word}x` : word));
      out.push(memory(out.length + 1, `base-${family}`, words.join(" ")), memory(out.length + 2, `variant-${family}`, variant.join(" ")));
    }
  }
  return out;
}

describe("trigger_consolidation similarity", () => {
  // Around 0.85: 17/20 (on the boundary), 16/19 = 0.842, 18/21 = 0.857, 23/27 = 0.852, 28/33 = 0.848;
  // around the pre-filter 0.765: 13/17 = 0.765, 16/21 = 0.762, 20/26 = 0.769; well above: 19/20.
  const shapes: Array<[number, number]> = [[18, 2], [17, 2], [19, 2], [25, 3], [31, 4], [15, 3], [19, 4], [24, 5], [18, 0]];
  const memories = families(shapes, 4);
  const threshold = 0.85;

  test("finds every pair at or above the threshold by the float math, and none below it", slow, async () => {
    const expected = new Set<string>();
    const prefiltered = new Set<string>();
    let justAbove = 0;
    let justBelow = 0;
    let aroundPrefilter = 0;
    for (let i = 0; i < memories.length; i++) {
      for (let j = i + 1; j < memories.length; j++) {
        const cosine = referenceCosine(memories[i], memories[j]);
        if (cosine >= threshold) expected.add(pairKey(memories[i], memories[j]));
        if (cosine >= threshold * 0.9) prefiltered.add(pairKey(memories[i], memories[j]));
        if (cosine >= threshold && cosine < threshold + 0.01) justAbove++;
        if (cosine < threshold && cosine >= threshold - 0.01) justBelow++;
        if (Math.abs(cosine - threshold * 0.9) < 0.006) aroundPrefilter++;
      }
    }
    // The fixture really straddles both thresholds (else this test could not fail).
    assert.ok(justAbove >= 3 && justBelow >= 3 && aroundPrefilter >= 3, `${justAbove} / ${justBelow} / ${aroundPrefilter}`);

    const outcome = await triggerConsolidation(memories, validateTriggerParameters({ maxMemories: 1000 }));
    const found = new Set(outcome.candidates.map((c) => pairKey(c.memories[0], c.memories[1])));
    assert.deepEqual([...found].sort(), [...expected].sort());
    assert.equal(outcome.document.statistics.pairs_compared, prefiltered.size);
    assert.equal(outcome.document.statistics.pairs_evaluated, (memories.length * (memories.length - 1)) / 2, "design 004: n(n-1)/2");
    assert.equal(outcome.document.statistics.pairs_consolidated, expected.size);
    for (const candidate of outcome.candidates) {
      assert.equal(candidate.similarity, referenceCosine(candidate.memories[0], candidate.memories[1]), "the exact cosine, bit for bit");
    }
  });

  test("the document has exactly the specified keys; the sample holds the best ten, rounded to 6 decimals", slow, async () => {
    const { document } = await triggerConsolidation(memories, validateTriggerParameters({ maxMemories: 1000 }));
    assert.deepEqual(Object.keys(document), ["consolidation_result", "statistics", "candidates_sample"]);
    assert.deepEqual(Object.keys(document.consolidation_result), ["status", "candidate_count", "action_required"]);
    assert.deepEqual(Object.keys(document.statistics), [
      "pairs_evaluated", "pairs_consolidated", "strategy", "similarity_threshold", "max_memories_limit", "fingerprints_analyzed", "memories_analyzed", "pairs_compared",
    ]);
    assert.equal(document.consolidation_result.status, "candidates_found");
    assert.equal(document.consolidation_result.action_required, true);
    assert.ok(document.consolidation_result.candidate_count > 10);
    assert.equal(document.candidates_sample.length, 10);
    assert.deepEqual(
      { ...document.statistics, pairs_consolidated: 0, pairs_compared: 0 },
      {
        pairs_evaluated: (memories.length * (memories.length - 1)) / 2, pairs_consolidated: 0, strategy: "similarity", similarity_threshold: 0.85, max_memories_limit: 1000,
        fingerprints_analyzed: memories.length, memories_analyzed: memories.length, pairs_compared: 0,
      },
    );
    const sample = document.candidates_sample[0];
    assert.deepEqual(Object.keys(sample), ["source_ids", "target_id", "similarity", "combined_alignment", "memories", "alignments", "alignment_difference"]);
    assert.deepEqual(Object.keys(sample.memories[0]), ["id", "name", "entity_type", "citation", "source_event", "valid_from"]);
    assert.match(sample.memories[0].citation, /^eventloom:\/\/t\/events\/\d+#[0-9a-f]{12}$/);
    const similarities = document.candidates_sample.map((s) => s.similarity);
    assert.deepEqual(similarities, [...similarities].sort((a, b) => b - a));
    for (const s of document.candidates_sample) assert.equal(s.similarity, Math.round(s.similarity * 1e6) / 1e6);
    assert.deepEqual(sample.alignments, [0, 0], "no goals: alignment 0");
    assert.equal(sample.combined_alignment, 0);
  });

  test("no pair at the threshold gives no_candidates and action_required false", slow, async () => {
    const { document } = await triggerConsolidation(families([[10, 5]], 3), validateTriggerParameters({}));
    assert.deepEqual(document.consolidation_result, { status: "no_candidates", candidate_count: 0, action_required: false });
    assert.deepEqual(document.candidates_sample, []);
  });

  test("max_memories analyses only the most recent memories by source event", slow, async () => {
    const old = families([[18, 0]], 1); // seq 1, 2: identical summaries
    const recent = [memory(3, "recent-a", "alpha beta gamma delta epsilon zeta eta theta iota kappa"), memory(4, "recent-b", "alpha beta gamma delta epsilon zeta eta theta iota kappa")];
    const { document, candidates } = await triggerConsolidation([...old, ...recent], validateTriggerParameters({ maxMemories: 2 }));
    assert.equal(document.statistics.memories_analyzed, 2);
    assert.equal(document.statistics.max_memories_limit, 2);
    assert.deepEqual(candidates.map((c) => c.memories.map((m) => m.name)), [["recent-a", "recent-b"]]);
    const all = await triggerConsolidation([...old, ...recent], validateTriggerParameters({ maxMemories: 4 }));
    assert.equal(all.candidates.length, 2);
  });

  test("a cluster larger than the first neighbour list is found whole (20 copies: 190 pairs)", slow, async () => {
    const copies = Array.from({ length: 20 }, (_, i) => memory(i + 1, `copy-${i}`, "the deploy failed because the staging database password expired overnight"));
    const { candidates } = await triggerConsolidation(copies, validateTriggerParameters({}));
    assert.equal(candidates.length, 190);
  });
});

describe("trigger_consolidation temporal", () => {
  const day = 24 * 3600 * 1_000_000;
  const iso = (micros: number) => {
    const millis = Math.floor(micros / 1000);
    const rest = micros - millis * 1000;
    return `${new Date(millis).toISOString().slice(0, 23)}${String(rest).padStart(3, "0")}Z`;
  };
  const start = Date.UTC(2026, 4, 1) * 1000;
  const text = (topic: string) => Array.from({ length: 12 }, (_, i) => `${topic}${i}`).join(" ");
  const memories = [
    memory(1, "exactly-24h-a", text("alpha"), { validFrom: iso(start) }),
    memory(2, "exactly-24h-b", text("alpha"), { validFrom: iso(start + day) }),
    memory(3, "over-24h-a", text("beta"), { validFrom: iso(start) }),
    memory(4, "over-24h-b", text("beta"), { validFrom: iso(start + day + 1) }),
    memory(5, "hour-a", text("gamma"), { validFrom: iso(start + 5 * day) }),
    memory(6, "hour-b", text("gamma"), { validFrom: iso(start + 5 * day + 3600 * 1_000_000) }),
  ];

  test("pairs created at most 24 h apart qualify (exactly 24 h does, 24 h + 1 µs does not)", slow, async () => {
    const { document, candidates } = await triggerConsolidation(memories, validateTriggerParameters({ strategy: "temporal" }));
    assert.deepEqual(candidates.map((c) => c.memories[0].name), ["exactly-24h-a", "hour-a"]);
    assert.equal(document.statistics.pairs_compared, 2);
    assert.equal(document.statistics.pairs_evaluated, 15, "design 004: n(n-1)/2 of 6 memories, whatever the strategy");
    assert.equal(document.statistics.strategy, "temporal");
    const similarity = await triggerConsolidation(memories, validateTriggerParameters({ strategy: "similarity" }));
    assert.equal(similarity.candidates.length, 3, "the similarity strategy ignores time");
  });

  test("valid_from is read to the microsecond, with offsets; anything else is null", () => {
    assert.equal(timestampMicros("1970-01-01T00:00:01.000002Z"), 1_000_002);
    assert.equal(timestampMicros("1970-01-01T01:00:00+01:00"), 0);
    assert.equal(timestampMicros("2026-05-20T02:58:49Z"), Date.UTC(2026, 4, 20, 2, 58, 49) * 1000);
    assert.equal(timestampMicros("yesterday"), null);
    assert.equal(timestampMicros("2026-05-20 02:58:49"), null);
  });
});

describe("trigger_consolidation semantic", () => {
  const goalWords = "ship the billing service release with audited invoices and refunds";
  const goal = memory(1, "Billing release", goalWords, { type: "goal" });
  const memories = [
    goal,
    // Aligned with the goal, near-duplicates, same alignment: qualifies.
    memory(2, "aligned-a", `${goalWords} checklist ready`),
    memory(3, "aligned-b", `${goalWords} checklist ready`),
    // Aligned, near-duplicates, but one swaps two goal words: alignments differ by more than 0.05.
    memory(4, "drift-a", `${goalWords} tomorrow morning pending approval from finance and legal`),
    memory(5, "drift-b", `${goalWords.replace("refunds", "chargebacks").replace("invoices", "receipts")} tomorrow morning pending approval from finance and legal`),
    // Near-duplicates unrelated to the goal.
    memory(6, "offtopic-a", "rotate the staging database password and update the vault entry tonight"),
    memory(7, "offtopic-b", "rotate the staging database password and update the vault entry today"),
  ];
  const alignment = (m: ConsolidationMemory) => referenceCosine(m, goal);

  test("a pair is compared when both alignments are >= 0.5 and qualifies when they differ by <= 0.05", slow, async () => {
    const [, a1, a2, d1, d2, o1, o2] = memories;
    // The fixture covers each case (by the float math), so this test can fail.
    assert.ok(alignment(a1) >= 0.5 && Math.abs(alignment(a1) - alignment(a2)) <= 0.05);
    assert.ok(alignment(d1) >= 0.5 && alignment(d2) >= 0.5 && Math.abs(alignment(d1) - alignment(d2)) > 0.05, `${alignment(d1)} ${alignment(d2)}`);
    assert.ok(referenceCosine(d1, d2) >= 0.85, `${referenceCosine(d1, d2)}`);
    assert.ok(alignment(o1) < 0.5 && referenceCosine(o1, o2) >= 0.85);

    const semantic = await triggerConsolidation(memories, validateTriggerParameters({ strategy: "semantic" }));
    const names = semantic.candidates.map((c) => c.memories.map((m) => m.name).join("+"));
    assert.deepEqual(names, ["aligned-a+aligned-b"]);
    const compared = [[a1, a2], [d1, d2], [goal, a1], [goal, a2]].filter(([x, y]) => referenceCosine(x, y) >= 0.85 * 0.9).length;
    assert.equal(semantic.document.statistics.pairs_compared, compared);
    assert.equal(semantic.document.statistics.pairs_evaluated, 21, "design 004: n(n-1)/2 of 7 memories");
    const sample = semantic.document.candidates_sample[0];
    assert.deepEqual(sample.alignments, [Math.round(alignment(a1) * 1e6) / 1e6, Math.round(alignment(a2) * 1e6) / 1e6]);
    assert.equal(sample.combined_alignment, Math.round(combinedAlignment([alignment(a1), alignment(a2)]) * 1e6) / 1e6);

    // The similarity strategy also applies the alignment rule: the off-topic pair (both 0.x, equal) qualifies, drift does not.
    const similarity = await triggerConsolidation(memories, validateTriggerParameters({ strategy: "similarity" }));
    const similarNames = similarity.candidates.map((c) => c.memories[0].name).sort();
    assert.ok(similarNames.includes("aligned-a") && similarNames.includes("offtopic-a") && !similarNames.includes("drift-a"), similarNames.join(","));
  });

  test("without goals every alignment is 0, so the semantic strategy finds nothing", slow, async () => {
    const withoutGoal = memories.slice(1);
    const { document } = await triggerConsolidation(withoutGoal, validateTriggerParameters({ strategy: "semantic" }));
    assert.equal(document.consolidation_result.status, "no_candidates");
    assert.equal(document.statistics.pairs_compared, 0);
    assert.equal(document.statistics.pairs_evaluated, 15);
  });

  test("combined alignment is Σa³ / Σa², the mean when all are 0", () => {
    assert.equal(combinedAlignment([0.6, 0.6]), 0.6 ** 3 * 2 / (0.6 ** 2 * 2));
    assert.equal(combinedAlignment([0.5, 0.7]), (0.125 + 0.7 ** 3) / (0.25 + 0.7 ** 2));
    assert.equal(combinedAlignment([1, 0]), 1);
    assert.equal(combinedAlignment([0, 0]), 0);
    assert.equal(combinedAlignment([0, 0, 0]), 0);
  });
});

describe("SparseEmbeddings", () => {
  test("cosine equals the dense float64 cosine bit for bit", () => {
    const texts = ["Straße repaired (note) twice", "strasse REPAIRED (note) once", "alpha", "", "a b c d e f g h i j k l m n o p"];
    const embeddings = SparseEmbeddings.embed(texts, 1536);
    for (let a = 0; a < texts.length; a++) {
      for (let b = 0; b < texts.length; b++) {
        assert.equal(embeddings.cosine(a, b), cosineSimilarity(hashEmbeddingReference(texts[a]), hashEmbeddingReference(texts[b])), `${a} ${b}`);
      }
    }
  });
});

describe("trigger parameters", () => {
  function refused(input: Parameters<typeof validateTriggerParameters>[0], code: string, message: string): void {
    assert.throws(() => validateTriggerParameters(input), (error: unknown) => {
      assert.ok(isZaxyError(error));
      assert.equal(error.code, code);
      assert.equal(error.exitCode, 2);
      assert.equal(error.message, message);
      return true;
    });
  }

  test("defaults: similarity, 0.85, 100; 0 and 1 are valid thresholds", () => {
    assert.deepEqual(validateTriggerParameters({}), { strategy: "similarity", minSimilarity: 0.85, maxMemories: 100 });
    assert.equal(validateTriggerParameters({ minSimilarity: 0 }).minSimilarity, 0);
    assert.equal(validateTriggerParameters({ minSimilarity: 1 }).minSimilarity, 1);
    assert.equal(validateTriggerParameters({ maxMemories: 1 }).maxMemories, 1);
    assert.equal(validateTriggerParameters({ maxMemories: 10000 }).maxMemories, 10000);
  });

  test("an unknown strategy, a threshold outside 0..1 or max_memories outside 1..10000 is refused, listing the valid values", () => {
    refused({ strategy: "cluster" }, "invalid_strategy", 'strategy must be one of: similarity, temporal, semantic (got "cluster")');
    refused({ minSimilarity: 1.5 }, "invalid_min_similarity", "min_similarity must be a number from 0 to 1 (got 1.5)");
    refused({ minSimilarity: -0.01 }, "invalid_min_similarity", "min_similarity must be a number from 0 to 1 (got -0.01)");
    refused({ minSimilarity: Number.NaN }, "invalid_min_similarity", "min_similarity must be a number from 0 to 1 (got NaN)");
    refused({ maxMemories: 0 }, "invalid_max_memories", "max_memories must be an integer from 1 to 10000 (got 0)");
    refused({ maxMemories: 2.5 }, "invalid_max_memories", "max_memories must be an integer from 1 to 10000 (got 2.5)");
    refused({ maxMemories: 10001 }, "invalid_max_memories", "max_memories must be an integer from 1 to 10000 (got 10001)");
  });
});
