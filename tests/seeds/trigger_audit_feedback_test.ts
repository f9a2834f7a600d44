/**
 * Issue 13, items 15–17 through the built binary: trigger_consolidation's design fields and
 * merge by stable ids (design 004), the audit naming uncited events (design 002), and
 * `memory_feedback` served with reinforcement that changes ranking.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fromJs } from "../../src/canonical/mod.ts";
import { appendEvents } from "../../src/eventloom/mod.ts";
import { runZaxy, stackTraceLines } from "../cli/zaxy.ts";

function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `zaxy-seed-${prefix}-`));
}

// ---------------------------------------------------------------------------------------------
// Item 16: compact --audit names the events that lack a citation.

test("design 002: compact --audit names each uncited event by seq, hash and type when citation coverage < 1", async () => {
  const dir = tempDir("audit");
  const appended = await appendEvents(dir, "default", [
    { type: "document.indexed", actor: "agent", payload: fromJs({ path: "docs/a.md", content: "alpha runbook" }) },
    { type: "document.indexed", actor: "agent", payload: fromJs({ content: "beta notes without a path" }) },
    { type: "transcript.turn", actor: "user", payload: fromJs({ content: "gamma said in a turn", source: "chat" }) },
  ]);
  const [, doc2, turn3] = appended.events;

  const json = runZaxy(["compact", appended.logPath, "--audit", "--json"], { cwd: dir });
  assert.equal(json.code, 1, json.stderr);
  const report = JSON.parse(json.stdout);
  assert.ok(report.citation_coverage < 1);
  assert.equal(report.uncited_event_count, 2);
  assert.deepEqual(report.uncited_events, [
    { seq: 2, hash: doc2.hash, event_type: "document.indexed" },
    { seq: 3, hash: turn3.hash, event_type: "transcript.turn" },
  ]);

  const text = runZaxy(["compact", appended.logPath, "--audit"], { cwd: dir });
  assert.equal(text.code, 1, text.stderr);
  assert.ok(text.stdout.includes("Uncited events (2; re-ingest them with their source to cite them):"), text.stdout);
  assert.ok(text.stdout.includes(`  - seq 2  ${doc2.hash}  document.indexed`), text.stdout);
  assert.ok(text.stdout.includes(`  - seq 3  ${turn3.hash}  transcript.turn`), text.stdout);
  assert.deepEqual(stackTraceLines(text.stderr), []);
});

test("design 002: a fully cited log lists no uncited events", async () => {
  const dir = tempDir("audit-cited");
  const appended = await appendEvents(dir, "default", [{ type: "document.indexed", actor: "agent", payload: fromJs({ path: "docs/a.md", content: "alpha" }) }]);
  const run = runZaxy(["compact", appended.logPath, "--audit", "--json"], { cwd: dir });
  assert.equal(run.code, 0, run.stderr);
  const report = JSON.parse(run.stdout);
  assert.equal(report.uncited_event_count, 0);
  assert.deepEqual(report.uncited_events, []);
  const text = runZaxy(["compact", appended.logPath, "--audit"], { cwd: dir });
  assert.ok(!text.stdout.includes("Uncited events"), text.stdout);
});

test("design 002: past 100 uncited events the audit lists the first 100 by seq and counts them all", async () => {
  const dir = tempDir("audit-many");
  const appended = await appendEvents(
    dir,
    "default",
    Array.from({ length: 105 }, (_, i) => ({ type: "document.indexed", actor: "agent", payload: fromJs({ content: `note ${i} distinct words w${i}x` }) })),
  );
  const run = runZaxy(["compact", appended.logPath, "--audit", "--json"], { cwd: dir });
  assert.equal(run.code, 1, run.stderr);
  const report = JSON.parse(run.stdout);
  assert.equal(report.uncited_event_count, 105);
  assert.equal(report.uncited_events.length, 100);
  assert.deepEqual(report.uncited_events.map((e: { seq: number }) => e.seq), Array.from({ length: 100 }, (_, i) => i + 1));
  const text = runZaxy(["compact", appended.logPath, "--audit"], { cwd: dir });
  assert.ok(text.stdout.includes("  - ... 5 more (only the first 100 are listed)"), text.stdout);
});
