/**
 * A store verification worker: reads one seq range of a store's thread on this worker's own
 * connection and verifies it (src/store/storeRangeScan.ts; the parallel read in
 * src/store/parallelVerify.ts). Its own entry point, so the log's verification worker
 * (src/eventloom/verifyWorker.ts) never loads the store client.
 * Protocol (structured-clone messages):
 *   in:  {kind: "verifyStoreRange", target, thread, afterSeq, uptoSeq, loginTimeoutMs, timeoutMs}
 *   out: {kind: "progress", rows}*, {kind: "done", range}
 *   out on any failure: {kind: "error", message[, code][, timeoutMs]}
 */
import { workerScope } from "../platform/workerScope.ts";
import { type StoreRangeRequest, verifyStoreRange } from "./storeRangeScan.ts";

const scope = workerScope();

scope.onmessage = (event: MessageEvent) => {
  const message = event.data as { kind: "verifyStoreRange" } & StoreRangeRequest;
  verifyStoreRange(message, (rows) => scope.postMessage({ kind: "progress", rows })).then(
    (range) => scope.postMessage({ kind: "done", range }),
    (error: Error & { code?: unknown; timeoutMs?: unknown }) =>
      scope.postMessage({ kind: "error", message: error?.message ?? String(error), code: typeof error?.code === "string" ? error.code : undefined, timeoutMs: typeof error?.timeoutMs === "number" ? error.timeoutMs : undefined }),
  );
};
