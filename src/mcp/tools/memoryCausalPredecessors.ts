/** `memory_causal_predecessors`: causes of an entity, by true reverse traversal (docs/causal.md). */
import { defineTool } from "../tool.ts";
import { causalQueryInputSchema, runCausalQuery } from "./memoryCausalArguments.ts";

export const memoryCausalPredecessorsTool = defineTool({
  name: "memory_causal_predecessors",
  description:
    "Causal causes of an entity: follows current causal_* edges in reverse (target -> source) from every current " +
    "version named entity_name, up to depth hops (1..5, default 2), shortest path first; never returns its effects. " +
    "Each result is a cited, non-authoritative edge with path_length and the path's relation types and citations. " +
    "Returns {results: [...]}.",
  inputSchema: causalQueryInputSchema,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    return await runCausalQuery("predecessors", args, ctx);
  },
});
