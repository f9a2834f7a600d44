/** `memory_explain_outcome`: causal predecessors of an outcome, or cited checkout evidence (docs/causal.md). */
import * as z from "zod";
import { explainOutcome, reasoningPhases, validateExplainOutcome } from "../../memory/explainOutcome.ts";
import { queryCharsMax } from "../../memory/request.ts";
import { resolveSessionId } from "../sessionArgument.ts";
import { defineTool } from "../tool.ts";
import { depthField, serverMemoryService, sessionField } from "./memoryArguments.ts";

export const memoryExplainOutcomeTool = defineTool({
  name: "memory_explain_outcome",
  description:
    "Explain an outcome: its causal predecessors (reverse traversal, depth 1..5, default 2) as cited, " +
    "non-authoritative edges; when it has none, the cited evidence of a Memory Checkout for the outcome " +
    "(fallback_used: true). Reads only.",
  inputSchema: z.strictObject({
    outcome: z.string().describe(`The outcome's entity name (1..${queryCharsMax} characters)`),
    phase: z.enum(reasoningPhases).optional().describe("Reasoning phase (default planning)"),
    depth: depthField,
    session_id: sessionField,
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    const request = validateExplainOutcome({ sessionId: resolveSessionId(ctx, args.session_id), outcome: args.outcome, phase: args.phase, depth: args.depth });
    return await explainOutcome(serverMemoryService(ctx), request);
  },
});
