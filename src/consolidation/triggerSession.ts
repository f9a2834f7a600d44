/**
 * `trigger_consolidation` over a session's memories, read through the memory service, which
 * verifies the log first (integrity failure: exit 1; unknown session: exit 2). The CLI and the
 * MCP tool read the session's index as a fresh read finds it (`withReadSession`: warm, the
 * on-disk read model, or the read model plus a tail), one entity version at a time: a fresh
 * process does not parse the log or load every row to list the memories, and keeps only the
 * analysed memories and the goals (`triggerMemories`; docs/memory-model.md). With the `model` embedding, the analysed memories and the goals are
 * embedded by the bundled model first (triggerModelVectors.ts, loaded only then).
 */
import type { ProgressSink } from "../progress.ts";
import type { SessionReader } from "../retrieval/readSession.ts";
import { defaultEmbeddingDim } from "../vector/mod.ts";
import { triggerConsolidation, type TriggerOutcome } from "./trigger.ts";
import { activeGoals, mostRecentMemories, triggerMemories } from "./triggerMemories.ts";
import type { TriggerParameters } from "./triggerParameters.ts";

/**
 * `trigger_consolidation` over a session, from its index at the log head. The document's
 * citations are read while the index is open; those of `candidates` beyond the document are read
 * from it when asked for (a server may close an index it evicts).
 *
 * @example
 * const { document } = await triggerSessionConsolidation(new MemoryService(".eventloom"), "default", validateTriggerParameters({}));
 */
export async function triggerSessionConsolidation(
  reader: SessionReader,
  sessionId: string,
  parameters: TriggerParameters,
  progress?: ProgressSink,
  warn?: (message: string) => void,
): Promise<TriggerOutcome> {
  progress?.phase("reading the session's memories");
  return await reader.withReadSession(sessionId, async ({ index }) => {
    const memories = triggerMemories(index, parameters.maxMemories);
    const dim = index.vectors?.dim ?? defaultEmbeddingDim;
    if (parameters.embedding !== "model") return await triggerConsolidation(memories, parameters, { dim, progress, warn });
    progress?.phase("embedding memories with the model");
    const goals = activeGoals(memories);
    const { triggerModelVectors } = await import("./triggerModelVectors.ts");
    const modelVectors = await triggerModelVectors(mostRecentMemories(memories, parameters.maxMemories), goals);
    return await triggerConsolidation(memories, parameters, { dim, progress, warn, goals, modelVectors });
  });
}
