/**
 * `zaxy bench consolidation` at small sizes: the report's shape, and the collapse it exists to
 * show — on the spread set, exemplars with enough records recall every identity while the
 * medoid (and the centroid) keep one; retrieval over the log recalls everything.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { consolidationQuestion, runConsolidationBench } from "../../src/bench/consolidationBench.ts";

test("the question names the topic and the identity code", () => {
  assert.equal(consolidationQuestion({ code: "0007", topic: 2 }), "Which retry policy note records identity-code-0007?");
});

test("runConsolidationBench: shape, and exemplar(k = all) recalls every identity where the medoid does not", { timeout: 120_000 }, async () => {
  const result = await runConsolidationBench({ identities: 12, topics: 4 });
  assert.deepEqual(result.exemplar_ks, [4, 12]);
  assert.deepEqual(result.command, ["zaxy", "bench", "consolidation", "--identities", "12", "--topics", "4"]);
  assert.ok(typeof result.machine.cpu === "string");
  assert.deepEqual(result.datasets.map((d) => [d.dataset, d.documents, d.topics]), [["tight", 12, 1], ["spread", 12, 4]]);
  const methods = ["raw retrieval (BM25)", "centroid (nearest member)", "medoid", "exemplar(k=4)", "exemplar(k=12)", "zaxy retrieval + exemplar(k=4) projection"];
  for (const dataset of result.datasets) {
    assert.deepEqual(dataset.rows.map((r) => r.method), methods);
    for (const row of dataset.rows) {
      assert.ok(row.identity_recall >= 0 && row.identity_recall <= 1 && row.topic_coverage >= 0 && row.topic_coverage <= 1, JSON.stringify(row));
      assert.ok(row.build_ms >= 0);
    }
  }
  const [tight, spread] = result.datasets;
  assert.ok(spread.mean_pairwise_distance > tight.mean_pairwise_distance);
  const row = (d: typeof spread, method: string) => d.rows.find((r) => r.method === method)!;
  // One representative keeps one identity of twelve, whatever the set.
  for (const d of [tight, spread]) {
    assert.equal(row(d, "medoid").identity_recall, 0.0833);
    assert.equal(row(d, "medoid").records_kept, 1);
    assert.equal(row(d, "centroid (nearest member)").identity_recall, 0.0833);
    assert.equal(row(d, "exemplar(k=12)").identity_recall, 1);
    assert.equal(row(d, "exemplar(k=12)").records_kept, 12);
    assert.equal(row(d, "raw retrieval (BM25)").identity_recall, 1);
    assert.equal(row(d, "zaxy retrieval + exemplar(k=4) projection").identity_recall, 1);
  }
  // Spread: the medoid covers one topic of four; farthest-point exemplars (k = topics) cover all.
  assert.equal(row(spread, "medoid").topic_coverage, 0.25);
  assert.equal(row(spread, "exemplar(k=4)").topic_coverage, 1);
  assert.equal(row(spread, "exemplar(k=4)").identity_recall, 0.3333);
  assert.equal(row(tight, "medoid").topic_coverage, 1);
});

test("runConsolidationBench refuses out-of-range sizes naming the flag", async () => {
  await assert.rejects(runConsolidationBench({ identities: 1, topics: 4 }), /--identities must be an integer in 2..9000/);
  await assert.rejects(runConsolidationBench({ identities: 12, topics: 9 }), /--topics must be an integer in 2..8/);
});
