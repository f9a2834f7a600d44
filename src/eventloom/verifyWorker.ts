/**
 * A verification worker: verifies one range of a log, given what precedes it; optionally counts
 * the range's events and lines first (when the main thread could not infer its position).
 * Runs the same `countRange` / `scanRange` code as the single-threaded path.
 * Protocol (structured-clone messages):
 *   in:  {kind: "count", path, start, end}                        out: {kind: "counted", events, newlines}
 *   in:  {kind: "verify", path, start, end, isLast, chain, allErrors}
 *                                                                 out: {kind: "progress", bytes}*, {kind: "done", result}
 *   in:  {kind: "verifyBytes", bytes, chain, allErrors}          out: {kind: "done", result, bytes}
 *        (line-aligned bytes fetched from a store, transferred rather than written to a file;
 *        the bytes' buffer is transferred back, for the sender to fill again)
 *   out on any failure: {kind: "error", message}
 * A store's seq ranges have their own worker, src/store/storeVerifyWorker.ts.
 */
import * as fs from "node:fs";
import { workerScope } from "../platform/workerScope.ts";
import { type ChainStart, countRange, scanBytes, scanRange } from "./verify.ts";

const scope = workerScope();
let fd = -1;

function openLog(path: string): number {
  if (fd < 0) fd = fs.openSync(path, "r");
  return fd;
}

scope.onmessage = (event: MessageEvent) => {
  const message = event.data as
    | { kind: "count"; path: string; start: number; end: number }
    | { kind: "verify"; path: string; start: number; end: number; isLast: boolean; chain: ChainStart; allErrors: boolean }
    | { kind: "verifyBytes"; bytes: Uint8Array; chain: ChainStart; allErrors: boolean };
  try {
    if (message.kind === "verifyBytes") {
      const result = scanBytes(message.bytes, message.chain, { allErrors: message.allErrors });
      scope.postMessage({ kind: "done", result, bytes: message.bytes }, [message.bytes.buffer as ArrayBuffer]);
    } else if (message.kind === "count") {
      const counted = countRange(openLog(message.path), message.start, message.end);
      scope.postMessage({ kind: "counted", ...counted });
    } else {
      let lastPostedBytes = 0;
      const result = scanRange(openLog(message.path), message.start, message.end, message.isLast, message.chain, {
        allErrors: message.allErrors,
        onProgress: (bytes) => {
          if (bytes - lastPostedBytes >= 32 << 20) {
            lastPostedBytes = bytes;
            scope.postMessage({ kind: "progress", bytes });
          }
        },
      });
      fs.closeSync(fd);
      fd = -1;
      scope.postMessage({ kind: "done", result });
    }
  } catch (error) {
    scope.postMessage({ kind: "error", message: error instanceof Error ? error.message : String(error) });
  }
};
