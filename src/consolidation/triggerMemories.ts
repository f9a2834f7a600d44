/**
 * What `trigger_consolidation` and `merge_concepts` call a memory: a current entity of the
 * session's projection (`valid_to` null), with the source event that made it. Consolidation's
 * own bookkeeping (candidates and reviews) and feedback notes are about memories, not memories,
 * and are left out, so a merge candidate is never proposed for merging with its own sources.
 */
import { compareCodePoints } from "../canonical/mod.ts";
import { citationUri } from "../eventloom/root.ts";
import { sha256Hex } from "../platform/mod.ts";
import type { EventRecord } from "../eventloom/envelope.ts";
import type { EntityRow } from "../projection/types.ts";
import type { SessionIndex } from "../retrieval/sessionIndex.ts";
import { entityEmbeddingText } from "../vector/mod.ts";

/**
 * Entity types that are never memories to merge: consolidation's own bookkeeping, and the
 * per-event notes `memory_feedback` leaves about a memory (two `irrelevant` notes with the same
 * reason are near-identical, but they are feedback about a memory, not memories).
 */
export const nonMemoryEntityTypes: ReadonlySet<string> = new Set(["consolidation_candidate", "consolidation_review", "memory_feedback"]);

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

/** Hex characters of the SHA-256 kept in a memory id and a merge target id. */
export const memoryIdHexChars = 24;

/** A memory id as `merge_concepts` accepts it (and as `trigger_consolidation` reports it). */
export const memoryIdPattern = /^memory:[0-9a-f]{24}$/;

/**
 * A memory's stable id: `memory:` + 24 hex of SHA-256 over `entity_type \x1f name`. A memory is
 * an entity of its session, and an entity is its (type, name) through all its versions, so the
 * id does not change when the memory gets a new version, when the projection is rebuilt, or
 * between runs; it names the memory within the session the request is about.
 *
 * What must never change: this formula (merge targets are derived from it and are in logs).
 *
 * @example
 * memoryId({ entityType: "decision", name: "Use Kuzu" }) // "memory:<24 hex>"
 */
export function memoryId(memory: { entityType: string; name: string }): string {
  return `memory:${sha256Hex(`${memory.entityType}\x1f${memory.name}`).slice(0, memoryIdHexChars)}`;
}

/**
 * The id of the concept merging `sourceIds`: `memory:merged:` + 24 hex of SHA-256 over the
 * distinct source ids sorted by code point and joined by `\x1f`. The same sources, named in any
 * order, always give the same target; `trigger_consolidation` reports it as `target_id` and
 * `merge_concepts` gives it to the merged concept it proposes.
 *
 * @example
 * mergeTargetId([memoryId(b), memoryId(a)]) === mergeTargetId([memoryId(a), memoryId(b)]) // true
 */
export function mergeTargetId(sourceIds: readonly string[]): string {
  const sorted = [...new Set(sourceIds)].sort(compareCodePoints);
  return `memory:merged:${sha256Hex(sorted.join("\x1f")).slice(0, memoryIdHexChars)}`;
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
 * A current memory read from a session index: its citation (the source event's thread) is read
 * from the index when first asked for, which only the few memories a document shows are; a
 * session's memories are most of its entity versions, and reading every source event to cite
 * them all was most of the cost of listing them from an on-disk read model.
 */
class IndexedMemory implements ConsolidationMemory {
  readonly name: string;
  readonly entityType: string;
  readonly summary: string | null;
  readonly validFrom: string;
  readonly sourceEventSeq: number;
  readonly sourceEventHash: string;
  private cited: string | undefined;

  constructor(row: EntityRow, private readonly index: SessionIndex) {
    this.name = row.name;
    this.entityType = row.entityType;
    this.summary = row.summary;
    this.validFrom = row.validFrom;
    this.sourceEventSeq = row.sourceEventSeq;
    this.sourceEventHash = row.sourceEventHash;
  }

  get citation(): string {
    if (this.cited === undefined) {
      const position = this.sourceEventSeq - 1;
      const thread = position >= 0 && position < this.index.eventCount ? this.index.event(position).thread : this.index.sessionId;
      this.cited = citationUri(thread, this.sourceEventSeq, this.sourceEventHash);
    }
    return this.cited;
  }
}

/**
 * `currentMemories` of the session `index` holds at its head, read version by version (an
 * on-disk read model reads one entity row at a time; only the memories are kept). Citations are
 * read from the index when asked for, so the index must stay open while they are.
 */
export function indexedMemories(index: SessionIndex): ConsolidationMemory[] {
  const memories: IndexedMemory[] = [];
  const vectorKeys: number[] = [];
  for (let position = 0; position < index.entityCount; position++) {
    const row = index.entity(position);
    if (row.validTo !== null || nonMemoryEntityTypes.has(row.entityType)) continue;
    memories.push(new IndexedMemory(row, index));
    vectorKeys.push(row.vectorKey);
  }
  const order = Array.from(memories.keys()).sort((x, y) => memories[x].sourceEventSeq - memories[y].sourceEventSeq || vectorKeys[x] - vectorKeys[y]);
  return order.map((i) => memories[i]);
}

/**
 * What `trigger_consolidation` reads of the memories `indexedMemories(index)` lists: the
 * `maxMemories` most recent and every active goal (older ones included), in the same order, so
 * `mostRecentMemories` and `activeGoals` of the result equal theirs of the full list. A session of
 * a million events has hundreds of thousands of current memories; only the analysed ones and the
 * goals are built as memories, the rest are ranked from three numbers each.
 */
export function triggerMemories(index: SessionIndex, maxMemories: number): ConsolidationMemory[] {
  const positions: number[] = [];
  const seqs: number[] = [];
  const vectorKeys: number[] = [];
  const goals: boolean[] = [];
  for (let position = 0; position < index.entityCount; position++) {
    const row = index.entity(position);
    if (row.validTo !== null || nonMemoryEntityTypes.has(row.entityType)) continue;
    positions.push(position);
    seqs.push(row.sourceEventSeq);
    vectorKeys.push(row.vectorKey);
    goals.push(row.entityType === goalEntityType);
  }
  // indexedMemories' order (a stable sort by seq, then vector key): ties keep projection order.
  const order = Array.from(positions.keys()).sort((x, y) => seqs[x] - seqs[y] || vectorKeys[x] - vectorKeys[y] || x - y);
  const firstAnalysed = Math.max(0, order.length - maxMemories);
  return order
    .filter((i, rank) => rank >= firstAnalysed || goals[i])
    .map((i) => new IndexedMemory(index.entity(positions[i]), index));
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
