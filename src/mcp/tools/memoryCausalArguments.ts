/** Schema and handler shared by memory_causal_successors and memory_causal_predecessors. */
import * as z from "zod";
import { causalRelationTypeList, type CausalDirection, queryCausal, validateCausalQuery } from "../../causal/mod.ts";
import { queryCharsMax } from "../../memory/request.ts";
import { resolveSessionId } from "../sessionArgument.ts";
import type { ToolContext } from "../tool.ts";
import { depthField, serverMemoryService, sessionField } from "./memoryArguments.ts";

export const causalQueryInputSchema = z.strictObject({
  entity_name: z.string().describe(`Exact entity name to start from (1..${queryCharsMax} characters)`),
  relation_type: z.enum(causalRelationTypeList).optional().describe("Follow only this causal relation (bare type, e.g. caused)"),
  depth: depthField,
  session_id: sessionField,
  entity_type: z.string().optional().describe("Start only from versions of this entity type (default: any type)"),
});

export type CausalQueryArguments = z.input<typeof causalQueryInputSchema>;

export async function runCausalQuery(direction: CausalDirection, args: CausalQueryArguments, ctx: ToolContext): Promise<{ results: unknown[] }> {
  const query = validateCausalQuery({
    sessionId: resolveSessionId(ctx, args.session_id),
    direction,
    entityName: args.entity_name,
    entityType: args.entity_type,
    relationType: args.relation_type,
    depth: args.depth,
  });
  return { results: await queryCausal(serverMemoryService(ctx), query) };
}
