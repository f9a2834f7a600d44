/**
 * The keys an append checks for duplicates, per session log: the top-level event `id` of each
 * line (producer-supplied ids must be unique) and each payload's `__zaxy_producer_ref` (ingest
 * skips a ref the log already holds). An append used to read the whole log for them; a Root
 * (rootHandle.ts) keeps one index per session instead, built by one read of the log and brought
 * up to date under the append's exclusive lock by reading only the bytes added since.
 *
 * What must never change: a duplicate is refused (or skipped) exactly as a full read of the log
 * would. So before each use the index checks that the file is the one it read (device and
 * inode), no shorter than what it covered, and still holds, byte for byte, the last line it
 * read; that line carries the head's hash, which seals everything before it. Anything else (a
 * rewrite by `compact`, a truncation by `repair`, a file replaced) rebuilds the index from the
 * start. Bytes another process appended since are read and indexed before the check.
 */
import * as fs from "node:fs";
import { isJsonObject, parseJsonBytes } from "../canonical/mod.ts";
import { readRangeLines } from "./lines.ts";
import { readTailLine } from "./tail.ts";

const utf8 = new TextEncoder();
const producerRefKey = "__zaxy_producer_ref";
const producerRefNeedle = utf8.encode(producerRefKey);
const v1LinePrefix = utf8.encode('{"id":"');
const idKeyBytes = utf8.encode('"id"');
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** Whether `needle` occurs in `haystack`. */
function containsBytes(haystack: Uint8Array, needle: Uint8Array): boolean {
  const first = needle[0];
  let i = haystack.indexOf(first);
  while (i >= 0 && i + needle.length <= haystack.length) {
    let match = true;
    for (let j = 1; j < needle.length; j++) {
      if (haystack[i + j] !== needle[j]) {
        match = false;
        break;
      }
    }
    if (match) return true;
    i = haystack.indexOf(first, i + 1);
  }
  return false;
}

/** The top-level `id` of a v1 line written by zaxy or Python, read without parsing; else undefined. */
function leadingEventId(bytes: Uint8Array): string | undefined {
  if (bytes.length > v1LinePrefix.length && v1LinePrefix.every((b, i) => bytes[i] === b)) {
    const end = bytes.indexOf(0x22, v1LinePrefix.length);
    const escaped = bytes.subarray(v1LinePrefix.length, end < 0 ? bytes.length : end).includes(0x5c);
    if (end > 0 && !escaped) {
      try {
        return strictUtf8.decode(bytes.subarray(v1LinePrefix.length, end));
      } catch {
        // Fall through to a full parse, which decides.
      }
    }
  }
  return undefined;
}

/**
 * The keys of one log line: its top-level string `id` and its payload's string producer ref.
 * A line is parsed (once) only when its bytes show it may carry a key the fast path did not
 * read; a line that does not parse has no keys (verification reports it).
 */
export function loggedKeys(bytes: Uint8Array): { id?: string; producerRef?: string } {
  const leadingId = leadingEventId(bytes);
  const mayHaveRef = containsBytes(bytes, producerRefNeedle);
  if (!mayHaveRef && (leadingId !== undefined || !containsBytes(bytes, idKeyBytes))) return { id: leadingId };
  let parsed;
  try {
    parsed = parseJsonBytes(bytes);
  } catch {
    return { id: leadingId };
  }
  if (!isJsonObject(parsed)) return { id: leadingId };
  const id = parsed.get("id");
  const payload = parsed.get("payload");
  const ref = mayHaveRef && isJsonObject(payload) ? payload.get(producerRefKey) : undefined;
  return { id: leadingId ?? (typeof id === "string" ? id : undefined), producerRef: typeof ref === "string" ? ref : undefined };
}

/**
 * One session log's event ids (with the positions holding them) and producer refs, as of its
 * first `coveredBytes` bytes.
 *
 * @example
 * const index = new LogKeyIndex();
 * index.catchUp(fd, fs.fstatSync(fd).size); // under the log's lock
 * index.positionsOfId("evt_1"); // [4] when event 4 has that id
 */
export class LogKeyIndex {
  /** The first event holding each id; `#laterPositionsById` the rare later ones (a log from elsewhere). */
  #positionById = new Map<string, number>();
  #laterPositionsById = new Map<string, number[]>();
  #producerRefs = new Set<string>();
  #eventCount = 0;
  #coveredBytes = 0;
  #fileId: string | undefined;
  /** The last non-blank line read: the head the index is checked against. */
  #lastLine: Uint8Array | undefined;
  /** How many times the index was read from the start (for tests and benchmarks). */
  rebuildCount = 0;

  /** Events (non-blank lines) in the covered bytes. */
  get eventCount(): number {
    return this.#eventCount;
  }

  get coveredBytes(): number {
    return this.#coveredBytes;
  }

  /** The positions (1-based) of the events whose top-level id is `id`, in log order. */
  positionsOfId(id: string): readonly number[] {
    const first = this.#positionById.get(id);
    if (first === undefined) return [];
    return [first, ...(this.#laterPositionsById.get(id) ?? [])];
  }

  hasProducerRef(ref: string): boolean {
    return this.#producerRefs.has(ref);
  }

  /**
   * Brings the index to bytes [0, size) of the log open as `fd`. Call it with the log locked,
   * so no writer moves the end while it reads. Rebuilds from the start when the file is not the
   * one indexed or its indexed part changed.
   */
  catchUp(fd: number, size: number): void {
    const stat = fs.fstatSync(fd);
    const fileId = `${stat.dev}:${stat.ino}`;
    if (fileId !== this.#fileId || size < this.#coveredBytes || !this.#headHolds(fd)) this.#reset(fileId);
    if (size > this.#coveredBytes) this.#read(fd, this.#coveredBytes, size);
  }

  /** Whether the covered bytes still end with the last line the index read. */
  #headHolds(fd: number): boolean {
    const last = this.#lastLine;
    if (last === undefined) return this.#coveredBytes === 0 || readTailLine(fd, this.#coveredBytes) === undefined;
    const tail = readTailLine(fd, this.#coveredBytes);
    return tail !== undefined && tail.bytes.length === last.length && tail.bytes.every((b, i) => b === last[i]);
  }

  #reset(fileId: string): void {
    this.#positionById = new Map();
    this.#laterPositionsById = new Map();
    this.#producerRefs = new Set();
    this.#eventCount = 0;
    this.#coveredBytes = 0;
    this.#lastLine = undefined;
    this.#fileId = fileId;
    this.rebuildCount++;
  }

  #read(fd: number, start: number, end: number): void {
    let read = false;
    for (const { bytes } of readRangeLines(fd, start, end)) {
      const position = ++this.#eventCount;
      const { id, producerRef } = loggedKeys(bytes);
      if (id !== undefined) {
        if (!this.#positionById.has(id)) this.#positionById.set(id, position);
        else this.#laterPositionsById.set(id, [...(this.#laterPositionsById.get(id) ?? []), position]);
      }
      if (producerRef !== undefined) this.#producerRefs.add(producerRef);
      read = true;
    }
    // The reader's views are reused chunk by chunk: the head line is read again, once.
    if (read) this.#lastLine = readTailLine(fd, end)?.bytes;
    this.#coveredBytes = end;
  }
}
