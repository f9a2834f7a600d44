/**
 * `verify --store` of a large thread on several connections at once. One connection is bounded
 * by one server process and one receiving thread (about 600 MB/s here), while a file verify
 * spreads over every core: on a machine with more cores the store would fall further behind.
 * So the thread's seqs are split into one range per reader, and each reader, a verifier worker,
 * reads its range on its own connection and verifies it as it arrives (src/store/storeRangeScan.ts).
 *
 * A range starts from its boundary row (the last row of the range before), read by both sides:
 * the chain goes on from the boundary's stored hash, the range before recomputes that hash, and
 * both reads of the boundary must be the same bytes. This is a fast path for an intact thread
 * only: any failure, a missing or empty row, or a boundary that differs gives no verdict here,
 * and the caller verifies the thread in one sequential pass, which names the first failure
 * exactly as it always has.
 */
import { inputError, ioError } from "../errors.ts";
import { storedEventHash } from "../eventloom/envelope.ts";
import { type IntegrityReport, mergeRanges, verifyWorkersMax } from "../eventloom/verify.ts";
import { WebWorker, workerSpecifier } from "../platform/process.ts";
import type { ProgressSink } from "../progress.ts";
import type { StoreClient } from "./storeClient.ts";
import type { StoreRangeScan } from "./storeRangeScan.ts";

/** Threads with fewer events are read on one connection (more would cost more than they save). */
export const parallelEventsMin = 50_000;

/** Cores from which a large thread is read on several connections by default. */
export const parallelCoresMin = 6;

/**
 * Readers for a thread of `events`: one below `parallelEventsMin`; else `ZAXY_STORE_READERS`
 * when set; else, from `parallelCoresMin` cores, one per core up to 8 (as a file verify has
 * workers), and one below. Below that the one connection is not what bounds the run: measured
 * on 2 vCPUs with the server on the same host, two readers cost more CPU in all (two server
 * processes, two logins, each worker receiving and verifying in turn) than they won back. The
 * estimate for more cores: one connection reads ~600 MB/s (one server process, one receiving
 * thread), about what 4 cores verify, so from 6 cores a file verify pulls away from it.
 */
export function storeReaders(events: number, env: Record<string, string | undefined>): number {
  // Checked whatever the thread's size: a bad value is bad input, not silently ignored.
  const raw = env.ZAXY_STORE_READERS;
  const chosen = raw === undefined || raw === "" ? undefined : Number(raw);
  if (chosen !== undefined && (!Number.isSafeInteger(chosen) || chosen < 1 || chosen > 64)) {
    throw inputError("invalid_option", `ZAXY_STORE_READERS must be an integer from 1 to 64 (connections per verify), got ${JSON.stringify(raw)}`, { field: "ZAXY_STORE_READERS" });
  }
  if (events < parallelEventsMin) return 1;
  return chosen ?? (verifyWorkersMax() >= parallelCoresMin ? verifyWorkersMax() : 1);
}

export interface ParallelVerdict {
  report: IntegrityReport;
  rows: number;
  bytes: number;
  /** The stored hash of the last row (for the head row check), null when there is none. */
  lastHash: string | null;
}

/**
 * Verifies events 1..`maxSeq` of `thread` on `readers` connections; resolves with the verdict of
 * an intact thread, or undefined when the caller must verify it sequentially (see above). A
 * connection failure or a deadline rejects as the store's other reads do.
 */
export async function verifyOnReaders(client: StoreClient, thread: string, maxSeq: number, readers: number, progress?: ProgressSink): Promise<ParallelVerdict | undefined> {
  const target = client.readerTarget;
  if (target === undefined || readers < 2) return undefined;
  const action = `read session ${JSON.stringify(thread)} from the store`;
  const bounds = Array.from({ length: readers + 1 }, (_, index) => Math.floor((maxSeq * index) / readers));
  // As for one connection: the query deadline plus 2 ms per event of the range.
  const timeoutMs = client.queryTimeoutMs + 2 * (bounds[1] - bounds[0] + 1);
  const workers: Worker[] = [];
  const rowsRead = new Array<number>(readers).fill(0);
  try {
    const scans = await Promise.all(bounds.slice(0, -1).map((afterSeq, index) =>
      new Promise<StoreRangeScan>((resolve, reject) => {
        const worker = new WebWorker(workerSpecifier(new URL("./storeVerifyWorker.ts", import.meta.url), "store/storeVerifyWorker.ts"), { type: "module" });
        workers.push(worker);
        worker.onmessage = (event: MessageEvent) => {
          const data = event.data as { kind: string; rows?: number; range?: StoreRangeScan; message?: string; code?: string; timeoutMs?: number };
          if (data.kind === "progress") {
            rowsRead[index] = data.rows ?? 0;
            progress?.update(rowsRead.reduce((sum, rows) => sum + rows, 0));
          } else if (data.kind === "done") resolve(data.range as StoreRangeScan);
          else reject(Object.assign(new Error(data.message ?? "the reader failed"), { code: data.code, timeoutMs: data.timeoutMs }));
        };
        worker.onerror = (event: Event) => reject(new Error(`verify worker failed: ${(event as ErrorEvent).message ?? "unknown error"}`));
        worker.postMessage({ kind: "verifyStoreRange", target, thread, afterSeq, uptoSeq: bounds[index + 1], loginTimeoutMs: client.queryTimeoutMs, timeoutMs });
      })
    ));
    for (const [index, scan] of scans.entries()) {
      if (scan.emptyRow || scan.rows !== bounds[index + 1] - bounds[index]) return undefined;
      if (index > 0 && !sameBytes(scan.boundaryLine, scans[index - 1].lastLine)) return undefined;
    }
    const bytes = scans.reduce((sum, scan) => sum + scan.bytes, 0);
    const report = mergeRanges(bytes, scans.flatMap((scan) => scan.results), false);
    const lastLine = scans[scans.length - 1]?.lastLine ?? null;
    return report.ok ? { report, rows: maxSeq, bytes, lastHash: lastLine === null ? null : (storedEventHash(lastLine) ?? null) } : undefined;
  } catch (error) {
    const { code, timeoutMs: allowedMs } = error as { code?: unknown; timeoutMs?: number };
    if (code === "ZAXY_DEADLINE") {
      throw ioError("store_timeout", `Cannot ${action}: the store ${client.url.redacted} did not answer within ${allowedMs ?? timeoutMs} ms (ZAXY_STORE_TIMEOUT_MS); nothing was committed`);
    }
    throw client.mapError(error, action);
  } finally {
    // A reader still running after another failed is stopped with its connection.
    for (const worker of workers) worker.terminate();
  }
}

function sameBytes(a: Uint8Array | null, b: Uint8Array | null): boolean {
  if (a === null || b === null || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
