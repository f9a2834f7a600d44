/**
 * An audit pass-one worker (auditPassOne.ts): reads one line-aligned range of a log into a part
 * (every event's facts in order and its rows) and sends it back, its buffers transferred.
 * Runs the same `readRangeEvents` code as the single-threaded path. One token cache per worker,
 * kept across ranges.
 * Protocol (structured-clone messages):
 *   in:  {kind: "read", path, start, end, dim}     out: {kind: "done", part}
 * A part's positions count from the range's first event: the main thread, merging the parts in
 * log order, knows how many events precede it.
 *   out on any failure: {kind: "error", message}
 */
import * as fs from "node:fs";
import { collectGarbageNow } from "../platform/mod.ts";
import { workerScope } from "../platform/workerScope.ts";
import { type AuditRangePart, readRangeEvents } from "./auditPassOne.ts";
import { AuditVectors } from "./auditVectors.ts";

const scope = workerScope();
let vectors: AuditVectors | undefined;

scope.onmessage = (event: MessageEvent) => {
  const message = event.data as { kind: "read"; path: string; start: number; end: number; dim: number };
  try {
    if (vectors === undefined || vectors.dim !== message.dim) vectors = new AuditVectors(message.dim);
    const fd = fs.openSync(message.path, "r");
    try {
      const events = readRangeEvents(fd, { start: message.start, end: message.end }, vectors);
      const part: AuditRangePart = { ...events, rows: vectors.takeRows() };
      const transfer: ArrayBuffer[] = [...part.rows.chunks, part.rows.addresses.buffer as ArrayBuffer, part.rows.norms.buffer as ArrayBuffer, part.rows.bands.buffer as ArrayBuffer, part.seqs.buffer as ArrayBuffer, part.seqIsPosition.buffer as ArrayBuffer, part.windows.buffer as ArrayBuffer, part.cited.buffer as ArrayBuffer, part.threadIndex.buffer as ArrayBuffer, part.contentStart.buffer as ArrayBuffer];
      scope.postMessage({ kind: "done", part }, transfer);
    } finally {
      fs.closeSync(fd);
    }
    // A worker's heap adds to the audit's peak while the facts and rows grow on the main
    // thread: what the range's parsing left is freed before the next range.
    collectGarbageNow();
  } catch (error) {
    scope.postMessage({ kind: "error", message: error instanceof Error ? error.message : String(error) });
  }
};
