/**
 * One worker's share of a parallel `verify --store` (src/store/parallelVerify.ts): reads the rows
 * `afterSeq < seq <= uptoSeq` of a thread on a connection of its own, with row `afterSeq` (the
 * boundary, when there is one) first, and verifies them chunk by chunk as they arrive, the
 * chain starting from the boundary row's stored hash. The boundary row is verified by the range
 * before; the main thread checks that both read it byte for byte the same.
 */
import { storedEventHash } from "../eventloom/envelope.ts";
import { type RangeResult, scanBytes } from "../eventloom/verify.ts";
import { LineReader, type LineReaderTarget } from "./lineReader.ts";
import { lastLineOf } from "./threadLines.ts";

export interface StoreRangeScan {
  /** Rows read in the range (the boundary row not counted) and their bytes with newlines. */
  rows: number;
  bytes: number;
  /** The verifier's results, chunk by chunk, in order. */
  results: RangeResult[];
  /** The boundary row as read here, and the range's last row (without newlines); null when none. */
  boundaryLine: Uint8Array | null;
  lastLine: Uint8Array | null;
  /** Whether a row was empty (or NULL): the sequential pass names it. */
  emptyRow: boolean;
}

export interface StoreRangeRequest {
  target: LineReaderTarget;
  thread: string;
  afterSeq: number;
  uptoSeq: number;
  /** The deadline for connecting and logging in (the store's query deadline), then for the reading. */
  loginTimeoutMs: number;
  timeoutMs: number;
}

/** Reports rows read so far at most this often (rows). */
const progressRows = 20_000;

export async function verifyStoreRange(request: StoreRangeRequest, onProgress: (rows: number) => void): Promise<StoreRangeScan> {
  const aborter = new AbortController();
  let allowedMs = request.loginTimeoutMs;
  let timer = setTimeout(() => aborter.abort(), allowedMs);
  const scan: StoreRangeScan = { rows: 0, bytes: 0, results: [], boundaryLine: null, lastLine: null, emptyRow: false };
  let reader: LineReader | undefined;
  try {
    reader = await LineReader.connect(request.target, aborter.signal);
    clearTimeout(timer);
    allowedMs = request.timeoutMs;
    timer = setTimeout(() => aborter.abort(), allowedMs);
    let boundaryPending = request.afterSeq > 0;
    let prevHash: string | null = null;
    let reported = 0;
    // The sink verifies synchronously, so the reader's buffer can be filled again at once.
    const spare: ArrayBuffer[] = [];
    await reader.streamLines(request.thread, boundaryPending ? request.afterSeq - 1 : request.afterSeq, request.uptoSeq, (lines, count, emptyRows) => {
      if (emptyRows.length > 0) scan.emptyRow = true;
      let start = 0;
      let rows = count;
      if (boundaryPending) {
        boundaryPending = false;
        const end = lines.indexOf(0x0a);
        scan.boundaryLine = Uint8Array.prototype.slice.call(lines, 0, end);
        prevHash = storedEventHash(lines.subarray(0, end)) ?? null;
        start = end + 1;
        rows--;
      }
      if (rows > 0) {
        const part = lines.subarray(start);
        const base = request.afterSeq + scan.rows;
        scan.results.push(scanBytes(part, { eventBase: base, lineBase: base, prevHash }, {}));
        const last = lastLineOf(lines);
        scan.lastLine = Uint8Array.prototype.slice.call(last);
        prevHash = storedEventHash(last) ?? null;
        scan.rows += rows;
        scan.bytes += part.length;
      }
      spare.push(lines.buffer as ArrayBuffer);
      if (scan.rows - reported >= progressRows) {
        reported = scan.rows;
        onProgress(scan.rows);
      }
    }, (bytes) => {
      const index = spare.findIndex((buffer) => buffer.byteLength >= bytes);
      return index === -1 ? new ArrayBuffer(bytes) : spare.splice(index, 1)[0];
    });
    if (aborter.signal.aborted) throw deadlineError(allowedMs);
    return scan;
  } catch (error) {
    if (aborter.signal.aborted) throw deadlineError(allowedMs);
    throw error;
  } finally {
    clearTimeout(timer);
    reader?.close();
  }
}

/** The deadline passed: the main thread reports it as the store's other reads do (store_timeout). */
function deadlineError(timeoutMs: number): Error {
  return Object.assign(new Error(`did not answer within ${timeoutMs} ms`), { code: "ZAXY_DEADLINE", timeoutMs });
}
