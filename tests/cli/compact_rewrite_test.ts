/**
 * `zaxy compact LOG` rewrite mode through the binary (DESIGN §9, reference §1.4): appends
 * `compaction.completed` (mode rewrite, status succeeded, event_count), keeps seqs, types and
 * payloads, `zaxy verify` passes afterwards (and Python's reference verifier agrees), a broken
 * chain exits 1 with the file untouched, the empty log message, --output and --snapshot-every,
 * and exit 2 naming the flag for bad input.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { interopDir, interopLogs, makeTempDir, refVerifyMany, removeTempDirs, skipWithoutPython } from "../eventloom/testkit.ts";
import { runZaxy, stackTraceLines } from "./zaxy.ts";

after(removeTempDirs);

const slow = { timeout: 120_000 };

function lines(file: string): string[] {
  return fs.readFileSync(file, "utf8").split("\n").filter((line) => line.trim() !== "");
}

function appendTasks(dir: string, count: number): void {
  for (let i = 1; i <= count; i++) {
    const run = runZaxy(["memory", "append", "task.created", "--actor", "agent", "--payload-json", JSON.stringify({ title: `task ${i}`, weight: 2.5 })], { cwd: dir });
    assert.equal(run.code, 0, run.stderr);
  }
}

describe("zaxy compact LOG (rewrite mode)", () => {
  test("rewrites in place, keeps every event, appends compaction.completed, and verify passes", slow, () => {
    const dir = makeTempDir("zaxy-compact-cli");
    appendTasks(dir, 3);
    const log = path.join(".eventloom", "default.jsonl");
    const before = lines(path.join(dir, log));
    const run = runZaxy(["compact", log, "--json"], { cwd: dir });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.equal(run.stderr, "");
    const doc = JSON.parse(run.stdout);
    assert.deepEqual(Object.keys(doc), [
      "schema", "mode", "status", "log_path", "output_path", "event_count", "snapshot_path", "bytes_before", "bytes_after",
      "blank_lines_removed", "trimmed_lines", "final_newline_added", "completed_event", "message",
    ]);
    assert.equal(doc.schema, "zaxy.compact.rewrite.v1");
    assert.equal(doc.status, "succeeded");
    assert.equal(doc.event_count, 3);
    assert.equal(doc.bytes_before, doc.bytes_after);
    assert.equal(doc.completed_event.seq, 4);

    const after = lines(path.join(dir, log));
    assert.deepEqual(after.slice(0, 3), before, "event lines are byte-identical");
    const completed = JSON.parse(after[3]);
    assert.equal(completed.type, "compaction.completed");
    assert.equal(completed.actorId, "zaxy");
    assert.equal(completed.integrity.previousHash, JSON.parse(before[2]).integrity.hash);
    const { __zaxy_security: _security, ...payload } = completed.payload;
    assert.deepEqual(payload, { session_id: "default", mode: "rewrite", status: "succeeded", log_path: log, event_count: 3 });
    for (let i = 0; i < 3; i++) {
      const [b, a] = [JSON.parse(before[i]), JSON.parse(after[i])];
      assert.deepEqual([a.id, a.type, a.payload, a.integrity], [b.id, b.type, b.payload, b.integrity]);
    }

    const verify = runZaxy(["verify", log, "--json"], { cwd: dir });
    assert.equal(verify.code, 0, verify.stdout);
    assert.equal(JSON.parse(verify.stdout).logs[0].total_events, 4);
    assert.deepEqual(fs.readdirSync(path.join(dir, ".eventloom")).filter((name) => name.includes("compact.tmp")), []);

    const text = runZaxy(["compact", log], { cwd: dir });
    assert.equal(text.code, 0);
    assert.equal(text.stdout, `Compacted ${log}: 4 events rewritten atomically; compaction.completed is seq 5.\n`);
  });

  test("--snapshot-every writes the last N events beside the log and names it in the event", slow, () => {
    const dir = makeTempDir("zaxy-compact-snap");
    appendTasks(dir, 4);
    const log = path.join(dir, ".eventloom", "default.jsonl");
    const before = lines(log);
    const run = runZaxy(["compact", log, "--snapshot-every", "2", "--json"], { cwd: dir });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const doc = JSON.parse(run.stdout);
    assert.equal(doc.snapshot_path, `${log}.snapshot-4.json`);
    assert.deepEqual(lines(doc.snapshot_path), before.slice(2));
    assert.equal(JSON.parse(lines(log)[4]).payload.snapshot_path, doc.snapshot_path);
  });

  test("--output writes a new log and leaves the original byte-identical", slow, () => {
    const dir = makeTempDir("zaxy-compact-out");
    appendTasks(dir, 2);
    const log = path.join(dir, ".eventloom", "default.jsonl");
    const original = fs.readFileSync(log);
    const output = path.join(dir, "archive.jsonl");
    const run = runZaxy(["compact", log, "--output", output, "--json"], { cwd: dir });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.deepEqual(fs.readFileSync(log), original);
    assert.equal(JSON.parse(lines(output)[2]).payload.output_path, output);
    assert.equal(runZaxy(["verify", output], { cwd: dir }).code, 0);
    const again = runZaxy(["compact", log, "--output", output, "--json"], { cwd: dir });
    assert.equal(again.code, 2);
    assert.equal(JSON.parse(again.stdout).error.field, "--output");
  });

  test("a broken chain exits 1 and leaves the file untouched", slow, () => {
    const dir = makeTempDir("zaxy-compact-broken");
    appendTasks(dir, 3);
    const log = path.join(dir, ".eventloom", "default.jsonl");
    const tampered = lines(log);
    tampered[0] = tampered[0].replace("task 1", "task 9");
    fs.writeFileSync(log, tampered.join("\n") + "\n");
    const original = fs.readFileSync(log);
    const run = runZaxy(["compact", log], { cwd: dir });
    assert.equal(run.code, 1);
    assert.equal(run.stdout, "");
    assert.match(run.stderr, /Refusing to compact .*: Event 1 hash mismatch\. Nothing was written\./);
    assert.deepEqual(stackTraceLines(run.stderr), []);
    assert.deepEqual(fs.readFileSync(log), original);
    assert.deepEqual(fs.readdirSync(path.dirname(log)).sort(), ["default.jsonl"]);
  });

  test("an empty log: \"Log is empty. Nothing to compact.\" and exit 0", slow, () => {
    const dir = makeTempDir("zaxy-compact-empty");
    fs.writeFileSync(path.join(dir, "empty.jsonl"), "");
    const run = runZaxy(["compact", "empty.jsonl"], { cwd: dir });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, "Log is empty. Nothing to compact.\n");
    assert.equal(fs.readFileSync(path.join(dir, "empty.jsonl"), "utf8"), "");
  });

  test("bad input exits 2 naming the flag or argument, with nothing written", slow, () => {
    const dir = makeTempDir("zaxy-compact-bad");
    appendTasks(dir, 1);
    const log = path.join(".eventloom", "default.jsonl");
    const original = fs.readFileSync(path.join(dir, log));
    const cases: Array<[string[], string]> = [
      [["compact", log, "--snapshot-every", "0"], "--snapshot-every"],
      [["compact", log, "--snapshot-every", "x"], "--snapshot-every"],
      [["compact", "missing.jsonl"], "LOG"],
      [["compact", log, "--output", "out.txt"], "--output"],
    ];
    for (const [args, field] of cases) {
      const run = runZaxy([...args, "--json"], { cwd: dir });
      assert.equal(run.code, 2, `${args.join(" ")}: ${run.stdout}${run.stderr}`);
      assert.equal(JSON.parse(run.stdout).error.field, field, args.join(" "));
    }
    assert.deepEqual(fs.readFileSync(path.join(dir, log)), original);
  });

  test("interop logs stay verifiable (zaxy and the Python reference verifier) after a rewrite of a copy", { ...slow, skip: skipWithoutPython }, () => {
    const dir = makeTempDir("zaxy-compact-interop");
    const copies = interopLogs.map((name) => {
      fs.copyFileSync(path.join(interopDir, name), path.join(dir, name));
      return path.join(dir, name);
    });
    for (const copy of copies) {
      const count = lines(copy).length;
      const run = runZaxy(["compact", copy, "--json"], { cwd: dir });
      assert.equal(run.code, 0, `${copy}: ${run.stdout}${run.stderr}`);
      assert.equal(JSON.parse(run.stdout).event_count, count);
      const verify = runZaxy(["verify", copy, "--json"], { cwd: dir });
      assert.equal(verify.code, 0, verify.stdout);
      assert.equal(JSON.parse(verify.stdout).logs[0].total_events, count + 1);
    }
    for (const [i, verdict] of refVerifyMany(copies).entries()) assert.equal(verdict.ok, true, `${copies[i]}: ${verdict.broken_reason}`);
  });
});
