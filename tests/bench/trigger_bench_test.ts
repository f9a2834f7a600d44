// test-lane: full (bench command)
/**
 * `zaxy bench trigger` through the BUILT binary on small sizes: the document's shape, that the
 * indexed similarity run finds every planted near-duplicate and every pair the all-pairs scan
 * finds, and that a size outside its range is refused with exit 2 naming the flag.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { repoRoot, runZaxy } from "../cli/zaxy.ts";

test("bench trigger: planted pairs and the all-pairs scan's pairs are all found, with phases and the machine", { timeout: 120_000 }, () => {
  const run = runZaxy(["bench", "trigger", "--memories", "3000", "--all-pairs-memories", "1000", "--json"], { cwd: repoRoot });
  assert.equal(run.code, 0, run.stderr);
  const doc = JSON.parse(run.stdout);
  assert.equal(doc.schema, "zaxy.bench.trigger.v1");
  assert.equal(doc.memories, 3000);
  assert.equal(doc.similarity_threshold, 0.85);
  assert.equal(doc.planted_pairs, 30);
  assert.equal(doc.planted_recall, 1);
  assert.ok(doc.planted_pairs_above_threshold >= 1 && doc.planted_pairs_above_threshold <= doc.planted_pairs);
  assert.ok(doc.indexed.candidates_found >= doc.planted_pairs_above_threshold);
  assert.deepEqual(Object.keys(doc.indexed.phases_ms), ["embedding", "alignment", "index_build", "knn_search", "exact_rescoring", "pairing"]);
  assert.equal(doc.all_pairs.memories, 1000);
  assert.equal(doc.all_pairs.pairs_compared, (1000 * 999) / 2);
  assert.equal(doc.indexed_all_pairs_subset.recall_vs_all_pairs, 1);
  assert.equal(doc.indexed_all_pairs_subset.candidates_found, doc.all_pairs.pairs_above_threshold);
  assert.ok(doc.speedup_same_memories > 0);
  assert.ok(doc.peak_rss_mib > 0);
  assert.equal(typeof doc.machine.cpu, "string");
  for (const target of Object.values(doc.targets) as Array<{ met: boolean }>) assert.equal(target.met, true);
});

test("bench trigger refuses sizes outside their range with exit 2 naming the flag", () => {
  const run = runZaxy(["bench", "trigger", "--memories", "1", "--json"], { cwd: repoRoot });
  assert.equal(run.code, 2);
  const { error } = JSON.parse(run.stdout);
  assert.equal(error.field, "--memories");
  assert.match(error.message, /--memories must be an integer 2\.\.1000000, got "1"/);
});
