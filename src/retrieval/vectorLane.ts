/**
 * The vector lane (DESIGN §6): the session's usearch index proposes candidates, and each
 * candidate is re-scored with the exact cosine of its hash embedding, so the same log gives the
 * same answer however the index was built.
 *
 * Why re-score: the HNSW graph is approximate and stores i8 vectors, so the distances it returns
 * depend on the graph (which a catch-up that appends builds differently from a rebuild) and carry
 * quantisation noise; near-duplicates that differ by one identifier then swap places between
 * two rebuilds of the same log. The index is asked for `vectorCandidatesMax` neighbours, far more
 * than the lane keeps, and the exact similarities are ordered with a total order (similarity
 * descending, then entity position ascending), so neither graph shape nor ties decide the result;
 * when ties reach the edge of the candidate window, the window is widened (`vectorLaneHits`).
 *
 * @example
 * vectorLaneHits(index, "which editor does alice prefer", 50) // [{ position: 12, similarity: 0.61 }, ...]
 */
import { entityEmbeddingText, hashEmbedMany } from "../vector/mod.ts";
import type { SessionIndex } from "./sessionIndex.ts";

/**
 * Neighbours asked of the HNSW index before exact re-scoring: 4x the 50 a lane keeps, so a
 * candidate the approximate graph ranks a little too low still reaches the exact ordering.
 */
export const vectorCandidatesMax = 200;

/** Candidates embedded per kernel call while re-scoring (dense output: rows x dim x 8 bytes). */
const rescoreBatchRows = 1024;

export interface VectorHit {
  /** Entity position in the session index. */
  position: number;
  /** Exact cosine of the query and entity hash embeddings, > 0. */
  similarity: number;
}

function dot(a: Float64Array, b: Float64Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum;
}

function rescore(index: SessionIndex, embedding: Float64Array, dim: number, candidates: readonly number[]): { hits: VectorHit[]; lowest: number } {
  const hits: VectorHit[] = [];
  let lowest = Infinity;
  // The kernel returns dense vectors: embed a bounded batch at a time, not a widened window at once.
  for (let start = 0; start < candidates.length; start += rescoreBatchRows) {
    const batch = candidates.slice(start, start + rescoreBatchRows);
    const entityVectors = hashEmbedMany(
      batch.map((position) => {
        const entity = index.entity(position);
        return entityEmbeddingText(entity.name, entity.entityType, entity.summary);
      }),
      dim,
    );
    batch.forEach((position, i) => {
      const similarity = dot(embedding, entityVectors[i]);
      lowest = Math.min(lowest, similarity);
      if (similarity > 0) hits.push({ position, similarity });
    });
  }
  hits.sort((a, b) => b.similarity - a.similarity || a.position - b.position);
  return { hits, lowest };
}

function positionsOf(index: SessionIndex, keys: BigUint64Array): number[] {
  const positions = new Set<number>();
  for (const key of keys) {
    const position = index.positionOfVectorKey(Number(key));
    if (position !== undefined) positions.add(position);
  }
  return [...positions];
}

/**
 * The best `limit` entities by exact cosine, best first. The index proposes a window of
 * candidates; when the window's worst candidate still ties the cut (hash embeddings of texts with
 * the same token counts give many exactly equal similarities), entities outside the window could
 * tie too, and which of them the graph happened to return would decide the result, so the window
 * is widened (x4). The index may also return fewer than asked (HNSW can strand near-duplicates).
 * In either case, once the window would cover every vector, every entity is scored instead.
 */
export function vectorLaneHits(index: SessionIndex, query: string, limit: number): VectorHit[] {
  const vectors = index.vectors;
  if (vectors === null || vectors.count === 0 || limit <= 0) return [];
  const [embedding] = hashEmbedMany([query], vectors.dim);
  const queryVector = Float32Array.from(embedding);
  let windowSize = Math.min(vectorCandidatesMax, vectors.count);
  while (windowSize < vectors.count) {
    // Single-threaded search: its result then depends only on the graph and the query.
    const matches = vectors.index.search(queryVector, windowSize, 1);
    const { hits, lowest } = rescore(index, embedding, vectors.dim, positionsOf(index, matches.keys));
    const windowFull = matches.keys.length >= windowSize;
    const cutMayTie = hits.length >= limit && lowest >= hits[limit - 1].similarity;
    if (windowFull && !cutMayTie) return hits.slice(0, limit);
    windowSize *= 4;
  }
  const everyEntity = Array.from({ length: index.entityCount }, (_, position) => position);
  return rescore(index, embedding, vectors.dim, everyEntity).hits.slice(0, limit);
}
