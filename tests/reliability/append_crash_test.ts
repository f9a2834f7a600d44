// deno-test: own-process (runs zaxy in this process, which may load kuzu-wasm; scripts/deno-test.sh runs it alone)
// test-lane: full (kill -9, log of 10000+ events, slow)
/**
 * Batches are all or nothing across a crash (issue 12, item 3). `zaxy memory ingest` of a
 * 10,000-event batch is killed with SIGKILL the moment the log grows past its pre-batch length;
 * the half-written batch is then never presented as committed (`zaxy verify` covers the log
 * before it and says so), the next locked open (append, repair, or the retry itself) rolls it
 * back to the pre-batch bytes exactly and saves the removed bytes to a `.bak`, and a retry
 * commits the whole batch once. Also: what recovery does when another writer (the Python
 * implementation ignores intents) appended after an interrupted batch.
 *
 * Only the killed ingest is a real process; the commands before and after it run the CLI in this
 * process (tests/cli/inProcessRoot.ts).
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { fromJs } from "../../src/canonical/mod.ts";
import { appendEvents } from "../../src/events/append.ts";
import { beginAppend, eventHashPrefixChars, sha256BeforeBatch } from "../../src/eventloom/intent.ts";
import { intentPath } from "../../src/eventloom/root.ts";
import { sha256Hex } from "../../src/platform/mod.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { childEnv, type ZaxyRun, zaxyInvocation } from "../cli/zaxy.ts";
import { runZaxyInProcess } from "../cli/inProcessRoot.ts";

after(removeTempDirs);

const batchEvents = 10_000;
/** Crashes that must land mid-batch; a kill that lands after the batch is retried. */
const crashesWanted = 3;
const attemptsMax = 12;

function logOf(dir: string): string {
  return path.join(dir, ".eventloom", "default.jsonl");
}

function run(dir: string, args: string[]): Promise<ZaxyRun> {
  return runZaxyInProcess(args, { cwd: dir });
}

/** Events whose actor is `actor`, whatever the envelope. */
function eventsBy(file: string, actor: string): number {
  return fs.readFileSync(file, "utf8").split("\n").filter((line) => line.includes(`"actorId":"${actor}"`) || line.includes(`"actor":"${actor}"`)).length;
}

async function verifyDoc(dir: string): Promise<{ code: number | null; stderr: string; log: { ok: boolean; total_events: number; interrupted_append?: { state: string; events_written: number } } }> {
  const result = await run(dir, ["verify", logOf(dir), "--json"]);
  return { code: result.code, stderr: result.stderr, log: JSON.parse(result.stdout).logs[0] };
}

/** A synchronous 1 ms pause between polls of the file size (no event loop needed). */
function pauseMs(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Starts `zaxy memory ingest BATCH`, polls the log's size until it passes `preBytes`, and kills
 * the process with SIGKILL right then. Resolves with the log's bytes after the process is gone.
 */
async function ingestKilledMidWrite(dir: string, batchFile: string, preBytes: number): Promise<Buffer> {
  const child = spawn(zaxyInvocation.command, [...zaxyInvocation.args, "memory", "ingest", batchFile], { cwd: dir, env: childEnv(), stdio: "ignore" });
  const exited = new Promise<void>((resolve) => child.on("close", () => resolve()));
  const deadline = Date.now() + 120_000;
  while (fs.statSync(logOf(dir)).size <= preBytes) {
    assert.ok(Date.now() < deadline, "the ingest never started writing");
    pauseMs(1);
  }
  child.kill("SIGKILL");
  await exited;
  return fs.readFileSync(logOf(dir));
}

function writeBatch(dir: string): string {
  const file = path.join(dir, "batch.jsonl");
  const lines = Array.from({ length: batchEvents }, (_, i) => JSON.stringify({ event_type: "note.added", actor: "bulk", payload: { i, text: `event ${i} `.padEnd(700, "x") } }));
  fs.writeFileSync(file, lines.join("\n") + "\n");
  return file;
}

describe("a crash mid-ingest", () => {
  test("memory ingest of 10,000 events killed with SIGKILL as the log grows commits none of them: verify shows the pre-batch events, the next append / repair / retry rolls back to the byte-identical prefix with a .bak, and a retry commits the batch once", { timeout: 600_000 }, async () => {
    const batchFile = writeBatch(makeTempDir("append-crash-batch"));
    const recoveries = ["append", "repair", "retry"] as const;
    let crashes = 0;
    for (let attempt = 0; attempt < attemptsMax && crashes < crashesWanted; attempt++) {
      const dir = makeTempDir("append-crash");
      for (const i of [1, 2, 3]) assert.equal((await run(dir, ["memory", "append", "note.added", "--actor", "agent", "--payload-json", JSON.stringify({ i })])).code, 0);
      const pre = fs.readFileSync(logOf(dir));
      const crashed = await ingestKilledMidWrite(dir, batchFile, pre.length);
      const intent = intentPath(logOf(dir));
      const intentDoc = fs.existsSync(intent) ? JSON.parse(fs.readFileSync(intent, "utf8")) : undefined;
      if (intentDoc === undefined || crashed.length >= intentDoc.log_bytes_after) {
        // The kill landed after the whole batch was written: it is committed, exactly once.
        const ingested = await run(dir, ["memory", "append", "note.added", "--actor", "agent"]);
        assert.equal(ingested.code, 0, ingested.stderr);
        assert.equal(eventsBy(logOf(dir), "bulk"), batchEvents);
        continue;
      }
      assert.deepEqual(crashed.subarray(0, pre.length), pre, "the crash only added bytes");
      assert.equal(intentDoc.log_bytes_before, pre.length);

      // Readers: the half batch is not committed; verify covers the log before it and says so.
      const verified = await verifyDoc(dir);
      assert.equal(verified.code, 0);
      assert.equal(verified.log.ok, true);
      assert.equal(verified.log.total_events, 3);
      assert.equal(verified.log.interrupted_append?.state, "partial");
      assert.match(verified.stderr, /^zaxy: warning: .*was interrupted after writing \d+ whole events and \d+ bytes; none of it is committed; its bytes are not committed and were not verified/);
      assert.deepEqual(fs.readFileSync(logOf(dir)), crashed, "verify changes nothing");

      const recovery = recoveries[crashes];
      const removed = crashed.subarray(pre.length);
      let backupPath: string;
      if (recovery === "append") {
        const appended = await run(dir, ["memory", "append", "note.added", "--actor", "agent", "--payload-json", '{"i":4}', "--json"]);
        assert.equal(appended.code, 0, appended.stderr);
        const doc = JSON.parse(appended.stdout);
        assert.equal(doc.seq, 4);
        assert.equal(doc.warnings.length, 1);
        assert.match(doc.warnings[0], /rolled it back to the log's \d+ bytes before it and saved the \d+ removed bytes to /);
        assert.equal(appended.stderr, `zaxy: warning: ${doc.warnings[0]}\n`);
        backupPath = doc.warnings[0].match(/saved the \d+ removed bytes to (.*)\.$/)[1];
        const now = fs.readFileSync(logOf(dir));
        assert.deepEqual(now.subarray(0, pre.length), pre, "the pre-batch bytes are untouched");
        assert.equal(now.subarray(pre.length).toString("utf8").split("\n").length, 2, "exactly one new line after them");
      } else if (recovery === "repair") {
        const repaired = await run(dir, ["repair", "--truncate-torn-tail", "--json"]);
        assert.equal(repaired.code, 0, repaired.stdout + repaired.stderr);
        const doc = JSON.parse(repaired.stdout);
        assert.deepEqual([doc.repaired, doc.removed_bytes, doc.events_kept, doc.interrupted_append.state], [true, removed.length, 3, "partial"]);
        backupPath = doc.backup_path;
        assert.deepEqual(fs.readFileSync(logOf(dir)), pre);
      } else {
        const retried = await run(dir, ["memory", "ingest", batchFile, "--json"]);
        assert.equal(retried.code, 0, retried.stderr);
        const doc = JSON.parse(retried.stdout);
        assert.equal(doc.imported, batchEvents);
        backupPath = doc.warnings[0].match(/saved the \d+ removed bytes to (.*)\.$/)[1];
        assert.deepEqual(fs.readFileSync(logOf(dir)).subarray(0, pre.length), pre);
      }
      assert.deepEqual(fs.readFileSync(backupPath), removed, "the .bak holds exactly the removed bytes");
      assert.equal(fs.existsSync(intent), false);

      if (recovery !== "retry") {
        const retried = await run(dir, ["memory", "ingest", batchFile, "--json"]);
        assert.equal(retried.code, 0, retried.stderr);
        assert.equal(JSON.parse(retried.stdout).imported, batchEvents);
        assert.equal(JSON.parse(retried.stdout).warnings, undefined);
      }
      const final = await verifyDoc(dir);
      assert.deepEqual([final.code, final.log.ok, final.log.interrupted_append], [0, true, undefined]);
      assert.equal(final.log.total_events, 3 + (recovery === "append" ? 1 : 0) + batchEvents);
      assert.equal(eventsBy(logOf(dir), "bulk"), batchEvents, "the batch is in the log exactly once");
      crashes++;
    }
    assert.equal(crashes, crashesWanted, `only ${crashes} of ${attemptsMax} kills landed mid-batch`);
  });
});

// ---------------------------------------------------------------------------------------------
// Interrupted batches another writer appended after (the Python writer ignores intents).

interface Scenario {
  dir: string;
  pre: Buffer;
  /** The bytes the 5-event batch writes after `pre`. */
  batch: Buffer;
  hashes: string[];
}

/** A log of 2 events (`pre`) and the bytes and hashes of a 5-event batch appended to it. */
async function scenario(): Promise<Scenario> {
  const dir = makeTempDir("append-intent");
  const root = path.join(dir, ".eventloom");
  await appendEvents(root, "default", [1, 2].map((i) => ({ type: "note.added", actor: "agent", payload: fromJs({ i }) })));
  const pre = fs.readFileSync(logOf(dir));
  const scratch = path.join(makeTempDir("append-intent-scratch"), ".eventloom");
  fs.mkdirSync(scratch);
  fs.writeFileSync(path.join(scratch, "default.jsonl"), pre);
  const result = await appendEvents(scratch, "default", [1, 2, 3, 4, 5].map((i) => ({ type: "note.added", actor: "batch", payload: fromJs({ i }) })));
  const batch = fs.readFileSync(path.join(scratch, "default.jsonl")).subarray(pre.length);
  return { dir, pre, batch, hashes: result.events.map((e) => e.hash) };
}

/** The first `lines` lines of the batch, then one event by "python" chained onto them. */
async function withForeignEvent(s: Scenario, lines: number): Promise<Buffer> {
  const scratch = path.join(makeTempDir("append-intent-foreign"), ".eventloom");
  fs.mkdirSync(scratch);
  let cut = 0;
  for (let i = 0; i < lines; i++) cut = s.batch.indexOf(0x0a, cut) + 1;
  fs.writeFileSync(path.join(scratch, "default.jsonl"), Buffer.concat([s.pre, s.batch.subarray(0, cut)]));
  await appendEvents(scratch, "default", [{ type: "note.added", actor: "python", payload: fromJs({ by: "another writer" }) }]);
  return fs.readFileSync(path.join(scratch, "default.jsonl"));
}

/** Puts `bytes` in the log with the intent the 5-event batch recorded before writing. */
function crashedLog(s: Scenario, bytes: Buffer): void {
  const file = logOf(s.dir);
  fs.writeFileSync(file, bytes);
  const fd = fs.openSync(file, "r");
  try {
    beginAppend(file, {
      logBytesBefore: s.pre.length,
      logBytesAfter: s.pre.length + s.batch.length,
      bytesBeforeSha256: sha256BeforeBatch(fd, s.pre.length),
      batchSha256: sha256Hex(s.batch),
      eventHashPrefixes: s.hashes.map((hash) => hash.slice(0, eventHashPrefixChars)),
    });
  } finally {
    fs.closeSync(fd);
  }
}

describe("an interrupted batch and another writer", () => {
  test("3 of 5 batch lines then another writer's event: append refuses (exit 1, interrupted_append_conflict), nothing changes, the intent stays", { timeout: 60_000 }, async () => {
    const s = await scenario();
    const bytes = await withForeignEvent(s, 3);
    crashedLog(s, bytes);
    const appended = await run(s.dir, ["memory", "append", "note.added", "--actor", "agent", "--json"]);
    assert.equal(appended.code, 1, appended.stdout + appended.stderr);
    const error = JSON.parse(appended.stdout).error;
    assert.equal(error.code, "interrupted_append_conflict");
    assert.match(error.message, /^Cannot append to session "default": an append of 5 events \(\d+ bytes after byte \d+\) was interrupted \(intent .*default\.jsonl\.intent\), and after 3 of its events the log holds a line it did not write/);
    assert.match(error.hint, /delete .*default\.jsonl\.intent to keep the log as it is/);
    assert.deepEqual(fs.readFileSync(logOf(s.dir)), bytes);
    assert.equal(fs.existsSync(intentPath(logOf(s.dir))), true);
    const verified = await verifyDoc(s.dir);
    assert.equal(verified.log.interrupted_append?.state, "conflict");
    const repaired = await run(s.dir, ["repair", "--truncate-torn-tail", "--json"]);
    assert.equal(repaired.code, 1);
    assert.equal(JSON.parse(repaired.stdout).error.code, "interrupted_append_conflict");
    assert.deepEqual(fs.readFileSync(logOf(s.dir)), bytes);
  });

  test("no batch line, then another writer's event right after the pre-batch log: it stays, the intent is dropped with a warning", { timeout: 60_000 }, async () => {
    const s = await scenario();
    const bytes = await withForeignEvent(s, 0);
    crashedLog(s, bytes);
    const appended = await run(s.dir, ["memory", "append", "note.added", "--actor", "agent", "--json"]);
    assert.equal(appended.code, 0, appended.stderr);
    assert.match(JSON.parse(appended.stdout).warnings[0], /was interrupted before writing any of its events; the \d+ bytes after byte \d+ are another writer's; removed the intent \(the log is unchanged\)\.$/);
    assert.deepEqual(fs.readFileSync(logOf(s.dir)).subarray(0, bytes.length), bytes);
    assert.equal(fs.existsSync(intentPath(logOf(s.dir))), false);
    assert.deepEqual([(await verifyDoc(s.dir)).log.ok, (await verifyDoc(s.dir)).log.total_events], [true, 2 + 1 + 1]);
  });

  test("the whole batch then another writer's event: the batch stays committed, the other event too, and the intent is dropped with a warning", { timeout: 60_000 }, async () => {
    const s = await scenario();
    const bytes = await withForeignEvent(s, 5);
    crashedLog(s, bytes);
    const appended = await run(s.dir, ["memory", "append", "note.added", "--actor", "agent", "--json"]);
    assert.equal(appended.code, 0, appended.stderr);
    assert.match(JSON.parse(appended.stdout).warnings[0], /was interrupted after writing all of it; \d+ bytes another writer appended follow it; the batch is whole, so it stays committed\.$/);
    assert.deepEqual(fs.readFileSync(logOf(s.dir)).subarray(0, bytes.length), bytes);
    assert.equal(fs.existsSync(intentPath(logOf(s.dir))), false);
    assert.deepEqual([(await verifyDoc(s.dir)).log.ok, (await verifyDoc(s.dir)).log.total_events], [true, 2 + 5 + 1 + 1]);
  });

  test("3 whole batch lines and no torn tail: the next append rolls them back to the pre-batch bytes", { timeout: 60_000 }, async () => {
    const s = await scenario();
    const threeLines = s.batch.subarray(0, s.batch.indexOf(0x0a, s.batch.indexOf(0x0a, s.batch.indexOf(0x0a) + 1) + 1) + 1);
    crashedLog(s, Buffer.concat([s.pre, threeLines]));
    const appended = await run(s.dir, ["memory", "append", "note.added", "--actor", "agent", "--json"]);
    assert.equal(appended.code, 0, appended.stderr);
    assert.equal(JSON.parse(appended.stdout).seq, 3);
    assert.match(JSON.parse(appended.stdout).warnings[0], /interrupted after writing 3 whole events/);
    assert.deepEqual(fs.readFileSync(logOf(s.dir)).subarray(0, s.pre.length), s.pre);
  });

  test("zaxy compact refuses a log with an interrupted append (exit 1, interrupted_append) and writes nothing", { timeout: 60_000 }, async () => {
    const s = await scenario();
    const threeLines = s.batch.subarray(0, s.batch.indexOf(0x0a, s.batch.indexOf(0x0a, s.batch.indexOf(0x0a) + 1) + 1) + 1);
    const bytes = Buffer.concat([s.pre, threeLines]);
    crashedLog(s, bytes);
    const compacted = await run(s.dir, ["compact", logOf(s.dir), "--json"]);
    assert.equal(compacted.code, 1, compacted.stdout + compacted.stderr);
    const error = JSON.parse(compacted.stdout).error;
    assert.equal(error.code, "interrupted_append");
    assert.match(error.message, /^Refusing to compact .*default\.jsonl: an append of 5 events .* was interrupted after writing 3 whole events/);
    assert.deepEqual(fs.readFileSync(logOf(s.dir)), bytes);
    assert.equal(fs.existsSync(intentPath(logOf(s.dir))), true);
  });

  test("zaxy repair drops an intent that needs no rollback and still removes a torn tail in the same run", { timeout: 60_000 }, async () => {
    const s = await scenario();
    const torn = Buffer.from('{"seq":3,"payload":{"cut');
    fs.writeFileSync(logOf(s.dir), Buffer.concat([s.pre, torn]));
    fs.writeFileSync(intentPath(logOf(s.dir)), "");
    const repaired = await run(s.dir, ["repair", "--truncate-torn-tail", "--json"]);
    assert.equal(repaired.code, 0, repaired.stdout + repaired.stderr);
    const doc = JSON.parse(repaired.stdout);
    assert.deepEqual([doc.repaired, doc.removed_bytes, doc.events_kept, doc.interrupted_append.state], [true, torn.length, 2, "unreadable_intent"]);
    assert.match(doc.message, /^The append intent .* is unreadable: .*; removed the intent \(the log is unchanged\)\. Removed the torn last line \(line 3, \d+ bytes\); saved it to /);
    assert.deepEqual(fs.readFileSync(logOf(s.dir)), s.pre);
    assert.deepEqual(fs.readFileSync(doc.backup_path), torn);
    assert.equal(fs.existsSync(intentPath(logOf(s.dir))), false);
  });

  test("an empty intent (a crash while recording it) is removed with a warning and the log is unchanged", { timeout: 60_000 }, async () => {
    const s = await scenario();
    fs.writeFileSync(intentPath(logOf(s.dir)), "");
    const appended = await run(s.dir, ["memory", "append", "note.added", "--actor", "agent", "--json"]);
    assert.equal(appended.code, 0, appended.stderr);
    assert.match(JSON.parse(appended.stdout).warnings[0], /is unreadable: its append died while recording it, before writing to the log; removed the intent \(the log is unchanged\)\.$/);
    assert.deepEqual(fs.readFileSync(logOf(s.dir)).subarray(0, s.pre.length), s.pre);
    assert.equal(fs.existsSync(intentPath(logOf(s.dir))), false);
  });
});
