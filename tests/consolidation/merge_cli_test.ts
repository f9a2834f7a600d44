/**
 * `zaxy memory consolidation merge` through the binary (docs/trigger-consolidation.md): exactly
 * one `consolidation.candidate.created` of type claim, pending, non-authoritative, citing the
 * memories' source events (seq + full hash) is appended; the bytes before it are unchanged; the
 * same merge again appends nothing; unknown, ambiguous or too few memories exit 2 and write nothing.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { createHash } from "node:crypto";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { runZaxy, stackTraceLines } from "../cli/zaxy.ts";

after(removeTempDirs);

const slow = { timeout: 60_000 };
let dir = "";
let logPath = "";
// deno-lint-ignore no-explicit-any
const appended: any[] = [];

function zaxy(args: string[]) {
  return runZaxy(args, { cwd: dir });
}

function append(type: string, payload: unknown): void {
  const run = zaxy(["memory", "append", type, "--actor", "agent", "--payload-json", JSON.stringify(payload), "--json"]);
  assert.equal(run.code, 0, run.stderr);
  appended.push(JSON.parse(run.stdout));
}

function lines(): string[] {
  return fs.readFileSync(logPath, "utf8").split("\n").filter((line) => line !== "");
}

/** Python's candidate id (seed 001): 16 hex of sha256 of the canonical {candidate_type, source_events, title} (ASCII titles here). */
function candidateId(title: string, sourceEvents: Array<{ seq: number; hash: string }>): string {
  const canonical = `{"candidate_type":"claim","source_events":[${sourceEvents.map((e) => `{"hash":"${e.hash}","seq":${e.seq}}`).join(",")}],"title":${JSON.stringify(title)}}`;
  return `consolidation:claim:${createHash("sha256").update(canonical).digest("hex").slice(0, 16)}`;
}

before(() => {
  dir = makeTempDir("merge-cli");
  append("decision.made", { decision: "Use Postgres for invoices", summary: "invoices live in postgres with nightly backups" });
  append("decision.made", { decision: "Store invoices in Postgres", summary: "invoices live in postgres with nightly backups" });
  append("goal.created", { title: "Postgres", description: "a goal that shares a decision's name" });
  append("decision.made", { decision: "Postgres", summary: "the database" });
  logPath = path.join(dir, ".eventloom", "default.jsonl");
});

describe("zaxy memory consolidation merge", () => {
  test("appends exactly one pending, non-authoritative claim candidate citing both source events; earlier bytes unchanged", slow, () => {
    const before = fs.readFileSync(logPath);
    const run = zaxy(["memory", "consolidation", "merge", "--memory", "Store invoices in Postgres", "--memory", "Use Postgres for invoices@decision", "--json"]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, "");
    const doc = JSON.parse(run.stdout);
    assert.equal(doc.schema, "zaxy.memory.consolidation.merge.v1");
    assert.equal(doc.status, "created");
    assert.equal(doc.events_appended, 1);
    const sources = [{ seq: 1, hash: appended[0].hash }, { seq: 2, hash: appended[1].hash }];
    const title = "Merge Use Postgres for invoices (decision) + Store invoices in Postgres (decision)";
    assert.equal(doc.title, title);
    assert.equal(doc.candidate_id, candidateId(title, sources));
    assert.deepEqual(doc.source_events, sources);
    assert.deepEqual(doc.memories.map((m: { citation: string }) => m.citation), [appended[0].citation, appended[1].citation]);

    const after = fs.readFileSync(logPath);
    assert.deepEqual(after.subarray(0, before.length), before, "the source events' bytes are unchanged");
    const added = after.subarray(before.length).toString("utf8").split("\n").filter((line) => line !== "");
    assert.equal(added.length, 1);
    const event = JSON.parse(added[0]);
    const type = event.event_type ?? event.type;
    assert.equal(type, "consolidation.candidate.created");
    const payload = event.payload;
    assert.equal(payload.candidate_type, "claim");
    assert.equal(payload.review_status, "pending");
    assert.equal(payload.authority_status, "non_authoritative");
    assert.equal(payload.method, "merge_concepts_similarity_v1");
    assert.equal(payload.candidate_id, doc.candidate_id);
    assert.deepEqual(payload.source_events, sources);
    assert.ok(payload.confidence > 0.85 && payload.confidence <= 1, String(payload.confidence));
    assert.equal(payload.confidence, doc.confidence);
    assert.equal(doc.candidate_event.seq, 5);
  });

  test("the same merge again (memories in another order) appends nothing and reports the existing candidate", slow, () => {
    const before = fs.readFileSync(logPath);
    const run = zaxy(["memory", "consolidation", "merge", "--memory", "Use Postgres for invoices", "--memory", "Store invoices in Postgres", "--json"]);
    assert.equal(run.code, 0, run.stderr);
    const doc = JSON.parse(run.stdout);
    assert.equal(doc.status, "already_exists");
    assert.equal(doc.events_appended, 0);
    assert.equal(doc.candidate_event.seq, 5);
    assert.deepEqual(fs.readFileSync(logPath), before);
    const text = zaxy(["memory", "consolidation", "merge", "--memory", "Use Postgres for invoices", "--memory", "Store invoices in Postgres"]);
    assert.match(text.stdout, /^consolidation:claim:[0-9a-f]{16} already exists as seq 5; nothing appended/);
    assert.deepEqual(fs.readFileSync(logPath), before);
  });

  for (
    const [label, args, code, message] of [
      [
        "an unknown memory",
        ["--memory", "Use Postgres for invoices", "--memory", "Use MySQL"],
        "unknown_memory",
        'Cannot merge memory "Use MySQL": session "default" has no current memory of that name',
      ],
      [
        "a name of two entity types without one",
        ["--memory", "Postgres", "--memory", "Use Postgres for invoices"],
        "ambiguous_memory",
        'Memory "Postgres" is ambiguous: it names current entities of types decision, goal',
      ],
      [
        "one memory named twice",
        ["--memory", "Use Postgres for invoices", "--memory", "Use Postgres for invoices@decision"],
        "invalid_memories",
        "A merge needs at least 2 distinct memories; all 2 named resolve to Use Postgres for invoices (decision)",
      ],
      ["a single --memory", ["--memory", "Use Postgres for invoices"], "usage", "zaxy memory consolidation merge: give at least two memories with --memory NAME[@TYPE] or --source-id ID (got 1)"],
    ] as Array<[string, string[], string, string]>
  ) {
    test(`${label} exits 2 with ${code}; nothing is written`, slow, () => {
      const before = fs.readFileSync(logPath);
      const run = zaxy(["memory", "consolidation", "merge", ...args, "--json"]);
      assert.equal(run.code, 2, run.stdout + run.stderr);
      assert.deepEqual(stackTraceLines(run.stderr), []);
      const error = JSON.parse(run.stdout).error;
      assert.equal(error.code, code);
      assert.equal(error.message, message);
      assert.deepEqual(fs.readFileSync(logPath), before);
    });
  }

  test("NAME@TYPE and --entity-type pick among same-named memories", slow, () => {
    const run = zaxy(["memory", "consolidation", "merge", "--memory", "Postgres@goal", "--memory", "Postgres@decision", "--title", "Postgres goal and decision", "--json"]);
    assert.equal(run.code, 0, run.stderr);
    const doc = JSON.parse(run.stdout);
    assert.deepEqual(doc.memories.map((m: { entity_type: string }) => m.entity_type), ["goal", "decision"]);
    assert.equal(doc.title, "Postgres goal and decision");
    assert.equal(lines().length, 6);
    const typed = zaxy(["memory", "consolidation", "merge", "--entity-type", "decision", "--memory", "Postgres", "--memory", "Use Postgres for invoices", "--json"]);
    assert.equal(typed.code, 0, typed.stderr);
    assert.equal(JSON.parse(typed.stdout).status, "created");
    assert.equal(lines().length, 7);
  });
});
