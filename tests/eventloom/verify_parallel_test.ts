// test-lane: full (slow)
/**
 * Parallel verification (workers over line-aligned ranges) must report exactly what the
 * sequential pass reports: same verdict, seq, line and message, including failures that sit on
 * either side of a range split and chains that link across a split.
 */
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { writeSyntheticLog } from "../../src/bench/syntheticLog.ts";
import { fromJs } from "../../src/canonical/mod.ts";
import { appendEvents } from "../../src/events/append.ts";
import { verifyLog } from "../../src/eventloom/verify.ts";
import { makeTempDir, removeTempDirs } from "./testkit.ts";

after(removeTempDirs);

const eventCount = 4000;

/** One synthetic log per style, written once (~2 s each); every test edits its own copy. */
const pristineLogs = new Map<string, string>();

function logWith(style: "python-legacy" | "zaxy-v1"): string {
  let pristine = pristineLogs.get(style);
  if (pristine === undefined) {
    pristine = path.join(makeTempDir("zaxy-parallel-pristine"), `${style}.jsonl`);
    writeSyntheticLog({ path: pristine, events: eventCount, style });
    pristineLogs.set(style, pristine);
  }
  const file = path.join(makeTempDir("zaxy-parallel"), `${style}.jsonl`);
  fs.copyFileSync(pristine, file);
  return file;
}

/** Byte offset where line `line` (1-based) starts. */
function lineStart(bytes: Uint8Array, line: number): number {
  let offset = 0;
  for (let n = 1; n < line; n++) offset = bytes.indexOf(0x0a, offset) + 1;
  return offset;
}

type Report = Awaited<ReturnType<typeof verifyLog>>;

/** `already`: a report the test already has for one thread count, checked here instead of verifying again. */
async function assertSameAsSequential(file: string, already?: { threads: number; report: Report }): Promise<void> {
  const sequential = await verifyLog(file, { threads: 1 });
  const allSequential = await verifyLog(file, { threads: 1, allErrors: true });
  for (const threads of [2, 3, 7]) {
    const parallel = already?.threads === threads ? already.report : await verifyLog(file, { threads });
    assert.deepEqual({ ...parallel }, { ...sequential }, `threads=${threads}`);
    const all = await verifyLog(file, { threads, allErrors: true });
    assert.deepEqual(all.errors, allSequential.errors, `all errors, threads=${threads}`);
  }
}

for (const style of ["python-legacy", "zaxy-v1"] as const) {
  describe(`verifyLog with workers on a ${style} log`, () => {
    test("verifies an intact log with the same report as one thread", async () => {
      const file = logWith(style);
      const report = await verifyLog(file, { threads: 3 });
      assert.equal(report.ok, true);
      assert.equal(report.total_events, eventCount);
      await assertSameAsSequential(file, { threads: 3, report });
    });

    test("reports a tampered event in a later range at its absolute seq and line", async () => {
      const file = logWith(style);
      const bytes = fs.readFileSync(file);
      const target = 3001;
      const at = bytes.indexOf(0x61 /* a */, lineStart(bytes, target) + 40);
      bytes[at] = 0x62;
      fs.writeFileSync(file, bytes);
      const report = await verifyLog(file, { threads: 3 });
      assert.equal(report.ok, false);
      assert.equal(report.broken_at_seq, target);
      assert.equal(report.line, target);
      assert.equal(report.broken_reason, `Event ${target} hash mismatch`);
      await assertSameAsSequential(file, { threads: 3, report });
    });

    test("catches a deleted line (the link breaks) wherever the split falls", async () => {
      const file = logWith(style);
      const lines = fs.readFileSync(file, "utf8").split("\n");
      lines.splice(1999, 1); // drop event 2000
      fs.writeFileSync(file, lines.join("\n"));
      const report = await verifyLog(file, { threads: 2 });
      assert.equal(report.ok, false);
      assert.equal(report.broken_at_seq, 2000);
      await assertSameAsSequential(file, { threads: 2, report });
    });

    test("counts blank lines as lines but not as events across ranges", async () => {
      const file = logWith(style);
      const lines = fs.readFileSync(file, "utf8").split("\n");
      lines.splice(2500, 0, "", "   ");
      fs.writeFileSync(file, lines.join("\n"));
      const report = await verifyLog(file, { threads: 3 });
      assert.equal(report.ok, true);
      assert.equal(report.total_events, eventCount);
      await assertSameAsSequential(file, { threads: 3, report });
    });

    test("reports a torn tail only in the last range", async () => {
      const file = logWith(style);
      const text = fs.readFileSync(file, "utf8");
      fs.writeFileSync(file, text.slice(0, text.length - 40));
      const report = await verifyLog(file, { threads: 3 });
      assert.equal(report.ok, false);
      assert.equal(report.code, "torn_tail");
      assert.equal(report.torn_tail, true);
      assert.equal(report.broken_at_seq, eventCount);
      await assertSameAsSequential(file, { threads: 3, report });
    });
  });
}

describe("verifyLog with workers on a log whose events do not state their seq", () => {
  test("counts each range first (producer ids carry no seq) and reports the same as one thread", async () => {
    const root = makeTempDir("zaxy-parallel-ids");
    const items = Array.from({ length: eventCount }, (_, i) => ({
      type: "tool.call.completed",
      actor: "producer",
      id: `producer-event-${i + 1}`,
      payload: fromJs({ step: i + 1, note: "an event id chosen by its producer says nothing about its position" }),
    }));
    const { logPath } = await appendEvents(root, "ids", items);
    const intact = await verifyLog(logPath, { threads: 3 });
    assert.equal(intact.ok, true);
    assert.equal(intact.total_events, eventCount);
    const lines = fs.readFileSync(logPath, "utf8").split("\n");
    lines[3100] = lines[3100].replace('"step":3101', '"step":3102');
    lines.splice(1500, 0, "");
    fs.writeFileSync(logPath, lines.join("\n"));
    const report = await verifyLog(logPath, { threads: 3 });
    assert.equal(report.broken_reason, "Event 3101 hash mismatch");
    assert.equal(report.line, 3102);
    await assertSameAsSequential(logPath, { threads: 3, report });
  });
});
