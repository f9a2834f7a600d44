/**
 * The vector lane (DESIGN §6): the entity versions whose hash embeddings have the highest cosine
 * with the query's, exactly, ordered by similarity descending then entity position ascending.
 *
 * The session's index holds the embeddings as postings by bucket (projection/vectorPostings.ts),
 * so only the versions that share a token bucket with the query are scored, and each score is
 * the dense dot product bit for bit: the same log gives the same answer however and whenever the
 * index was built, with no approximate candidate window to widen (the HNSW index this replaced
 * proposed 200 candidates and re-scored them, which could miss a version the graph stranded).
 *
 * @example
 * vectorLaneHits(index, "which editor does alice prefer", 50) // [{ position: 12, similarity: 0.61 }, ...]
 */
import { exactCosineTop } from "../projection/vectorPostings.ts";
import { hashEmbedMany } from "../vector/mod.ts";
import type { SessionIndex } from "./sessionIndex.ts";

export interface VectorHit {
  /** Entity position in the session index. */
  position: number;
  /** Exact cosine of the query and entity hash embeddings, > 0. */
  similarity: number;
}

/** The best `limit` entities by exact cosine, best first. */
export function vectorLaneHits(index: SessionIndex, query: string, limit: number): VectorHit[] {
  const vectors = index.vectors;
  if (vectors === null || vectors.count === 0 || limit <= 0) return [];
  const [embedding] = hashEmbedMany([query], vectors.dim);
  // A version's position is its vector key (writeReadModel.ts checks it); a key without a
  // position is not an entity of this index and is never offered.
  const hits = exactCosineTop(vectors.index, embedding, limit, (key) => index.positionOfVectorKey(key) !== undefined);
  return hits.map(({ key, similarity }) => ({ position: index.positionOfVectorKey(key)!, similarity }));
}
