/** `trigger_consolidation`: merge candidates among a session's memories, without merging (DESIGN §8). */
import * as z from "zod";
import {
  defaultMaxMemories,
  defaultMinSimilarity,
  defaultModelMinSimilarity,
  maxMemoriesMax,
  maxMemoriesMin,
  triggerEmbeddings,
  triggerStrategies,
  validateTriggerParameters,
} from "../../consolidation/triggerParameters.ts";
import { resolveSessionId } from "../sessionArgument.ts";
import { defineTool } from "../tool.ts";
import { serverMemoryService, sessionField } from "./memoryArguments.ts";

export const triggerConsolidationTool = defineTool({
  name: "trigger_consolidation",
  description:
    "Find merge candidates among the session's memories (current entities) without merging. Strategies: similarity " +
    "(cosine through a usearch index), temporal (created within 24 h), semantic (both aligned >= 0.5 with the session's " +
    "goals). A pair qualifies when its exact cosine >= min_similarity and its goal alignments differ by <= 0.05. Returns " +
    "{consolidation_result, statistics, candidates_sample}; follow up with merge_concepts. embedding \"model\" compares the " +
    "bundled sentence model's vectors instead of the hash embedding (finds reworded duplicates; the result then names the " +
    "model and the SHA-256 of its weights in `embedding`).",
  inputSchema: z.strictObject({
    session_id: sessionField,
    max_memories: z.number().int().min(maxMemoriesMin).max(maxMemoriesMax).optional()
      .describe(`Most recent memories analysed (${maxMemoriesMin}..${maxMemoriesMax}, default ${defaultMaxMemories})`),
    strategy: z.enum(triggerStrategies).optional().describe(`${triggerStrategies.join(", ")} (default similarity)`),
    min_similarity: z.number().min(0).max(1).optional()
      .describe(`Cosine threshold 0..1 (default ${defaultMinSimilarity}; ${defaultModelMinSimilarity} with embedding "model")`),
    embedding: z.enum(triggerEmbeddings).optional().describe(`${triggerEmbeddings.join(", ")}: which vectors are compared (default hash)`),
  }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async run(args, ctx) {
    const parameters = validateTriggerParameters({ strategy: args.strategy, minSimilarity: args.min_similarity, maxMemories: args.max_memories, embedding: args.embedding });
    const { triggerSessionConsolidation } = await import("../../consolidation/triggerSession.ts");
    const { document } = await triggerSessionConsolidation(serverMemoryService(ctx), resolveSessionId(ctx, args.session_id), parameters);
    return document;
  },
});
