// test-lane: full (bench command)
/**
 * `zaxy bench medoid` through the binary, at small sizes: the JSON document carries every figure
 * docs/geometry-kernels.md reports, the two medoids agree (and equal the library's medoid of the
 * same seeded vectors), and bad options exit 2 naming the option.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { randomUnitRows } from "../../src/bench/medoidBench.ts";
import { farthestPointExemplars, medoidIndex } from "../../src/vector/geometry.ts";
import { runZaxy } from "../cli/zaxy.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";

after(removeTempDirs);

test("bench medoid --json: shape, agreeing medoids, exemplars and the reproduce command", { timeout: 120_000 }, () => {
  const dir = makeTempDir("zaxy-bench-medoid");
  const args = ["bench", "medoid", "--count", "600", "--dim", "37", "--seed", "7", "--runs", "3", "--json"];
  const run = runZaxy(args, { cwd: dir });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stderr, "", "no progress when stderr is not a terminal");
  const doc = JSON.parse(run.stdout);
  assert.equal(doc.schema, "zaxy.bench.medoid.v1");
  assert.deepEqual(Object.keys(doc).sort(), [
    "command", "count", "data", "dim", "farthest_point_exemplars", "generate_ms", "machine", "mean_pairwise_cosine_distance",
    "medoid_all_pairs_wasm", "medoid_indexes_agree", "medoid_linear_typescript", "medoid_linear_wasm", "runs", "schema", "seed",
    "speedup_linear_vs_all_pairs", "speedup_wasm_vs_typescript", "targets",
  ]);
  assert.deepEqual(doc.command, ["zaxy", "bench", "medoid", "--count", "600", "--dim", "37", "--seed", "7", "--runs", "3"]);
  assert.equal(doc.count, 600);
  assert.equal(doc.dim, 37);

  const rows = randomUnitRows(600, 37, 7);
  const medoid = medoidIndex(rows, 600, 37);
  assert.equal(doc.medoid_indexes_agree, true);
  assert.equal(doc.medoid_linear_wasm.index, medoid);
  assert.equal(doc.medoid_linear_typescript.index, medoid);
  assert.equal(doc.medoid_all_pairs_wasm.index, medoid);
  assert.equal(doc.medoid_all_pairs_wasm.pairs, (600 * 599) / 2);
  assert.equal(doc.medoid_linear_wasm.runs_ms.length, 3);
  assert.equal(doc.medoid_linear_typescript.runs_ms.length, 3);
  assert.ok(doc.medoid_all_pairs_wasm.ms > 0 && doc.speedup_linear_vs_all_pairs > 0 && doc.speedup_wasm_vs_typescript > 0);

  assert.equal(doc.farthest_point_exemplars.k, 32);
  assert.equal(doc.farthest_point_exemplars.first_index, medoid);
  assert.deepEqual(doc.farthest_point_exemplars.selected, farthestPointExemplars(rows, 600, 37, 32, medoid));
  assert.equal(doc.mean_pairwise_cosine_distance.runs_ms.length, 3);
  assert.ok(Math.abs(doc.mean_pairwise_cosine_distance.value - 1) < 0.01, "random unit vectors are nearly orthogonal on average");
  assert.deepEqual(Object.keys(doc.targets), ["medoid_speedup_vs_all_pairs"]);
  assert.equal(doc.targets.medoid_speedup_vs_all_pairs.target, ">= 100x");
  assert.equal(doc.targets.medoid_speedup_vs_all_pairs.value, doc.speedup_linear_vs_all_pairs);
  assert.equal(doc.targets.medoid_speedup_vs_all_pairs.met, null, "the target applies at 20000 × 1536 only");
  assert.ok(typeof doc.machine.cpu === "string" && doc.machine.cores >= 1);
});

test("bench medoid prints the figures as text without --json", { timeout: 120_000 }, () => {
  const run = runZaxy(["bench", "medoid", "--count", "50", "--dim", "5", "--runs", "1"], { cwd: makeTempDir("zaxy-bench-medoid") });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^machine: /);
  assert.match(run.stdout, /\nmedoid indexes agree: yes\n/);
  assert.match(run.stdout, /\nspeedup O\(n·d\) vs all pairs: [0-9.]+x; WebAssembly vs TypeScript O\(n·d\): [0-9.]+x\n/);
});

test("bench medoid rejects bad sizes with exit 2 naming the option", () => {
  const dir = makeTempDir("zaxy-bench-medoid");
  const cases: [string[], RegExp][] = [
    [["--count", "1"], /--count must be an integer 2\.\.100000, got "1"/],
    [["--dim", "0"], /--dim must be an integer 1\.\.16384, got "0"/],
    [["--runs", "x"], /--runs must be an integer 1\.\.100, got "x"/],
    [["--count", "100000", "--dim", "2000"], /--count × --dim must be at most 153600000 \(100000 × 1536\), got 100000 × 2000/],
  ];
  for (const [options, message] of cases) {
    const run = runZaxy(["bench", "medoid", ...options, "--json"], { cwd: dir });
    assert.equal(run.code, 2, options.join(" "));
    const doc = JSON.parse(run.stdout);
    assert.equal(doc.error.code, "invalid_option");
    assert.match(doc.error.message, message);
  }
});
