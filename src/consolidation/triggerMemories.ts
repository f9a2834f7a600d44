/**
 * What `trigger_consolidation` and `merge_concepts` call a memory: a current entity of the
 * session's projection (`valid_to` null), with the source event that made it. Consolidation's
 * own bookkeeping (candidates and reviews) are proposals about memories, not memories, and are
 * left out, so a merge candidate is never proposed for merging with its own sources.
 */
import { citationUri } from "../eventloom/citation.ts";
import type { EventRecord } from "../eventloom/envelope.ts";
import type { EntityRow } from "../projection/types.ts";
import { entityEmbeddingText } from "../vector/mod.ts";

/** Entity types that are never memories to merge. */
export const nonMemoryEntityTypes: ReadonlySet<string> = new Set(["consolidation_candidate", "consolidation_review"]);

/** The entity type whose current entities are the session's active goals (semantic alignment). */
export const goalEntityType = "goal";

export interface ConsolidationMemory {
  name: string;
  entityType: string;
  summary: string | null;
  /** The version's `valid_from`: its source event's timestamp. */
  validFrom: string;
  sourceEventSeq: number;
  sourceEventHash: string;
  /** `eventloom://<thread>/events/<seq>#<hash12>` of the source event. */
  citation: string;
}

/** The text the memory is embedded as: the vector index's entity text. */
export function memoryEmbeddingText(memory: ConsolidationMemory): string {
  return entityEmbeddingText(memory.name, memory.entityType, memory.summary);
}

function memoryOf(row: EntityRow, events: readonly EventRecord[], sessionId: string): ConsolidationMemory {
  const event = events[row.sourceEventSeq - 1];
  return {
    name: row.name,
    entityType: row.entityType,
    summary: row.summary,
    validFrom: row.validFrom,
    sourceEventSeq: row.sourceEventSeq,
    sourceEventHash: row.sourceEventHash,
    citation: citationUri(event?.thread ?? sessionId, row.sourceEventSeq, row.sourceEventHash),
  };
}

/**
 * The session's current memories, oldest first (source event seq, then projection order).
 * `events` is the verified log (for the citations' thread).
 */
export function currentMemories(rows: readonly EntityRow[], events: readonly EventRecord[], sessionId: string): ConsolidationMemory[] {
  return rows
    .filter((row) => row.validTo === null && !nonMemoryEntityTypes.has(row.entityType))
    .sort((x, y) => x.sourceEventSeq - y.sourceEventSeq || x.vectorKey - y.vectorKey)
    .map((row) => memoryOf(row, events, sessionId));
}

/** The most recent `maxMemories` of `memories` (oldest first, as given), in the same order. */
export function mostRecentMemories(memories: readonly ConsolidationMemory[], maxMemories: number): ConsolidationMemory[] {
  return memories.slice(Math.max(0, memories.length - maxMemories));
}

/** The session's active goals among its current memories. */
export function activeGoals(memories: readonly ConsolidationMemory[]): ConsolidationMemory[] {
  return memories.filter((memory) => memory.entityType === goalEntityType);
}
