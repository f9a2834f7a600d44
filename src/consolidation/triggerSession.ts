/**
 * A session's memories read through the memory service, which verifies the log first (integrity
 * failure: exit 1; unknown session: exit 2) and brings the projection up to the log head. When
 * the graph store is unavailable (another process holds it), the rows are folded from the
 * verified log in memory instead: the same fold the projector runs, so the memories are the same.
 *
 * A fresh process (the CLI) reads through `readProjectedMemories` instead: the same projection,
 * but without the service's retrieval index (BM25 over every entity and event, the vector index),
 * which the trigger never uses, and with the events and rows released once the memories are
 * taken from them (docs/memory-model.md).
 */
import type { EventRecord } from "../eventloom/envelope.ts";
import { requestGarbageCollection } from "../platform/mod.ts";
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

export interface ProjectedMemoriesOptions {
  warn?: (message: string) => void;
  /** How long to wait for another process holding the graph store before folding the log instead. */
  lockWaitMs: number;
}

/**
 * The session's current memories at its log head, as `readSessionMemories` gives them, from the
 * projection alone: verified and caught up the same way, the rows folded from the log when the
 * store is held elsewhere. Only the memories outlive the call; the parsed events and rows are
 * garbage by the time it returns.
 *
 * @example
 * const memories = await readProjectedMemories(".eventloom", "default", { lockWaitMs: 5000 });
 */
export async function readProjectedMemories(root: string, sessionId: string, options: ProjectedMemoriesOptions): Promise<ConsolidationMemory[]> {
  const memories = await (async () => {
    const { projectSession } = await import("../projection/projector.ts");
    const projected = await projectSession(root, sessionId, { warn: options.warn, lockWaitMs: options.lockWaitMs });
    const { foldLogRows } = await import("../projection/foldLog.ts");
    const rows = projected.rows ?? foldLogRows(sessionId, projected.events);
    return currentMemories(rows.entities, projected.events, sessionId);
  })();
  // The log and rows of a large session are most of the heap: give it back before embedding, so
  // the embeddings and pair sets reuse it (measured: ~840 MB resident after the projection of the
  // 100k-event mixed session, ~400 MB after this collection).
  requestGarbageCollection({ now: true });
  return memories;
}

/**
 * `trigger_consolidation` over a session in a fresh process (the CLI): `readProjectedMemories`,
 * compared in the default embedding (the dimension the service's vector index is built with).
 *
 * @example
 * const { document } = await triggerProjectedConsolidation(".eventloom", "default", validateTriggerParameters({}), { lockWaitMs: 5000 });
 */
export async function triggerProjectedConsolidation(
  root: string,
  sessionId: string,
  parameters: TriggerParameters,
  options: ProjectedMemoriesOptions,
): Promise<TriggerOutcome> {
  const memories = await readProjectedMemories(root, sessionId, options);
  return await triggerConsolidation(memories, parameters, { dim: defaultEmbeddingDim });
}
