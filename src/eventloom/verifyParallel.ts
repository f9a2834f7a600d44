/**
 * Parallel verification of one large log: split at line boundaries into one range per worker;
 * each range starts from the stored hash of the event before it, so links across a split are
 * checked, and failures are merged in file order, so the report equals the sequential one.
 *
 * Each range needs to know how many events precede it. Logs written by zaxy or Python say so
 * in their first event (a legacy `seq`, or the seq inside a generated v1 id), so workers infer
 * it and start at once; afterwards every inferred base is checked against the event count of
 * the range before it. When a base cannot be inferred, the workers first count the events of
 * their ranges (a fast SIMD pass); when an inferred base turns out wrong (a log with missing or
 * extra events), the caller verifies sequentially.
 */
import * as fs from "node:fs";
import { isJsonObject, parseJsonBytes } from "../canonical/mod.ts";
import { WebWorker, workerSpecifier } from "../platform/process.ts";
import { isBlankLine } from "./blank.ts";
import { isV1Line, recordFromLine, seqFromEventId } from "./envelope.ts";
import { readTailLine } from "./tail.ts";
import type { ChainStart, IntegrityIssue, RangeCount, RangeResult, VerifyOptions } from "./verify.ts";

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
export function storedHashBefore(fd: number, offset: number): string | null {
  const tail = readTailLine(fd, offset);
  if (tail === undefined) return null;
  try {
    const parsed = parseJsonBytes(tail.bytes);
    return isJsonObject(parsed) ? recordFromLine(parsed, 0).hash : null;
  } catch {
    return null;
  }
}

/**
 * The number of events before `start`, as the first event at or after it states it (a legacy
 * `seq`, or the seq of a generated v1 id), or undefined when it does not say.
 */
export function statedEventBase(fd: number, start: number, end: number): number | undefined {
  const buffer = new Uint8Array(64 * 1024);
  let position = start;
  while (position < end) {
    const read = fs.readSync(fd, buffer, 0, Math.min(buffer.length, end - position), position);
    if (read === 0) return undefined;
    const newline = buffer.subarray(0, read).indexOf(0x0a);
    if (newline < 0) return undefined; // a line longer than the probe: count instead
    if (isBlankLine(buffer, 0, newline)) {
      position += newline + 1;
      continue;
    }
    try {
      const parsed = parseJsonBytes(buffer.subarray(0, newline));
      if (!isJsonObject(parsed)) return undefined;
      const seq = isV1Line(parsed) ? seqFromEventId(recordFromLine(parsed, 0).id ?? "") : recordFromLine(parsed, 0).seq;
      return seq !== undefined && Number.isSafeInteger(seq) && seq >= 1 ? seq - 1 : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

type WorkerReply = { kind: "counted" } & RangeCount | { kind: "done"; result: RangeResult; eventBase: number | null };

function request<T extends WorkerReply>(worker: Worker, message: unknown, onProgress?: (bytes: number) => void): Promise<T> {
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

/** Moves an issue found with line numbers counted from 0 to its absolute line. */
function rebaseIssue(issue: IntegrityIssue, lineBase: number): IntegrityIssue {
  if (lineBase === 0) return issue;
  const line = issue.line + lineBase;
  const reason = issue.reason.startsWith(`line ${issue.line} `) ? `line ${line} ${issue.reason.slice(`line ${issue.line} `.length)}` : issue.reason;
  return { ...issue, line, reason };
}

/**
 * Verifies `path` with `threads` workers. Returns the range results in file order, or undefined
 * when the caller should verify sequentially (the log cannot be split, or its events do not
 * number themselves consistently).
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
  const ranges = starts.map((start, i) => ({ start, end: i + 1 < starts.length ? starts[i + 1] : size, isLast: i === starts.length - 1 }));
  const bases = ranges.map((range, i) => (i === 0 ? 0 : statedEventBase(fd, range.start, range.end)));
  const counted = bases.some((base) => base === undefined);
  const specifier = workerSpecifier(new URL("./verifyWorker.ts", import.meta.url), "eventloom/verifyWorker.ts");
  const workers = ranges.map(() => new WebWorker(specifier, { type: "module" }));
  try {
    const progress = ranges.map(() => 0);
    const report = () => options.onProgress?.(progress.reduce((a, b) => a + b, 0), size);
    const chains: ChainStart[] = [];
    if (counted) {
      // Some range does not state its position: count every range's events and lines first.
      const counts = await Promise.all(
        ranges.map((range, i) => request<{ kind: "counted" } & RangeCount>(workers[i], { kind: "count", path, ...range })),
      );
      let eventBase = 0;
      let lineBase = 0;
      ranges.forEach((range, i) => {
        chains.push({ eventBase, lineBase, prevHash: i === 0 ? null : storedHashBefore(fd, range.start) });
        eventBase += counts[i].events;
        lineBase += counts[i].newlines;
      });
    } else {
      ranges.forEach((range, i) => {
        chains.push({ eventBase: bases[i] as number, lineBase: 0, prevHash: i === 0 ? null : storedHashBefore(fd, range.start) });
      });
    }
    const replies = await Promise.all(
      ranges.map((range, i) =>
        request<{ kind: "done"; result: RangeResult; eventBase: number | null }>(
          workers[i],
          { kind: "verify", path, ...range, chain: chains[i], allErrors: options.allErrors === true },
          (bytes) => {
            progress[i] = bytes;
            report();
          },
        ),
      ),
    );
    const results = replies.map((reply) => reply.result);
    if (counted) return results;
    // Check every stated base against the range before it, up to the first failing range
    // (later ranges do not reach the report), and move line numbers to absolute ones.
    let lineBase = 0;
    for (let i = 0; i < results.length; i++) {
      if (i > 0 && chains[i].eventBase !== results[i - 1].lastEvent) return undefined;
      results[i] = { ...results[i], errors: results[i].errors.map((issue) => rebaseIssue(issue, lineBase)) };
      if (results[i].errors.length > 0 && options.allErrors !== true) break;
      lineBase += results[i].lastLine;
    }
    return results;
  } finally {
    for (const worker of workers) worker.terminate();
  }
}
