// test-lane: full (bench command)
/**
 * `zaxy bench compaction-audit` on 300 events against the BUILT binary (`dist/zaxy`).
 * Skipped when dist/zaxy has not been built (`node_modules/.bin/bun build.ts`).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import { builtBinary, runZaxy } from "../cli/zaxy.ts";

const skip = fs.existsSync(builtBinary) ? false : `${builtBinary} does not exist; build it with node_modules/.bin/bun build.ts`;

test("bench compaction-audit --events 300 reports runs, peak RSS, clusters, planted families found and the targets", { skip, timeout: 120_000 }, () => {
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
  assert.equal(doc.targets.peak_rss_mib.target, "<= 512 MiB");
  assert.ok(doc.events_per_s > 0);
  assert.equal(typeof doc.machine.load_average_1m, "number");
  assert.equal(typeof doc.load_average_1m_after, "number");
  // One planted family of each kind (300 < 2000 events per family); the audit finds both, and
  // the unsafe one makes the log unsafe (exit 1).
  assert.equal(doc.planted_unsafe_families, 1);
  assert.equal(doc.planted_safe_families, 1);
  assert.equal(doc.planted_unsafe_families_found, 1);
  assert.equal(doc.planted_safe_families_found, 1);
  assert.ok(doc.unsafe_cluster_count >= 1 && doc.multi_event_cluster_count >= 2);
  assert.equal(doc.exit_code, 1);
});
