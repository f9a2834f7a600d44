/**
 * Parallel verification of one large log: split at line boundaries into one range per worker;
 * each worker counts its range's events (a fast SIMD pass), which gives every range its absolute
 * event and line numbers; then each verifies its range. Links across a split are checked
 * because each range starts from the stored hash of the event before it. Failures are merged
 * in file order, so the report equals the sequential one.
 */
import * as fs from "node:fs";
import { isJsonObject, parseJsonBytes } from "../canonical/mod.ts";
import { recordFromLine } from "./envelope.ts";
import { workerSpecifier } from "../platform/process.ts";
import { readTailLine } from "./tail.ts";
import type { ChainStart, RangeCount, RangeResult, VerifyOptions } from "./verify.ts";

const splitSearchBytes = 1 << 20;

/** Range starts: 0 and, for each later split, the byte after the next newline. */
function splitPoints(fd: number, size: number, parts: number): number[] {
  const starts = [0];
  const buffer = new Uint8Array(splitSearchBytes);
  for (let k = 1; k < parts; k++) {
    const target = Math.floor((size * k) / parts);
    if (target <= starts[starts.length - 1]) continue;
    const read = fs.readSync(fd, buffer, 0, Math.min(buffer.length, size - target), target);
    const newline = buffer.subarray(0, read).indexOf(0x0a);
    if (newline < 0) continue;
    const start = target + newline + 1;
    if (start < size && start > starts[starts.length - 1]) starts.push(start);
  }
  return starts;
}

/** The stored hash of the last event before `offset`, read from the tail of [0, offset). */
function storedHashBefore(fd: number, offset: number): string | null {
  const tail = readTailLine(fd, offset);
  if (tail === undefined) return null;
  try {
    const parsed = parseJsonBytes(tail.bytes);
    return isJsonObject(parsed) ? recordFromLine(parsed, 0).hash : null;
  } catch {
    return null;
  }
}

function request<T>(worker: Worker, message: unknown, onProgress?: (bytes: number) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    worker.onmessage = (event: MessageEvent) => {
      const data = event.data as { kind: string; message?: string; bytes?: number };
      if (data.kind === "progress") onProgress?.(data.bytes ?? 0);
      else if (data.kind === "error") reject(new Error(`verify worker failed: ${data.message}`));
      else resolve(data as T);
    };
    worker.onerror = (event: Event) => reject(new Error(`verify worker failed: ${(event as ErrorEvent).message ?? "unknown error"}`));
    worker.postMessage(message);
  });
}

/**
 * Verifies `path` with `threads` workers. Returns the range results in file order, or undefined
 * when the log cannot be split (e.g. one huge line), so the caller verifies it sequentially.
 */
export async function verifyInParallel(
  path: string,
  fd: number,
  size: number,
  threads: number,
  options: VerifyOptions,
): Promise<RangeResult[] | undefined> {
  const starts = splitPoints(fd, size, threads);
  if (starts.length < 2) return undefined;
  const ranges = starts.map((start, i) => ({ start, end: i + 1 < starts.length ? starts[i + 1] : size }));
  const specifier = workerSpecifier(new URL("./verifyWorker.ts", import.meta.url), "eventloom/verifyWorker.ts");
  const workers = ranges.map(() => new Worker(specifier, { type: "module" }));
  try {
    const counts = await Promise.all(
      ranges.map((range, i) => request<RangeCount>(workers[i], { kind: "count", path, ...range })),
    );
    const progress = ranges.map(() => 0);
    const report = () => options.onProgress?.(progress.reduce((a, b) => a + b, 0), size);
    let eventBase = 0;
    let lineBase = 0;
    const chains: ChainStart[] = ranges.map((range, i) => {
      const chain = { eventBase, lineBase, prevHash: i === 0 ? null : storedHashBefore(fd, range.start) };
      eventBase += counts[i].events;
      lineBase += counts[i].newlines;
      return chain;
    });
    const results = await Promise.all(
      ranges.map((_, i) =>
        request<{ result: RangeResult }>(
          workers[i],
          { kind: "verify", chain: chains[i], isLast: i === ranges.length - 1, allErrors: options.allErrors === true },
          (bytes) => {
            progress[i] = bytes;
            report();
          },
        ),
      ),
    );
    return results.map((r) => r.result);
  } finally {
    for (const worker of workers) worker.terminate();
  }
}
