/**
 * `merge_concepts`: the follow-up to `trigger_consolidation` (DESIGN §8, design 004). It creates
 * the merged concept as a new record and changes nothing else: it appends one review-pending,
 * non-authoritative `claim` consolidation candidate — the merged concept, identified by
 * `target_id` — that cites the source event of every memory merged and lists their ids
 * (`source_ids`), and leaves those events (and the memories projected from them) exactly as
 * they were. Accepting the candidate later changes only its review status.
 *
 * - Memories are current entities of the session, given by stable id (`source_ids`, as
 *   `trigger_consolidation` reports them) or by `name` (plus `entity_type` when the name alone
 *   is ambiguous); at least two distinct ones in all.
 * - `target_id` is `mergeTargetId(source ids)`: what `trigger_consolidation` reported for the
 *   same sources.
 * - They are ordered by source event seq (then type, name), so the candidate id — which covers
 *   the title and the cited events — does not depend on the order they were named in.
 * - Confidence is the exact cosine of the two memories' embeddings (the similarity
 *   `trigger_consolidation` reports), or for three or more the lowest pairwise cosine, rounded
 *   to 6 decimals and floored at 0.
 * - Idempotent: when a candidate with the same candidate id, or a merge with the same
 *   `target_id` (the same sources, whatever the title), is already in the log, nothing is
 *   appended and the existing event is reported (`status: "already_exists"`).
 *
 * @example
 * await mergeConcepts(new MemoryService(".eventloom"), { sessionId: "default", sourceIds: sample.source_ids });
 * // { status: "created", candidate_id: "consolidation:claim:…", target_id: sample.target_id, events_appended: 1, … }
 */
import { inputError } from "../errors.ts";
import { citationUri, type SourceEventRef } from "../eventloom/root.ts";
import type { EventRecord } from "../eventloom/envelope.ts";
import { recordEvents } from "../recording/record.ts";
import type { SessionReader } from "../retrieval/readSession.ts";
import type { SessionIndex } from "../retrieval/sessionIndex.ts";
import { keywordTerms } from "../vector/textAnalysis.ts";
import { defaultEmbeddingDim } from "../vector/mod.ts";
import { candidateCreatedType } from "../events/consolidationEvents.ts";
import { candidateCreatedItem, consolidationCandidatePayload, requireText } from "./candidate.ts";
import { SparseEmbeddings } from "./similarityEmbeddings.ts";
import { type ConsolidationMemory, indexedMemories, memoryEmbeddingText, memoryId, memoryIdPattern, mergeTargetId } from "./triggerMemories.ts";

export const mergeMethod = "merge_concepts_similarity_v1";
export const defaultMergeActor = "zaxy-consolidation";
export const mergeCandidateType = "claim";
/** Memories one merge may name. */
export const mergeMemoriesMax = 50;

export interface MergeMemoryRef {
  name: string;
  entityType?: string;
}

export interface MergeInput {
  sessionId: string;
  /** Memories by name (and type); may be empty when `sourceIds` name them all. */
  memories?: readonly MergeMemoryRef[];
  /** Memories by stable id (`memoryId`), as `trigger_consolidation` reports them in `source_ids`. */
  sourceIds?: readonly string[];
  title?: string;
  summary?: string;
  actor?: string;
}

export interface MergeMemoryView {
  id: string;
  name: string;
  entity_type: string;
  citation: string;
  source_event: { seq: number; hash: string };
}

export interface MergeResult {
  session_id: string;
  status: "created" | "already_exists";
  candidate_id: string;
  /** The merged concept's id: the same for the same sources (`mergeTargetId`). */
  target_id: string;
  /** The merged memories' stable ids, in `memories` order. */
  source_ids: string[];
  candidate_type: typeof mergeCandidateType;
  /** The `consolidation.candidate.created` event: the one appended, or the one already there. */
  candidate_event: { seq: number; hash: string; citation: string };
  events_appended: number;
  title: string;
  summary: string;
  confidence: number;
  method: string;
  memories: MergeMemoryView[];
  source_events: SourceEventRef[];
  /** Exact cosine of every pair of the memories, in the order they are listed. */
  pairwise_similarity: Array<{ memories: [number, number]; similarity: number }>;
}

function label(memory: { name: string; entityType: string }): string {
  return `${memory.name} (${memory.entityType})`;
}

function refLabel(ref: MergeMemoryRef): string {
  return ref.entityType === undefined ? JSON.stringify(ref.name) : `${JSON.stringify(ref.name)} of type ${JSON.stringify(ref.entityType)}`;
}

/** Checks the request's shape before anything is read. */
function validateRefs(refs: readonly MergeMemoryRef[], sourceIds: readonly string[]): void {
  const total = refs.length + sourceIds.length;
  if (total < 2 || total > mergeMemoriesMax) {
    throw inputError("invalid_memories", `memories and source_ids must name 2..${mergeMemoriesMax} memories in all (got ${total})`, {
      field: "memories",
      expected: `2..${mergeMemoriesMax} memories, by name or by id`,
    });
  }
  refs.forEach((ref, i) => {
    requireText(ref.name, `memories[${i}].name`, "invalid_memories");
    if (ref.entityType !== undefined) requireText(ref.entityType, `memories[${i}].entity_type`, "invalid_memories");
  });
  sourceIds.forEach((id, i) => {
    if (typeof id !== "string" || !memoryIdPattern.test(id)) {
      throw inputError("invalid_source_id", `source_ids[${i}] ${JSON.stringify(id)} is not a memory id`, {
        field: `source_ids[${i}]`,
        expected: "memory:<24 lowercase hex>, as trigger_consolidation reports in source_ids",
        actual: String(id),
      });
    }
  });
}

function resolveId(id: string, memories: readonly ConsolidationMemory[], sessionId: string): ConsolidationMemory {
  const match = memories.find((m) => memoryId(m) === id);
  if (match === undefined) {
    throw inputError("unknown_memory", `Cannot merge memory ${id}: session ${JSON.stringify(sessionId)} has no current memory with that id`, {
      field: "source_ids",
      expected: "the id of a current entity of the session",
      actual: id,
      hint: "zaxy memory consolidation trigger lists candidate pairs with their source_ids.",
    });
  }
  return match;
}

function resolve(ref: MergeMemoryRef, memories: readonly ConsolidationMemory[], sessionId: string): ConsolidationMemory {
  const matches = memories.filter((m) => m.name === ref.name && (ref.entityType === undefined || m.entityType === ref.entityType));
  if (matches.length === 0) {
    throw inputError("unknown_memory", `Cannot merge memory ${refLabel(ref)}: session ${JSON.stringify(sessionId)} has no current memory of that name`, {
      field: "memories",
      expected: "the name (and entity type) of a current entity of the session",
      actual: ref.name,
      hint: "zaxy memory consolidation trigger lists candidate pairs with their names and entity types.",
    });
  }
  if (matches.length > 1) {
    const types = matches.map((m) => m.entityType).sort();
    throw inputError("ambiguous_memory", `Memory ${JSON.stringify(ref.name)} is ambiguous: it names current entities of types ${types.join(", ")}`, {
      field: "memories",
      expected: `an entity type, one of: ${types.join(", ")}`,
      hint: "Give the entity type (NAME@TYPE or --entity-type on the CLI, entity_type in MCP).",
    });
  }
  return matches[0];
}

/**
 * The merge already in the log: the first `consolidation.candidate.created` event, in log
 * order, whose `candidate_id` is `candidateId` or whose `target_id` is `targetId`. An event with
 * either id in its payload has the id's hex run among its verbatim terms (rawEventText indexes every payload string), so the
 * verbatim index's postings of those two terms name every event that can match, and only they
 * are read: a fresh process does not parse the whole log to find an earlier merge.
 */
function existingCandidate(index: SessionIndex, candidateId: string, targetId: string): EventRecord | undefined {
  const positions = new Set<number>();
  for (const id of [candidateId, targetId]) {
    // Both ids end in a run of hex characters (16 or 24): the rarest of their terms.
    const term = keywordTerms(id).at(-1);
    if (term === undefined) continue;
    for (const hit of index.verbatimSearch([term], index.eventCount)) positions.add(hit.docId);
  }
  for (const position of [...positions].sort((a, b) => a - b)) {
    const event = index.event(position);
    if (event.type === candidateCreatedType && (event.payload.get("candidate_id") === candidateId || event.payload.get("target_id") === targetId)) return event;
  }
  return undefined;
}

function pairwise(memories: readonly ConsolidationMemory[], dim: number): Array<{ memories: [number, number]; similarity: number }> {
  const embeddings = SparseEmbeddings.embed(memories.map(memoryEmbeddingText), dim);
  const out: Array<{ memories: [number, number]; similarity: number }> = [];
  for (let a = 0; a < memories.length; a++) {
    for (let b = a + 1; b < memories.length; b++) out.push({ memories: [a, b], similarity: Math.round(embeddings.cosine(a, b) * 1e6) / 1e6 });
  }
  return out;
}

/** Appends (at most) one pending `claim` candidate citing the named memories' source events. */
export async function mergeConcepts(reader: SessionReader, input: MergeInput): Promise<MergeResult> {
  const refs = input.memories ?? [];
  const ids = input.sourceIds ?? [];
  validateRefs(refs, ids);
  const actor = input.actor === undefined ? defaultMergeActor : requireText(input.actor, "actor", "invalid_memories");
  if (input.title !== undefined) requireText(input.title, "title", "invalid_memories");
  if (input.summary !== undefined) requireText(input.summary, "summary", "invalid_memories");

  // The memories and any earlier candidate are read from the session's index (the read model in
  // a fresh process); the candidate is appended after the read.
  const prepared = await reader.withReadSession(input.sessionId, ({ index }) => {
    const session = { memories: indexedMemories(index), dim: index.vectors?.dim ?? defaultEmbeddingDim };
    const byKey = new Map<string, ConsolidationMemory>();
    const named = [...refs.map((ref) => resolve(ref, session.memories, input.sessionId)), ...ids.map((id) => resolveId(id, session.memories, input.sessionId))];
    for (const memory of named) byKey.set(`${memory.entityType}\x1f${memory.name}`, memory);
    const memories = [...byKey.values()].sort((x, y) =>
      x.sourceEventSeq - y.sourceEventSeq || (x.entityType < y.entityType ? -1 : x.entityType > y.entityType ? 1 : x.name < y.name ? -1 : x.name > y.name ? 1 : 0)
    );
    if (memories.length < 2) {
      throw inputError("invalid_memories", `A merge needs at least 2 distinct memories; all ${named.length} named resolve to ${label(memories[0])}`, {
        field: "memories",
        expected: "at least 2 distinct current memories",
      });
    }

    const similarities = pairwise(memories, session.dim);
    const confidence = Math.max(0, Math.min(...similarities.map((pair) => pair.similarity)));
    const sourceEvents: SourceEventRef[] = [];
    for (const memory of memories) {
      if (!sourceEvents.some((ref) => ref.seq === memory.sourceEventSeq)) sourceEvents.push({ seq: memory.sourceEventSeq, hash: memory.sourceEventHash });
    }
    const labels = memories.map(label);
    const title = input.title ?? `Merge ${labels.join(" + ")}`;
    const summary = input.summary ??
      `Proposed merge of ${labels.join(", ")} (cosine similarity ${confidence}). The source memories stay unchanged; review before relying on it.`;
    const sourceIds = memories.map(memoryId);
    const targetId = mergeTargetId(sourceIds);
    const payload = consolidationCandidatePayload({ candidateType: mergeCandidateType, title, summary, sourceEvents, confidence, method: mergeMethod });
    // Not part of the candidate id (Python's rule); they name the merged concept and its sources.
    payload.target_id = targetId;
    payload.source_ids = sourceIds;
    const candidateId = payload.candidate_id as string;

    const view: Omit<MergeResult, "status" | "candidate_event" | "events_appended"> = {
      session_id: input.sessionId,
      candidate_id: candidateId,
      target_id: targetId,
      source_ids: sourceIds,
      candidate_type: mergeCandidateType,
      title,
      summary,
      confidence,
      method: mergeMethod,
      memories: memories.map((m) => ({
        id: memoryId(m),
        name: m.name,
        entity_type: m.entityType,
        citation: m.citation,
        source_event: { seq: m.sourceEventSeq, hash: m.sourceEventHash },
      })),
      source_events: sourceEvents,
      pairwise_similarity: similarities,
    };
    const existing = existingCandidate(index, candidateId, targetId);
    if (existing !== undefined) {
      const existingId = existing.payload.get("candidate_id");
      const result: MergeResult = {
        ...view,
        // A merge of the same sources under another title is the candidate already there.
        candidate_id: typeof existingId === "string" ? existingId : candidateId,
        status: "already_exists",
        candidate_event: { seq: existing.seq, hash: existing.hash, citation: citationUri(existing.thread, existing.seq, existing.hash) },
        events_appended: 0,
      };
      return { kind: "exists" as const, result };
    }
    return { kind: "new" as const, view, payload };
  });
  if (prepared.kind === "exists") return prepared.result;
  const { view, payload } = prepared;
  const { events, generated } = await recordEvents(reader.root, input.sessionId, [candidateCreatedItem(actor, payload)]);
  const created = events[0];
  return {
    ...view,
    status: "created",
    candidate_event: { seq: created.seq, hash: created.hash, citation: created.citation },
    events_appended: events.length + generated.length,
  };
}
