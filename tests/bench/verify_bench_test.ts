// test-lane: full (bench command)
/**
 * `zaxy bench verify` on a small log: the JSON document has every figure the README reports,
 * and the embedded baseline script is byte-identical to the reference verifier.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { refVerifyScript } from "../../src/bench/refVerifyScript.ts";
import { repoRoot, runZaxy } from "../cli/zaxy.ts";
import { makeTempDir, skipWithoutPython } from "../eventloom/testkit.ts";

test("the embedded ref_verify.py is byte-identical to the reference verifier", () => {
  const copies = [path.join(repoRoot, "fixtures", "tools", "ref_verify.py"), path.resolve(repoRoot, "../shared/tools/ref_verify.py")];
  for (const copy of copies.filter((c) => fs.existsSync(c))) assert.equal(refVerifyScript, fs.readFileSync(copy, "utf8"), copy);
});

test("bench verify --json reports throughput, ratios, RSS and cold start", { skip: skipWithoutPython, timeout: 180_000 }, () => {
  const dir = makeTempDir("zaxy-bench");
  const run = runZaxy(["bench", "verify", "--events", "2000", "--runs", "2", "--cold-start-runs", "3", "--json"], { cwd: dir });
  assert.equal(run.code, 0, run.stderr);
  const doc = JSON.parse(run.stdout);
  assert.equal(doc.schema, "zaxy.bench.verify.v1");
  assert.deepEqual(doc.logs.map((l: { name: string }) => l.name), ["python-legacy", "zaxy-v1"]);
  for (const log of doc.logs) {
    assert.equal(log.events, 2000);
    assert.ok(log.bytes > 2000 * 400, "about 700 bytes per event");
    assert.equal(log.zaxy_verify.ok, true);
    assert.equal(log.zaxy_verify.runs_s.length, 2);
    assert.ok(log.zaxy_verify.mb_per_s > 0 && log.sha256_one_shot.mb_per_s > 0);
    assert.match(log.python_ref_verify.verdict, /^OK events=2000 reason=None$/);
    assert.ok(log.speedup_vs_python > 0 && log.ratio_to_sha256 > 0);
  }
  assert.equal(doc.cold_start.runs_ms.length, 3);
  assert.deepEqual(Object.keys(doc.targets).sort(), ["cold_start_ms", "peak_rss_mb", "ratio_to_sha256_on_zaxy_log", "speedup_vs_python"]);
  assert.ok(typeof doc.machine.cpu === "string" && doc.machine.cores >= 1);
});
