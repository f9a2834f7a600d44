/**
 * `zaxy bench retrieval` on 40 near-duplicate documents: the report has recall, MRR, citation
 * coverage and latency for zaxy and the BM25-only baseline, and the Recall@5 target.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { identityQuestion, runRetrievalBench, runbookParagraph } from "../../src/bench/retrievalBench.ts";
import { latencySummary, percentile } from "../../src/bench/measure.ts";

test("percentile is nearest-rank and latencySummary is null without samples", () => {
  const samples = [5, 1, 4, 2, 3, 10, 9, 8, 7, 6];
  assert.equal(percentile(samples, 50), 5);
  assert.equal(percentile(samples, 95), 10);
  assert.equal(percentile(samples, 0), 1);
  assert.equal(latencySummary([]), null);
  assert.deepEqual(latencySummary([2, 4]), { count: 2, p50_ms: 2, p95_ms: 4, p99_ms: 4, mean_ms: 3, max_ms: 4 });
});

test("the identity question and the shared paragraph have the documented shape", () => {
  assert.equal(identityQuestion("1234"), "Which source records identity-code-1234?");
  const words = runbookParagraph.split(/\s+/).length;
  assert.ok(words >= 55 && words <= 70, `about 60 words, got ${words}`);
});

test("runRetrievalBench reports recall, MRR, citations and latency for zaxy and BM25", { timeout: 120_000 }, async () => {
  const doc = await runRetrievalBench({ documents: 40, queries: 12 });
  assert.equal(doc.documents, 40);
  assert.equal(doc.queries, 12);
  assert.equal(doc.limit, 10);
  for (const lane of [doc.zaxy, doc.bm25_baseline]) {
    for (const key of ["recall_at_1", "recall_at_5", "recall_at_10", "mrr"] as const) {
      assert.ok(lane[key] >= 0 && lane[key] <= 1, `${key} = ${lane[key]}`);
    }
    assert.ok(lane.recall_at_1 <= lane.recall_at_5 && lane.recall_at_5 <= lane.recall_at_10);
    assert.ok(lane.results_returned > 0);
    assert.ok(lane.latency !== null && lane.latency.p50_ms > 0 && lane.latency.p50_ms <= lane.latency.p95_ms && lane.latency.p95_ms <= lane.latency.p99_ms);
  }
  // The first call is the cold one; the other 11 are the warm samples.
  assert.equal(doc.zaxy.latency?.count, 11);
  assert.equal(doc.bm25_baseline.latency?.count, 12);
  assert.ok(doc.zaxy.cold_first_query_ms > 0);
  assert.ok(typeof doc.zaxy.cold_projection_timings_ms.verify_and_read === "number");
  assert.ok(doc.zaxy.citation_coverage !== null && doc.zaxy.citation_coverage >= 0 && doc.zaxy.citation_coverage <= 1);
  assert.equal(doc.bm25_baseline.citation_coverage, null);
  // Only the code differs, so raw BM25 finds every document first.
  assert.equal(doc.bm25_baseline.recall_at_1, 1);
  assert.deepEqual(Object.keys(doc.targets), ["zaxy_recall_at_5"]);
  assert.equal(doc.targets.zaxy_recall_at_5.target, ">= 0.99");
  assert.equal(doc.targets.zaxy_recall_at_5.met, doc.zaxy.recall_at_5 >= 0.99);
  assert.ok(typeof doc.machine.cpu === "string" && doc.machine.cores >= 1);
});

test("runRetrievalBench rejects more documents than there are four-digit codes", async () => {
  await assert.rejects(runRetrievalBench({ documents: 9001 }), (error: Error & { code?: string }) => error.code === "invalid_option");
});
