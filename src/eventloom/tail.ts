/**
 * Reading the end of a log without reading the log: the last non-blank line (backwards reads in
 * 8 KiB steps, as Python's `append_many` does) and whether the file ends with a newline.
 * Appends use this under the exclusive lock, so an append costs O(1) in the log's size.
 */
import * as fs from "node:fs";
import { isJsonObject, JsonNumber, type JsonObject, parseJsonBytes } from "../canonical/mod.ts";
import { checkError } from "../errors.ts";
import { lineBytesMax } from "../limits.ts";
import { isBlankLine } from "./blank.ts";
import { sha256Hex } from "../platform/mod.ts";
import { isV1Line, legacyPreimage, recordFromLine, seqFromEventId, v1Preimage } from "./envelope.ts";
import { scanRange } from "./verify.ts";

const stepBytes = 8192;

export interface TailLine {
  bytes: Uint8Array;
  /** Byte offset of the line's first byte. */
  start: number;
  /** Whether the file's last byte is `\n`. */
  terminated: boolean;
}

/** Offset of the last `\n` before `end` (exclusive), or -1. Reads backwards in 8 KiB steps. */
function previousNewline(fd: number, end: number, buffer: Uint8Array): number {
  let pos = end;
  while (pos > 0) {
    const from = Math.max(0, pos - stepBytes);
    const length = pos - from;
    fs.readSync(fd, buffer, 0, length, from);
    const at = buffer.subarray(0, length).lastIndexOf(0x0a);
    if (at >= 0) return from + at;
    pos = from;
  }
  return -1;
}

/** The last non-blank line of the file open as `fd` with `size` bytes, or undefined if none. */
export function readTailLine(fd: number, size: number): TailLine | undefined {
  if (size === 0) return undefined;
  const buffer = new Uint8Array(stepBytes);
  fs.readSync(fd, buffer, 0, 1, size - 1);
  const terminated = buffer[0] === 0x0a;
  // Walk lines backwards; skip the ones Python's strip() would leave empty.
  let lineEnd = terminated ? size - 1 : size;
  while (lineEnd >= 0) {
    const newline = previousNewline(fd, lineEnd, buffer);
    const lineStart = newline + 1;
    if (lineEnd - lineStart > lineBytesMax) {
      throw checkError("line_too_long", `the last line of the log is longer than ${lineBytesMax} bytes`);
    }
    const bytes = new Uint8Array(lineEnd - lineStart);
    fs.readSync(fd, bytes, 0, bytes.length, lineStart);
    if (!isBlankLine(bytes, 0, bytes.length)) return { bytes, start: lineStart, terminated };
    if (newline < 0) return undefined;
    lineEnd = newline;
  }
  return undefined;
}

export interface ChainTail {
  seq: number;
  hash: string | null;
  isV1: boolean;
  /** The file has bytes but no final newline (and the last line is complete JSON). */
  needsNewline: boolean;
}

/**
 * Where the next event goes: the tail's seq and hash. A tail that is not a sealed event, or whose
 * seal, seq or link to the line before it fails verification, is an integrity problem (exit 1),
 * never something to write after. Only the last two lines are read: a full check of the chain
 * stays with `zaxy verify`.
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
  checkTailEvent(fd, size, tail, object, logName, countEvents);
  return { seq, hash: record.hash, isV1: v1, needsNewline: !tail.terminated };
}

/** What precedes the tail line in the chain: the line before it, read the same cheap way. */
function chainBeforeTail(fd: number, tail: TailLine, countEvents: () => number): { eventBase: number; prevHash: string | null } {
  const previous = readTailLine(fd, tail.start);
  if (previous === undefined) return { eventBase: 0, prevHash: null };
  try {
    const parsed = parseJsonBytes(previous.bytes);
    if (!isJsonObject(parsed)) throw new Error("not an object");
    const record = recordFromLine(parsed, 0);
    let seq: number | undefined;
    if (isV1Line(parsed)) seq = record.id === null ? undefined : seqFromEventId(record.id);
    else if (record.seq > 0 && parsed.get("seq") !== undefined) seq = record.seq;
    return { eventBase: seq ?? countEvents() - 1, prevHash: record.hash };
  } catch {
    // The line before is no event: the tail cannot link to it, which the scan reports.
    return { eventBase: countEvents() - 1, prevHash: null };
  }
}

/**
 * The verifier's checks of one event at `position` after `prevHash`, with the sealing code's
 * preimages: legacy seq, seal, first prev_hash and link; v1 seal (over the chain's previous
 * hash) and link. True when all pass; a false answer is settled by the verifier itself.
 */
function tailSealAndLinkHold(object: JsonObject, position: number, prevHash: string | null): boolean {
  const record = recordFromLine(object, position);
  if (isV1Line(object)) return sha256Hex(v1Preimage(object, prevHash)) === record.hash && record.prevHash === prevHash;
  const seq = object.get("seq");
  if (!(seq instanceof JsonNumber) || seq.isFloat || seq.lexeme !== String(position)) return false;
  if (sha256Hex(legacyPreimage(object)) !== record.hash) return false;
  return (object.get("prev_hash") ?? null) === prevHash;
}

/**
 * Verifies the tail event as the verifier would at its place in the chain: its seal, its seq
 * (legacy lines) and its link to the line before; refuses with the verifier's own message. The
 * common case (all hold) costs two SHA-256s of one line; any doubt is settled by the verifier's
 * kernel over the tail line, whose verdict and message are the ones `zaxy verify` gives.
 */
function checkTailEvent(fd: number, size: number, tail: TailLine, object: JsonObject, logName: string, countEvents: () => number): void {
  const { eventBase, prevHash } = chainBeforeTail(fd, tail, countEvents);
  if (tailSealAndLinkHold(object, eventBase + 1, prevHash)) return;
  const result = scanRange(fd, tail.start, size, true, { eventBase, lineBase: 0, prevHash });
  const issue = result.errors[0];
  if (issue === undefined) return;
  throw checkError("integrity_failure", `Cannot append to ${logName}: its last event fails verification (${issue.reason})`, {
    hint: "nothing was written; run 'zaxy verify' for the full report",
  });
}
