/** `memory_graph_query`: read-only Cypher over the session's graph projection (src/projection/graphQuery.ts, docs/graph.md). */
import * as z from "zod";
import { graphDefaults, graphRowsMax, graphTimeoutMsMax, queryGraph } from "../../projection/graphQuery.ts";
import { resolveSessionId, sessionIdSchema } from "../sessionArgument.ts";
import { defineTool } from "../tool.ts";

export const memoryGraphQueryTool = defineTool({
  name: "memory_graph_query",
  description:
    "Read-only Cypher over the graph projection (Entity, Event, RELATES, NEXT_EVENT; zaxy help --topic graph), brought up to the " +
    "session's log head first. Writing clauses are refused. $session_id is bound to the session; nodes that carry a source " +
    "event come back with its citation. The query runs on its own worker, stopped at timeout_ms or past 1 GiB of memory; " +
    "rows beyond limit are cut (truncated: true). Example: MATCH (e:Entity) WHERE e.session_id = $session_id AND e.valid_to IS NULL " +
    "RETURN e.entity_type, count(*)",
  inputSchema: z.strictObject({
    query: z.string().min(1).describe("A read-only Cypher statement (MATCH ... RETURN ...)"),
    params: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).optional().describe("Query parameters ($name)"),
    limit: z.number().int().min(1).max(graphRowsMax).optional().describe(`Rows to return at most (1..${graphRowsMax}, default ${graphDefaults.limit})`),
    timeout_ms: z.number().int().min(1).max(graphTimeoutMsMax).optional().describe(`Stop the query after this many ms (1..${graphTimeoutMsMax}, default ${graphDefaults.timeoutMs})`),
    session_id: sessionIdSchema.optional(),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    const { readModelBaseRows } = await import("../../readmodel/readModelRows.ts");
    return await queryGraph(ctx.eventloomPath, resolveSessionId(ctx, args.session_id), {
      query: args.query,
      params: args.params,
      limit: args.limit,
      timeoutMs: args.timeout_ms,
    }, (message) => process.stderr.write(`zaxy serve: warning: ${message}\n`), readModelBaseRows);
  },
});
