/**
 * The Kuzu half of a graph query (docs/graph.md): opens the store read-only, runs one prepared
 * Cypher statement and reads at most `limit` rows as plain JSON values. It runs on the graph
 * query worker (`graphQueryWorker.ts`), never on a thread that serves anything else: Kuzu's
 * calls are synchronous, and a runaway statement is stopped by terminating the thread
 * (`graphQuery.ts`). Everything it returns crosses to the caller by structured clone.
 */
import { inputError, type ZaxyError } from "../errors.ts";
import { citationUri } from "../eventloom/root.ts";
import type { Kuzu } from "./kuzuRuntime.ts";

/** One statement to run: what `queryGraph` sends its worker. */
export interface GraphQueryJob {
  /** Absolute path of the Kuzu store (`projections/embedded.kuzu`). */
  dbPath: string;
  query: string;
  params: Record<string, unknown>;
  limit: number;
  timeoutMs: number;
  /** The time limit's name as the caller knows it (`timeout_ms`, `--timeout-ms`), for messages. */
  timeoutField: string;
}

export interface GraphQueryRows {
  columns: string[];
  rows: Array<Record<string, unknown>>;
  truncated: boolean;
}

/** The `query_timeout` error: one wording whether Kuzu or the worker's watchdog stopped it. */
export function queryTimeoutError(timeoutMs: number, timeoutField: string, timeoutMsMax: number): ZaxyError {
  return inputError(
    "query_timeout",
    `The graph query ran past its time limit (${timeoutField} ${timeoutMs}) and was stopped; nothing was changed`,
    {
      field: timeoutField,
      actual: String(timeoutMs),
      hint: `Narrow the query (filter on session_id, add LIMIT) or raise ${timeoutField} (at most ${timeoutMsMax}); see zaxy help --topic graph (docs/graph.md)`,
    },
  );
}

/** JSON-safe: INT64 as numbers (strings beyond 2^53), citations on values that carry a source event. */
function plain(value: unknown): unknown {
  // kuzu-wasm hands INT64 and DOUBLE columns out as boxed Numbers, internal ids as bigints.
  if (value instanceof Number || value instanceof String || value instanceof Boolean) return value.valueOf();
  if (typeof value === "bigint") return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (Array.isArray(value)) return value.map(plain);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) out[key] = plain(inner);
    const seq = out.source_event_seq;
    const hash = out.source_event_hash;
    const session = out.session_id;
    if (typeof seq === "number" && seq > 0 && typeof hash === "string" && /^[0-9a-f]{64}$/.test(hash) && typeof session === "string") {
      out.citation = citationUri(session, seq, hash);
    }
    return out;
  }
  return value;
}

/**
 * Runs `job` on a read-only connection; `onExecute` is called just before the statement is
 * prepared and run (after Kuzu is loaded and the store opened), which is when the caller's clock
 * for `timeoutMs` starts.
 *
 * @example
 * ```ts
 * const { columns, rows } = runGraphQuery(await loadKuzu(), { dbPath, query: "MATCH (e:Entity) RETURN count(*) AS n",
 *   params: {}, limit: 10, timeoutMs: 1000, timeoutField: "timeout_ms" }, () => {}, 60_000);
 * ```
 */
export function runGraphQuery(kuzu: Kuzu, job: GraphQueryJob, onExecute: () => void, timeoutMsMax: number): GraphQueryRows {
  const database = new kuzu.Database(job.dbPath, 0, 0, true, true);
  const connection = new kuzu.Connection(database);
  try {
    // Kuzu folds constant expressions while it prepares a statement (`range(1, 30000000)` is
    // built there), so the time limit covers preparing as well as running.
    onExecute();
    // The wasm build has no setQueryTimeout: Kuzu's `timeout` setting does the same where Kuzu
    // checks it (between pipeline steps); the worker's termination covers the rest.
    const setTimeoutResult = connection.query(`CALL timeout=${Math.floor(job.timeoutMs)}`);
    const timeoutSet = setTimeoutResult.isSuccess();
    const timeoutError = timeoutSet ? "" : setTimeoutResult.getErrorMessage();
    setTimeoutResult.close();
    if (!timeoutSet) throw new Error(`the graph store refused its query time limit: ${timeoutError}`);
    const prepared = connection.prepare(job.query);
    if (!prepared.isSuccess()) {
      const message = prepared.getErrorMessage();
      prepared.close();
      throw inputError("invalid_query", `The graph refused the query: ${message.split("\n")[0]}`, { field: "query", hint: "zaxy help --topic graph (docs/graph.md) lists the tables and their properties" });
    }
    const result = connection.execute(prepared, job.params);
    try {
      if (!result.isSuccess()) {
        const message = result.getErrorMessage();
        if (/interrupt|timeout/i.test(message)) throw queryTimeoutError(job.timeoutMs, job.timeoutField, timeoutMsMax);
        throw inputError("invalid_query", `The graph query failed: ${message.split("\n")[0]}`, { field: "query" });
      }
      const columns = result.getColumnNames();
      const rows: Array<Record<string, unknown>> = [];
      let truncated = false;
      while (result.hasNext()) {
        if (rows.length === job.limit) {
          truncated = true;
          break;
        }
        const tuple = result.getNext() as unknown;
        const values = Array.isArray(tuple) ? tuple : columns.map((column) => (tuple as Record<string, unknown>)[column]);
        rows.push(Object.fromEntries(columns.map((column, index) => [column, plain(values[index])])));
      }
      return { columns, rows, truncated };
    } finally {
      result.close();
      prepared.close();
    }
  } finally {
    connection.close();
    database.close();
  }
}
