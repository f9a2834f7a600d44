/**
 * A streaming JSONL line reader over a file descriptor: yields each non-blank line's bytes
 * (a view valid until the next step) with its 1-based physical line number. Memory stays at one
 * chunk plus the longest line.
 */
import * as fs from "node:fs";
import { checkError, inputError } from "../errors.ts";
import { lineBytesMax } from "../limits.ts";
import { openRegularFile } from "../platform/mod.ts";
import { isBlankLine as isBlank } from "./blank.ts";

const chunkBytes = 1 << 20;


export interface LogLine {
  bytes: Uint8Array;
  /** Physical line number (1-based). */
  line: number;
  /** Event position: count of non-blank lines so far (1-based). */
  position: number;
  /** Whether the line ended with `\n` (false only for an unterminated last line). */
  terminated: boolean;
}

/** Yields the non-blank lines of the file at `path`. */
export function* readLogLines(path: string): Generator<LogLine> {
  // A FIFO or a device in place of a log would block or never end: refuse it unread.
  const opened = openRegularFile(path);
  if (!opened.ok) throw inputError("unreadable_log", `Cannot read ${path}: ${opened.reason}`, { field: "LOG", expected: "a regular file" });
  const fd = opened.fd;
  try {
    yield* readRangeLines(fd, 0, Number.POSITIVE_INFINITY);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Yields the non-blank lines in bytes [start, end) of the open file `fd` (to EOF when `end` is
 * infinite); `start` must be a line start. Line numbers count from the range's first line.
 */
export function* readRangeLines(fd: number, start: number, end: number): Generator<LogLine> {
  let buffer = new Uint8Array(chunkBytes);
  let offset = start;
  let filled = 0;
  let line = 0;
  let position = 0;
  let eof = false;
  while (!eof || filled > 0) {
    if (!eof) {
      if (filled === buffer.length) {
        if (buffer.length >= lineBytesMax) throw checkError("line_too_long", `line ${line + 1} is longer than ${lineBytesMax} bytes`);
        const bigger = new Uint8Array(buffer.length * 2);
        bigger.set(buffer);
        buffer = bigger;
      }
      const want = Math.min(buffer.length - filled, end - offset);
      const read = want > 0 ? fs.readSync(fd, buffer, filled, want, offset) : 0;
      if (read === 0) eof = true;
      offset += read;
      filled += read;
    }
    let lineStart = 0;
    for (;;) {
      const nl = buffer.indexOf(0x0a, lineStart);
      if (nl < 0 || nl >= filled) break;
      line++;
      if (!isBlank(buffer, lineStart, nl)) {
        position++;
        yield { bytes: buffer.subarray(lineStart, nl), line, position, terminated: true };
      }
      lineStart = nl + 1;
    }
    if (eof && lineStart < filled) {
      line++;
      if (!isBlank(buffer, lineStart, filled)) {
        position++;
        yield { bytes: buffer.subarray(lineStart, filled), line, position, terminated: false };
      }
      lineStart = filled;
    }
    buffer.copyWithin(0, lineStart, filled);
    filled -= lineStart;
    if (eof) break;
  }
}

/** Number of events (non-blank lines) in the file. */
export function countLogEvents(path: string): number {
  let count = 0;
  for (const _ of readLogLines(path)) count++;
  return count;
}
