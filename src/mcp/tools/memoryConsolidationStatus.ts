/** `memory_consolidation_status`: review-gated counts and candidates by replay of the log. */
import * as z from "zod";
import { readConsolidationStatus } from "../../consolidation/operations.ts";
import { resolveSessionId, sessionIdSchema } from "../sessionArgument.ts";
import { defineTool } from "../tool.ts";

export const memoryConsolidationStatusTool = defineTool({
  name: "memory_consolidation_status",
  description:
    "Consolidation candidates of a session and their review counts, by replay: first creation wins, the latest " +
    "surviving review decides the status, rolled-back reviews do not count. Every candidate is non_authoritative.",
  inputSchema: z.strictObject({ session_id: sessionIdSchema.optional() }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    return await readConsolidationStatus(ctx.eventloomPath, resolveSessionId(ctx, args.session_id));
  },
});
