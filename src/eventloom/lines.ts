/**
 * A streaming JSONL line reader over a file descriptor: yields each non-blank line's bytes
 * (a view valid until the next step) with its 1-based physical line number. Memory stays at one
 * chunk plus the longest line.
 */
import * as fs from "node:fs";
import { checkError, inputError } from "../errors.ts";
import { lineBytesMax } from "../limits.ts";
import { openRegularFile } from "../platform/regularFile.ts";
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
    let buffer = new Uint8Array(chunkBytes);
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
        const read = fs.readSync(fd, buffer, filled, buffer.length - filled, null);
        if (read === 0) eof = true;
        filled += read;
      }
      let start = 0;
      for (;;) {
        const nl = buffer.indexOf(0x0a, start);
        if (nl < 0 || nl >= filled) break;
        line++;
        if (!isBlank(buffer, start, nl)) {
          position++;
          yield { bytes: buffer.subarray(start, nl), line, position, terminated: true };
        }
        start = nl + 1;
      }
      if (eof && start < filled) {
        line++;
        if (!isBlank(buffer, start, filled)) {
          position++;
          yield { bytes: buffer.subarray(start, filled), line, position, terminated: false };
        }
        start = filled;
      }
      buffer.copyWithin(0, start, filled);
      filled -= start;
      if (eof) break;
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** Number of events (non-blank lines) in the file. */
export function countLogEvents(path: string): number {
  let count = 0;
  for (const _ of readLogLines(path)) count++;
  return count;
}
