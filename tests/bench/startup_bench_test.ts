// test-lane: full (bench command)
/**
 * `zaxy bench startup`: the JSON document's shape (both commands, their runs, what was measured)
 * and a bad --runs refused with exit 2. No timing is asserted: figures belong to the bench.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { runZaxy, zaxyInvocation } from "../cli/zaxy.ts";
import { makeTempDir } from "../eventloom/testkit.ts";

test("bench startup --json reports median and p90 of --version and verify", { timeout: 180_000 }, () => {
  const dir = makeTempDir("zaxy-bench-startup");
  const run = runZaxy(["bench", "startup", "--runs", "2", "--json"], { cwd: dir });
  assert.equal(run.code, 0, run.stderr);
  const doc = JSON.parse(run.stdout);
  assert.equal(doc.schema, "zaxy.bench.startup.v1");
  assert.equal(doc.measured, zaxyInvocation.kind);
  assert.equal(doc.runs, 2);
  assert.equal(doc.warmup_runs, 3);
  assert.deepEqual(doc.version.args, ["--version"]);
  assert.equal(doc.verify.args[0], "verify");
  assert.equal(doc.verify.events, 3);
  for (const sample of [doc.version, doc.verify]) {
    assert.equal(sample.runs_ms.length, 2);
    assert.ok(sample.median_ms > 0 && sample.p90_ms >= sample.median_ms && sample.min_ms <= sample.median_ms, JSON.stringify(sample));
  }
  assert.deepEqual(Object.keys(doc.targets).sort(), ["verify_median_ms", "version_median_ms"]);
  if (doc.measured === "source") assert.equal(doc.targets.version_median_ms.met, null, "a source run is not judged against the binary's goal");
  assert.ok(typeof doc.machine.cpu === "string" && doc.machine.cores >= 1);
});

test("bench startup text names what it measured and both commands", { timeout: 180_000 }, () => {
  const run = runZaxy(["bench", "startup", "--runs", "1"], { cwd: makeTempDir("zaxy-bench-startup") });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, zaxyInvocation.kind === "binary" ? /^start-up of the binary / : /^start-up of the source run /);
  assert.match(run.stdout, /zaxy --version +median +[0-9.]+ ms +p90 +[0-9.]+ ms/);
  assert.match(run.stdout, /zaxy verify \(3 events\) +median/);
});

for (const bad of ["0", "-1", "abc", "1.5"]) {
  test(`bench startup --runs ${bad} is refused with exit 2 before anything runs`, () => {
    const run = runZaxy(["bench", "startup", "--runs", bad, "--json"], { cwd: makeTempDir("zaxy-bench-startup") });
    assert.equal(run.code, 2, run.stderr);
    const { error } = JSON.parse(run.stdout);
    assert.equal(error.code, "invalid_option");
    assert.equal(error.field, "--runs");
    assert.match(error.message, /--runs must be an integer 1\.\.10000/);
    assert.doesNotMatch(run.stderr, /\n\s+at /, "no stack trace");
  });
}
