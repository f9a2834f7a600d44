/**
 * Pairs of dense unit vectors (the bundled model's, src/semantic/) whose cosine is at least
 * `minCosine`, by comparing every pair exactly. The hash embedding's pairs go through a usearch
 * index (similarityPairs.ts) because a session may hold 100 000 memories; the model's vectors are
 * only made for the `max_memories` analysed (at most 10 000), and embedding them costs far more
 * than comparing them, so an exact pass is both simpler and never misses a pair.
 *
 * Cosines are the float32 vectors' dot products summed in float64, in dimension order, so the
 * same vectors give the same cosines on every run and runtime.
 *
 * @example
 * const pairs = denseSimilarPairs(vectors, 0.72);
 * pairs.length; pairs.a(0); pairs.b(0); pairs.cosine(0);
 */
import { SimilarPairList } from "./similarityPairs.ts";

/** The dot product of two vectors of one length (their cosine when both are unit vectors). */
export function denseDot(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i] * b[i];
  return dot;
}

/** Every pair `a < b` with `denseDot(vectors[a], vectors[b]) >= minCosine`, ordered by `a`, then `b`. */
export function denseSimilarPairs(vectors: readonly Float32Array[], minCosine: number): SimilarPairList {
  const count = vectors.length;
  const keys: number[] = [];
  const cosines: number[] = [];
  for (let a = 0; a < count; a++) {
    for (let b = a + 1; b < count; b++) {
      const cosine = denseDot(vectors[a], vectors[b]);
      if (cosine < minCosine) continue;
      keys.push(a * count + b);
      cosines.push(cosine);
    }
  }
  return new SimilarPairList(Float64Array.from(keys), Float64Array.from(cosines), count);
}

/** Each vector's highest dot product with any of `targets` (0 when there are none). */
export function denseMaxCosines(vectors: readonly Float32Array[], targets: readonly Float32Array[]): Float64Array {
  const out = new Float64Array(vectors.length);
  if (targets.length === 0) return out;
  for (let i = 0; i < vectors.length; i++) {
    let best = -Infinity;
    for (const target of targets) best = Math.max(best, denseDot(vectors[i], target));
    out[i] = best;
  }
  return out;
}
