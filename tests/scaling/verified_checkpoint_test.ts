// test-lane: full (slow)
/**
 * Issue 14 item 2: a read verifies only what was appended since the last verified read. The
 * verified prefix is checked by one SHA-256 of its bytes against `projections/verified/<id>.json`;
 * a byte changed anywhere in it must still be refused exactly as before the checkpoint existed,
 * appends by other processes (zaxy, the Python writer) must be seen, a shorter or rewritten log
 * or a damaged checkpoint falls back to the full verifier, and `zaxy verify` checks every byte.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { fromJs } from "../../src/canonical/mod.ts";
import { appendEvents } from "../../src/events/append.ts";
import { sealLegacy, sealV1 } from "../../src/eventloom/envelope.ts";
import { readVerifiedCheckpoint, verifiedCheckpointPath, verifyWithCheckpoint, writeVerifiedCheckpoint } from "../../src/eventloom/verifiedCheckpoint.ts";
import { verifyLog } from "../../src/eventloom/verify.ts";
import { runZaxy, stackTraceLines, type ZaxyRun } from "../cli/zaxy.ts";
import { canMountTmpfs, mountTmpfs, remountReadOnly, unmount } from "../reliability/fsFaults.ts";
import { makeTempDir, pythonWith, readLines, removeTempDirs, sha256Hex, skipWithoutPython, writeLines } from "../eventloom/testkit.ts";

after(removeTempDirs);

const slow = { timeout: 180_000 };
const query = "which database do we use";
/** The session every binary test reads: 4 eventloom.v1 events, then 4 legacy ones (a mixed log). */
let base = "";

function zaxy(cwd: string, args: string[]): ZaxyRun {
  return runZaxy(args, { cwd });
}

function append(cwd: string, type: string, payload: Record<string, unknown>, flags: string[] = []): void {
  const run = zaxy(cwd, ["memory", "append", type, "--actor", "agent", "--payload-json", JSON.stringify(payload), ...flags]);
  assert.equal(run.code, 0, run.stderr);
}

function checkout(cwd: string, text = query): ZaxyRun {
  return zaxy(cwd, ["memory", "checkout", text, "--json"]);
}

function logOf(cwd: string): string {
  return path.join(cwd, ".eventloom", "default.jsonl");
}

function checkpointOf(cwd: string): string {
  return verifiedCheckpointPath(path.join(cwd, ".eventloom"), "default");
}

/** A copy of the base session (log, projections, checkpoint) to damage. */
function copyOfBase(label: string): string {
  const copy = makeTempDir(label);
  fs.cpSync(path.join(base, ".eventloom"), path.join(copy, ".eventloom"), { recursive: true });
  return copy;
}

/** The checkpoint on disk, asserted to cover the whole log as it is now. */
function assertCheckpointCoversLog(cwd: string, events: number): void {
  const read = readVerifiedCheckpoint(checkpointOf(cwd));
  assert.ok("checkpoint" in read, JSON.stringify(read));
  const bytes = fs.readFileSync(logOf(cwd));
  assert.equal(read.checkpoint.seq, events);
  assert.equal(read.checkpoint.bytes, bytes.length);
  assert.equal(read.checkpoint.prefix_sha256, sha256Hex(bytes));
  const last = JSON.parse(readLines(logOf(cwd)).at(-1) as string);
  assert.equal(read.checkpoint.hash, last.hash ?? last.integrity.hash.slice("sha256:".length));
}

/** The error document of a refused `--json` run. */
function refusal(run: ZaxyRun): { code: string; message: string; line?: number } {
  assert.equal(run.code, 1, run.stdout + run.stderr);
  assert.deepEqual(stackTraceLines(run.stderr), []);
  return JSON.parse(run.stdout).error;
}

/**
 * Appends one event as the Python implementation's `append_many` does: `fcntl.flock` on the log,
 * the tail line read, a legacy event chained onto it (the tail is legacy), written and fsynced.
 */
function pythonAppend(file: string, decision: string): void {
  pythonWith(
    `
import fcntl, os
args = json.loads(sys.stdin.read())
with open(args["path"], "a+", encoding="utf-8") as f:
    fcntl.flock(f, fcntl.LOCK_EX)
    f.seek(0)
    last = json.loads([l for l in f.read().split("\\n") if l.strip()][-1])
    rec = {"seq": last["seq"] + 1, "timestamp": "2026-11-25T01:00:00.000000Z", "type": "decision.made", "actor": "python-writer",
           "thread": "default", "payload": {"decision": args["decision"]}, "security": {"sensitivity": "public", "redacted_paths": []},
           "prev_hash": last["hash"]}
    rec["hash"] = legacy_hash(rec)
    f.write(json.dumps(rec, ensure_ascii=False, separators=(",", ":")) + "\\n")
    f.flush()
    os.fsync(f.fileno())
    fcntl.flock(f, fcntl.LOCK_UN)
`,
    JSON.stringify({ path: file, decision }),
  );
}

before(() => {
  base = makeTempDir("zaxy-ckpt-base");
  append(base, "decision.made", { decision: "use postgres for the ledger", rationale: "transactions" });
  append(base, "goal.created", { title: "Ship the payments index rebuild" });
  append(base, "decision.made", { decision: "use kafka for the event bus" });
  append(base, "task.started", { task_id: "t1", title: "write the runbook" });
  // An underscore type is written legacy (asked for), and every later append follows the legacy tail.
  append(base, "note_added", { text: "the staging database is shared" }, ["--allow-envelope-switch"]);
  append(base, "decision.made", { decision: "use redis for the session cache" });
  append(base, "goal.created", { title: "Cut the release after the rebuild" });
  append(base, "decision.made", { decision: "use sqlite for the local scratch store" });
  const first = checkout(base);
  assert.equal(first.code, 0, first.stderr);
  assertCheckpointCoversLog(base, 8);
});

describe("DESIGN §2.4: a byte flipped in the verified prefix is refused as before the checkpoint", () => {
  const lineOffsets = (bytes: Buffer): number[] => {
    const starts = [0];
    for (let at = bytes.indexOf(0x0a); at >= 0 && at + 1 < bytes.length; at = bytes.indexOf(0x0a, at + 1)) starts.push(at + 1);
    return starts;
  };
  /** Where to flip, by line (0-based), a needle inside it, and the byte to write there. */
  const flips: Array<{ name: string; line: number; find: string | null; offsetInNeedle: number; byte: string; code: string; seq: number }> = [
    { name: "first line, a timestamp digit (still valid JSON)", line: 0, find: '"timestamp":"2', offsetInNeedle: 13, byte: "3", code: "integrity_failure", seq: 1 },
    { name: "middle line, inside a payload string (still valid JSON)", line: 2, find: "kafka", offsetInNeedle: 0, byte: "K", code: "integrity_failure", seq: 3 },
    { name: "inside a stored hash (legacy, still valid JSON)", line: 5, find: '"hash":"', offsetInNeedle: 9, byte: "x", code: "integrity_failure", seq: 6 },
    { name: "inside a prev_hash link (legacy, still valid JSON)", line: 6, find: '"prev_hash":"', offsetInNeedle: 14, byte: "x", code: "integrity_failure", seq: 7 },
    { name: "the last checkpointed line, its first brace (not JSON any more)", line: 7, find: null, offsetInNeedle: 0, byte: "[", code: "integrity_failure", seq: 8 },
    { name: "the newline ending a middle line (two lines merge)", line: 3, find: null, offsetInNeedle: -1, byte: " ", code: "integrity_failure", seq: 4 },
  ];
  for (const flip of flips) {
    test(`${flip.name}: checkout exits 1 with the same integrity_failure with and without the checkpoint; zaxy verify refuses too`, slow, () => {
      const copy = copyOfBase("zaxy-ckpt-flip");
      const log = logOf(copy);
      const bytes = fs.readFileSync(log);
      const starts = lineOffsets(bytes);
      const lineStart = starts[flip.line];
      const lineEnd = bytes.indexOf(0x0a, lineStart);
      const offset = flip.offsetInNeedle < 0
        ? lineEnd
        : flip.find === null
          ? lineStart
          : bytes.indexOf(flip.find, lineStart) + flip.offsetInNeedle;
      assert.ok(offset >= lineStart && offset <= lineEnd, `the flipped byte is on line ${flip.line + 1}`);
      assert.notEqual(bytes[offset], flip.byte.charCodeAt(0));
      const checkpointBefore = fs.readFileSync(checkpointOf(copy));
      assert.ok(offset < (JSON.parse(checkpointBefore.toString()) as { bytes: number }).bytes, "the byte is inside the verified prefix");
      bytes[offset] = flip.byte.charCodeAt(0);
      fs.writeFileSync(log, bytes);

      const withCheckpoint = refusal(checkout(copy));
      assert.equal(withCheckpoint.code, flip.code);
      assert.match(withCheckpoint.message, new RegExp(`^The log of session "default" fails verification at seq ${flip.seq} \\(`));
      assert.deepEqual(fs.readFileSync(checkpointOf(copy)), checkpointBefore, "a refused read never rewrites the checkpoint");

      fs.rmSync(checkpointOf(copy));
      const withoutCheckpoint = refusal(checkout(copy));
      assert.deepEqual(withCheckpoint, withoutCheckpoint);
      assert.equal(fs.existsSync(checkpointOf(copy)), false, "a refused read writes no checkpoint");

      fs.writeFileSync(checkpointOf(copy), checkpointBefore);
      const verify = zaxy(copy, ["verify", log, "--json"]);
      assert.equal(verify.code, 1, verify.stdout);
      assert.equal(JSON.parse(verify.stdout).logs[0].broken_at_seq, flip.seq);
    });
  }
});

describe("DESIGN §2.4, issue 14: appends by other processes between two checkouts are verified and seen", () => {
  test("a zaxy append, then a Python append (fcntl.flock, legacy line): each next checkout sees the new event and moves the checkpoint", { ...slow, skip: skipWithoutPython }, () => {
    const copy = copyOfBase("zaxy-ckpt-appends");
    append(copy, "decision.made", { decision: "use the blue-green deploy for the rebuild" });
    const second = checkout(copy, "blue-green deploy");
    assert.equal(second.code, 0, second.stderr);
    const secondDoc = JSON.parse(second.stdout);
    assert.equal(secondDoc.replay_event_count, 9);
    assert.match(secondDoc.prompt, /use the blue-green deploy for the rebuild/);
    assertCheckpointCoversLog(copy, 9);

    pythonAppend(logOf(copy), "rotate the signing keys weekly");
    assert.equal(zaxy(copy, ["verify", logOf(copy)]).code, 0, "the Python writer's line verifies");
    const third = checkout(copy, "signing keys");
    assert.equal(third.code, 0, third.stderr);
    const thirdDoc = JSON.parse(third.stdout);
    assert.equal(thirdDoc.replay_event_count, 10);
    assert.match(thirdDoc.prompt, /rotate the signing keys weekly/);
    assertCheckpointCoversLog(copy, 10);
  });

  test("a forged event appended after the checkpoint (bad seal) is refused at its seq", slow, () => {
    const copy = copyOfBase("zaxy-ckpt-forged-tail");
    append(copy, "decision.made", { decision: "approve the release" });
    const lines = readLines(logOf(copy));
    lines[8] = lines[8].replace("approve the release", "approve the releasf");
    writeLines(logOf(copy), lines);
    const error = refusal(checkout(copy));
    assert.equal(error.code, "integrity_failure");
    assert.equal(error.message, 'The log of session "default" fails verification at seq 9 (Event 9 hash mismatch); it will not be projected');
  });
});

describe("DESIGN §2.4, issue 14: a shorter, rewritten or damaged state falls back to full verification", () => {
  test("a log truncated below the checkpoint verifies in full, answers, and gets a new checkpoint", slow, () => {
    const copy = copyOfBase("zaxy-ckpt-truncated");
    writeLines(logOf(copy), readLines(logOf(copy)).slice(0, 5));
    const run = checkout(copy, "postgres ledger");
    assert.equal(run.code, 0, run.stderr);
    assert.equal(JSON.parse(run.stdout).replay_event_count, 5);
    assert.doesNotMatch(run.stdout, /sqlite for the local scratch store/);
    assertCheckpointCoversLog(copy, 5);
  });

  test("a log replaced by another valid log (longer than the checkpoint) verifies in full and answers from the new log", slow, () => {
    const copy = copyOfBase("zaxy-ckpt-rewritten");
    const other = makeTempDir("zaxy-ckpt-other");
    for (let i = 1; i <= 12; i++) append(other, "decision.made", { decision: `use cassandra shard ${i} for the archive` });
    assert.ok(fs.statSync(logOf(other)).size > fs.statSync(logOf(copy)).size);
    fs.copyFileSync(logOf(other), logOf(copy));
    const run = checkout(copy, "cassandra archive");
    assert.equal(run.code, 0, run.stderr);
    const doc = JSON.parse(run.stdout);
    assert.equal(doc.replay_event_count, 12);
    assert.match(doc.prompt, /cassandra shard/);
    assertCheckpointCoversLog(copy, 12);
  });

  const damaged: Array<[string, string]> = [
    ["garbage bytes", "\u0000\u0001garbage"],
    ["cut JSON", '{"schema":"zaxy.verified_checkpoint.v1","seq":8,"ha'],
    ["a seq edited without its checksum", ""],
    ["another schema", '{"schema":"zaxy.verified_checkpoint.v0","seq":1}'],
  ];
  for (const [name, text] of damaged) {
    test(`a checkpoint with ${name} is ignored: the same answer, no warning, a valid checkpoint written back`, slow, () => {
      const copy = copyOfBase("zaxy-ckpt-damaged");
      const expected = checkout(copy);
      assert.equal(expected.code, 0, expected.stderr);
      const content = text !== "" ? text : fs.readFileSync(checkpointOf(copy), "utf8").replace('"seq":8', '"seq":7');
      fs.writeFileSync(checkpointOf(copy), content);
      const run = checkout(copy);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stderr, "");
      assert.equal(run.stdout, expected.stdout);
      assertCheckpointCoversLog(copy, 8);
    });
  }

  test("a damaged checkpoint does not hide a tampered log", slow, () => {
    const copy = copyOfBase("zaxy-ckpt-damaged-tampered");
    fs.writeFileSync(checkpointOf(copy), "not json");
    const lines = readLines(logOf(copy));
    lines[1] = lines[1].replace("payments", "paymentz");
    writeLines(logOf(copy), lines);
    assert.equal(refusal(checkout(copy)).message, 'The log of session "default" fails verification at seq 2 (Event 2 hash mismatch); it will not be projected');
  });

  test("a checkpoint that cannot be written (its directory is a file) never fails the read", slow, () => {
    const copy = copyOfBase("zaxy-ckpt-unwritable");
    const expected = checkout(copy);
    const verifiedDir = path.dirname(checkpointOf(copy));
    fs.rmSync(verifiedDir, { recursive: true });
    fs.writeFileSync(verifiedDir, "in the way");
    append(copy, "decision.made", { decision: "use the blue-green deploy" });
    const run = checkout(copy);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, "");
    assert.equal(JSON.parse(run.stdout).replay_event_count, 9);
    assert.equal(fs.readFileSync(verifiedDir, "utf8"), "in the way");
    assert.equal(JSON.parse(expected.stdout).replay_event_count, 8);
  });
});

describe("DESIGN §2.4, issue 14: the checkpoint is best effort on a full or read-only disk", () => {
  /** Fills the file system holding `dir` until it has no byte left. */
  function fill(dir: string): void {
    const fd = fs.openSync(path.join(dir, "filler"), "w");
    const block = new Uint8Array(4096).fill(0x61);
    try {
      for (;;) fs.writeSync(fd, block);
    } catch (error) {
      assert.equal((error as { code?: string }).code, "ENOSPC");
    } finally {
      fs.closeSync(fd);
    }
  }

  test(
    "a real full 1 MiB tmpfs, then a read-only mount, under projections/verified: checkout answers with the new events, no warning, the old checkpoint and no temp file left",
    { ...slow, skip: canMountTmpfs ? false : "mounting a tmpfs is not permitted here (the injected-failure test above covers the write error)" },
    () => {
      const copy = copyOfBase("zaxy-ckpt-full-disk");
      const verifiedDir = path.dirname(checkpointOf(copy));
      const saved = fs.readFileSync(checkpointOf(copy));
      assert.ok(mountTmpfs(verifiedDir));
      try {
        fs.writeFileSync(checkpointOf(copy), saved);
        fill(verifiedDir);
        append(copy, "decision.made", { decision: "use the blue-green deploy" });
        const full = checkout(copy, "blue-green deploy");
        assert.equal(full.code, 0, full.stderr);
        assert.equal(full.stderr, "");
        assert.equal(JSON.parse(full.stdout).replay_event_count, 9);
        assert.match(JSON.parse(full.stdout).prompt, /use the blue-green deploy/);
        assert.deepEqual(fs.readFileSync(checkpointOf(copy)), saved);
        assert.deepEqual(fs.readdirSync(verifiedDir).sort(), ["default.json", "filler"]);

        remountReadOnly(verifiedDir);
        append(copy, "decision.made", { decision: "use canary releases" });
        const readOnly = checkout(copy, "canary releases");
        assert.equal(readOnly.code, 0, readOnly.stderr);
        assert.equal(readOnly.stderr, "");
        assert.equal(JSON.parse(readOnly.stdout).replay_event_count, 10);
        assert.deepEqual(fs.readFileSync(checkpointOf(copy)), saved);
      } finally {
        unmount(verifiedDir);
      }
    },
  );
});

describe("DESIGN §2.4, issue 14: verifyWithCheckpoint gives verifyLog's verdict for the tail", () => {
  const security = { sensitivity: "public", redacted_paths: [] } as never;

  /** A log of 6 events with a blank line in the middle (lines != events), checkpointed. */
  async function checkpointedLog(): Promise<{ log: string; checkpoint: string; lastHash: string }> {
    const root = makeTempDir("zaxy-ckpt-unit");
    for (let i = 1; i <= 3; i++) await appendEvents(root, "u", [{ type: "decision.made", actor: "agent", payload: fromJs({ decision: `choice ${i}` }) }]);
    const log = path.join(root, "u.jsonl");
    fs.appendFileSync(log, "\n   \n");
    for (let i = 4; i <= 6; i++) await appendEvents(root, "u", [{ type: "note_added", actor: "agent", payload: fromJs({ text: `note ${i}` }) }]);
    const checkpoint = verifiedCheckpointPath(root, "u");
    const first = await verifyWithCheckpoint(log, checkpoint);
    assert.equal(first.fromCheckpoint, false);
    assert.equal(first.fallbackReason, "there is no checkpoint yet");
    assert.equal(first.tailEvents.length, 6);
    const written = readVerifiedCheckpoint(checkpoint);
    assert.ok("checkpoint" in written);
    assert.deepEqual([written.checkpoint.seq, written.checkpoint.lines, written.checkpoint.bytes], [6, 8, fs.statSync(log).size]);
    return { log, checkpoint, lastHash: written.checkpoint.hash };
  }

  function legacyLine(seq: number, prevHash: string | null, text: string): string {
    return sealLegacy({ seq, timestamp: "2026-11-25T01:00:00.000000Z", type: "note_added", actor: "agent", thread: "u", payload: fromJs({ text }) as never, security, prevHash }).line;
  }

  async function assertSameVerdict(log: string, checkpoint: string): Promise<void> {
    const checked = await verifyWithCheckpoint(log, checkpoint, { writeCheckpoint: false });
    assert.equal(checked.fromCheckpoint, true, checked.fallbackReason ?? "");
    const full = await verifyLog(log);
    assert.equal(full.ok, false);
    assert.deepEqual(checked.integrity, full);
    assert.equal(checked.head, null);
    assert.deepEqual(checked.tailEvents, []);
  }

  test("an intact tail: the prefix is not re-verified, the tail events are parsed with their positions, the checkpoint moves", async () => {
    const { log, checkpoint } = await checkpointedLog();
    fs.appendFileSync(log, legacyLine(7, (readVerifiedCheckpoint(checkpoint) as { checkpoint: { hash: string } }).checkpoint.hash, "note 7") + "\n");
    const checked = await verifyWithCheckpoint(log, checkpoint);
    assert.equal(checked.fromCheckpoint, true);
    assert.deepEqual(checked.integrity, await verifyLog(log));
    assert.deepEqual(checked.tailEvents.map((e) => [e.seq, e.payload.get("text")]), [[7, "note 7"]]);
    assert.equal(checked.tailStartSeq, 6);
    assert.deepEqual(checked.head, { seq: 7, hash: checked.tailEvents[0].hash, bytes: fs.statSync(log).size });
    const moved = readVerifiedCheckpoint(checkpoint) as { checkpoint: { seq: number; lines: number; prefix_sha256: string } };
    assert.deepEqual([moved.checkpoint.seq, moved.checkpoint.lines, moved.checkpoint.prefix_sha256], [7, 9, sha256Hex(fs.readFileSync(log))]);
    const all = await verifyWithCheckpoint(log, checkpoint, { events: "all" });
    assert.deepEqual(all.tailEvents.map((e) => e.seq), [1, 2, 3, 4, 5, 6, 7]);
  });

  test("a torn tail: torn_tail at the absolute line", async () => {
    const { log, checkpoint } = await checkpointedLog();
    fs.appendFileSync(log, '{"seq":7,"timestamp":"2026-11-');
    await assertSameVerdict(log, checkpoint);
    assert.equal((await verifyLog(log)).code, "torn_tail");
  });

  test("a bad seal in the tail: hash_mismatch", async () => {
    const { log, checkpoint, lastHash } = await checkpointedLog();
    fs.appendFileSync(log, legacyLine(7, lastHash, "note 7").replace("note 7", "note 8") + "\n");
    await assertSameVerdict(log, checkpoint);
    assert.equal((await verifyLog(log)).code, "hash_mismatch");
  });

  test("a bad prev link in the tail: prev_hash_mismatch (legacy), the seal's hash_mismatch (v1 seals its link)", async () => {
    const { log, checkpoint } = await checkpointedLog();
    fs.appendFileSync(log, legacyLine(7, "0".repeat(64), "note 7") + "\n");
    await assertSameVerdict(log, checkpoint);
    assert.equal((await verifyLog(log)).broken_reason, "Event 7 prev_hash does not link to previous");
    const v1 = await checkpointedLog();
    const line = sealV1({ seq: 7, timestamp: "2026-11-25T01:00:00.000000Z", type: "decision.made", actor: "agent", thread: "u", payload: fromJs({ decision: "x" }) as never, security, prevHash: "1".repeat(64) }).line;
    fs.appendFileSync(v1.log, line + "\n");
    await assertSameVerdict(v1.log, v1.checkpoint);
    assert.equal((await verifyLog(v1.log)).code, "hash_mismatch");
  });

  test("a seq gap in the tail: sequence_mismatch", async () => {
    const { log, checkpoint, lastHash } = await checkpointedLog();
    fs.appendFileSync(log, legacyLine(8, lastHash, "note 8") + "\n");
    await assertSameVerdict(log, checkpoint);
    assert.equal((await verifyLog(log)).broken_reason, "Event sequence expected 7 but found 8");
  });

  test("a line that is not JSON before a good one: invalid_json at its absolute line", async () => {
    const { log, checkpoint, lastHash } = await checkpointedLog();
    fs.appendFileSync(log, `not json\n${legacyLine(7, lastHash, "note 7")}\n`);
    await assertSameVerdict(log, checkpoint);
    assert.equal((await verifyLog(log)).line, 9);
  });

  test("an append intent next to the log: full verification, its verdict (interrupted_append) as verifyLog gives it", async () => {
    const { log, checkpoint } = await checkpointedLog();
    fs.writeFileSync(`${log}.intent`, "half an intent");
    const checked = await verifyWithCheckpoint(log, checkpoint, { writeCheckpoint: false });
    assert.equal(checked.fromCheckpoint, false);
    assert.match(checked.fallbackReason ?? "", /append intent/);
    assert.deepEqual(checked.integrity, await verifyLog(log));
    assert.equal(checked.integrity.interrupted_append?.state, "unreadable_intent");
  });

  test("a log unwritten since its settled checkpoint: its identity is recorded; an edit in place that keeps size and mtime is still refused", slow, async () => {
    const { log, checkpoint } = await checkpointedLog();
    const fresh = readVerifiedCheckpoint(checkpoint) as { checkpoint: { file: string | null } };
    assert.equal(fresh.checkpoint.file, null, "a log changed within the last 2 s records no identity");
    // Change times are settled after 2 s; no call can age one, so this test waits.
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const settling = await verifyWithCheckpoint(log, checkpoint);
    assert.equal(settling.fromCheckpoint, true);
    const stat = fs.statSync(log, { bigint: true });
    const settled = readVerifiedCheckpoint(checkpoint) as { checkpoint: { seq: number; file: string | null } };
    assert.equal(settled.checkpoint.seq, 6);
    assert.equal(settled.checkpoint.file, `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`);
    const unwritten = await verifyWithCheckpoint(log, checkpoint);
    assert.equal(unwritten.fromCheckpoint, true);
    assert.deepEqual(unwritten.integrity, await verifyLog(log));

    const bytes = fs.readFileSync(log);
    const at = bytes.indexOf("choice 2");
    const fd = fs.openSync(log, "r+");
    fs.writeSync(fd, Buffer.from("choice X"), 0, 8, at);
    fs.closeSync(fd);
    fs.utimesSync(log, stat.atime, stat.mtime);
    assert.equal(fs.statSync(log).size, bytes.length);
    const edited = await verifyWithCheckpoint(log, checkpoint);
    assert.equal(edited.fromCheckpoint, false);
    assert.equal(edited.fallbackReason, `the first ${bytes.length} bytes of the log changed since they were verified`);
    assert.equal(edited.integrity.ok, false);
    assert.deepEqual(edited.integrity, await verifyLog(log));
  });

  test("the trust model: a checkpoint rewritten to vouch for a tampered prefix is believed (as a recomputed chain would be), and `zaxy verify` still refuses", slow, async () => {
    const { log, checkpoint } = await checkpointedLog();
    const lines = fs.readFileSync(log, "utf8").replace("choice 2", "choice X");
    fs.writeFileSync(log, lines);
    const bytes = fs.readFileSync(log);
    const read = readVerifiedCheckpoint(checkpoint) as { checkpoint: { seq: number; hash: string; bytes: number; lines: number; file: string | null } };
    writeVerifiedCheckpoint(checkpoint, { ...read.checkpoint, prefix_sha256: sha256Hex(bytes) });
    assert.equal((await verifyWithCheckpoint(log, checkpoint)).integrity.ok, true);
    const verify = runZaxy(["verify", log, "--json"], { cwd: path.dirname(log) });
    assert.equal(verify.code, 1, verify.stdout);
    assert.equal(JSON.parse(verify.stdout).logs[0].broken_reason, "Event 2 hash mismatch");
  });
});
