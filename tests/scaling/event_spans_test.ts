/**
 * `scanEventSpans` (src/readmodel/eventSpans.ts) finds each event's line in the log with one
 * reused read buffer: lines that cross a read, a line longer than the buffer, blank lines (Python's
 * `strip()` rule) and a last line without a newline all get the spans a plain split gives.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, test } from "node:test";
import { isBlankLine } from "../../src/eventloom/blank.ts";
import { scanEventSpans } from "../../src/readmodel/eventSpans.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";

after(removeTempDirs);

/** The spans of the non-blank lines, by splitting the whole file at its newlines. */
function splitSpans(bytes: Buffer): number[] {
  const spans: number[] = [];
  let start = 0;
  for (let at = 0; at <= bytes.length; at++) {
    if (at < bytes.length && bytes[at] !== 0x0a) continue;
    if (at > start || at < bytes.length) {
      if (!isBlankLine(bytes, start, at)) spans.push(start, at);
    }
    start = at + 1;
  }
  return spans;
}

test("scanEventSpans gives the spans of a plain split: lines across reads, a line longer than the read buffer, blank lines, no final newline", () => {
  const lines = [
    '{"seq":1}',
    "",
    "  \t",
    `{"text":"${"x".repeat(3 << 20)}"}`,
    '{"seq":3,"name":"caf\u00e9"}',
    "\u00a0",
    ...Array.from({ length: 5000 }, (_, i) => `{"seq":${i + 4},"pad":"${"y".repeat(i % 700)}"}`),
  ];
  const bytes = Buffer.from(`${lines.join("\n")}\n{"seq":"last, no newline"}`, "utf8");
  const file = path.join(makeTempDir("zaxy-spans"), "log.jsonl");
  fs.writeFileSync(file, bytes);
  const expected = splitSpans(bytes);
  const count = expected.length / 2;
  assert.equal(count, 5004);
  assert.deepEqual(Array.from(scanEventSpans(file, bytes.length, count)), expected);
  // A prefix: the first events only; and a log cut inside a line, whose cut line counts as its last.
  assert.deepEqual(Array.from(scanEventSpans(file, bytes.length, 3)), expected.slice(0, 6));
  assert.throws(() => scanEventSpans(file, 100, 3), /holds 2 events in its first 100 bytes, 3 were expected/);
});
