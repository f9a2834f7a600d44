/**
 * A session's vector index at the log head while the index on disk is at an earlier head: the
 * base index (memory-mapped usearch) searched as it is, plus the versions the tail added, each
 * embedded as the projection embeds it (`entityEmbeddingText` of name, type and summary — a
 * version's text never changes, closing it only sets `validTo`) under its key (= its position),
 * searched exhaustively. Nothing is written: the log is the delta, and the next full catch-up
 * appends the same vectors to the file.
 *
 * What a search returns: the `k` nearest of the base's own answer for `k` and every tail version,
 * merged by cosine distance (ties: lower key first). A tail version is therefore never missed,
 * and where the base's answer is its exact `k` nearest (HNSW is exact on small indexes) the merge
 * is the exact `k` nearest of all versions. It is not bit-for-bit the answer of one usearch index
 * over all versions: the base's distances are usearch's over i8-quantised vectors, the tail's are
 * exact, and a graph that holds the tail versions would visit other nodes. The vector lane does
 * not depend on that: it re-scores every candidate with the exact cosine and widens the window on
 * ties (retrieval/vectorLane.ts), so its hits equal the full path's whenever the true best hits
 * are within the window, as with one index (tests/scaling/tail_overlay_test.ts). Where they
 * differ, one index's graph missed a closer version the overlay found (at 10k events plus a
 * 500-event tail, 4 of 50 sampled queries: each time the overlay's extra hit had the higher exact
 * cosine).
 *
 * @example
 * const vectors = tailOverlayVectors(base.vectors, diff.newEntities);
 * vectors.index.search(queryVector, 200, 1); // base candidates and tail versions, nearest first
 */
import type { SessionVectorIndex, VectorNeighbourSearch } from "../projection/vectorIndex.ts";
import type { EntityRow } from "../projection/types.ts";
import { entityEmbeddingText, hashEmbedMany, type Matches } from "../vector/mod.ts";

/** The base index's search followed by an exhaustive pass over the tail's vectors, merged by distance. */
class TailOverlayVectorSearch implements VectorNeighbourSearch {
  constructor(
    private readonly base: VectorNeighbourSearch,
    private readonly tailKeys: readonly number[],
    /** The tail's embeddings, unit length or zero. */
    private readonly tailVectors: readonly Float64Array[],
  ) {}

  size(): number {
    return this.base.size() + this.tailKeys.length;
  }

  search(query: Float32Array, k: number, threads: number): Matches {
    const baseSize = this.base.size();
    const base = baseSize > 0 ? this.base.search(query, k, threads) : { keys: new BigUint64Array(0), distances: new Float32Array(0) };
    let queryNorm = 0;
    for (let i = 0; i < query.length; i++) queryNorm += query[i] * query[i];
    queryNorm = Math.sqrt(queryNorm);
    const candidates: Array<{ key: number; distance: number }> = [];
    for (let i = 0; i < base.keys.length; i++) candidates.push({ key: Number(base.keys[i]), distance: base.distances[i] });
    this.tailKeys.forEach((key, i) => {
      const vector = this.tailVectors[i];
      let dot = 0;
      for (let d = 0; d < vector.length; d++) dot += query[d] * vector[d];
      // Cosine distance as usearch reports it (f32); a zero vector is orthogonal to everything.
      const cosine = queryNorm === 0 ? 0 : dot / queryNorm;
      candidates.push({ key, distance: Math.fround(1 - cosine) });
    });
    candidates.sort((a, b) => a.distance - b.distance || a.key - b.key);
    const kept = candidates.slice(0, Math.max(0, k));
    return {
      keys: BigUint64Array.from(kept, (candidate) => BigInt(candidate.key)),
      distances: Float32Array.from(kept, (candidate) => candidate.distance),
    };
  }
}

/**
 * The base index extended by the tail's new versions (`newEntities` of the tail's GraphDiff, in
 * order; their vector keys follow the base's). Same dimension, path and action as the base.
 */
export function tailOverlayVectors(base: SessionVectorIndex, newEntities: readonly EntityRow[]): SessionVectorIndex {
  newEntities.forEach((row, i) => {
    if (row.vectorKey !== base.count + i) throw new RangeError(`tail version ${i} has vector key ${row.vectorKey}, expected ${base.count + i} after the base's ${base.count} vectors`);
  });
  const vectors = hashEmbedMany(newEntities.map((row) => entityEmbeddingText(row.name, row.entityType, row.summary)), base.dim).map(unitOrZero);
  return {
    index: new TailOverlayVectorSearch(base.index, newEntities.map((row) => row.vectorKey), vectors),
    count: base.count + newEntities.length,
    dim: base.dim,
    path: base.path,
    action: base.action,
  };
}

function unitOrZero(vector: Float64Array): Float64Array {
  let norm = 0;
  for (let i = 0; i < vector.length; i++) norm += vector[i] * vector[i];
  if (norm === 0) return vector;
  const scale = 1 / Math.sqrt(norm);
  return vector.map((value) => value * scale);
}
