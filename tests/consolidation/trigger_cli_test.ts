/**
 * `zaxy memory consolidation trigger` through the binary (docs/trigger-consolidation.md): the
 * --json document's keys and the pair it finds in a real session (names, types, citations of
 * the source events), that it writes nothing to the log, and exit 2 with the valid values for
 * an unknown strategy, a threshold outside 0..1 or max memories below 1 (before anything is read).
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { runZaxy, stackTraceLines } from "../cli/zaxy.ts";

after(removeTempDirs);

const slow = { timeout: 60_000 };
let dir = "";
let logPath = "";
// deno-lint-ignore no-explicit-any
const appended: any[] = [];

function append(type: string, payload: unknown): void {
  const run = runZaxy(["memory", "append", type, "--actor", "agent", "--payload-json", JSON.stringify(payload), "--json"], { cwd: dir });
  assert.equal(run.code, 0, run.stderr);
  appended.push(JSON.parse(run.stdout));
}

before(() => {
  dir = makeTempDir("trigger-cli");
  append("goal.created", { title: "Ship v2", description: "Release the billing service" });
  append("decision.made", { decision: "Use Postgres for invoices", summary: "invoices live in postgres with nightly backups to the archive bucket" });
  append("decision.made", { decision: "Store invoices in Postgres", summary: "invoices live in postgres with nightly backups to the archive bucket" });
  append("decision.made", { decision: "Rotate credentials monthly", summary: "the vault rotates staging credentials on the first monday" });
  logPath = path.join(dir, ".eventloom", "default.jsonl");
});

describe("zaxy memory consolidation trigger", () => {
  test("--json finds the near-duplicate decisions, cites their events, and writes nothing to the log", slow, () => {
    const before = fs.readFileSync(logPath);
    const run = runZaxy(["memory", "consolidation", "trigger", "--json"], { cwd: dir });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, "");
    const doc = JSON.parse(run.stdout);
    assert.deepEqual(Object.keys(doc), ["schema", "consolidation_result", "statistics", "candidates_sample"]);
    assert.equal(doc.schema, "zaxy.memory.consolidation.trigger.v1");
    assert.deepEqual(doc.consolidation_result, { status: "candidates_found", candidate_count: 1, action_required: true });
    assert.equal(doc.statistics.strategy, "similarity");
    assert.equal(doc.statistics.similarity_threshold, 0.85);
    assert.equal(doc.statistics.max_memories_limit, 100);
    // goal, actor, three decisions
    assert.equal(doc.statistics.memories_analyzed, 5);
    const [pair] = doc.candidates_sample;
    assert.deepEqual(pair.memories.map((m: { name: string }) => m.name), ["Use Postgres for invoices", "Store invoices in Postgres"]);
    assert.deepEqual(pair.memories.map((m: { entity_type: string }) => m.entity_type), ["decision", "decision"]);
    assert.deepEqual(pair.memories.map((m: { citation: string }) => m.citation), [appended[1].citation, appended[2].citation]);
    assert.deepEqual(pair.memories.map((m: { source_event: unknown }) => m.source_event), [
      { seq: 2, hash: appended[1].hash },
      { seq: 3, hash: appended[2].hash },
    ]);
    assert.ok(pair.similarity >= 0.85 && pair.similarity < 1, String(pair.similarity));
    assert.deepEqual(fs.readFileSync(logPath), before);
  });

  test("--max-memories analyses only the most recent memories, and a goal older than them still counts", slow, () => {
    const all = runZaxy(["memory", "consolidation", "trigger", "--json"], { cwd: dir });
    const recent = runZaxy(["memory", "consolidation", "trigger", "--max-memories", "3", "--json"], { cwd: dir });
    assert.equal(recent.code, 0, recent.stderr);
    const [allDoc, recentDoc] = [JSON.parse(all.stdout), JSON.parse(recent.stdout)];
    // The three decisions; the goal and its actor are older.
    assert.equal(recentDoc.statistics.memories_analyzed, 3);
    assert.equal(recentDoc.statistics.pairs_evaluated, 3);
    const [pair] = recentDoc.candidates_sample;
    assert.deepEqual(pair.memories.map((m: { name: string }) => m.name), ["Use Postgres for invoices", "Store invoices in Postgres"]);
    assert.ok(pair.alignments.some((alignment: number) => alignment > 0), JSON.stringify(pair.alignments));
    assert.deepEqual(pair.alignments, allDoc.candidates_sample[0].alignments);
  });

  test("--strategy temporal and --min-similarity are applied; the text output names the pair", slow, () => {
    const strict = runZaxy(["memory", "consolidation", "trigger", "--min-similarity", "0.99", "--json"], { cwd: dir });
    assert.equal(strict.code, 0, strict.stderr);
    assert.equal(JSON.parse(strict.stdout).consolidation_result.status, "no_candidates");
    const text = runZaxy(["memory", "consolidation", "trigger", "--strategy", "temporal"], { cwd: dir });
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^1 merge candidate\(s\) \(candidates_found\); strategy temporal/);
    assert.match(text.stdout, /Use Postgres for invoices \(decision\) {2}\+ {2}Store invoices in Postgres \(decision\)/);
  });

  for (
    const [args, field, message] of [
      [["--strategy", "cluster"], "--strategy", '--strategy must be one of: similarity, temporal, semantic (got "cluster")'],
      [["--min-similarity", "1.5"], "--min-similarity", "--min-similarity must be a number from 0 to 1 (got 1.5)"],
      [["--min-similarity=-0.1"], "--min-similarity", "--min-similarity must be a number from 0 to 1 (got -0.1)"],
      [["--min-similarity", "high"], "--min-similarity", '--min-similarity must be a number from 0 to 1 (got "high")'],
      [["--max-memories", "0"], "--max-memories", "--max-memories must be an integer from 1 to 10000 (got 0)"],
      [["--max-memories", "10001"], "--max-memories", "--max-memories must be an integer from 1 to 10000 (got 10001)"],
    ] as Array<[string[], string, string]>
  ) {
    test(`${args.join(" ")} exits 2 naming ${field} and the valid values; nothing is written`, slow, () => {
      const fresh = makeTempDir("trigger-cli-bad");
      fs.cpSync(path.join(dir, ".eventloom", "default.jsonl"), path.join(fresh, "log.jsonl"));
      fs.mkdirSync(path.join(fresh, ".eventloom"));
      fs.copyFileSync(path.join(fresh, "log.jsonl"), path.join(fresh, ".eventloom", "default.jsonl"));
      const before = fs.readFileSync(path.join(fresh, ".eventloom", "default.jsonl"));
      const run = runZaxy(["memory", "consolidation", "trigger", ...args, "--json"], { cwd: fresh });
      assert.equal(run.code, 2, run.stdout + run.stderr);
      assert.deepEqual(stackTraceLines(run.stderr), []);
      const error = JSON.parse(run.stdout).error;
      assert.equal(error.field, field);
      assert.equal(error.message, message);
      assert.deepEqual(fs.readdirSync(path.join(fresh, ".eventloom")), ["default.jsonl"], "no projection was made");
      assert.deepEqual(fs.readFileSync(path.join(fresh, ".eventloom", "default.jsonl")), before);
      const text = runZaxy(["memory", "consolidation", "trigger", ...args], { cwd: fresh });
      assert.equal(text.code, 2);
      assert.equal(text.stdout, "");
      assert.equal(text.stderr, `zaxy: ${message}\n`);
    });
  }

  test("an unknown session exits 2", slow, () => {
    const run = runZaxy(["memory", "consolidation", "trigger", "--session-id", "nobody", "--json"], { cwd: dir });
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.equal(JSON.parse(run.stdout).error.code, "unknown_session");
  });
});
