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
 * descending, then entity position ascending), so neither graph shape nor ties decide the result.
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

/** The best `limit` entities by exact cosine among the index's candidates, best first. */
export function vectorLaneHits(index: SessionIndex, query: string, limit: number): VectorHit[] {
  const vectors = index.vectors;
  if (vectors === null || vectors.count === 0 || limit <= 0) return [];
  const [embedding] = hashEmbedMany([query], vectors.dim);
  // Single-threaded search: its result then depends only on the graph and the query.
  const matches = vectors.index.search(Float32Array.from(embedding), Math.min(vectorCandidatesMax, vectors.count), 1);
  const positions = new Set<number>();
  for (const key of matches.keys) {
    const position = index.byVectorKey.get(Number(key));
    if (position !== undefined) positions.add(position);
  }
  const candidates = [...positions];
  const entityVectors = hashEmbedMany(
    candidates.map((position) => {
      const entity = index.entities[position];
      return entityEmbeddingText(entity.name, entity.entityType, entity.summary);
    }),
    vectors.dim,
  );
  const hits: VectorHit[] = [];
  candidates.forEach((position, i) => {
    const similarity = dot(embedding, entityVectors[i]);
    if (similarity > 0) hits.push({ position, similarity });
  });
  hits.sort((a, b) => b.similarity - a.similarity || a.position - b.position);
  return hits.slice(0, limit);
}
