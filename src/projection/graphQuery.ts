/**
 * Read-only Cypher over the Kuzu graph projection (`zaxy memory graph`, MCP `memory_graph_query`;
 * docs/graph.md). The session is first brought up to its verified log head in the store (as
 * `zaxy graph sync` does), then the store is opened **read-only** under its lock and the query
 * runs with a time limit; at most `limit` rows come back (`truncated` says there were more).
 *
 * Writing is refused twice: a statement with a writing clause (CREATE, MERGE, SET, DELETE, ...)
 * is bad input before anything is opened, and the database itself is opened read-only. Node and
 * relationship values that carry a source event get its `citation`. `$session_id` is bound to
 * the session when the query uses it; the store holds every synced session of the root.
 *
 * The statement runs on a worker thread of its own (`graphQueryWorker.ts`) with its own Kuzu,
 * never on the thread that serves other clients: Kuzu's calls are synchronous, and Kuzu does not
 * check its own time limit everywhere (an `UNWIND range(1, 30000000)` ignores it and grows the
 * wasm heap towards 4 GiB). The worker is terminated when the statement runs past `timeoutMs`
 * (`query_timeout`) or the process grows by more than `graphQueryMemoryBytesMax`
 * (`query_memory_exceeded`); terminating it stops the query and frees its heap, and the caller
 * carries on.
 */
import * as path from "node:path";
import { type ExitCode, inputError, ioError, ZaxyError, type ZaxyErrorDetails } from "../errors.ts";
import { graphQueryMemoryBytesMax, graphQueryRowsMax, graphQueryStartMsMax, graphQueryTimeoutMsMax } from "../limits.ts";
import { lockFile, requestGarbageCollection } from "../platform/mod.ts";
import { WebWorker, workerSpecifier } from "../platform/process.ts";
import { type GraphQueryJob, type GraphQueryRows, queryTimeoutError } from "./graphQueryRun.ts";
import { type ProjectOptions, projectionDbPath, projectSession } from "./projector.ts";
import { projectionLockWaitMs } from "./kuzuStore.ts";

export const graphRowsMax = graphQueryRowsMax;
export const graphTimeoutMsMax = graphQueryTimeoutMsMax;
export const graphDefaults = { limit: 1000, timeoutMs: 10_000 } as const;

/** How often a running graph query's memory and start flag are sampled. */
const watchIntervalMs = 50;

/** Clauses and statements that write or change the database, the session or the files. */
const writingKeywords = [
  "CREATE", "MERGE", "SET", "DELETE", "DETACH", "REMOVE", "DROP", "ALTER", "COPY", "LOAD", "INSTALL",
  "ATTACH", "USE", "IMPORT", "EXPORT", "BEGIN", "COMMIT", "ROLLBACK", "CHECKPOINT", "CALL",
];

/** The query with string literals, backquoted names and comments blanked (keywords are then words). */
function codeOnly(query: string): string {
  return query
    .replace(/\/\*[\s\S]*?\*\//g, " ")
    .replace(/\/\/[^\n]*/g, " ")
    .replace(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`[^`]*`/g, " ");
}

/** Throws `read_only` (exit 2) naming the first writing clause in `query`. */
export function refuseWritingClauses(query: string, field = "query"): void {
  const code = codeOnly(query).toUpperCase();
  for (const keyword of writingKeywords) {
    if (new RegExp(`\\b${keyword}\\b`).test(code)) {
      throw inputError("read_only", `${field} contains ${keyword}: graph queries are read-only (MATCH ... RETURN ...); the projection changes only through the log`, {
        field,
        expected: "a read-only Cypher query",
      });
    }
  }
}

export interface GraphQueryRequest {
  query: unknown;
  params?: Record<string, unknown>;
  limit?: number;
  timeoutMs?: number;
  /** The time limit's name for messages: `timeout_ms` (MCP, the default) or the CLI's `--timeout-ms`. */
  timeoutField?: string;
  /** Memory the query may add to the process; `graphQueryMemoryBytesMax` unless a test lowers it. */
  memoryBytesMax?: number;
}

export interface GraphQueryResult {
  [key: string]: unknown;
  session_id: string;
  query: string;
  columns: string[];
  rows: Array<Record<string, unknown>>;
  row_count: number;
  truncated: boolean;
  /** The row limit applied: `truncated` says rows beyond it were cut. */
  limit: number;
  graph: { head_seq: number; head_hash: string | null; source: string };
  elapsed_ms: number;
}

/**
 * Runs one read-only Cypher statement over the session's graph (see the module comment).
 *
 * @example
 * ```ts
 * const answer = await queryGraph(".eventloom", "default", {
 *   query: "MATCH (e:Entity) WHERE e.session_id = $session_id RETURN e.entity_type AS type, count(*) AS n",
 *   limit: 100,
 *   timeoutMs: 5000,
 * }, console.warn);
 * ```
 */
export async function queryGraph(
  root: string,
  sessionId: string,
  request: GraphQueryRequest,
  warn: (message: string) => void,
  /** The read model's rows, which spare reading the store back when it is at their head. */
  baseRows?: ProjectOptions["baseRows"],
): Promise<GraphQueryResult> {
  if (typeof request.query !== "string" || request.query.trim() === "") {
    throw inputError("invalid_query", "query must be a non-empty Cypher statement", { field: "query" });
  }
  const query = request.query;
  refuseWritingClauses(query);
  const limit = request.limit ?? graphDefaults.limit;
  const timeoutMs = request.timeoutMs ?? graphDefaults.timeoutMs;
  const started = performance.now();
  // Started now, its Kuzu loads while the session is brought up to date; but while another
  // query's worker lives, only after the lock, so a burst of queries holds at most two workers.
  let worker = graphQueryWorkersLive === 0 ? startGraphQueryWorker() : undefined;
  let projected: Awaited<ReturnType<typeof projectSession>>;
  let answer: GraphQueryRows;
  try {
    projected = await projectSession(root, sessionId, { graphStore: "sync", onStoreFailure: "throw", warn, baseRows });
    const dbPath = path.resolve(projectionDbPath(root));
    const lock = await lockFile(`${dbPath}.lock`, "exclusive", projectionLockWaitMs, true);
    try {
      const params: Record<string, unknown> = { ...(request.params ?? {}) };
      if (/\$session_id\b/.test(query) && params.session_id === undefined) params.session_id = sessionId;
      worker ??= startGraphQueryWorker();
      answer = await worker.run(
        { dbPath, query, params, limit, timeoutMs, timeoutField: request.timeoutField ?? "timeout_ms" },
        request.memoryBytesMax ?? graphQueryMemoryBytesMax,
      );
    } finally {
      lock.release();
    }
  } finally {
    worker?.terminate();
  }
  const head = projected.rows?.head ?? null;
  return {
    session_id: sessionId,
    query,
    columns: answer.columns,
    rows: answer.rows,
    row_count: answer.rows.length,
    truncated: answer.truncated,
    limit,
    graph: { head_seq: head?.seq ?? 0, head_hash: head?.hash ?? null, source: projected.source },
    elapsed_ms: Math.round(performance.now() - started),
  };
}

type WorkerReply =
  | { kind: "done"; rows: GraphQueryRows }
  | { kind: "error"; message: string; code?: string; exitCode?: ExitCode; details?: ZaxyErrorDetails };

function mebibytes(bytes: number): string {
  return `${Math.round(bytes / 1024 / 1024)} MiB`;
}

/** A graph query worker, started before the session is brought up to date so that its Kuzu loads meanwhile. */
interface GraphQueryWorker {
  /** Runs `job`; the worker is terminated when it answers, fails or is stopped. */
  run(job: GraphQueryJob, memoryBytesMax: number): Promise<GraphQueryRows>;
  /** Terminates the worker (again: a no-op) when the query ends before or without `run`. */
  terminate(): void;
}

/** Graph query workers started and not yet terminated in this process. */
let graphQueryWorkersLive = 0;

/**
 * Starts a fresh graph query worker. `run` terminates it when it answers, fails, runs past
 * `job.timeoutMs` after the statement started, takes longer than `graphQueryStartMsMax` to get
 * there, or the process's resident memory grows by more than `memoryBytesMax` over what it was
 * when `run` was called.
 */
function startGraphQueryWorker(): GraphQueryWorker {
  graphQueryWorkersLive++;
  const worker = new WebWorker(workerSpecifier(new URL("./graphQueryWorker.ts", import.meta.url), "projection/graphQueryWorker.ts"), { type: "module" });
  let terminated = false;
  // A worker that fails before `run` (its module did not load) fails that `run` at once.
  let earlyFailure: string | undefined;
  worker.onerror = (event: ErrorEvent) => {
    event.preventDefault();
    earlyFailure ??= event.message;
  };
  const terminate = () => {
    if (terminated) return;
    terminated = true;
    graphQueryWorkersLive--;
    worker.terminate();
    // The worker's wasm heap is released with its thread; collect the JS side of it now.
    requestGarbageCollection();
  };
  const run = (job: GraphQueryJob, memoryBytesMax: number) => new Promise<GraphQueryRows>((resolve, reject) => {
    const rssBaseBytes = process.memoryUsage().rss;
    const executing = new Int32Array(new SharedArrayBuffer(4));
    let settled = false;
    let runTimer: ReturnType<typeof setTimeout> | undefined;
    const startTimer = setTimeout(
      () => finish(ioError("graph_query_start_timeout", `The graph query did not start within ${graphQueryStartMsMax} ms (loading Kuzu and opening the graph store) and was stopped`, { hint: "Retry; if it keeps failing, the machine is overloaded or the graph store is unreadable (zaxy doctor)" })),
      graphQueryStartMsMax,
    );
    const watchTimer = setInterval(() => {
      if (runTimer === undefined && Atomics.load(executing, 0) === 1) {
        clearTimeout(startTimer);
        runTimer = setTimeout(() => finish(queryTimeoutError(job.timeoutMs, job.timeoutField, graphQueryTimeoutMsMax)), job.timeoutMs);
      }
      const grownBytes = process.memoryUsage().rss - rssBaseBytes;
      if (grownBytes > memoryBytesMax) {
        finish(inputError("query_memory_exceeded", `The graph query used more than ${mebibytes(memoryBytesMax)} of memory (the limit for one graph query) and was stopped; nothing was changed`, {
          field: "query",
          actual: mebibytes(grownBytes),
          hint: "Narrow the query: filter on session_id, avoid large UNWIND ranges and cross products, aggregate instead of collecting",
        }));
      }
    }, watchIntervalMs);
    function finish(outcome: Error | GraphQueryRows): void {
      if (settled) return;
      settled = true;
      clearTimeout(startTimer);
      clearTimeout(runTimer);
      clearInterval(watchTimer);
      terminate();
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    }
    worker.onmessage = (event: MessageEvent) => {
      const reply = event.data as WorkerReply;
      if (reply.kind === "done") {
        finish(reply.rows);
      } else if (reply.code !== undefined && reply.exitCode !== undefined) {
        finish(new ZaxyError(reply.code, reply.message, reply.exitCode, reply.details ?? {}));
      } else {
        finish(ioError("graph_query_failed", `The graph query failed: ${reply.message}`, { hint: "Retry; if it keeps failing, check the graph store with zaxy doctor" }));
      }
    };
    worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      finish(ioError("graph_query_failed", `The graph query's worker failed: ${event.message}`, { hint: "Retry; if it keeps failing, check the graph store with zaxy doctor" }));
    };
    if (earlyFailure !== undefined) {
      finish(ioError("graph_query_failed", `The graph query's worker failed: ${earlyFailure}`, { hint: "Retry; if it keeps failing, check the graph store with zaxy doctor" }));
      return;
    }
    worker.postMessage({ kind: "run", job, timeoutMsMax: graphQueryTimeoutMsMax, executing: executing.buffer });
  });
  return { run, terminate };
}
