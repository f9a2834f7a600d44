/**
 * Rewrite mode (src/compaction/rewrite.ts; DESIGN §9, reference §1.4): lossless and atomic.
 * Event lines keep their bytes (only framing is normalised), `compaction.completed` is appended
 * through the appender, the snapshot holds the last N lines, and any failure up to the rename
 * (simulated through the file-ops seam) leaves the original byte-identical with no temp file.
 * Interop logs written by Python stay verifiable (by the Python reference verifier too).
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { fromJs, parseJsonBytes } from "../../src/canonical/mod.ts";
import { nodeFileOps, rewriteLog, type RewriteFileOps } from "../../src/compaction/rewrite.ts";
import { isZaxyError } from "../../src/errors.ts";
import { readEvents, verifyLog, writeConfig } from "../../src/eventloom/mod.ts";
import { appendEvents } from "../../src/events/append.ts";
import { lockFile } from "../../src/platform/mod.ts";
import { interopDir, interopLogs, makeTempDir, refVerifyMany, removeTempDirs, skipWithoutPython } from "../eventloom/testkit.ts";

after(removeTempDirs);

const fixedClock = () => Date.UTC(2026, 0, 2, 3, 4, 5) * 1000;

async function makeLog(count: number, envelope: "v1" | "legacy" = "v1"): Promise<{ root: string; log: string }> {
  const root = makeTempDir("zaxy-rewrite");
  writeConfig(root, { envelope });
  const items = Array.from({ length: count }, (_, i) => ({
    type: "task.created",
    actor: "agent",
    payload: fromJs({ title: `task ${i + 1}`, ratio: 1.5, nested: { ok: true, none: null } }),
  }));
  if (count > 0) await appendEvents(root, "default", items, { clock: fixedClock });
  const log = path.join(root, "default.jsonl");
  if (count === 0) fs.writeFileSync(log, "");
  return { root, log };
}

function nonBlankLines(file: string): string[] {
  return fs.readFileSync(file, "utf8").split("\n").filter((line) => line.trim() !== "");
}

/** The payload of a v1 line without the security block the appender adds (`__zaxy_security`). */
function payloadOf(line: string): Record<string, unknown> {
  const payload = JSON.parse(line).payload;
  assert.deepEqual(payload.__zaxy_security, { redacted_paths: [], sensitivity: "public" });
  delete payload.__zaxy_security;
  return payload;
}

function leftovers(dir: string): string[] {
  return fs.readdirSync(dir).filter((name) => name.includes(".compact.tmp") || name.includes(".snapshot-") || name.endsWith(".tmp"));
}

async function rejects(promise: Promise<unknown>, code: string, exitCode: number): Promise<string> {
  try {
    await promise;
  } catch (error) {
    assert.ok(isZaxyError(error), String(error));
    assert.equal(error.code, code, error.message);
    assert.equal(error.exitCode, exitCode);
    return error.message;
  }
  assert.fail(`expected ${code}`);
}

describe("rewriteLog", () => {
  test("keeps every event line, seq, hash, type and payload and appends compaction.completed", async () => {
    const { root, log } = await makeLog(3);
    const before = nonBlankLines(log);
    const eventsBefore = readEvents(log).events;
    const result = await rewriteLog(log, { clock: fixedClock });
    assert.equal(result.status, "succeeded");
    assert.equal(result.event_count, 3);
    assert.equal(result.snapshot_path, null);
    assert.equal(result.blank_lines_removed, 0);
    assert.equal(result.trimmed_lines, 0);
    assert.equal(result.final_newline_added, false);
    const after = nonBlankLines(log);
    assert.deepEqual(after.slice(0, 3), before);
    const eventsAfter = readEvents(log).events;
    assert.equal(eventsAfter.length, 4);
    for (let i = 0; i < 3; i++) {
      assert.equal(eventsAfter[i].seq, eventsBefore[i].seq);
      assert.equal(eventsAfter[i].hash, eventsBefore[i].hash);
      assert.equal(eventsAfter[i].type, eventsBefore[i].type);
    }
    const completed = eventsAfter[3];
    assert.equal(completed.type, "compaction.completed");
    assert.equal(completed.actor, "zaxy");
    assert.equal(completed.prevHash, eventsBefore[2].hash);
    assert.deepEqual(payloadOf(after[3]), {
      session_id: "default",
      mode: "rewrite",
      status: "succeeded",
      log_path: log,
      event_count: 3,
    });
    assert.deepEqual(result.completed_event, {
      seq: 4,
      hash: completed.hash,
      citation: `eventloom://default/events/4#${completed.hash.slice(0, 12)}`,
    });
    const report = await verifyLog(log);
    assert.equal(report.ok, true, report.broken_reason ?? "");
    assert.equal(report.total_events, 4);
    assert.deepEqual(leftovers(root), []);
  });

  test("normalises only framing: blank lines, edge whitespace and a missing final newline", async () => {
    const { log } = await makeLog(3, "legacy");
    const [a, b, c] = nonBlankLines(log);
    fs.writeFileSync(log, `${a}\r\n\n   \n  ${b}\t\n\n${c}`);
    const result = await rewriteLog(log, { clock: fixedClock });
    assert.equal(result.event_count, 3);
    assert.equal(result.blank_lines_removed, 3);
    assert.equal(result.trimmed_lines, 2);
    assert.equal(result.final_newline_added, true);
    assert.equal(result.bytes_after, Buffer.byteLength(`${a}\n${b}\n${c}\n`));
    const text = fs.readFileSync(log, "utf8");
    assert.ok(text.startsWith(`${a}\n${b}\n${c}\n{`), text.slice(0, 400));
    assert.ok(text.endsWith("}\n"));
    assert.equal((await verifyLog(log)).ok, true);
    // The legacy tail means compaction.completed is written as a legacy line too.
    assert.equal(JSON.parse(nonBlankLines(log)[3]).seq, 4);
  });

  test("the rewritten log and its snapshot keep the original's permission bits", async () => {
    const { log } = await makeLog(3);
    fs.chmodSync(log, 0o600);
    const result = await rewriteLog(log, { snapshotEvery: 2 });
    assert.equal(fs.statSync(log).mode & 0o777, 0o600);
    assert.equal(fs.statSync(result.snapshot_path!).mode & 0o777, 0o600);
  });

  test("a symlinked log is rewritten at its target and the link stays a link", async () => {
    const { root, log } = await makeLog(2);
    const linkDir = makeTempDir("zaxy-rewrite-link");
    const link = path.join(linkDir, "default.jsonl");
    fs.symlinkSync(log, link);
    const result = await rewriteLog(link);
    assert.equal(fs.lstatSync(link).isSymbolicLink(), true);
    assert.equal(result.output_path, fs.realpathSync(log));
    assert.equal(nonBlankLines(log).length, 3);
    assert.deepEqual(leftovers(root), []);
  });

  test("a failure just before the rename leaves the original byte-identical and no temp file", async () => {
    const { root, log } = await makeLog(5);
    const original = fs.readFileSync(log);
    const failingRename: RewriteFileOps = {
      ...nodeFileOps,
      renameSync(from, to) {
        if (to === log) throw Object.assign(new Error("EIO: simulated failure at rename"), { code: "EIO" });
        nodeFileOps.renameSync(from, to);
      },
    };
    const message = await rejects(rewriteLog(log, { fileOps: failingRename, snapshotEvery: 2 }), "rewrite_failed", 3);
    assert.match(message, /simulated failure at rename.*The original log is unchanged/);
    assert.deepEqual(fs.readFileSync(log), original);
    assert.deepEqual(leftovers(root), [], "the temp file and this run's snapshot are removed");
  });

  test("a failed write of the temp file leaves the original byte-identical and no temp file", async () => {
    const { root, log } = await makeLog(4);
    const original = fs.readFileSync(log);
    const diskFull: RewriteFileOps = {
      ...nodeFileOps,
      writeSync() {
        throw Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" });
      },
    };
    await rejects(rewriteLog(log, { fileOps: diskFull }), "rewrite_failed", 3);
    assert.deepEqual(fs.readFileSync(log), original);
    assert.deepEqual(leftovers(root), []);
  });

  test("a broken chain is refused with exit 1 and nothing is written", async () => {
    const { root, log } = await makeLog(3);
    const lines = nonBlankLines(log);
    lines[1] = lines[1].replace("task 2", "task X");
    fs.writeFileSync(log, lines.join("\n") + "\n");
    const original = fs.readFileSync(log);
    const message = await rejects(rewriteLog(log), "integrity_failure", 1);
    assert.match(message, /^Refusing to compact .*: Event 2 hash mismatch\. Nothing was written\.$/);
    assert.deepEqual(fs.readFileSync(log), original);
    assert.deepEqual(leftovers(root), []);
  });

  test("a torn tail is refused, not silently dropped", async () => {
    const { log } = await makeLog(2);
    fs.appendFileSync(log, '{"id":"evt_torn","type":"task.cre');
    const original = fs.readFileSync(log);
    try {
      await rewriteLog(log);
      assert.fail("expected integrity_failure");
    } catch (error) {
      assert.ok(isZaxyError(error));
      assert.equal(error.code, "integrity_failure");
      assert.match(error.hint ?? "", /zaxy repair --truncate-torn-tail/);
    }
    assert.deepEqual(fs.readFileSync(log), original);
  });

  test("an empty log is reported and left alone", async () => {
    const { log } = await makeLog(0);
    fs.writeFileSync(log, "\n  \n");
    const result = await rewriteLog(log);
    assert.equal(result.status, "empty");
    assert.equal(result.message, "Log is empty. Nothing to compact.");
    assert.equal(result.completed_event, null);
    assert.equal(fs.readFileSync(log, "utf8"), "\n  \n");
  });

  test("a snapshot holds the last snapshot_every event lines once the log reaches that many", async () => {
    const { log } = await makeLog(5);
    const lines = nonBlankLines(log);
    const result = await rewriteLog(log, { snapshotEvery: 3 });
    assert.equal(result.snapshot_path, `${log}.snapshot-5.json`);
    assert.equal(fs.readFileSync(result.snapshot_path!, "utf8"), lines.slice(2).join("\n") + "\n");
    assert.equal(JSON.parse(nonBlankLines(log)[5]).payload.snapshot_path, result.snapshot_path);

    const below = await makeLog(5);
    const none = await rewriteLog(below.log, { snapshotEvery: 6 });
    assert.equal(none.snapshot_path, null);
    assert.equal("snapshot_path" in JSON.parse(nonBlankLines(below.log)[5]).payload, false);
    // Exactly at the threshold a snapshot is written (total >= snapshot_every).
    const at = await makeLog(4);
    assert.equal((await rewriteLog(at.log, { snapshotEvery: 4 })).snapshot_path, `${at.log}.snapshot-4.json`);
  });

  test("--output writes a new log and leaves the original untouched", async () => {
    const { root, log } = await makeLog(3);
    const original = fs.readFileSync(log);
    const output = path.join(root, "archive.jsonl");
    const result = await rewriteLog(log, { outputPath: output });
    assert.deepEqual(fs.readFileSync(log), original);
    assert.equal(result.output_path, output);
    const outLines = nonBlankLines(output);
    assert.deepEqual(outLines.slice(0, 3), nonBlankLines(log));
    const payload = payloadOf(outLines[3]);
    assert.deepEqual(payload, { session_id: "archive", mode: "rewrite", status: "succeeded", log_path: log, event_count: 3, output_path: output });
    assert.equal((await verifyLog(output)).ok, true);

    await rejects(rewriteLog(log, { outputPath: output }), "output_exists", 2);
    await rejects(rewriteLog(log, { outputPath: path.join(root, "archive.txt") }), "invalid_log_name", 2);
    await rejects(rewriteLog(log, { outputPath: path.join(root, "no-such-dir", "x.jsonl") }), "invalid_output", 2);
    assert.deepEqual(fs.readFileSync(log), original);
  });

  test("bad input is refused before anything is touched", async () => {
    const { root, log } = await makeLog(2);
    await rejects(rewriteLog(path.join(root, "missing.jsonl")), "unreadable_log", 2);
    await rejects(rewriteLog(root), "unreadable_log", 2);
    await rejects(rewriteLog(log, { snapshotEvery: 0 }), "invalid_option", 2);
    const odd = path.join(root, "not a session!.jsonl");
    fs.copyFileSync(log, odd);
    await rejects(rewriteLog(odd), "invalid_session_id", 2);
  });

  test("the rewrite waits for the append lock and gives up without touching the log", async () => {
    const { log } = await makeLog(2);
    const original = fs.readFileSync(log);
    const held = await lockFile(log, "exclusive", 1000);
    try {
      await rejects(rewriteLog(log, { lockWaitMs: 100 }), "lock_failed", 3);
    } finally {
      held.release();
    }
    assert.deepEqual(fs.readFileSync(log), original);
  });

  test("an append racing with the rewrite waits for it and extends the new file's chain", async () => {
    for (let round = 0; round < 5; round++) {
      const { root, log } = await makeLog(3);
      const [rewritten, appended] = await Promise.all([
        rewriteLog(log),
        appendEvents(root, "default", [{ type: "task.created", actor: "racer", payload: fromJs({ title: "late" }) }]),
      ]);
      const report = await verifyLog(log);
      assert.equal(report.ok, true, `round ${round}: ${report.broken_reason}`);
      assert.equal(report.total_events, 5);
      const types = readEvents(log).events.map((event) => event.type);
      assert.deepEqual(types.slice(0, 3), ["task.created", "task.created", "task.created"]);
      assert.deepEqual([...types.slice(3)].sort(), ["compaction.completed", "task.created"]);
      assert.notEqual(rewritten.completed_event?.seq, appended.events[0].seq);
    }
  });

  test("interop logs written by Python stay verifiable after a rewrite of a copy", { skip: skipWithoutPython }, async () => {
    assert.ok(interopLogs.length >= 10, "interop fixtures present");
    const root = makeTempDir("zaxy-rewrite-interop");
    const copies: string[] = [];
    for (const name of interopLogs) {
      const copy = path.join(root, name);
      fs.copyFileSync(path.join(interopDir, name), copy);
      const originalLines = nonBlankLines(copy);
      const result = await rewriteLog(copy, { clock: fixedClock });
      assert.equal(result.event_count, originalLines.length, name);
      assert.deepEqual(nonBlankLines(copy).slice(0, originalLines.length), originalLines, name);
      const report = await verifyLog(copy);
      assert.equal(report.ok, true, `${name}: ${report.broken_reason}`);
      assert.equal(report.total_events, originalLines.length + 1);
      const last = parseJsonBytes(new TextEncoder().encode(nonBlankLines(copy).at(-1)!));
      assert.ok(last instanceof Map && (last.get("type") === "compaction.completed"), name);
      copies.push(copy);
    }
    for (const [i, verdict] of refVerifyMany(copies).entries()) {
      assert.equal(verdict.ok, true, `${interopLogs[i]}: ${verdict.broken_reason}`);
      assert.equal(verdict.total_events, nonBlankLines(copies[i]).length);
    }
  });
});
