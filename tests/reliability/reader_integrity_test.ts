/**
 * Issue 12 item 10: every command that shows events says whether the chain verified, and a
 * broken chain is exit 1 with the one error code `integrity_failure`. The forged event
 * ("mallory: forged approval of release") is never printed as what happened: `memory log`
 * refuses, `replay` (the forensic view) marks it UNVERIFIED and keeps it out of the handoff.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { makeTempDir, readLines, removeTempDirs, writeLines } from "../eventloom/testkit.ts";
import { runZaxy, stackTraceLines, type ZaxyRun } from "../cli/zaxy.ts";

after(removeTempDirs);

const slow = { timeout: 120_000 };
const forged = "mallory: forged approval of release";
let dir = "";
let log = "";

function zaxy(args: string[], cwd = dir): ZaxyRun {
  return runZaxy(args, { cwd });
}

function append(cwd: string, type: string, actor: string, payload: Record<string, unknown>, extra: string[] = []): void {
  const run = runZaxy(["memory", "append", type, "--actor", actor, "--payload-json", JSON.stringify(payload), ...extra], { cwd });
  assert.equal(run.code, 0, run.stderr);
}

/** Rewrites event `index` (0-based) of `file` in place without resealing it. */
function tamper(file: string, index: number, edit: (line: string) => string): void {
  const lines = readLines(file);
  const edited = edit(lines[index]);
  assert.notEqual(edited, lines[index], "the edit changed the line");
  lines[index] = edited;
  writeLines(file, lines);
}

before(() => {
  dir = makeTempDir("zaxy-reader-integrity");
  append(dir, "goal.created", "alice", { title: "Ship release 2.0" });
  append(dir, "decision.made", "bob", { text: "approve release after the tests pass" });
  append(dir, "goal.created", "alice", { title: "Write the changelog" });
  append(dir, "task.started", "alice", { task_id: "t1", title: "run the tests" });
  log = path.join(dir, ".eventloom", "default.jsonl");
});

describe("memory log verifies the chain", () => {
  test("an intact log: exit 0, `integrity: OK` first, --json carries integrity{ok, total_events}", slow, () => {
    const text = zaxy(["memory", "log", "--limit", "2"]);
    assert.equal(text.code, 0, text.stderr);
    assert.equal(text.stderr, "");
    const lines = text.stdout.trimEnd().split("\n");
    assert.equal(lines[0], "integrity: OK (4 events)");
    assert.equal(lines.length, 3);
    const doc = JSON.parse(zaxy(["memory", "log", "--json"]).stdout);
    assert.deepEqual(Object.keys(doc), ["schema", "session_id", "integrity", "total_events", "events", "next_after_seq"]);
    assert.deepEqual([doc.integrity.ok, doc.integrity.total_events, doc.integrity.broken_at_seq], [true, 4, null]);
  });

  test("a tampered log: exit 1 integrity_failure naming the seq; the forged event is printed nowhere", slow, () => {
    const copy = makeTempDir("zaxy-reader-tampered");
    fs.cpSync(path.join(dir, ".eventloom"), path.join(copy, ".eventloom"), { recursive: true });
    tamper(path.join(copy, ".eventloom", "default.jsonl"), 1, (line) => line.replace('"bob"', '"mallory"').replace("approve release after the tests pass", forged));
    const text = zaxy(["memory", "log"], copy);
    assert.equal(text.code, 1, text.stdout + text.stderr);
    assert.equal(text.stdout, "");
    assert.match(text.stderr, /Cannot show the log of session "default": it fails verification at seq 2 \(Event 2 hash mismatch\); no events shown/);
    assert.ok(!text.stderr.includes(forged));
    assert.deepEqual(stackTraceLines(text.stderr), []);
    const json = zaxy(["memory", "log", "--json", "--limit", "1"], copy);
    assert.equal(json.code, 1);
    const error = JSON.parse(json.stdout).error;
    assert.equal(error.code, "integrity_failure");
    assert.equal(error.line, 2);
    assert.ok(!json.stdout.includes(forged));
  });
});

describe("replay marks what did not verify", () => {
  test("a broken chain: exit 1, events from the broken seq on are UNVERIFIED, the handoff covers verified events only, a warning says so", slow, () => {
    const copy = makeTempDir("zaxy-replay-tampered");
    fs.cpSync(path.join(dir, ".eventloom"), path.join(copy, ".eventloom"), { recursive: true });
    const file = path.join(copy, ".eventloom", "default.jsonl");
    tamper(file, 1, (line) => line.replace('"bob"', '"mallory"').replace("approve release after the tests pass", forged));
    const text = zaxy(["replay", file], copy);
    assert.equal(text.code, 1);
    assert.match(text.stdout, /^integrity: BROKEN at seq 2: Event 2 hash mismatch\n/);
    const forgedLine = text.stdout.split("\n").find((line) => line.includes(forged));
    assert.ok(forgedLine?.endsWith("  UNVERIFIED"), String(forgedLine));
    assert.match(text.stdout, /^1  .*Ship release 2\.0"\}$/m, "seq 1 verified: no marker");
    assert.match(text.stdout, /^handoff \(verified events through seq 1\): 1 events; goals: Ship release 2\.0; open tasks: 0/m);
    assert.match(text.stderr, /^zaxy: warning: the chain is broken at seq 2 \(Event 2 hash mismatch\): events from seq 2 on are unverified \(3 in this window\)/);
    const json = zaxy(["replay", file, "--json"], copy);
    assert.equal(json.code, 1);
    const doc = JSON.parse(json.stdout);
    assert.equal(doc.verified_through_seq, 1);
    assert.deepEqual(doc.events.map((e: { seq: number; verified: boolean }) => [e.seq, e.verified]), [[1, true], [2, false], [3, false], [4, false]]);
    assert.deepEqual(doc.handoff.goals, ["Ship release 2.0"], "a goal after the break is not summarised");
    assert.equal(doc.warnings.length, 1);
  });

  test("an intact log: every event verified, no warning, exit 0", slow, () => {
    const run = zaxy(["replay", log, "--json"]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, "");
    const doc = JSON.parse(run.stdout);
    assert.equal(doc.verified_through_seq, 4);
    assert.ok(doc.events.every((e: { verified: boolean }) => e.verified));
    assert.deepEqual(doc.warnings, []);
  });
});

describe("every reader of a broken log: exit 1, integrity_failure", () => {
  test("checkout, query, status, causal, consolidation, reasoning, fleet status and audit refuse a tampered log", slow, () => {
    const root = makeTempDir("zaxy-readers-tampered");
    append(root, "goal.created", "alice", { title: "Ship release 2.0" });
    append(root, "decision.made", "bob", { text: "approve release after the tests pass" });
    append(root, "outcome.recorded", "alice", { status: "success", summary: "released" });
    assert.equal(zaxy(["init", "--fleet"], root).code, 0); // the fleet plane is off by default
    assert.equal(zaxy(["fleet", "create", "alpha", "--actor", "alice", "--summary", "Alpha"], root).code, 0);
    tamper(path.join(root, ".eventloom", "default.jsonl"), 1, (line) => line.replace("approve release after the tests pass", forged));
    tamper(path.join(root, ".eventloom", "fleet.alpha.jsonl"), 0, (line) => line.replace('"Alpha"', '"Forged"'));
    const readers = [
      ["memory", "checkout", "release"],
      ["memory", "query", "release"],
      ["memory", "causal", "successors", "1"],
      ["memory", "consolidation", "status"],
      ["memory", "consolidation", "trigger"],
      ["memory", "reasoning", "explain-outcome", "3"],
      ["memory", "log"],
      ["fleet", "status", "alpha"],
      ["fleet", "audit", "alpha"],
    ];
    for (const args of readers) {
      const run = zaxy([...args, "--json"], root);
      assert.equal(run.code, 1, `${args.join(" ")}: ${run.stdout}${run.stderr}`);
      assert.equal(JSON.parse(run.stdout).error.code, "integrity_failure", args.join(" "));
      assert.ok(!run.stdout.includes(forged) && !run.stdout.includes("Forged"), args.join(" "));
    }
    const status = zaxy(["memory", "status", "--json"], root);
    assert.equal(status.code, 1);
    assert.deepEqual([JSON.parse(status.stdout).log.integrity_ok, JSON.parse(status.stdout).log.broken_at_seq], [false, 2]);
  });
});
