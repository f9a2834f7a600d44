/**
 * `memory_feeling_of_knowing` (reference §6 row 8): the experimental likely / possible / unlikely
 * pre-check before a checkout (src/memory/feelingOfKnowing.ts); appends `metacognition.fok.predicted`.
 */
import * as z from "zod";
import { feelingOfKnowing, fokLikelyCoverage } from "../../memory/feelingOfKnowing.ts";
import { resolveSessionId, sessionIdSchema } from "../sessionArgument.ts";
import { defineTool } from "../tool.ts";

export const memoryFeelingOfKnowingTool = defineTool({
  name: "memory_feeling_of_knowing",
  description:
    "Experimental: a cheap pre-check of whether memory can answer a query, before a full memory_checkout. Runs one small " +
    `retrieval and predicts likely (a current fact covers at least ${fokLikelyCoverage * 100} % of the query's terms), possible ` +
    "(some result shares a term) or unlikely, with the signals it used; records metacognition.fok.predicted.",
  inputSchema: z.strictObject({
    query: z.string().min(1).describe("What you want to know"),
    session_id: sessionIdSchema.optional(),
    cues: z.record(z.string(), z.string()).optional().describe("Extra cues whose words count like the query's ({\"file\": \"src/auth.ts\"})"),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(args, ctx) {
    return await feelingOfKnowing(ctx.eventloomPath, resolveSessionId(ctx, args.session_id), { query: args.query, cues: args.cues });
  },
});
