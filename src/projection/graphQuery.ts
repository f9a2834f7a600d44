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
 */
import * as path from "node:path";
import { inputError } from "../errors.ts";
import { citationUri } from "../eventloom/citation.ts";
import { lockFile } from "../platform/mod.ts";
import { loadKuzu } from "./kuzuRuntime.ts";
import { projectionDbPath, projectSession } from "./projector.ts";
import { projectionLockWaitMs } from "./kuzuStore.ts";

export const graphRowsMax = 10_000;
export const graphTimeoutMsMax = 60_000;
export const graphDefaults = { limit: 1000, timeoutMs: 10_000 } as const;

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
}

export interface GraphQueryResult {
  [key: string]: unknown;
  session_id: string;
  query: string;
  columns: string[];
  rows: Array<Record<string, unknown>>;
  row_count: number;
  truncated: boolean;
  graph: { head_seq: number; head_hash: string | null; source: string };
  elapsed_ms: number;
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

export async function queryGraph(root: string, sessionId: string, request: GraphQueryRequest, warn: (message: string) => void): Promise<GraphQueryResult> {
  if (typeof request.query !== "string" || request.query.trim() === "") {
    throw inputError("invalid_query", "query must be a non-empty Cypher statement", { field: "query" });
  }
  const query = request.query;
  refuseWritingClauses(query);
  const limit = request.limit ?? graphDefaults.limit;
  const timeoutMs = request.timeoutMs ?? graphDefaults.timeoutMs;
  const started = performance.now();
  const projected = await projectSession(root, sessionId, { graphStore: "sync", onStoreFailure: "throw", warn });
  const dbPath = path.resolve(projectionDbPath(root));
  const lock = await lockFile(`${dbPath}.lock`, "exclusive", projectionLockWaitMs, true);
  try {
    const kuzu = await loadKuzu();
    const database = new kuzu.Database(dbPath, 0, 0, true, true);
    const connection = new kuzu.Connection(database);
    try {
      // The wasm build has no setQueryTimeout: Kuzu's `timeout` setting does the same.
      const setTimeoutResult = connection.query(`CALL timeout=${Math.floor(timeoutMs)}`);
      const timeoutSet = setTimeoutResult.isSuccess();
      const timeoutError = timeoutSet ? "" : setTimeoutResult.getErrorMessage();
      setTimeoutResult.close();
      if (!timeoutSet) throw new Error(`the graph store refused its query time limit: ${timeoutError}`);
      const prepared = connection.prepare(query);
      if (!prepared.isSuccess()) {
        const message = prepared.getErrorMessage();
        prepared.close();
        throw inputError("invalid_query", `The graph refused the query: ${message.split("\n")[0]}`, { field: "query", hint: "docs/graph.md lists the tables and their properties" });
      }
      const params: Record<string, unknown> = { ...(request.params ?? {}) };
      if (/\$session_id\b/.test(query) && params.session_id === undefined) params.session_id = sessionId;
      const result = connection.execute(prepared, params);
      try {
        if (!result.isSuccess()) {
          const message = result.getErrorMessage();
          const timedOut = /interrupt|timeout/i.test(message);
          throw inputError(timedOut ? "query_timeout" : "invalid_query", timedOut ? `The graph query ran past ${timeoutMs} ms and was stopped` : `The graph query failed: ${message.split("\n")[0]}`, { field: "query" });
        }
        const columns = result.getColumnNames();
        const rows: Array<Record<string, unknown>> = [];
        let truncated = false;
        while (result.hasNext()) {
          if (rows.length === limit) {
            truncated = true;
            break;
          }
          const tuple = result.getNext() as unknown;
          const values = Array.isArray(tuple) ? tuple : columns.map((column) => (tuple as Record<string, unknown>)[column]);
          rows.push(Object.fromEntries(columns.map((column, index) => [column, plain(values[index])])));
        }
        const head = projected.rows?.head ?? null;
        return {
          session_id: sessionId,
          query,
          columns,
          rows,
          row_count: rows.length,
          truncated,
          graph: { head_seq: head?.seq ?? 0, head_hash: head?.hash ?? null, source: projected.source },
          elapsed_ms: Math.round(performance.now() - started),
        };
      } finally {
        result.close();
        prepared.close();
      }
    } finally {
      connection.close();
      database.close();
    }
  } finally {
    lock.release();
  }
}
