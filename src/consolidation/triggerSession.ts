/**
 * A session's memories read through the memory service, which verifies the log first (integrity
 * failure: exit 1; unknown session: exit 2) and brings the projection up to the log head. When
 * the graph store is unavailable (another process holds it), the rows are folded from the
 * verified log in memory instead: the same fold the projector runs, so the memories are the same.
 */
import type { EventRecord } from "../eventloom/envelope.ts";
import type { SessionReader } from "../retrieval/readSession.ts";
import { defaultEmbeddingDim } from "../vector/mod.ts";
import { triggerConsolidation, type TriggerOutcome } from "./trigger.ts";
import { type ConsolidationMemory, currentMemories } from "./triggerMemories.ts";
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
 * `trigger_consolidation` over a session.
 *
 * @example
 * const { document } = await triggerSessionConsolidation(new MemoryService(".eventloom"), "default", validateTriggerParameters({}));
 */
export async function triggerSessionConsolidation(reader: SessionReader, sessionId: string, parameters: TriggerParameters): Promise<TriggerOutcome> {
  const { memories, dim } = await readSessionMemories(reader, sessionId);
  return await triggerConsolidation(memories, parameters, { dim });
}
