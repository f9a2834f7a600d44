// test-lane: full (concurrent processes, slow)
/**
 * Appends under contention and all-or-nothing batches (DESIGN §2.3): four processes appending
 * 500 events each to one log leave exactly 2000 events with seqs 1..2000 and a valid chain; a
 * batch with one invalid item writes nothing; appends wait on a lock held by Python's
 * fcntl.flock.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { fromJs } from "../../src/canonical/mod.ts";
import { type AppendItem, readEvents, verifyLog } from "../../src/eventloom/mod.ts";
import { appendEvents } from "../../src/events/append.ts";
import { isZaxyError } from "../../src/errors.ts";
import { bunPath, denoPath, repoRoot, runProcess, runZaxy, runZaxyAsync } from "../cli/zaxy.ts";
import { makeTempDir, readLines, refVerify, removeTempDirs, skipWithoutPython } from "./testkit.ts";

after(removeTempDirs);

const worker = path.join(repoRoot, "tests", "eventloom", "append_worker.ts");
const hasPython = skipWithoutPython === false;

function workerCommand(runtime: "bun" | "deno"): { command: string; args: string[] } {
  return runtime === "bun"
    ? { command: bunPath, args: [worker] }
    : { command: denoPath, args: ["run", "-A", "--no-check", worker] };
}

describe("concurrent appends", () => {
  test("4 processes × 500 appends (2 under Bun, 2 under Deno) → 2000 events, seqs 1..2000, valid chain", { timeout: 120_000 }, async () => {
    const dir = makeTempDir("concurrent");
    const root = path.join(dir, ".eventloom");
    const perWorker = 500;
    const runtimes = ["bun", "bun", "deno", "deno"] as const;
    const runs = await Promise.all(
      runtimes.map((runtime, w) => {
        const { command, args } = workerCommand(runtime);
        return runProcess(command, [...args, root, "shared", String(w), String(perWorker)], { cwd: dir });
      }),
    );
    runs.forEach((run, w) => assert.equal(run.code, 0, `worker ${w} (${runtimes[w]}): ${run.stderr}`));
    const reported = runs.map((run) => JSON.parse(run.stdout) as { worker: number; appended: number; seqs: number[] });
    const allSeqs = reported.flatMap((r) => r.seqs).sort((a, b) => a - b);
    assert.deepEqual(allSeqs, Array.from({ length: 2000 }, (_, i) => i + 1), "every seq handed out exactly once");
    for (const r of reported) {
      assert.equal(r.seqs.length, perWorker);
      assert.ok(r.seqs.every((s, i) => i === 0 || s > r.seqs[i - 1]), "one worker's seqs increase");
    }

    const file = path.join(root, "shared.jsonl");
    const lines = readLines(file);
    assert.equal(lines.length, 2000);
    const { events } = readEvents(file);
    assert.deepEqual(events.map((e) => e.seq), allSeqs);
    // Each worker's own events appear in its loop order.
    for (let w = 0; w < 4; w++) {
      const mine = events.filter((e) => e.actor === `worker-${w}`).map((e) => Number((e.payload.get("i") as { lexeme: string }).lexeme));
      assert.deepEqual(mine, Array.from({ length: perWorker }, (_, i) => i));
    }
    const report = await verifyLog(file);
    assert.deepEqual([report.ok, report.total_events], [true, 2000]);
    const cli = runZaxy(["verify", file, "--json"], { cwd: dir });
    assert.equal(cli.code, 0, cli.stdout);
    assert.equal(JSON.parse(cli.stdout).logs[0].total_events, 2000);
    if (hasPython) assert.deepEqual(refVerify(file), { code: 0, verdict: { ok: true, total_events: 2000, broken_at_seq: null, broken_reason: null } });
  });

  test("4 zaxy CLI processes × 25 appends in parallel → 100 events, valid chain", { timeout: 120_000 }, async () => {
    const dir = makeTempDir("concurrent-cli");
    const perWorker = 25;
    const loops = [0, 1, 2, 3].map(async (w) => {
      for (let i = 0; i < perWorker; i++) {
        const run = await runZaxyAsync(["memory", "append", "worker.step", "--actor", `w${w}`, "--payload-json", JSON.stringify({ i })], { cwd: dir });
        assert.equal(run.code, 0, run.stderr);
        assert.equal(run.stderr, "");
      }
    });
    await Promise.all(loops);
    const file = path.join(dir, ".eventloom", "default.jsonl");
    assert.equal(readLines(file).length, 4 * perWorker);
    const verify = runZaxy(["verify", "--json"], { cwd: dir });
    assert.equal(verify.code, 0, verify.stdout);
    assert.equal(JSON.parse(verify.stdout).logs[0].total_events, 4 * perWorker);
    if (hasPython) assert.equal(refVerify(file).code, 0);
  });

  test("an append waits for a lock held by Python's fcntl.flock, then succeeds", { skip: skipWithoutPython, timeout: 60_000 }, async () => {
    const dir = makeTempDir("pylock");
    const root = path.join(dir, ".eventloom");
    await appendEvents(root, "default", [{ type: "note.added", actor: "a" }]);
    const file = path.join(root, "default.jsonl");
    const holdMs = 1500;
    const marker = path.join(dir, "locked");
    const holder = runProcess(
      "python3",
      [
        "-c",
        `import fcntl, sys, time\nf = open(sys.argv[1], "a")\nfcntl.flock(f, fcntl.LOCK_EX)\nopen(sys.argv[2], "w").close()\ntime.sleep(${holdMs / 1000})\nfcntl.flock(f, fcntl.LOCK_UN)`,
        file,
        marker,
      ],
      { cwd: dir },
    );
    // Wait until python holds the lock (it creates the marker file once it does).
    for (let waited = 0; !fs.existsSync(marker); waited += 10) {
      assert.ok(waited < 20_000, "python took the lock");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const started = Date.now();
    const run = await runZaxyAsync(["memory", "append", "note.added", "--actor", "b", "--json"], { cwd: dir });
    const waitedMs = Date.now() - started;
    const held = await holder;
    assert.equal(held.code, 0, held.stderr);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(JSON.parse(run.stdout).seq, 2);
    assert.ok(waitedMs >= 1000, `the append waited for the lock (${waitedMs} ms)`);
    assert.equal((await verifyLog(file)).ok, true);
  });
});

describe("all-or-nothing batches", () => {
  const good: AppendItem = { type: "note.added", actor: "a", payload: fromJs({ ok: 1 }) };

  test("a batch with one invalid item appends nothing to an existing log (bytes unchanged) and names the item", async () => {
    const root = path.join(makeTempDir("batch"), ".eventloom");
    await appendEvents(root, "s", [good, good]);
    const file = path.join(root, "s.jsonl");
    const before = fs.readFileSync(file);
    const invalid: AppendItem[] = [
      { type: "", actor: "a" },
      { type: "note.added", actor: "" },
      { type: "note.added", actor: "a", payload: fromJs([1, 2]) },
      { type: "note.added", actor: "a", payload: "text" },
      { type: "note.added", actor: "a", payload: null },
      { type: "note\u0000added", actor: "a" },
      { type: "t".repeat(257), actor: "a" },
      { type: 42, actor: "a" },
      { type: "note.added", actor: "a", payload: fromJs({ big: "x".repeat(1024 * 1024) }) },
    ];
    for (const bad of invalid) {
      await assert.rejects(
        appendEvents(root, "s", [good, bad, good]),
        (error: unknown) => isZaxyError(error) && error.code === "invalid_event" && error.exitCode === 2 && /event 1: /.test(error.message) && /Nothing was written/.test(error.message),
        JSON.stringify(bad.type).slice(0, 40),
      );
      assert.deepEqual(fs.readFileSync(file), before);
    }
  });

  test("a batch with several invalid items reports every one, and creates no file for a new session", async () => {
    const root = path.join(makeTempDir("batch"), ".eventloom");
    await assert.rejects(appendEvents(root, "fresh", [{ type: "", actor: "a" }, good, { type: "x", actor: "" }]), (error: unknown) => {
      assert.ok(isZaxyError(error));
      assert.match(error.message, /event 0: event_type must be a non-empty string/);
      assert.match(error.message, /event 2: actor must be a non-empty string/);
      return true;
    });
    assert.equal(fs.existsSync(path.join(root, "fresh.jsonl")), false);
  });

  test("type and actor of exactly 256 characters are accepted; 257 are not", async () => {
    const root = path.join(makeTempDir("batch"), ".eventloom");
    const { events } = await appendEvents(root, "s", [{ type: "a".repeat(256), actor: "b".repeat(256) }]);
    assert.equal(events[0].seq, 1);
    await assert.rejects(appendEvents(root, "s", [{ type: "a", actor: "b".repeat(257) }]), /actor is 257 characters; at most 256/);
  });

  test("a producer_ref already in the log is skipped; the rest of the batch is appended", async () => {
    const root = path.join(makeTempDir("batch"), ".eventloom");
    const first = await appendEvents(root, "s", [{ ...good, producerRef: "r1" }, { ...good, producerRef: "r2" }], { dedupProducerRefs: true });
    assert.deepEqual([first.events.length, first.deduped], [2, 0]);
    const second = await appendEvents(root, "s", [{ ...good, producerRef: "r2" }, { ...good, producerRef: "r3" }, { ...good, producerRef: "r3" }], {
      dedupProducerRefs: true,
    });
    assert.deepEqual([second.events.map((e) => e.seq), second.deduped], [[3], 2]);
    const third = await appendEvents(root, "s", [{ ...good, producerRef: "r1" }], { dedupProducerRefs: true });
    assert.deepEqual([third.events.length, third.deduped], [0, 1]);
    assert.equal(readLines(path.join(root, "s.jsonl")).length, 3);
  });
});
