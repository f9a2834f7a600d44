/**
 * `merge_concepts`: propose merging memories as one review-pending `claim` consolidation
 * candidate (the merged concept, `target_id`) citing their source events; the memories are never
 * changed (DESIGN §8, design 004). Memories are named by id (`source_ids`, or the design's
 * `source_node_ids`) and/or by name (`memories`).
 */
import * as z from "zod";
import { mergeConcepts, mergeMemoriesMax } from "../../consolidation/mergeConcepts.ts";
import { resolveSessionId } from "../sessionArgument.ts";
import { defineTool } from "../tool.ts";
import { serverMemoryService, sessionField } from "./memoryArguments.ts";

const memoryRef = z.strictObject({
  name: z.string().describe("The memory's entity name (a current entity of the session)"),
  entity_type: z.string().optional().describe("Its entity type, needed when the name alone is ambiguous"),
});

export const mergeConceptsTool = defineTool({
  name: "merge_concepts",
  description:
    "Propose merging two or more memories (e.g. a pair from trigger_consolidation): appends one consolidation.candidate.created " +
    "of type claim, review_status pending, authority_status non_authoritative: the merged concept, whose target_id is the one " +
    "trigger_consolidation reported for the same source_ids, citing each memory's source event. The sources are never " +
    "changed; merging the same sources again appends nothing and reports the existing candidate.",
  inputSchema: z.strictObject({
    session_id: sessionField,
    source_ids: z.array(z.string()).max(mergeMemoriesMax).optional()
      .describe("Memories to merge by id (memory:<24 hex>), e.g. a candidates_sample[].source_ids of trigger_consolidation"),
    source_node_ids: z.array(z.string()).max(mergeMemoriesMax).optional().describe("Design 004's name for source_ids (the two are combined)"),
    memories: z.array(memoryRef).max(mergeMemoriesMax).optional().describe("Memories to merge by name (2..50 memories in all, by id or name)"),
    title: z.string().optional().describe("Candidate title (default: Merge <memories>; part of the candidate id)"),
    target_name: z.string().optional().describe("Design 004's name for title"),
    merge_strategy: z.enum(["summarize"]).optional()
      .describe("Design 004's strategy; summarize (the only one): the merged concept summarizes and cites its sources"),
    summary: z.string().optional().describe("Candidate summary (default: names the memories and their cosine)"),
    actor: z.string().optional().describe("Who proposes it (default zaxy-consolidation)"),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(args, ctx) {
    return await mergeConcepts(serverMemoryService(ctx), {
      sessionId: resolveSessionId(ctx, args.session_id),
      memories: (args.memories ?? []).map((m: { name: string; entity_type?: string }) => ({ name: m.name, entityType: m.entity_type })),
      sourceIds: [...(args.source_ids ?? []), ...(args.source_node_ids ?? [])],
      title: args.title ?? args.target_name,
      summary: args.summary,
      actor: args.actor,
    });
  },
});
