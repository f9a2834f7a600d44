/**
 * `trigger_consolidation` (DESIGN §8): finds merge candidates among a session's memories without
 * merging anything. The answer is exactly
 * `{consolidation_result{status, candidate_count, action_required}, statistics{pairs_evaluated,
 * pairs_consolidated, strategy, similarity_threshold, max_memories_limit, fingerprints_analyzed,
 * memories_analyzed, pairs_compared}, candidates_sample[{source_ids, target_id, similarity,
 * combined_alignment, memories, alignments, alignment_difference}]}` (design 004;
 * docs/trigger-consolidation.md). `pairs_evaluated` is design 004's figure, n(n-1)/2 of the n
 * memories analysed: every pair is accounted for, either ruled out by the pre-filter (it cannot
 * qualify) or compared; `pairs_compared` is how many were compared against `min_similarity`.
 * `source_ids` are the memories' stable ids and `target_id` the id `merge_concepts` gives their
 * merged concept, so the design's follow-up `merge_concepts(source_ids)` works as written.
 *
 * Memories analysed: the `max_memories` most recent current memories (by source event seq).
 * Every strategy starts from the same pairs: those whose exact cosine passes the pre-filter
 * `min_similarity × 0.9`, found through a usearch index (`similarPairs`), never by comparing all
 * pairs. A pair below the pre-filter can never qualify (qualifying needs cosine ≥
 * `min_similarity`), so no strategy compares it. Then:
 * - similarity: every pre-filtered pair is compared;
 * - temporal: pre-filtered pairs whose `valid_from` are at most 24 h apart;
 * - semantic: pre-filtered pairs whose goal alignments are both ≥ 0.5.
 * A compared pair qualifies when its exact cosine ≥ `min_similarity` and its alignments differ
 * by at most 0.05. A memory's alignment is its highest exact cosine to any active goal (current
 * `goal` entity of the session), 0 when the session has none.
 *
 * Vectors: the hash embedding by default (seed 004's document, unchanged). With the `model`
 * embedding the caller passes the bundled model's vectors (`TriggerOptions.modelVectors`, made by
 * triggerModelVectors.ts): then both the pair cosines and the goal alignments are the model's
 * (a user choosing the model expects reworded duplicates to be found, not only aligned), every
 * pair is compared exactly (densePairs.ts), and the semantic strategy's alignment floor is
 * `modelSemanticAlignmentMin`. The document then carries an `embedding` receipt; it also does
 * when the caller names `hash` explicitly.
 *
 * @example
 * const outcome = await triggerConsolidation(currentMemories(rows, events, "default"), validateTriggerParameters({}));
 * outcome.document.consolidation_result.status; // "candidates_found" | "no_candidates"
 */
import type { ProgressSink } from "../progress.ts";
import { defaultEmbeddingDim } from "../vector/mod.ts";
import { activeGoals, type ConsolidationMemory, memoryEmbeddingText, memoryId, mergeTargetId, mostRecentMemories } from "./triggerMemories.ts";
import {
  alignmentDifferenceMax,
  prefilterFactor,
  semanticAlignmentMinFor,
  temporalWindowMs,
  type TriggerEmbedding,
  type TriggerParameters,
  type TriggerStrategy,
} from "./triggerParameters.ts";
import { SparseEmbeddings } from "./similarityEmbeddings.ts";
import { similarPairs, type SimilarPairsResult } from "./similarityPairs.ts";
import { denseMaxCosines, denseSimilarPairs } from "./densePairs.ts";
import type { TriggerModelVectors } from "./triggerModelVectors.ts";
import { timestampMicros } from "../eventloom/timestamp.ts";

/** Qualifying pairs shown in `candidates_sample` (the count covers all of them). */
export const candidatesSampleMax = 10;

export interface SampleMemory {
  /** The memory's stable id (`memoryId`), as `merge_concepts` accepts it. */
  id: string;
  name: string;
  entity_type: string;
  citation: string;
  source_event: { seq: number; hash: string };
  valid_from: string;
}

/** Design 004's four keys first (`source_ids`, `target_id`, `similarity`, `combined_alignment`), then the citations. */
export interface CandidateSample {
  /** The two memories' stable ids, older memory first (as `memories`). */
  source_ids: [string, string];
  /** The id `merge_concepts` gives the merged concept of these sources (`mergeTargetId`). */
  target_id: string;
  similarity: number;
  combined_alignment: number;
  memories: [SampleMemory, SampleMemory];
  alignments: [number, number];
  alignment_difference: number;
}

/**
 * Which vectors the trigger compared (present when the caller chose an embedding): enough to
 * reproduce the result from the same log. `alignment_min` is the semantic strategy's floor.
 */
export type TriggerEmbeddingReceipt =
  | { kind: "hash"; dim: number; alignment_min: number }
  | { kind: "model"; id: string; weights_sha256: string | null; dim: number; alignment_min: number };

export interface TriggerDocument {
  consolidation_result: { status: "candidates_found" | "no_candidates"; candidate_count: number; action_required: boolean };
  statistics: {
    /** Design 004: the pairs among the memories analysed, n(n-1)/2 (whatever the strategy). */
    pairs_evaluated: number;
    pairs_consolidated: number;
    strategy: TriggerStrategy;
    similarity_threshold: number;
    max_memories_limit: number;
    /** Design 004's name for the memories analysed. */
    fingerprints_analyzed: number;
    /** The same count under this binary's earlier name, kept for existing callers. */
    memories_analyzed: number;
    /** Pairs compared against `min_similarity`: those past the pre-filter and the strategy's rule. */
    pairs_compared: number;
  };
  embedding?: TriggerEmbeddingReceipt;
  candidates_sample: CandidateSample[];
}

/** A qualifying pair, older memory first. */
export interface TriggerCandidate {
  memories: [ConsolidationMemory, ConsolidationMemory];
  similarity: number;
  alignments: [number, number];
}

export interface TriggerPhaseTimingsMs {
  embedding: number;
  alignment: number;
  index_build: number;
  knn_search: number;
  exact_rescoring: number;
  pairing: number;
}

/**
 * Every qualifying pair, best first, held as row numbers into the analysed memories (20 bytes a
 * pair: a large session has hundreds of thousands); `at(i)` builds pair `i`'s `TriggerCandidate`.
 */
export class TriggerCandidateList implements Iterable<TriggerCandidate> {
  constructor(
    private readonly memories: readonly ConsolidationMemory[],
    private readonly rowsA: Uint32Array,
    private readonly rowsB: Uint32Array,
    private readonly similarities: Float64Array,
    private readonly alignments: Float64Array,
  ) {}

  get length(): number {
    return this.rowsA.length;
  }

  at(i: number): TriggerCandidate {
    const a = this.rowsA[i];
    const b = this.rowsB[i];
    return { memories: [this.memories[a], this.memories[b]], similarity: this.similarities[i], alignments: [this.alignments[a], this.alignments[b]] };
  }

  map<T>(each: (candidate: TriggerCandidate, index: number) => T): T[] {
    return Array.from({ length: this.length }, (_, i) => each(this.at(i), i));
  }

  *[Symbol.iterator](): Iterator<TriggerCandidate> {
    for (let i = 0; i < this.length; i++) yield this.at(i);
  }
}

export interface TriggerOutcome {
  document: TriggerDocument;
  /** Every qualifying pair, best first (the document shows the first ten). */
  candidates: TriggerCandidateList;
  timingsMs: TriggerPhaseTimingsMs;
  /** Pairs the index proposed and that were re-scored with the exact cosine. */
  candidatesRescored: number;
}

export interface TriggerOptions {
  /** Embedding dimension (default 1536, as the vector index). */
  dim?: number;
  /** Active goals; default the current `goal` memories among `memories` (all, not only the analysed window). */
  goals?: readonly ConsolidationMemory[];
  /** Where the stages are reported (the CLI draws them on a terminal). */
  progress?: ProgressSink;
  /** Told when the search cannot use usearch (its addon does not load here) and runs exactly. */
  warn?: (message: string) => void;
  /**
   * The model's vectors of the analysed memories (`mostRecentMemories(memories, max_memories)`,
   * in that order) and of `goals`; required when `parameters.embedding` is `model`.
   */
  modelVectors?: TriggerModelVectors;
}

/**
 * Σa³ / Σa² over a pair's (or group's) alignments: weighted towards the better-aligned member;
 * the plain mean when every alignment is 0.
 *
 * @example
 * combinedAlignment([0.6, 0.6]) // 0.6
 * combinedAlignment([0, 0]) // 0
 */
export function combinedAlignment(alignments: readonly number[]): number {
  let squares = 0;
  let cubes = 0;
  for (const a of alignments) {
    squares += a * a;
    cubes += a * a * a;
  }
  if (squares === 0) return alignments.reduce((sum, a) => sum + a, 0) / alignments.length;
  return cubes / squares;
}

/** Each memory's highest exact cosine to any goal (0 with no goals). */
export function goalAlignments(embeddings: SparseEmbeddings, goalEmbeddings: SparseEmbeddings): Float64Array {
  return embeddings.maxCosineWith(goalEmbeddings);
}

function round6(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

function sampleMemory(memory: ConsolidationMemory): SampleMemory {
  return {
    id: memoryId(memory),
    name: memory.name,
    entity_type: memory.entityType,
    citation: memory.citation,
    source_event: { seq: memory.sourceEventSeq, hash: memory.sourceEventHash },
    valid_from: memory.validFrom,
  };
}

export function candidateSample(candidate: TriggerCandidate): CandidateSample {
  const [a, b] = candidate.alignments;
  const memories: [SampleMemory, SampleMemory] = [sampleMemory(candidate.memories[0]), sampleMemory(candidate.memories[1])];
  const sourceIds: [string, string] = [memories[0].id, memories[1].id];
  return {
    source_ids: sourceIds,
    target_id: mergeTargetId(sourceIds),
    similarity: round6(candidate.similarity),
    combined_alignment: round6(combinedAlignment(candidate.alignments)),
    memories,
    alignments: [round6(a), round6(b)],
    alignment_difference: round6(Math.abs(a - b)),
  };
}

function strategyFilter(
  strategy: TriggerStrategy,
  memories: readonly ConsolidationMemory[],
  alignments: Float64Array,
  alignmentMin: number,
): (a: number, b: number) => boolean {
  switch (strategy) {
    case "similarity":
      return () => true;
    case "temporal": {
      const micros = memories.map((memory) => timestampMicros(memory.validFrom));
      return (a, b) => {
        const x = micros[a];
        const y = micros[b];
        return x !== null && y !== null && Math.abs(x - y) <= temporalWindowMs * 1000;
      };
    }
    case "semantic":
      return (a, b) => alignments[a] >= alignmentMin && alignments[b] >= alignmentMin;
  }
}

interface TriggerVectorsUsed {
  alignments: Float64Array;
  found: SimilarPairsResult;
  embeddingMs: number;
  alignmentMs: number;
}

/** Hash vectors, as seed 004 has them: pairs through the usearch index. */
async function hashVectors(
  analysed: readonly ConsolidationMemory[],
  goals: readonly ConsolidationMemory[],
  minCosine: number,
  dim: number,
  options: TriggerOptions,
): Promise<TriggerVectorsUsed> {
  let mark = performance.now();
  options.progress?.phase("embedding memories");
  const embeddings = SparseEmbeddings.embed(analysed.map(memoryEmbeddingText), dim);
  const embeddingMs = performance.now() - mark;
  mark = performance.now();
  const alignments = goalAlignments(embeddings, SparseEmbeddings.embed(goals.map(memoryEmbeddingText), dim));
  const alignmentMs = performance.now() - mark;
  const found = await similarPairs(embeddings, minCosine, options.progress, options.warn);
  return { alignments, found, embeddingMs, alignmentMs };
}

/** The model's vectors (already embedded by the caller): every pair compared exactly. */
function modelVectorsUsed(analysed: readonly ConsolidationMemory[], vectors: TriggerModelVectors, minCosine: number): TriggerVectorsUsed {
  if (vectors.memories.length !== analysed.length) {
    throw new RangeError(`modelVectors: ${vectors.memories.length} memory vectors for ${analysed.length} memories analysed`);
  }
  let mark = performance.now();
  const alignments = denseMaxCosines(vectors.memories, vectors.goals);
  const alignmentMs = performance.now() - mark;
  mark = performance.now();
  const pairs = denseSimilarPairs(vectors.memories, minCosine);
  const n = analysed.length;
  return {
    alignments,
    found: { pairs, candidatesRescored: (n * (n - 1)) / 2, neighbourQueries: 0, timingsMs: { index_build: 0, knn_search: 0, exact_rescoring: performance.now() - mark } },
    embeddingMs: 0,
    alignmentMs,
  };
}

function embeddingReceipt(embedding: TriggerEmbedding, dim: number, modelVectors: TriggerModelVectors | undefined): TriggerEmbeddingReceipt {
  const alignmentMin = semanticAlignmentMinFor(embedding);
  if (embedding === "hash" || modelVectors === undefined) return { kind: "hash", dim, alignment_min: alignmentMin };
  const receipt = modelVectors.receipt;
  return { kind: "model", id: receipt.id, weights_sha256: receipt.weights_sha256, dim: receipt.dim, alignment_min: alignmentMin };
}

/** Finds merge candidates among `memories` (the session's current memories, oldest first). */
export async function triggerConsolidation(
  memories: readonly ConsolidationMemory[],
  parameters: TriggerParameters,
  options: TriggerOptions = {},
): Promise<TriggerOutcome> {
  const dim = options.dim ?? defaultEmbeddingDim;
  const analysed = mostRecentMemories(memories, parameters.maxMemories);
  const goals = options.goals ?? activeGoals(memories);
  const embeddingKind = parameters.embedding ?? "hash";
  const minCosine = parameters.minSimilarity * prefilterFactor;
  const modelVectors = options.modelVectors;
  // A programmer error (the front doors embed first): the model's vectors cannot be made here.
  if (embeddingKind === "model" && modelVectors === undefined) throw new TypeError("triggerConsolidation: the model embedding needs options.modelVectors");
  const { alignments, found, embeddingMs, alignmentMs } = modelVectors !== undefined && embeddingKind === "model"
    ? modelVectorsUsed(analysed, modelVectors, minCosine)
    : await hashVectors(analysed, goals, minCosine, dim, options);
  options.progress?.phase("pairing candidates");
  const pairs = found.pairs;

  const mark = performance.now();
  const compared = strategyFilter(parameters.strategy, analysed, alignments, semanticAlignmentMinFor(embeddingKind));
  let pairsCompared = 0;
  // Qualifying pairs as indexes into `pairs` (ordered by a, then b), then sorted best first.
  const qualifying: number[] = [];
  for (let i = 0; i < pairs.length; i++) {
    const a = pairs.a(i);
    const b = pairs.b(i);
    if (!compared(a, b)) continue;
    pairsCompared++;
    if (pairs.cosine(i) >= parameters.minSimilarity && Math.abs(alignments[a] - alignments[b]) <= alignmentDifferenceMax) qualifying.push(i);
  }
  // Ties keep the pairs' (a, b) order: the last key makes the order total whatever the sort.
  const order = Uint32Array.from(qualifying).sort((x, y) =>
    pairs.cosine(y) - pairs.cosine(x) || analysed[pairs.a(x)].sourceEventSeq - analysed[pairs.a(y)].sourceEventSeq ||
    analysed[pairs.b(x)].sourceEventSeq - analysed[pairs.b(y)].sourceEventSeq || x - y
  );
  const candidates = new TriggerCandidateList(
    analysed,
    order.map((i) => pairs.a(i)),
    order.map((i) => pairs.b(i)),
    Float64Array.from(order, (i) => pairs.cosine(i)),
    alignments,
  );
  const pairing = performance.now() - mark;

  const document: TriggerDocument = {
    consolidation_result: {
      status: candidates.length > 0 ? "candidates_found" : "no_candidates",
      candidate_count: candidates.length,
      action_required: candidates.length > 0,
    },
    statistics: {
      pairs_evaluated: (analysed.length * (analysed.length - 1)) / 2,
      pairs_consolidated: candidates.length,
      strategy: parameters.strategy,
      similarity_threshold: parameters.minSimilarity,
      max_memories_limit: parameters.maxMemories,
      fingerprints_analyzed: analysed.length,
      memories_analyzed: analysed.length,
      pairs_compared: pairsCompared,
    },
    ...(parameters.embedding === undefined ? {} : { embedding: embeddingReceipt(parameters.embedding, dim, options.modelVectors) }),
    candidates_sample: Array.from({ length: Math.min(candidates.length, candidatesSampleMax) }, (_, i) => candidateSample(candidates.at(i))),
  };
  return {
    document,
    candidates,
    timingsMs: { embedding: embeddingMs, alignment: alignmentMs, ...found.timingsMs, pairing },
    candidatesRescored: found.candidatesRescored,
  };
}
