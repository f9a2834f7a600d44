// deno-test: own-process (loads kuzu-wasm in this process; scripts/deno-test.sh runs it alone)
/**
 * `zaxy bench reproject` on 300 events: phases, rows written, vector index, the per-row
 * baseline on a prefix, ratios and targets; and the mixed-session generator is deterministic.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mixedSessionItems, sampleQueries } from "../../src/bench/mixedSession.ts";
import { runReprojectBench } from "../../src/bench/reprojectBench.ts";
import { builtBinary } from "../cli/zaxy.ts";

test("mixedSessionItems is deterministic per seed and covers the workflow and telemetry types", () => {
  const a = mixedSessionItems(2000, 7);
  const b = mixedSessionItems(2000, 7);
  assert.deepEqual(a.events, b.events);
  assert.notDeepEqual(mixedSessionItems(2000, 8).events, a.events);
  assert.equal(a.items.length, 2000);
  for (const type of [
    "goal.created", "task.proposed", "task.claimed", "task.completed", "decision.made", "user.preference_changed",
    "document.indexed", "transcript.turn", "tool.call.completed", "command.completed", "file.edit.applied",
  ]) {
    assert.ok((a.typeCounts[type] ?? 0) > 0, `${type} present`);
  }
  const queries = sampleQueries(a, 50, 3);
  assert.equal(queries.length, 50);
  assert.deepEqual(sampleQueries(a, 50, 3), queries);
  assert.ok(new Set(queries).size > 25, "queries vary");
});

test("runReprojectBench reports phases, rows, vector build, per-row baseline and targets", { timeout: 180_000 }, async () => {
  const doc = await runReprojectBench({ events: 300, baselineEvents: 40, cliRuns: 2, zaxyCommand: [builtBinary] });
  assert.equal(doc.events, 300);
  assert.equal(doc.reproject.source, "rebuilt");
  assert.ok(doc.reproject.seconds > 0);
  for (const phase of ["verify_and_read", "open_store", "fold", "write_store"]) {
    assert.equal(typeof doc.reproject.phases_ms[phase], "number", phase);
  }
  const rows = doc.reproject.rows_written;
  assert.equal(rows.events, 300);
  assert.ok(rows.entities > 0 && rows.relations > 0);
  assert.equal(rows.total, rows.entities + rows.relations + rows.events);
  assert.ok(doc.reproject.write_rows_per_s > 0 && doc.reproject.end_to_end_rows_per_s > 0);
  assert.equal(doc.vector_index.vectors, rows.entities);
  assert.equal(doc.vector_index.dim, 1536);
  assert.equal(doc.baseline.prefix_events, 40);
  assert.equal(doc.baseline.rows.events, 40);
  assert.match(doc.baseline.note, /first 40 events/);
  assert.ok(doc.baseline.per_row.rows_per_s > 0 && doc.baseline.bulk_same_diff.rows_per_s > 0);
  assert.ok(doc.ratios.bulk_write_vs_per_row > 0 && doc.ratios.end_to_end_vs_per_row > 0);
  assert.deepEqual(Object.keys(doc.targets), ["reproject_seconds", "bulk_write_vs_per_row", "cli_reproject_vs_ref_verify", "cli_reproject_peak_rss_mib"]);
  // The command users run, from nothing derived, in fresh processes, against ref_verify.py.
  const cli = doc.cli;
  assert.deepEqual(cli.failures, []);
  assert.deepEqual(cli.command, ["zaxy", "reproject", "--reset-projection", "--json", "--eventloom-path", cli.command[5], "--session-id", "reproject-bench"]);
  assert.equal(cli.runs_s.length, 2);
  assert.equal(cli.median_s, Math.round(((cli.runs_s[0] + cli.runs_s[1]) / 2) * 1000) / 1000);
  assert.equal(cli.peak_rss_mib.length, 2);
  assert.ok(cli.max_peak_rss_mib! > 10 && cli.max_peak_rss_mib! < 2048, String(cli.max_peak_rss_mib));
  // Nothing derived was left: the vector index is built, not reused, and no graph store is written.
  assert.equal(cli.phases_ms!.write_store, undefined);
  assert.ok(cli.vector_seconds! > 0);
  assert.equal(cli.ref_verify.error, null);
  assert.equal(cli.ref_verify.runs_s.length, 2);
  assert.equal(cli.ratio_to_ref_verify, Math.round((cli.median_s! / cli.ref_verify.median_s!) * 100) / 100);
  assert.equal(doc.targets.cli_reproject_vs_ref_verify.met, cli.ratio_to_ref_verify! <= 10);
  assert.equal(doc.targets.reproject_seconds.met, doc.reproject.seconds <= 30);
  assert.equal(doc.targets.bulk_write_vs_per_row.target, ">= 20x");
  assert.ok(doc.append.log_bytes > 300 * 200);
});
