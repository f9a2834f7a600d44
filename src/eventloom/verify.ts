/**
 * Streaming chain verification (DESIGN §2.4). The log is read in chunks straight into the
 * WebAssembly kernel's memory; the kernel parses each line and writes its hash preimage, the
 * host hashes preimages with native SHA-256, and memory stays bounded whatever the log size.
 *
 * Verdicts and messages match `python3 shared/tools/ref_verify.py` (first failure wins):
 *   legacy: seq, then seal, then first prev_hash, then the link;  v1: seal, then the link.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import { CanonicalKernel, kernelErrors, recordBytes } from "../canonical/wasmKernel.ts";
import { parseJsonBytes, pythonStr } from "../canonical/mod.ts";
import { inputError, ioError } from "../errors.ts";
import { invariant } from "../invariant.ts";
import { lineBytesMax, lockWaitMs, verifyChunkBytes } from "../limits.ts";
import { lockFile, requestGarbageCollection, sha256Into, openRegularFile } from "../platform/mod.ts";
import { type InterruptedAppend, inspectInterruptedAppend } from "./intent.ts";

export type IntegrityCode =
  | "sequence_mismatch"
  | "hash_mismatch"
  | "first_prev_hash_set"
  | "prev_hash_mismatch"
  | "invalid_json"
  | "torn_tail"
  /** A shared store's rows disagree with their seqs or with the thread's head row (docs/store.md). */
  | "store_mismatch";

export interface IntegrityIssue {
  code: IntegrityCode;
  seq: number;
  /** Physical 1-based line number in the file. */
  line: number;
  reason: string;
}

export interface IntegrityReport {
  ok: boolean;
  total_events: number;
  broken_at_seq: number | null;
  broken_reason: string | null;
  /** Fixed code of the first failure, null when ok. */
  code: IntegrityCode | null;
  /** Line of the first failure, null when ok. */
  line: number | null;
  /** True when the last line was cut mid-write (no newline, not valid JSON). */
  torn_tail: boolean;
  /** Every failure (only with `allErrors`; otherwise just the first). */
  errors: IntegrityIssue[];
  /** Bytes verified: the whole file, or the part before an interrupted append's uncommitted bytes. */
  bytes: number;
  /**
   * Set when an append died and left its intent: a `partial` batch is not committed, so the
   * verdict covers only the log before it (the next append or `zaxy repair` rolls it back).
   */
  interrupted_append?: InterruptedAppend;
}

export interface VerifyOptions {
  /** Keep going after the first failure and list every one. */
  allErrors?: boolean;
  /** Called after each chunk with bytes processed so far and the file size. */
  onProgress?: (bytesDone: number, bytesTotal: number) => void;
  /** Take a shared flock while reading (default true), so a concurrent append is never half-seen. */
  lock?: boolean;
  chunkBytes?: number;
  /** Worker threads (default: one per core for logs of 64 MiB or more, else 1). */
  threads?: number;
}

function foundSeq(lineBytes: Uint8Array): string {
  try {
    const parsed = parseJsonBytes(lineBytes);
    // ref_verify.py's f-string prints the seq it found with Python's `str`; a missing one is None.
    const seq = parsed instanceof Map ? parsed.get("seq") : undefined;
    return seq === undefined ? "None" : pythonStr(seq);
  } catch {
    return "None";
  }
}

const invalidLineReasons: Record<number, string> = {
  [kernelErrors.syntax]: "is not valid JSON",
  [kernelErrors.utf8]: "is not valid JSON (invalid UTF-8)",
  [kernelErrors.depth]: "is not valid JSON (nested deeper than 1000 levels)",
  [kernelErrors.notObject]: "is not valid JSON (not an event object)",
};

/** Where a range starts in the chain: what precedes it. */
export interface ChainStart {
  /** Events before the range. */
  eventBase: number;
  /** Physical lines before the range. */
  lineBase: number;
  /** Stored hash (64 hex) of the last event before the range, or null. */
  prevHash: string | null;
}

export interface RangeResult {
  errors: IntegrityIssue[];
  /** Last event number seen (absolute). */
  lastEvent: number;
  /** Last physical line number seen (counting from the chain's lineBase). */
  lastLine: number;
  tornTail: boolean;
}

export interface RangeOptions {
  allErrors?: boolean;
  chunkBytes?: number;
  onProgress?: (bytesDone: number) => void;
}

const hexPattern = /^[0-9a-f]{64}$/;

/** Reads up to `length` bytes at `position` into `target` at `offset`; returns how many (0 at the end). */
export type ReadAt = (target: Uint8Array, offset: number, length: number, position: number) => number;

/**
 * Verifies the lines in [start, end) of an open log, given what precedes them. `isLast` says the
 * range ends at EOF (so an unterminated last line is a torn tail).
 */
export function scanRange(fd: number, start: number, end: number, isLast: boolean, chain: ChainStart, options: RangeOptions = {}): RangeResult {
  return scanFrom((target, offset, length, position) => fs.readSync(fd, target, offset, length, position), start, end, isLast, chain, options);
}

/**
 * `scanRange` over line-aligned bytes in memory (lines fetched from a store): the same checks,
 * with no file in between.
 */
export function scanBytes(bytes: Uint8Array, chain: ChainStart, options: RangeOptions = {}): RangeResult {
  return scanFrom((target, offset, length, position) => {
    const n = Math.max(0, Math.min(length, bytes.length - position));
    target.set(bytes.subarray(position, position + n), offset);
    return n;
  }, 0, bytes.length, false, chain, options);
}

/**
 * The verification kernel this thread last used, kept for the next range of the same chunk size:
 * a store's rows arrive as many ranges of a few MiB, and a fresh kernel per range meant ~15 MiB
 * of new linear memory to fault in each time (on 200k events, more CPU than fetching the rows).
 * Only a kernel that did not grow is kept; one range uses it at a time.
 */
let spareKernel: { chunkBytes: number; kernel: CanonicalKernel } | undefined;

function verifyKernel(chunkBytes: number): CanonicalKernel {
  const spare = spareKernel;
  spareKernel = undefined;
  if (spare !== undefined && spare.chunkBytes === chunkBytes) return spare.kernel;
  return new CanonicalKernel(chunkBytes, 2 * chunkBytes + 65536, 16384, 1 << 18);
}

function releaseKernel(chunkBytes: number, kernel: CanonicalKernel): void {
  const { inputCap, outCap, recCap, tapeCap } = kernel.layout;
  if (inputCap === chunkBytes && outCap === 2 * chunkBytes + 65536 && recCap === 16384 && tapeCap === 1 << 18) spareKernel = { chunkBytes, kernel };
}

function scanFrom(readAt: ReadAt, start: number, end: number, isLast: boolean, chain: ChainStart, options: RangeOptions): RangeResult {
  const chunkBytes = Math.min(options.chunkBytes ?? verifyChunkBytes, Math.max(65536, end - start));
  const kernel = verifyKernel(chunkBytes);
  try {
    return scanWith(kernel, readAt, start, end, isLast, chain, options, chunkBytes);
  } finally {
    releaseKernel(chunkBytes, kernel);
  }
}

/** Tells the kernel what precedes the range: the events and lines before it, and the last hash. */
function seedChain(kernel: CanonicalKernel, chain: ChainStart): void {
  kernel.exports.resetChain();
  if (chain.eventBase > 0) {
    const valid = chain.prevHash !== null && hexPattern.test(chain.prevHash);
    if (valid) new TextEncoder().encodeInto(chain.prevHash as string, kernel.memory.subarray(kernel.scratchPtr, kernel.scratchPtr + 64));
    kernel.exports.setChain(chain.eventBase, chain.lineBase, valid ? 1 : 0);
  } else if (chain.lineBase > 0) {
    kernel.exports.setChain(0, chain.lineBase, 0);
  }
}

/** Where a range scan is in its input, shared by its stages. */
interface ScanCursor {
  /** The next byte position to read. */
  position: number;
  /** Bytes at the start of the kernel's input buffer not yet consumed. */
  pending: number;
  /** Nothing is left to read in the range. */
  eof: boolean;
  /** A failure ends the scan (the first one, unless `allErrors`). */
  stop: boolean;
}

/** What one range scan reports failures through, and the reusable buffers of its hashing. */
interface ScanSink {
  result: RangeResult;
  fail: (issue: IntegrityIssue) => void;
  digest: Uint8Array;
  digestWords: Int32Array;
}

/**
 * Reads the next bytes of the range after the pending ones, growing the input buffer when one
 * line fills it. False when a line is longer than `lineBytesMax` (reported through `sink`).
 */
function readMore(kernel: CanonicalKernel, readAt: ReadAt, end: number, cursor: ScanCursor, sink: ScanSink): boolean {
  let space = kernel.layout.inputCap - cursor.pending;
  if (space === 0) {
    // One line longer than the buffer: grow, up to the line limit.
    if (kernel.layout.inputCap >= lineBytesMax) {
      sink.fail({ code: "invalid_json", seq: sink.result.lastEvent + 1, line: 0, reason: `a line is longer than ${lineBytesMax} bytes` });
      return false;
    }
    kernel.ensureInput(Math.min(kernel.layout.inputCap * 2, lineBytesMax), cursor.pending);
    if (kernel.layout.outCap < 2 * kernel.layout.inputCap) {
      kernel.relayout({ ...kernel.layout, outCap: 2 * kernel.layout.inputCap + 65536 }, cursor.pending);
    }
    space = kernel.layout.inputCap - cursor.pending;
  }
  const want = Math.min(space, end - cursor.position);
  const read = want > 0 ? readAt(kernel.memory, kernel.layout.inputPtr + cursor.pending, want, cursor.position) : 0;
  cursor.position += read;
  if (read === 0 || cursor.position >= end) cursor.eof = read === 0 || cursor.position >= end;
  cursor.pending += read;
  return true;
}

/**
 * The verdict on one kernel record at word `base` of `ints`, in ref_verify's order; null when
 * the event verifies. `lineStart` is where the record's line offsets count from in `memory`.
 */
function recordIssue(memory: Uint8Array, ints: Int32Array, base: number, lineStart: number, outPtr: number, atTail: boolean, sink: ScanSink): IntegrityIssue | null {
  const kind = ints[base];
  const line = ints[base + 1];
  const seq = ints[base + 2];
  if (kind < 0) {
    const terminated = ints[base + 12] === 1;
    const torn = !terminated && atTail;
    return {
      code: torn ? "torn_tail" : "invalid_json",
      seq,
      line,
      reason: torn
        ? `line ${line} is not valid JSON (torn tail: the last line was cut mid-write)`
        : `line ${line} ${invalidLineReasons[kind] ?? "is not valid JSON"}`,
    };
  }
  if (ints[base + 7] !== 1) {
    const found = foundSeq(memory.subarray(lineStart + ints[base + 3], lineStart + ints[base + 4]));
    return { code: "sequence_mismatch", seq, line, reason: `Event sequence expected ${seq} but found ${found}` };
  }
  let sealOk = false;
  if (ints[base + 8] === 1) {
    const { digest, digestWords } = sink;
    sha256Into(memory.subarray(outPtr + ints[base + 5], outPtr + ints[base + 6]), digest);
    // The stored hash sits at byte 64 of the record (16 words in), compared as 8 words.
    const stored = base + 16;
    sealOk =
      digestWords[0] === ints[stored] && digestWords[1] === ints[stored + 1] &&
      digestWords[2] === ints[stored + 2] && digestWords[3] === ints[stored + 3] &&
      digestWords[4] === ints[stored + 4] && digestWords[5] === ints[stored + 5] &&
      digestWords[6] === ints[stored + 6] && digestWords[7] === ints[stored + 7];
  }
  if (!sealOk) return { code: "hash_mismatch", seq, line, reason: `Event ${seq} hash mismatch` };
  if (ints[base + 9] !== 1) return { code: "first_prev_hash_set", seq, line, reason: "First event has prev_hash set" };
  if (ints[base + 10] !== 1) return { code: "prev_hash_mismatch", seq, line, reason: `Event ${seq} prev_hash does not link to previous` };
  return null;
}

/**
 * Runs the kernel over the pending input and checks every record it returns, until the input is
 * consumed (or a failure stops the scan). Returns the bytes consumed: complete lines only.
 */
function verifyPending(kernel: CanonicalKernel, cursor: ScanCursor, isLast: boolean, sink: ScanSink): number {
  let offset = 0;
  for (;;) {
    const { inputPtr, outPtr, outCap, recPtr, recCap } = kernel.layout;
    const count = kernel.exports.verifyChunk(inputPtr + offset, cursor.pending - offset, cursor.eof ? 1 : 0, outPtr, outCap, recPtr, recCap);
    if (count === kernelErrors.tapeFull || count === kernelErrors.outFull) {
      kernel.grow(count, cursor.pending);
      continue;
    }
    const memory = kernel.memory;
    const ints = new Int32Array(memory.buffer, recPtr, (count * recordBytes) >> 2);
    const atTail = cursor.eof && isLast;
    for (let r = 0; r < count && !cursor.stop; r++) {
      const base = (r * recordBytes) >> 2;
      sink.result.lastEvent = ints[base + 2];
      const issue = recordIssue(memory, ints, base, inputPtr + offset, outPtr, atTail, sink);
      if (issue === null) continue;
      if (issue.code === "torn_tail") sink.result.tornTail = true;
      sink.fail(issue);
    }
    const consumed = kernel.exports.consumed();
    offset += consumed;
    if (cursor.stop || offset >= cursor.pending || (count === 0 && consumed === 0)) break;
  }
  return offset;
}

function scanWith(kernel: CanonicalKernel, readAt: ReadAt, start: number, end: number, isLast: boolean, chain: ChainStart, options: RangeOptions, chunkBytes: number): RangeResult {
  seedChain(kernel, chain);
  const result: RangeResult = { errors: [], lastEvent: chain.eventBase, lastLine: chain.lineBase, tornTail: false };
  const cursor: ScanCursor = { position: start, pending: 0, eof: false, stop: false };
  const digest = new Uint8Array(32);
  const sink: ScanSink = {
    result,
    fail: (issue) => {
      result.errors.push(issue);
      if (!options.allErrors) cursor.stop = true;
    },
    digest,
    digestWords: new Int32Array(digest.buffer),
  };
  let chunksSinceCollection = 0;
  const collectEveryChunks = Math.max(1, Math.round((32 << 20) / chunkBytes));
  while (!cursor.stop) {
    if (!cursor.eof && !readMore(kernel, readAt, end, cursor, sink)) break;
    const offset = verifyPending(kernel, cursor, isLast, sink);
    // The unconsumed rest (a partial line) moves to the buffer's start below.
    invariant(offset <= cursor.pending, "the kernel consumed more bytes than were pending");
    result.lastLine = kernel.exports.lines();
    options.onProgress?.(cursor.position - start - (cursor.pending - offset));
    // Hashing allocates one small view per event; collect them every ~32 MiB of input.
    if (++chunksSinceCollection >= collectEveryChunks) {
      chunksSinceCollection = 0;
      requestGarbageCollection();
    }
    if (cursor.stop) break;
    if (offset > 0 && offset < cursor.pending) kernel.memory.copyWithin(kernel.layout.inputPtr, kernel.layout.inputPtr + offset, kernel.layout.inputPtr + cursor.pending);
    cursor.pending -= offset;
    if (cursor.eof && (cursor.pending === 0 || offset === 0)) break;
  }
  return result;
}

export interface RangeCount {
  events: number;
  newlines: number;
}

/** Counts events and physical lines in [start, end) (which starts at a line start). */
export function countRange(fd: number, start: number, end: number): RangeCount {
  const chunkBytes = 1 << 20;
  const kernel = new CanonicalKernel(chunkBytes, 65536, 16, 1024);
  let events = 0;
  let newlines = 0;
  let carry = 0;
  for (let position = start; position < end; ) {
    let read = fs.readSync(fd, kernel.memory, kernel.layout.inputPtr, Math.min(chunkBytes, end - position), position);
    if (read === 0) break;
    // Count whole lines per call, so a multi-byte whitespace character never straddles calls.
    if (position + read < end) {
      const lastNewline = kernel.memory.subarray(kernel.layout.inputPtr, kernel.layout.inputPtr + read).lastIndexOf(0x0a);
      if (lastNewline >= 0) read = lastNewline + 1;
    }
    events += kernel.exports.countEvents(kernel.layout.inputPtr, read, carry);
    newlines += kernel.exports.newlineCount();
    carry = kernel.exports.openLineNonBlank();
    position += read;
  }
  // A final line without a newline is an event too.
  if (carry === 1) events++;
  return { events, newlines };
}

function emptyReport(bytes: number): IntegrityReport {
  return {
    ok: true,
    total_events: 0,
    broken_at_seq: null,
    broken_reason: null,
    code: null,
    line: null,
    torn_tail: false,
    errors: [],
    bytes,
  };
}

/** Folds range results, in file order, into one report (the first failure wins). */
export function mergeRanges(bytes: number, ranges: RangeResult[], allErrors: boolean): IntegrityReport {
  const report = emptyReport(bytes);
  for (const range of ranges) {
    report.total_events = range.lastEvent;
    report.torn_tail ||= range.tornTail;
    for (const issue of range.errors) {
      if (report.ok) {
        report.ok = false;
        report.broken_at_seq = issue.seq;
        report.broken_reason = issue.reason;
        report.code = issue.code;
        report.line = issue.line;
      }
      report.errors.push(issue);
    }
    if (!report.ok && !allErrors) break;
  }
  return report;
}

/**
 * Verifies the hash chain of one log file. Large logs are split at line boundaries and verified
 * by one worker per core; the result is identical to a sequential pass.
 *
 * @example
 * const report = await verifyLog(".eventloom/default.jsonl");
 * if (!report.ok) console.error(report.broken_reason); // "Event 3 hash mismatch"
 */
export async function verifyLog(path: string, options: VerifyOptions = {}): Promise<IntegrityReport> {
  // A FIFO or a device would block the lock's open or never end: refuse it unread.
  const probe = openRegularFile(path);
  if (!probe.ok) throw inputError("unreadable_log", `Cannot verify ${path}: ${probe.reason}`, { field: "LOG", expected: "a regular file" });
  fs.closeSync(probe.fd);
  let lock: { release(): void } | undefined;
  if (options.lock !== false) {
    try {
      lock = await lockFile(path, "shared", lockWaitMs);
    } catch (error) {
      throw ioError("lock_failed", `Cannot verify ${path}: ${(error as Error).message}`);
    }
  }
  // Opened again under the lock: the file verified is the one locked, and its size is read there.
  const opened = openRegularFile(path);
  if (!opened.ok) {
    lock?.release();
    throw inputError("unreadable_log", `Cannot verify ${path}: ${opened.reason}`, { field: "LOG", expected: "a regular file" });
  }
  const fd = opened.fd;
  const size = opened.sizeBytes;
  try {
    // Under the lock no append is in flight, so an intent belongs to one that died; the bytes
    // of a partial batch are not committed and are left out of the verdict.
    const interrupted = inspectInterruptedAppend(fd, path, size);
    const committed = interrupted?.state === "partial" ? (interrupted.log_bytes_before as number) : size;
    const withInterrupted = (report: IntegrityReport): IntegrityReport => (interrupted === undefined ? report : { ...report, interrupted_append: interrupted });
    const threads = verifyThreads(committed, options.threads);
    if (threads > 1) {
      const { verifyInParallel } = await import("./verifyParallel.ts");
      const ranges = await verifyInParallel(path, fd, committed, threads, options);
      if (ranges !== undefined) return withInterrupted(mergeRanges(committed, ranges, options.allErrors === true));
    }
    const range = scanRange(fd, 0, committed, true, { eventBase: 0, lineBase: 0, prevHash: null }, {
      allErrors: options.allErrors,
      chunkBytes: options.chunkBytes,
      onProgress: (done) => options.onProgress?.(done, committed),
    });
    return withInterrupted(mergeRanges(committed, [range], options.allErrors === true));
  } finally {
    fs.closeSync(fd);
    lock?.release();
  }
}

/** Logs smaller than this are verified on one thread: starting workers would cost more. */
export const parallelVerifyMinBytes = 64 * 1024 * 1024;

function verifyThreads(size: number, requested: number | undefined): number {
  if (requested !== undefined) return Math.max(1, Math.floor(requested));
  // ZAXY_VERIFY_THREADS forces a thread count (tests use it to exercise the parallel path).
  const fromEnv = Number(process.env.ZAXY_VERIFY_THREADS);
  if (Number.isInteger(fromEnv) && fromEnv >= 1) return fromEnv;
  if (size < parallelVerifyMinBytes) return 1;
  return verifyWorkersMax();
}

/** Workers a large verification uses: one per core, at most 8 (a file's, or a store thread's). */
export function verifyWorkersMax(): number {
  return Math.max(1, Math.min(os.availableParallelism?.() ?? os.cpus().length, 8));
}
