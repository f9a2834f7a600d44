/**
 * `zaxy bench reproject` on 300 events: phases, rows written, vector index, the per-row
 * baseline on a prefix, ratios and targets; and the mixed-session generator is deterministic.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mixedSessionItems, sampleQueries } from "../../src/bench/mixedSession.ts";
import { runReprojectBench } from "../../src/bench/reprojectBench.ts";

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
  const doc = await runReprojectBench({ events: 300, baselineEvents: 40 });
  assert.equal(doc.events, 300);
  assert.equal(doc.reproject.source, "rebuilt");
  assert.ok(doc.reproject.seconds > 0);
  for (const phase of ["verify_and_read", "open_store", "fold", "write_store", "write_cache"]) {
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
  assert.deepEqual(Object.keys(doc.targets), ["reproject_seconds", "bulk_write_vs_per_row"]);
  assert.equal(doc.targets.reproject_seconds.met, doc.reproject.seconds <= 30);
  assert.equal(doc.targets.bulk_write_vs_per_row.target, ">= 20x");
  assert.ok(doc.append.log_bytes > 300 * 200);
});
