/**
 * The audit's pass one split into line-aligned ranges read by workers gives the report the
 * one-thread pass gives, byte for byte (the report's JSON), for every split: one range per line
 * (every boundary inside a line), a boundary inside a line longer than a range, ranges of a few
 * lines; on generated logs with uncited events past the listed maximum, blank and
 * whitespace-only lines, on the interop fixtures (v1 lines, whose seq is their position), on a
 * tampered log and on an empty one. Rows handed from one `AuditVectors` to another read back
 * as they were built.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fromJs } from "../../src/canonical/mod.ts";
import { auditLog, type PassOneSplit } from "../../src/compaction/audit.ts";
import { splitLog } from "../../src/compaction/auditPassOne.ts";
import { AuditVectors, bandCount } from "../../src/compaction/auditVectors.ts";
import { appendEvents } from "../../src/events/append.ts";
import { seededRandom } from "../../src/bench/measure.ts";

const repoRoot = path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), "../..");
const oneThread: PassOneSplit = { workers: 1, rangeBytes: 1 << 30 };
const splits: PassOneSplit[] = [
  { workers: 2, rangeBytes: 1 },
  { workers: 2, rangeBytes: 700 },
  { workers: 3, rangeBytes: 4096 },
  { workers: 1, rangeBytes: 1500 },
];

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), "zaxy-audit-pass-one-"));
}

/** A log of `count` events: near-duplicates, identity codes, a long payload, 1 in 2 uncited. */
async function generatedLog(count: number): Promise<string> {
  const rand = seededRandom(7);
  const items = Array.from({ length: count }, (_, i) => {
    const topic = ["cache invalidation", "queue drain", "worker restart", "index rebuild"][i % 4];
    const payload: Record<string, unknown> = { content: `${topic} runbook step ${Math.floor(rand() * 5)} identity-code-${String(i % 37).padStart(4, "0")}` };
    if (i % 2 === 0) Object.assign(payload, { path: `docs/${topic.replace(" ", "-")}.md`, start_line: 1 + (i % 3), end_line: 9 });
    if (i === 5) payload.content = `${"long payload text ".repeat(600)} identity-code-long`;
    return { type: "document.indexed", actor: "agent", payload: fromJs(payload) };
  });
  return (await appendEvents(tempDir(), "default", items)).logPath;
}

async function sameForEverySplit(log: string): Promise<string> {
  const expected = JSON.stringify(await auditLog(log, { passOneSplit: oneThread }));
  for (const split of splits) {
    assert.equal(JSON.stringify(await auditLog(log, { passOneSplit: split })), expected, `split ${JSON.stringify(split)}`);
  }
  return expected;
}

test("a generated log of 240 events: every split gives the one-thread report, uncited events listed up to the maximum", async () => {
  const log = await generatedLog(240);
  const report = JSON.parse(await sameForEverySplit(log));
  assert.equal(report.event_count, 240);
  assert.equal(report.integrity_ok, true);
  assert.equal(report.uncited_event_count, 120);
  assert.equal(report.uncited_events.length, 100);
  assert.deepEqual(report.uncited_events.slice(0, 3).map((e: { seq: number }) => e.seq), [2, 4, 6]);
  assert.ok(report.clusters.length > 0);
  assert.ok(report.identities.includes("identity-code-0036"));
  assert.ok(report.identities.includes("docs/cache-invalidation.md:1-9"));
});

test("blank, whitespace-only and CRLF lines between events: every split gives the one-thread report", async () => {
  const log = await generatedLog(40);
  const lines = fs.readFileSync(log, "utf8").split("\n").filter((line) => line !== "");
  fs.writeFileSync(log, lines.map((line, i) => (i % 3 === 0 ? `${line}\r\n\n   \n\u00a0\n` : `${line}\n`)).join(""));
  const report = JSON.parse(await sameForEverySplit(log));
  assert.equal(report.integrity_ok, true);
  assert.equal(report.event_count, 40);
});

test("the interop fixtures (v1 lines take their position as seq): every split gives the one-thread report", async () => {
  const dir = path.join(repoRoot, "fixtures", "interop");
  const files = fs.readdirSync(dir).filter((name) => name.endsWith(".jsonl")).sort();
  assert.ok(files.some((name) => name.startsWith("v1-")));
  for (const name of files) {
    // Blank lines ahead of every range shift positions: a range's first position is counted.
    const log = path.join(tempDir(), name);
    fs.writeFileSync(log, `\n\n${fs.readFileSync(path.join(dir, name), "utf8").replaceAll("\n", "\n\n")}`);
    await sameForEverySplit(log);
  }
});

test("a tampered log is reported broken, the same for every split; an empty log has no events", async () => {
  const log = await generatedLog(30);
  fs.writeFileSync(log, fs.readFileSync(log, "utf8").replace("identity-code-0003", "identity-code-9993"));
  const broken = JSON.parse(await sameForEverySplit(log));
  assert.equal(broken.integrity_ok, false);
  assert.equal(broken.integrity_reason, "Event 4 hash mismatch");
  assert.deepEqual(broken.clusters, []);
  const notJson = await generatedLog(10);
  fs.appendFileSync(notJson, "not json\n");
  assert.equal(JSON.parse(await sameForEverySplit(notJson)).integrity_ok, false);
  const empty = path.join(tempDir(), "empty.jsonl");
  fs.writeFileSync(empty, "");
  const report = JSON.parse(await sameForEverySplit(empty));
  assert.equal(report.event_count, 0);
  assert.equal(report.integrity_ok, true);
});

test("splitLog: ranges cover the file, each ends just past a newline, a line longer than a range stays whole", () => {
  const file = path.join(tempDir(), "lines.jsonl");
  const lines = ["a", "b".repeat(5000), "", "c", "d".repeat(300)];
  fs.writeFileSync(file, `${lines.join("\n")}\nlast-without-newline`);
  const size = fs.statSync(file).size;
  const fd = fs.openSync(file, "r");
  try {
    const bytes = fs.readFileSync(file);
    for (const rangeBytes of [1, 2, 100, 4096, size, size * 2]) {
      const ranges = splitLog(fd, size, rangeBytes);
      assert.equal(ranges[0].start, 0);
      assert.equal(ranges.at(-1)?.end, size);
      for (let r = 0; r < ranges.length; r++) {
        if (r > 0) assert.equal(ranges[r].start, ranges[r - 1].end);
        assert.ok(ranges[r].end > ranges[r].start);
        if (ranges[r].end < size) assert.equal(bytes[ranges[r].end - 1], 0x0a, `range ${r} at ${rangeBytes}`);
      }
      if (rangeBytes === 1) assert.equal(ranges.length, lines.length + 1);
    }
    assert.deepEqual(splitLog(fd, 0, 16), []);
  } finally {
    fs.closeSync(fd);
  }
});

test("rows taken from one AuditVectors and appended to another read back as built, over many chunks", () => {
  const dim = 256;
  const rand = seededRandom(11);
  const texts = Array.from({ length: 3000 }, (_, i) => Array.from({ length: 5 + (i % 40) }, () => `t${Math.floor(rand() * 400)}`).join(" "));
  const whole = new AuditVectors(dim);
  for (const text of texts) whole.addText(text);
  const merged = new AuditVectors(dim);
  const source = new AuditVectors(dim);
  for (const [from, to] of [[0, 1], [1, 1200], [1200, 1201], [1201, 3000]]) {
    for (let i = from; i < to; i++) source.addText(texts[i]);
    merged.appendRows(source.takeRows());
    assert.equal(source.count, 0);
  }
  assert.equal(merged.count, whole.count);
  const rows = Array.from({ length: texts.length }, (_, i) => i);
  assert.deepEqual(merged.dense(rows), whole.dense(rows));
  for (let row = 0; row < texts.length; row++) {
    for (let band = 0; band < bandCount; band++) assert.equal(merged.bandKey(row, band), whole.bandKey(row, band));
  }
  // Rows added after an append go after the appended ones.
  merged.addText("after the parts");
  whole.addText("after the parts");
  assert.deepEqual(merged.dense([texts.length]), whole.dense([texts.length]));
});
