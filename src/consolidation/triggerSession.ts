/**
 * A session's memories read through the memory service, which verifies the log first (integrity
 * failure: exit 1; unknown session: exit 2) and brings the projection up to the log head. When
 * the graph store is unavailable (another process holds it), the rows are folded from the
 * verified log in memory instead: the same fold the projector runs, so the memories are the same.
 *
 * `trigger_consolidation` (the CLI and the MCP tool) reads the session's index as a fresh read
 * finds it instead (`withReadSession`: warm, the on-disk read model, or the read model plus a
 * tail), one entity version at a time: a fresh process does not parse the log or load the row
 * cache to list the memories (docs/memory-model.md).
 */
import type { EventRecord } from "../eventloom/envelope.ts";
import type { SessionReader } from "../retrieval/readSession.ts";
import { defaultEmbeddingDim } from "../vector/mod.ts";
import { triggerConsolidation, type TriggerOutcome } from "./trigger.ts";
import { type ConsolidationMemory, currentMemories, indexedMemories } from "./triggerMemories.ts";
import type { TriggerParameters } from "./triggerParameters.ts";

export interface SessionMemories {
  sessionId: string;
  /** Current memories, oldest first. */
  memories: ConsolidationMemory[];
  /** The verified log. */
  events: readonly EventRecord[];
  /** The dimension of the session's vector index (the embedding the memories are compared in). */
  dim: number;
}

/** The session's current memories at its log head. */
export async function readSessionMemories(reader: SessionReader, sessionId: string): Promise<SessionMemories> {
  // Degraded sessions carry the log folded in memory (memory/service.ts).
  const { projected, index, rows } = await reader.session(sessionId);
  return {
    sessionId,
    memories: currentMemories(rows.entities, projected.events, sessionId),
    events: projected.events,
    dim: index.vectors?.dim ?? defaultEmbeddingDim,
  };
}

/**
 * `trigger_consolidation` over a session, from its index at the log head. The document's
 * citations are read while the index is open; those of `candidates` beyond the document are read
 * from it when asked for (a server may close an index it evicts).
 *
 * @example
 * const { document } = await triggerSessionConsolidation(new MemoryService(".eventloom"), "default", validateTriggerParameters({}));
 */
export async function triggerSessionConsolidation(reader: SessionReader, sessionId: string, parameters: TriggerParameters): Promise<TriggerOutcome> {
  return await reader.withReadSession(sessionId, async ({ index }) =>
    await triggerConsolidation(indexedMemories(index), parameters, { dim: index.vectors?.dim ?? defaultEmbeddingDim })
  );
}
