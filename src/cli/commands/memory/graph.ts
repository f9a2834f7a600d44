/** `zaxy memory graph 'MATCH ... RETURN ...' [--param k=v ...]`: read-only Cypher over the graph projection. */
import { inputError } from "../../../errors.ts";
import { intOption } from "../../args.ts";
import { defineCommand, listOption } from "../../command.ts";
import { emit } from "../../output.ts";

/** `k=v`: a number when it reads as one, true/false/null as such, else the string. */
function paramValue(raw: string): string | number | boolean | null {
  if (raw === "true") return true;
  if (raw === "false") return false;
  if (raw === "null") return null;
  if (/^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/.test(raw)) return Number(raw);
  return raw;
}

export const memoryGraphCommand = defineCommand({
  name: "graph",
  writesRoot: true,
  summary: "Read-only Cypher over the graph projection (as MCP memory_graph_query)",
  description:
    "Brings the session's rows in the Kuzu graph store up to its verified log head, opens the\n" +
    "store read-only and runs QUERY with a time limit. Writing clauses (CREATE, MERGE, SET,\n" +
    "DELETE, ...) are refused (exit 2). $session_id is bound to --session-id; --param k=v binds\n" +
    "$k (numbers, true, false and null are typed). Nodes with a source event carry its citation.\n" +
    "The tables and three example queries are in 'zaxy help --topic graph'. --json prints {session_id,\n" +
    "query, columns, rows, row_count, truncated, limit, graph{head_seq, head_hash, source},\n" +
    "elapsed_ms}. The query runs on a worker thread that is stopped at --timeout-ms (exit 2,\n" +
    "query_timeout) or when it grows the process by more than 1 GiB (query_memory_exceeded).",
  options: {
    param: { type: "string", multiple: true, valueName: "K=V", description: "Bind $K (repeatable)" },
    limit: { type: "string", valueName: "N", description: "Rows to return at most (1..10000, default 1000)" },
    "timeout-ms": { type: "string", valueName: "MS", description: "Stop the query after MS (default 10000)" },
  },
  positionals: [{ name: "QUERY", description: "A read-only Cypher statement", required: true }],
  examples: [
    "zaxy memory graph 'MATCH (e:Entity) WHERE e.session_id = $session_id AND e.valid_to IS NULL RETURN e.entity_type AS type, count(*) AS n ORDER BY n DESC' --json",
    "zaxy memory graph 'MATCH (a:Entity {name: $name})-[r:RELATES]->(b:Entity) RETURN r.relation_type, b.name' --param name=agent-1",
  ],
  async run(ctx) {
    const params: Record<string, unknown> = {};
    for (const pair of listOption(ctx, "param")) {
      const at = pair.indexOf("=");
      if (at <= 0) throw inputError("invalid_option", `--param must be K=V, got ${JSON.stringify(pair)}`, { field: "--param", expected: "K=V" });
      params[pair.slice(0, at)] = paramValue(pair.slice(at + 1));
    }
    const { queryGraph } = await import("../../../projection/graphQuery.ts");
    const { readModelBaseRows } = await import("../../../readmodel/readModelRows.ts");
    const result = await queryGraph(ctx.global.eventloomPath, ctx.global.sessionId, {
      query: ctx.positionals[0],
      params,
      limit: intOption(ctx, "limit", 1, 10_000),
      timeoutMs: intOption(ctx, "timeout-ms", 1, 60_000),
      timeoutField: "--timeout-ms",
    }, (message) => ctx.io.stderr(`zaxy: warning: ${message}\n`), readModelBaseRows);
    emit(ctx, "zaxy.memory.graph.v1", result, () => {
      const lines = [result.columns.join("\t")];
      for (const row of result.rows) lines.push(result.columns.map((column) => JSON.stringify(row[column])).join("\t"));
      lines.push(`(${result.row_count} rows${result.truncated ? ", truncated" : ""}; graph at seq ${result.graph.head_seq})`);
      return lines.join("\n");
    });
    return 0;
  },
});
