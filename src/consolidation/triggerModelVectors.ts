/**
 * The bundled sentence model's vectors for `trigger_consolidation --embedding model`: one per
 * analysed memory and one per active goal, from the same text the hash embedding sees
 * (`memoryEmbeddingText`), with a receipt naming the model and its weights so a result can be
 * reproduced. The model (about a second to load) is imported only here, and only when asked for;
 * trigger.ts stays free of it and takes the vectors as data.
 *
 * @example
 * const vectors = await triggerModelVectors(mostRecentMemories(memories, 100), activeGoals(memories));
 * vectors.receipt.weights_sha256; // "…64 hex…"
 */
import { type ConsolidationMemory, memoryEmbeddingText } from "./triggerMemories.ts";

/** What the document's `embedding` receipt says of the model. */
export interface TriggerModelReceipt {
  id: string;
  /** Null only for a model zaxy cannot hash (one served over HTTP); the bundled model has one. */
  weights_sha256: string | null;
  dim: number;
}

/** Unit vectors (dot product = cosine), in the order of the memories and goals given. */
export interface TriggerModelVectors {
  memories: Float32Array[];
  goals: Float32Array[];
  receipt: TriggerModelReceipt;
}

/** Embeds `memories` and `goals` with the process's one model (`sharedSemanticEmbedder`). */
export async function triggerModelVectors(
  memories: readonly ConsolidationMemory[],
  goals: readonly ConsolidationMemory[],
): Promise<TriggerModelVectors> {
  const { sharedSemanticEmbedder } = await import("../semantic/semanticEmbedder.ts");
  const embedder = await sharedSemanticEmbedder();
  const vectors = await embedder.embed([...memories, ...goals].map(memoryEmbeddingText));
  const { id, weights_sha256, dim } = embedder.receipt;
  return { memories: vectors.slice(0, memories.length), goals: vectors.slice(memories.length), receipt: { id, weights_sha256, dim } };
}
