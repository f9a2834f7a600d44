/** `memory_query`: ranked, cited contexts (current and superseded) with per-lane counts. */
import * as z from "zod";
import { defineTool } from "../tool.ts";
import { depthField, limitField, memoryRequestOf, queryField, semanticField, serverMemoryService, sessionField } from "./memoryArguments.ts";

export const memoryQueryTool = defineTool({
  name: "memory_query",
  description:
    "Ranked graph and verbatim contexts for a query (exact, vector, keyword, traversal, verbatim lanes; fused, " +
    "de-duplicated by citation, MMR). Superseded versions are included with valid_to set.",
  inputSchema: z.strictObject({ query: queryField, session_id: sessionField, limit: limitField, depth: depthField, semantic: semanticField }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    return await serverMemoryService(ctx).query(memoryRequestOf(args, ctx));
  },
});
