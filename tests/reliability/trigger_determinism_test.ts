/**
 * trigger_consolidation's similarity pairs come from a usearch index built in this process: the
 * same memories must give the same pairs on every run (issue 12 item 7, "the same log must give
 * the same answer"). A parallel usearch build races for graph links and proposed different
 * near-threshold pairs on each run.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { SparseEmbeddings } from "../../src/consolidation/similarityEmbeddings.ts";
import { similarPairs } from "../../src/consolidation/similarityPairs.ts";
import { Rng } from "../testkit/rng.ts";

/** Short texts over a small vocabulary: thousands of pairs land near any threshold. */
function overlappingTexts(count: number, seed: number): string[] {
  const rng = new Rng(seed);
  const vocabulary = Array.from({ length: 300 }, (_, i) => `w${i}`);
  return Array.from({ length: count }, () => Array.from({ length: 8 }, () => rng.pick(vocabulary)).join(" "));
}

describe("trigger_consolidation similarity pairs", () => {
  test("three runs over the same 12,000 memories propose exactly the same pairs with the same cosines", async () => {
    const embeddings = SparseEmbeddings.embed(overlappingTexts(12_000, 20261124), 1536);
    const runs: string[] = [];
    for (let run = 0; run < 3; run++) {
      const { pairs } = await similarPairs(embeddings, 0.45);
      assert.ok(pairs.length > 100, `expected many near-threshold pairs, got ${pairs.length}`);
      runs.push(Array.from({ length: pairs.length }, (_, i) => `${pairs.a(i)}-${pairs.b(i)}:${pairs.cosine(i)}`).join(","));
    }
    assert.equal(runs[1], runs[0], "run 2 proposed other pairs than run 1");
    assert.equal(runs[2], runs[0], "run 3 proposed other pairs than run 1");
  });
});
