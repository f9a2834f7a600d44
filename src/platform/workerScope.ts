/**
 * The global scope of a worker, as the worker entry points (src/eventloom/verifyWorker.ts,
 * src/store/storeVerifyWorker.ts, src/projection/graphQueryWorker.ts) use it: receive a message,
 * post one back. The type checker sees the main thread's globals (tsconfig's DOM lib), where
 * `postMessage` has a different signature, so the scope is checked here once at start-up.
 */

/** The part of a worker's global scope the entry points use. */
export interface WorkerScope {
  onmessage: ((event: MessageEvent) => void) | null;
  postMessage(message: unknown, transfer?: Transferable[]): void;
}

function isWorkerScope(scope: object): scope is WorkerScope {
  return "postMessage" in scope && typeof scope.postMessage === "function";
}

/** This thread's worker scope; a module loaded outside a worker is a programming error. */
export function workerScope(): WorkerScope {
  const scope: object = globalThis;
  if (!isWorkerScope(scope)) throw new Error("a worker entry point was loaded outside a worker");
  return scope;
}
