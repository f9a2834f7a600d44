/**
 * `merge_concepts`: propose merging memories as one review-pending `claim` consolidation
 * candidate citing their source events; the memories are never changed (DESIGN §8).
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
    "of type claim, review_status pending, authority_status non_authoritative, citing each memory's source event. Nothing is " +
    "merged or changed; the same request again appends nothing and reports the existing candidate.",
  inputSchema: z.strictObject({
    session_id: sessionField,
    memories: z.array(memoryRef).min(2).max(mergeMemoriesMax).describe(`The memories to merge (2..${mergeMemoriesMax})`),
    title: z.string().optional().describe("Candidate title (default: Merge <memories>; part of the candidate id)"),
    summary: z.string().optional().describe("Candidate summary (default: names the memories and their cosine)"),
    actor: z.string().optional().describe("Who proposes it (default zaxy-consolidation)"),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(args, ctx) {
    return await mergeConcepts(serverMemoryService(ctx), {
      sessionId: resolveSessionId(ctx, args.session_id),
      memories: args.memories.map((m: { name: string; entity_type?: string }) => ({ name: m.name, entityType: m.entity_type })),
      title: args.title,
      summary: args.summary,
      actor: args.actor,
    });
  },
});
