/**
 * The similarity search's stand-in for usearch where its native addon cannot load (glibc older
 * than 2.34, no libstdc++: Debian 11, Ubuntu 20.04, RHEL 8, distroless/base, musl with gcompat).
 * It answers the same `add` / `searchBatch` calls over the same 32-d projected vectors, by
 * comparing each query with every vector: the k nearest by cosine distance, ties by key, so it
 * finds exactly what a perfect-recall index would (usearch's HNSW is approximate). O(n²·32):
 * ~10 ms for the default 100 memories, a few seconds at 10 000; the trigger says on stderr
 * which search ran.
 */
import { BatchMatches } from "../vector/usearchIndex.ts";

export class ExactNeighbourIndex {
  private vectors: Float32Array;
  private keys: number[] = [];

  constructor(private readonly dimensions: number) {
    this.vectors = new Float32Array(dimensions * 64);
  }

  /** Adds vectors (row-major, `dimensions` each) under `keys`, normalised for cosine. */
  add(keys: BigUint64Array, vectors: Float32Array): void {
    const dim = this.dimensions;
    const needed = (this.keys.length + keys.length) * dim;
    if (needed > this.vectors.length) {
      const grown = new Float32Array(Math.max(needed, this.vectors.length * 2));
      grown.set(this.vectors);
      this.vectors = grown;
    }
    for (let i = 0; i < keys.length; i++) {
      const at = this.keys.length * dim;
      let norm = 0;
      for (let d = 0; d < dim; d++) norm += vectors[i * dim + d] * vectors[i * dim + d];
      const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
      for (let d = 0; d < dim; d++) this.vectors[at + d] = vectors[i * dim + d] * scale;
      this.keys.push(Number(keys[i]));
    }
  }

  /** The `k` nearest stored vectors of each query (cosine distance ascending, then key). */
  searchBatch(queries: Float32Array, k: number, _threads?: number): BatchMatches {
    const dim = this.dimensions;
    const count = this.keys.length;
    const queryCount = queries.length / dim;
    const take = Math.min(k, count);
    const outKeys = new BigUint64Array(queryCount * k);
    const outDistances = new Float32Array(queryCount * k);
    const counts = new BigUint64Array(queryCount);
    const query = new Float64Array(dim);
    // The best `take` so far, sorted (distance, key) ascending: a candidate worse than the last
    // is rejected with one comparison, so a query costs about n dot products.
    const bestRows = new Int32Array(take);
    const bestDistances = new Float64Array(take);
    for (let q = 0; q < queryCount; q++) {
      let norm = 0;
      for (let d = 0; d < dim; d++) norm += queries[q * dim + d] * queries[q * dim + d];
      const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
      for (let d = 0; d < dim; d++) query[d] = queries[q * dim + d] * scale;
      let filled = 0;
      for (let row = 0; row < count; row++) {
        let dot = 0;
        const at = row * dim;
        for (let d = 0; d < dim; d++) dot += query[d] * this.vectors[at + d];
        const distance = 1 - dot;
        const key = this.keys[row];
        if (filled === take) {
          const last = take - 1;
          if (distance > bestDistances[last] || (distance === bestDistances[last] && key >= this.keys[bestRows[last]])) continue;
        } else {
          filled++;
        }
        let i = filled - 1;
        while (i > 0 && (bestDistances[i - 1] > distance || (bestDistances[i - 1] === distance && this.keys[bestRows[i - 1]] > key))) {
          bestDistances[i] = bestDistances[i - 1];
          bestRows[i] = bestRows[i - 1];
          i--;
        }
        bestDistances[i] = distance;
        bestRows[i] = row;
      }
      for (let i = 0; i < filled; i++) {
        outKeys[q * k + i] = BigInt(this.keys[bestRows[i]]);
        outDistances[q * k + i] = bestDistances[i];
      }
      counts[q] = BigInt(filled);
    }
    return new BatchMatches(outKeys, outDistances, counts, k);
  }
}
