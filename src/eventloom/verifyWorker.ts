/**
 * A verification worker: counts the events of its range, then, told what precedes the range,
 * verifies it. Runs the same `countRange` / `scanRange` code as the single-threaded path.
 * Protocol (structured-clone messages):
 *   in:  {kind: "count", path, start, end}        out: {kind: "counted", events, newlines}
 *   in:  {kind: "verify", chain, isLast, allErrors} out: {kind: "progress", bytes}*, {kind: "done", result}
 *   out on any failure: {kind: "error", message}
 */
import * as fs from "node:fs";
import { type ChainStart, countRange, scanRange } from "./verify.ts";

interface WorkerScope {
  onmessage: ((event: MessageEvent) => void) | null;
  postMessage(message: unknown): void;
}

const scope = globalThis as unknown as WorkerScope;
let fd = -1;
let rangeStart = 0;
let rangeEnd = 0;

scope.onmessage = (event: MessageEvent) => {
  const message = event.data as
    | { kind: "count"; path: string; start: number; end: number }
    | { kind: "verify"; chain: ChainStart; isLast: boolean; allErrors: boolean };
  try {
    if (message.kind === "count") {
      fd = fs.openSync(message.path, "r");
      rangeStart = message.start;
      rangeEnd = message.end;
      const counted = countRange(fd, rangeStart, rangeEnd);
      scope.postMessage({ kind: "counted", ...counted });
    } else {
      let lastPostedBytes = 0;
      const result = scanRange(fd, rangeStart, rangeEnd, message.isLast, message.chain, {
        allErrors: message.allErrors,
        onProgress: (bytes) => {
          if (bytes - lastPostedBytes >= 32 << 20) {
            lastPostedBytes = bytes;
            scope.postMessage({ kind: "progress", bytes });
          }
        },
      });
      fs.closeSync(fd);
      scope.postMessage({ kind: "done", result });
    }
  } catch (error) {
    scope.postMessage({ kind: "error", message: error instanceof Error ? error.message : String(error) });
  }
};
