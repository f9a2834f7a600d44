/** `memory_causal_successors`: effects of an entity along current causal edges (docs/causal.md). */
import { defineTool } from "../tool.ts";
import { causalQueryInputSchema, runCausalQuery } from "./memoryCausalArguments.ts";

export const memoryCausalSuccessorsTool = defineTool({
  name: "memory_causal_successors",
  description:
    "Causal effects of an entity: follows current causal_* edges source -> target from every current version named " +
    "entity_name, up to depth hops (1..5, default 2), shortest path first. Each result is a cited, non-authoritative " +
    "edge with path_length and the path's relation types and citations. Returns {results: [...]}.",
  inputSchema: causalQueryInputSchema,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    return await runCausalQuery("successors", args, ctx);
  },
});
