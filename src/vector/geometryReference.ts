/**
 * Straightforward TypeScript versions of the geometry functions (src/vector/geometry.ts), written
 * from the definitions rather than the fast forms: the medoid compares every pair (O(n²·d)), the
 * pairwise mean visits every pair, the exemplars recompute each minimum from scratch. The tests
 * compare the WebAssembly-backed functions with these, and `zaxy bench medoid` uses
 * `medoidIndexLinearTypeScript` as the plain-TypeScript O(n·d) baseline.
 *
 * Same conventions as geometry.ts: row-major f32 rows, cosine 0 (distance 1) with a zero vector,
 * f64 arithmetic, and scores within `geometryTieTolerance` are ties that go to the lowest index.
 *
 * @example
 * medoidIndexReference(new Float32Array([1, 0, 0.8, 0.6, 0, 1]), 3, 2) // 1
 */
import { geometryTieTolerance } from "./geometry.ts";

function row(vectors: Float32Array, i: number, dim: number): Float32Array {
  return vectors.subarray(i * dim, (i + 1) * dim);
}

function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let sum = 0;
  for (let d = 0; d < a.length; d++) sum += a[d] * b[d];
  return sum;
}

/** Python's `cosine`: 0 when either vector has norm 0. */
export function cosineReference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const normA = Math.sqrt(dot(a, a));
  const normB = Math.sqrt(dot(b, b));
  return normA === 0 || normB === 0 ? 0 : dot(a, b) / (normA * normB);
}

/** Lowest index whose value is within the tie tolerance of the smallest (skipping `skip`). */
function firstIndexOfMin(values: readonly number[], skip: ReadonlySet<number> = new Set()): number {
  let best = Infinity;
  values.forEach((value, i) => {
    if (!skip.has(i) && value < best) best = value;
  });
  return values.findIndex((value, i) => !skip.has(i) && value <= best + geometryTieTolerance);
}

export function centroidOfReference(vectors: Float32Array, count: number, dim: number): Float32Array {
  const centroid = new Float32Array(dim);
  for (let d = 0; d < dim; d++) {
    let sum = 0;
    for (let i = 0; i < count; i++) sum += vectors[i * dim + d];
    centroid[d] = count === 0 ? 0 : sum / count;
  }
  return centroid;
}

/** The mean cosine distance of row i to every other row, for every i (the medoid's objective). */
export function meanDistancesToOthersReference(vectors: Float32Array, count: number, dim: number): number[] {
  return Array.from({ length: count }, (_, i) => {
    // Sum over every j (self included, then removed) so identical rows get bit-identical sums.
    let similarity = 0;
    for (let j = 0; j < count; j++) similarity += cosineReference(row(vectors, i, dim), row(vectors, j, dim));
    similarity -= cosineReference(row(vectors, i, dim), row(vectors, i, dim));
    return 1 - similarity / (count - 1);
  });
}

/** The medoid by its definition, O(n²·d): argmin of the mean distance to the others. */
export function medoidIndexReference(vectors: Float32Array, count: number, dim: number): number {
  if (count <= 1) return count - 1;
  return firstIndexOfMin(meanDistancesToOthersReference(vectors, count, dim));
}

/**
 * The O(n·d) medoid (`argmax u_i · (S − u_i)`) in plain TypeScript, the baseline `zaxy bench
 * medoid` compares the WebAssembly kernel with.
 */
export function medoidIndexLinearTypeScript(vectors: Float32Array, count: number, dim: number): number {
  if (count <= 1) return count - 1;
  const norms = new Float64Array(count);
  const sum = new Float64Array(dim);
  for (let i = 0; i < count; i++) {
    const base = i * dim;
    let squares = 0;
    for (let d = 0; d < dim; d++) squares += vectors[base + d] * vectors[base + d];
    norms[i] = Math.sqrt(squares);
    if (norms[i] === 0) continue;
    const inverse = 1 / norms[i];
    for (let d = 0; d < dim; d++) sum[d] += vectors[base + d] * inverse;
  }
  const meanDistances: number[] = [];
  for (let i = 0; i < count; i++) {
    if (norms[i] === 0) {
      meanDistances.push(1);
      continue;
    }
    const base = i * dim;
    let product = 0;
    for (let d = 0; d < dim; d++) product += vectors[base + d] * sum[d];
    meanDistances.push(1 - (product / norms[i] - 1) / (count - 1));
  }
  return firstIndexOfMin(meanDistances);
}

/** Greedy max-min diversity, recomputing each candidate's minimum over the selection every round. */
export function farthestPointExemplarsReference(
  vectors: Float32Array,
  count: number,
  dim: number,
  k: number,
  firstIndex: number,
): number[] {
  if (k >= count) return Array.from({ length: count }, (_, i) => i);
  if (k === 0) return [];
  const selected = [firstIndex];
  while (selected.length < k) {
    const minDistances = Array.from({ length: count }, (_, i) =>
      Math.min(...selected.map((s) => 1 - cosineReference(row(vectors, i, dim), row(vectors, s, dim)))),
    );
    // Maximising the minimum distance = minimising its negation.
    selected.push(firstIndexOfMin(minDistances.map((m) => -m), new Set(selected)));
  }
  return selected;
}

export function meanPairwiseCosineDistanceReference(vectors: Float32Array, count: number, dim: number): number {
  if (count < 2) return 0;
  let sum = 0;
  for (let i = 0; i < count; i++) {
    for (let j = i + 1; j < count; j++) sum += 1 - cosineReference(row(vectors, i, dim), row(vectors, j, dim));
  }
  return sum / ((count * (count - 1)) / 2);
}

export function cosineDistancesToReference(vectors: Float32Array, count: number, dim: number, query: Float32Array): Float64Array {
  return Float64Array.from({ length: count }, (_, i) => 1 - cosineReference(row(vectors, i, dim), query));
}

export function meanDistanceToCentroidReference(vectors: Float32Array, count: number, dim: number): number {
  if (count === 0) return 0;
  const distances = cosineDistancesToReference(vectors, count, dim, centroidOfReference(vectors, count, dim));
  return distances.reduce((a, b) => a + b, 0) / count;
}
