/**
 * `zaxy bench compaction-audit` on 300 events against the BUILT binary (`dist/zaxy`).
 * Skipped when dist/zaxy has not been built (`node_modules/.bin/bun build.ts`).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import { builtBinary, runZaxy } from "../cli/zaxy.ts";

const skip = fs.existsSync(builtBinary) ? false : `${builtBinary} does not exist; build it with node_modules/.bin/bun build.ts`;

test("bench compaction-audit --events 300 reports runs, peak RSS, clusters and the target", { skip, timeout: 120_000 }, () => {
  const run = runZaxy(["bench", "compaction-audit", "--events", "300", "--runs", "2", "--json"], { cwd: fs.mkdtempSync("/tmp/zaxy-bench-ca-") });
  assert.equal(run.code, 0, run.stderr);
  const doc = JSON.parse(run.stdout);
  assert.equal(doc.schema, "zaxy.bench.compaction_audit.v1");
  assert.equal(doc.events, 300);
  assert.equal(doc.runs_s.length, 2);
  assert.ok(doc.median_s > 0);
  assert.ok(doc.exit_code === 0 || doc.exit_code === 1);
  assert.ok(doc.cluster_count >= 1 && doc.cluster_count <= 300);
  assert.equal(doc.targets.median_s.target, "<= 20 s");
});
