/**
 * Reading the end of a log without reading the log: the last non-blank line (backwards reads in
 * 8 KiB steps, as Python's `append_many` does) and whether the file ends with a newline.
 * Appends use this under the exclusive lock, so an append costs O(1) in the log's size.
 */
import * as fs from "node:fs";
import { isJsonObject, type JsonObject, parseJsonBytes } from "../canonical/mod.ts";
import { checkError } from "../errors.ts";
import { lineBytesMax } from "../limits.ts";
import { isV1Line, recordFromLine, seqFromEventId } from "./envelope.ts";

const stepBytes = 8192;

export interface TailLine {
  bytes: Uint8Array;
  /** Byte offset of the line's first byte. */
  start: number;
  /** Whether the file's last byte is `\n`. */
  terminated: boolean;
}

function isBlankByte(b: number): boolean {
  return b === 0x20 || (b >= 0x09 && b <= 0x0d) || (b >= 0x1c && b <= 0x1f);
}

/** The last non-blank line of the file open as `fd` with `size` bytes, or undefined if none. */
export function readTailLine(fd: number, size: number): TailLine | undefined {
  if (size === 0) return undefined;
  const last = new Uint8Array(1);
  fs.readSync(fd, last, 0, 1, size - 1);
  const terminated = last[0] === 0x0a;
  // Walk back over trailing blank bytes to find the line's end.
  let end = size;
  let buffer = new Uint8Array(stepBytes);
  let pos = size;
  let lineEnd = -1;
  let lineStart = 0;
  outer: while (pos > 0) {
    const readFrom = Math.max(0, pos - stepBytes);
    const length = pos - readFrom;
    fs.readSync(fd, buffer, 0, length, readFrom);
    for (let i = length - 1; i >= 0; i--) {
      const b = buffer[i];
      const at = readFrom + i;
      if (lineEnd < 0) {
        if (!isBlankByte(b)) lineEnd = at + 1;
        continue;
      }
      if (b === 0x0a) {
        lineStart = at + 1;
        break outer;
      }
    }
    pos = readFrom;
    if (lineEnd >= 0 && size - pos > lineBytesMax) {
      throw checkError("line_too_long", `the last line of the log is longer than ${lineBytesMax} bytes`);
    }
  }
  if (lineEnd < 0) return undefined;
  end = lineEnd;
  // Include any blank bytes before the newline that ended the line (they are JSON whitespace).
  const bytes = new Uint8Array(end - lineStart);
  fs.readSync(fd, bytes, 0, bytes.length, lineStart);
  buffer = new Uint8Array(0);
  return { bytes, start: lineStart, terminated };
}

export interface ChainTail {
  seq: number;
  hash: string | null;
  isV1: boolean;
  /** The file has bytes but no final newline (and the last line is complete JSON). */
  needsNewline: boolean;
}

/**
 * Where the next event goes: the tail's seq and hash. A tail that is not a sealed event is an
 * integrity problem (exit 1), never something to write after.
 */
export function readChainTail(fd: number, size: number, logName: string, countEvents: () => number): ChainTail {
  const tail = readTailLine(fd, size);
  if (tail === undefined) return { seq: 0, hash: null, isV1: false, needsNewline: false };
  let object: JsonObject;
  try {
    const parsed = parseJsonBytes(tail.bytes);
    if (!isJsonObject(parsed)) throw new Error("not an object");
    object = parsed;
  } catch {
    if (!tail.terminated) {
      throw checkError("torn_tail", `Cannot append to ${logName}: its last line was cut mid-write (torn tail)`, {
        hint: `inspect it with 'zaxy verify', then run 'zaxy repair --truncate-torn-tail'`,
      });
    }
    throw checkError("corrupt_tail", `Cannot append to ${logName}: its last line is not a valid event`, {
      hint: "run 'zaxy verify' to see where the chain breaks",
    });
  }
  const v1 = isV1Line(object);
  const record = recordFromLine(object, 0);
  let seq: number | undefined;
  if (v1) seq = record.id === null ? undefined : seqFromEventId(record.id);
  else {
    const raw = object.get("seq");
    seq = record.seq > 0 && raw !== undefined ? record.seq : undefined;
  }
  // Producer-supplied v1 ids carry no seq: count the events instead.
  seq ??= countEvents();
  if (!/^[0-9a-f]{64}$/.test(record.hash)) {
    throw checkError("corrupt_tail", `Cannot append to ${logName}: its last event has no valid hash`, {
      hint: "run 'zaxy verify' to see where the chain breaks",
    });
  }
  return { seq, hash: record.hash, isV1: v1, needsNewline: !tail.terminated };
}
