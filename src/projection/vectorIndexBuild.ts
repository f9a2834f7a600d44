/**
 * A session's vector index brought up to date beside other work: a large build from scratch
 * (`zaxy reproject` of a big session) runs on a worker thread (vectorIndexWorker.ts) while the
 * caller writes the read model, which takes three times as long on its own thread; anything else
 * (a small session, a saved index kept or appended to, one core) runs on this thread when the
 * caller asks for the result, exactly as `syncVectorIndex`. Both write the same bytes: the worker
 * runs the same embedding over the same texts, and the file is installed, its rebuild reported,
 * only when the caller asks for it, so output order never depends on thread timing.
 *
 * The worker reads the summaries kept in the fold's scratch file, which has no name once created:
 * it opens it through this process's descriptor (`ScratchTexts.share`) and keeps its own open
 * file, so closing the store here does not cut the worker off.
 *
 * @example
 * const pending = startVectorSync(root, sessionId, rows, events, 1536, { scratchTexts });
 * writeReadModel(...);              // on this thread, the worker embedding meanwhile
 * const vectors = await pending.finish();
 */
import * as fs from "node:fs";
import * as os from "node:os";
import { vectorWorkerLogBytesMin } from "../limits.ts";
import { WebWorker, workerSpecifier } from "../platform/process.ts";
import { ScratchEntityRow } from "./scratchEntityRow.ts";
import { type ScratchTexts, type SharedTexts, sharedTexts, sharedTextsBuffers } from "./scratchTexts.ts";
import type { EntityRow } from "./types.ts";
import {
  builtVectorIndexTempPath,
  installBuiltVectorIndex,
  type LogEvents,
  planVectorSync,
  type SessionVectorIndex,
  syncVectorIndexFromPlan,
  type VectorRows,
  type WrittenVectorIndex,
} from "./vectorIndex.ts";

export interface VectorSyncOptions {
  /**
   * Where the fold kept the rows' summaries: the worker reads them,
   * and the versions' other texts appended to it, from there. Without it nothing runs on a worker.
   */
  scratchTexts?: ScratchTexts;
  onProgress?: (done: number, total: number) => void;
  warn?: (message: string) => void;
  /** Bytes of the verified log the rows were folded from (0 when unknown: no worker). */
  logBytes?: number;
  /** Bytes of log from which a build from scratch runs on a worker (default `vectorWorkerLogBytesMin`; tests lower it). */
  workerLogBytesMin?: number;
}

/** A vector index being brought up to date; `finish` gives it (opened), `cancel` stops a worker. */
export interface PendingVectorSync {
  /** Whether the build runs on a worker thread. */
  readonly onWorker: boolean;
  finish(): Promise<SessionVectorIndex>;
  /** Stops the worker and removes what it wrote (the caller failed before `finish`). */
  cancel(): void;
}

/**
 * Starts bringing the session's vector index up to `rows` (`syncVectorIndex`'s work): on a worker
 * when it is built from scratch from a log of at least `workerLogBytesMin` bytes and there is
 * more than one core, else on this thread in `finish`.
 */
export function startVectorSync(
  root: string,
  sessionId: string,
  rows: VectorRows & { entities: readonly EntityRow[] },
  events: LogEvents,
  dim: number,
  options: VectorSyncOptions = {},
): PendingVectorSync {
  const plan = planVectorSync(root, sessionId, rows, events, dim);
  const cores = os.availableParallelism?.() ?? os.cpus().length;
  const scratchTexts = options.scratchTexts;
  const onWorker = plan.loaded === null && plan.kept === null && cores > 1 && rows.entities.length > 0 &&
    (options.logBytes ?? 0) >= (options.workerLogBytesMin ?? vectorWorkerLogBytesMin) && scratchTexts?.shareable === true;
  if (!onWorker || scratchTexts === undefined) {
    return pendingSync(false, () => syncVectorIndexFromPlan(plan, sessionId, rows, dim, options.onProgress, options.warn), () => {});
  }
  const temp = builtVectorIndexTempPath(plan);
  const worker = new WebWorker(workerSpecifier(new URL("./vectorIndexWorker.ts", import.meta.url), "projection/vectorIndexWorker.ts"), { type: "module" });
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    worker.terminate();
  };
  const total = rows.entities.length;
  const written = new Promise<WrittenVectorIndex>((resolve, reject) => {
    worker.onmessage = (event: MessageEvent) => {
      const data = event.data as { kind: string; bytes?: number; sha256?: string; message?: string };
      stop();
      if (data.kind === "done") resolve({ temp, bytes: data.bytes!, sha256: data.sha256! });
      else reject(new Error(`vector index worker failed: ${data.message}`));
    };
    worker.onerror = (event: Event) => {
      stop();
      reject(new Error(`vector index worker failed: ${(event as ErrorEvent).message ?? "unknown error"}`));
    };
  });
  // A failure is reported by `finish`; until then it must not count as unhandled.
  written.catch(() => {});
  try {
    const texts = workerTexts(rows.entities, scratchTexts);
    const transfer = [texts.names, texts.types, texts.summaries].flatMap(sharedTextsBuffers);
    worker.postMessage({ kind: "build", temp, dim, count: total, ...texts, scratchFile: scratchTexts.share() }, transfer);
  } catch (error) {
    // The texts could not be placed (a full disk): a worker left waiting would keep the process alive.
    stop();
    throw error;
  }
  return pendingSync(true, async () => {
    let result: WrittenVectorIndex;
    try {
      result = await written;
    } catch (error) {
      fs.rmSync(temp, { force: true });
      throw error;
    }
    options.onProgress?.(total, total);
    return installBuiltVectorIndex(plan, sessionId, rows, dim, result, options.warn);
  }, () => {
    stop();
    fs.rmSync(temp, { force: true });
  });
}

/** A `PendingVectorSync` whose `finish` runs `finish` once (a second call is a caller's bug). */
function pendingSync(onWorker: boolean, finish: () => Promise<SessionVectorIndex>, cancel: () => void): PendingVectorSync {
  let done = false;
  return {
    onWorker,
    finish: async () => {
      if (done) throw new Error("a vector sync is finished once");
      done = true;
      return await finish();
    },
    cancel,
  };
}

/**
 * What the worker is sent of the versions: where their names, types and summaries are in the
 * scratch file (each name and type, and each summary kept in memory, appended to it, so that
 * each of the three is read in order).
 */
function workerTexts(entities: readonly EntityRow[], scratchTexts: ScratchTexts): { names: SharedTexts; types: SharedTexts; summaries: SharedTexts } {
  const names = sharedTexts(entities.length);
  const types = sharedTexts(entities.length);
  const summaries = sharedTexts(entities.length);
  for (let i = 0; i < entities.length; i++) {
    const row = entities[i];
    scratchTexts.placeText(row.name, names, i);
    scratchTexts.placeText(row.entityType, types, i);
    if (row instanceof ScratchEntityRow) scratchTexts.placeIn(row.summaryTextId, summaries, i);
    else scratchTexts.placeText(row.summary, summaries, i);
  }
  return { names, types, summaries };
}
