/**
 * The graph query worker: loads its own Kuzu, runs one read-only statement (`graphQueryRun.ts`)
 * and is then terminated by its owner (`graphQuery.ts`), which also terminates it at the
 * statement's time limit or memory bound. One worker per query: terminating the thread is the
 * only way to stop a Kuzu call that never checks its interrupt flag, and it hands the wasm heap
 * (which never shrinks while its thread lives) back to the system.
 * Protocol (structured-clone messages):
 *   in:  {kind: "run", job: GraphQueryJob, timeoutMsMax, executing: SharedArrayBuffer}
 *   out: {kind: "done", rows: GraphQueryRows}
 *        {kind: "error", message, code?, exitCode?, details?}
 * When the statement starts (and with it the time limit), the worker sets the first Int32 of
 * `executing` to 1 rather than posting a message: Bun delivers a worker's messages from the
 * worker's event loop, which the synchronous Kuzu call that follows would hold up.
 */
import { isZaxyError } from "../errors.ts";
import { workerScope } from "../platform/workerScope.ts";
import { type GraphQueryJob, runGraphQuery } from "./graphQueryRun.ts";
import { loadKuzu } from "./kuzuRuntime.ts";

interface WorkerScope {
  onmessage: ((event: MessageEvent) => void) | null;
  postMessage(message: unknown): void;
}

const scope: WorkerScope = workerScope();
// Kuzu starts loading as soon as the worker exists: its owner brings the session's graph up to
// date meanwhile and sends the statement afterwards.
const kuzuLoading = loadKuzu();
kuzuLoading.catch(() => {});

scope.onmessage = async (event: MessageEvent) => {
  const message = event.data as { kind: "run"; job: GraphQueryJob; timeoutMsMax: number; executing: SharedArrayBuffer };
  const executing = new Int32Array(message.executing);
  try {
    const kuzu = await kuzuLoading;
    const rows = runGraphQuery(kuzu, message.job, () => void Atomics.store(executing, 0, 1), message.timeoutMsMax);
    scope.postMessage({ kind: "done", rows });
  } catch (error) {
    if (isZaxyError(error)) {
      scope.postMessage({ kind: "error", message: error.message, code: error.code, exitCode: error.exitCode, details: error.details });
    } else {
      scope.postMessage({ kind: "error", message: error instanceof Error ? error.message : String(error) });
    }
  }
};
