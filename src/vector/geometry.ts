/**
 * Geometry of a set of embedding vectors (DESIGN §5, §9): centroid, medoid, farthest-point
 * exemplars, within-cluster spread and distances to a query, as compaction needs them.
 *
 * Vectors are one row-major `Float32Array` of `count × dim` values (rows beyond `count` are
 * ignored). Distances are cosine distances `1 − cos`; a zero vector has cosine 0 with everything
 * (distance 1), as in Python's `cosine`. Sums are accumulated in f64.
 *
 * Ties: two scores within `geometryTieTolerance` of each other are a tie, and ties go to the
 * lowest index (Python's `min`/`max` keep the first of equal keys). Without a tolerance, float
 * noise (different summation orders) would decide between mathematically equal candidates.
 *
 * @example
 * ```ts
 * const vectors = new Float32Array([1, 0, 0.8, 0.6, 0, 1]); // 3 vectors, dim 2
 * medoidIndex(vectors, 3, 2); // 1: closest on average to the other two
 * farthestPointExemplars(vectors, 3, 2, 2, 1); // [1, 2]
 * ```
 */

/** Scores closer than this (on the 0..2 cosine-distance scale) are ties; f32 inputs carry ~6e-8 relative error, summation noise is ~1e-13. */
export const geometryTieTolerance = 1e-9;

function checkShape(vectors: Float32Array, count: number, dim: number): void {
  if (!Number.isInteger(count) || count < 0) throw new RangeError(`count must be an integer >= 0, got ${count}`);
  if (!Number.isInteger(dim) || dim < 1) throw new RangeError(`dim must be an integer >= 1, got ${dim}`);
  if (vectors.length < count * dim) {
    throw new RangeError(`vectors holds ${vectors.length} values, fewer than count ${count} × dim ${dim}`);
  }
}

/** Euclidean norm of each row, in f64. */
function rowNorms(vectors: Float32Array, count: number, dim: number): Float64Array {
  const norms = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    let sum = 0;
    const base = i * dim;
    for (let d = 0; d < dim; d++) sum += vectors[base + d] * vectors[base + d];
    norms[i] = Math.sqrt(sum);
  }
  return norms;
}

/** Σ of the unit-normalised rows (zero rows add nothing), in f64. */
function sumOfUnitRows(vectors: Float32Array, count: number, dim: number, norms: Float64Array): Float64Array {
  const sum = new Float64Array(dim);
  for (let i = 0; i < count; i++) {
    if (norms[i] === 0) continue;
    const inv = 1 / norms[i];
    const base = i * dim;
    for (let d = 0; d < dim; d++) sum[d] += vectors[base + d] * inv;
  }
  return sum;
}

/** Lowest index whose score is within the tie tolerance of the highest (scores on a distance-like scale). */
export function firstIndexOfMax(scores: ArrayLike<number>, candidates?: ArrayLike<boolean>): number {
  let best = -Infinity;
  for (let i = 0; i < scores.length; i++) if ((candidates === undefined || candidates[i]) && scores[i] > best) best = scores[i];
  if (best === -Infinity) return -1;
  for (let i = 0; i < scores.length; i++) {
    if ((candidates === undefined || candidates[i]) && scores[i] >= best - geometryTieTolerance) return i;
  }
  return -1;
}

/**
 * The arithmetic mean of the rows (not normalised); a zero vector when `count` is 0.
 *
 * @example centroidOf(new Float32Array([1, 0, 0, 1]), 2, 2) // Float32Array [0.5, 0.5]
 */
export function centroidOf(vectors: Float32Array, count: number, dim: number): Float32Array {
  checkShape(vectors, count, dim);
  const sum = new Float64Array(dim);
  for (let i = 0; i < count; i++) {
    const base = i * dim;
    for (let d = 0; d < dim; d++) sum[d] += vectors[base + d];
  }
  const centroid = new Float32Array(dim);
  if (count > 0) for (let d = 0; d < dim; d++) centroid[d] = sum[d] / count;
  return centroid;
}

/**
 * The index of the row with the smallest mean cosine distance to all other rows; -1 when
 * `count` is 0, 0 when it is 1; ties go to the first index.
 *
 * O(n·d): with unit rows `u_i` and `S = Σ u_j`, `Σ_{j≠i} cos(v_i, v_j) = u_i · (S − u_i)`, so the
 * medoid is the argmax of `u_i · S − |u_i|²` (zero rows score 0, their cosines all being 0).
 *
 * @example medoidIndex(new Float32Array([1, 0, 0.8, 0.6, 0, 1]), 3, 2) // 1
 */
export function medoidIndex(vectors: Float32Array, count: number, dim: number): number {
  checkShape(vectors, count, dim);
  if (count <= 1) return count - 1;
  const norms = rowNorms(vectors, count, dim);
  const sum = sumOfUnitRows(vectors, count, dim, norms);
  const meanSimilarity = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    if (norms[i] === 0) continue;
    let dot = 0;
    const base = i * dim;
    for (let d = 0; d < dim; d++) dot += vectors[base + d] * sum[d];
    meanSimilarity[i] = (dot / norms[i] - 1) / (count - 1);
  }
  return firstIndexOfMax(meanSimilarity);
}

/**
 * Greedy max-min diversity: starts with `firstIndex` (callers pass the medoid) and repeatedly
 * adds the unselected row whose minimum cosine distance to the selected rows is largest (ties to
 * the lowest index), until `k` rows are selected. When `k >= count` every index is returned in
 * order 0..count-1 (Python keeps all events in log order). Result in selection order.
 *
 * @example farthestPointExemplars(new Float32Array([1, 0, 0.8, 0.6, 0, 1]), 3, 2, 2, 1) // [1, 2]
 */
export function farthestPointExemplars(
  vectors: Float32Array,
  count: number,
  dim: number,
  k: number,
  firstIndex: number,
): number[] {
  checkShape(vectors, count, dim);
  if (!Number.isInteger(k) || k < 0) throw new RangeError(`k must be an integer >= 0, got ${k}`);
  if (k >= count) return Array.from({ length: count }, (_, i) => i);
  if (k === 0) return [];
  if (!Number.isInteger(firstIndex) || firstIndex < 0 || firstIndex >= count) {
    throw new RangeError(`firstIndex must be an integer in 0..${count - 1}, got ${firstIndex}`);
  }
  const norms = rowNorms(vectors, count, dim);
  const minDistance = new Float64Array(count).fill(Infinity);
  const unselected = new Array<boolean>(count).fill(true);
  const selected = [firstIndex];
  let latest = firstIndex;
  while (true) {
    unselected[latest] = false;
    const latestBase = latest * dim;
    for (let i = 0; i < count; i++) {
      if (!unselected[i]) continue;
      let distance = 1;
      if (norms[i] !== 0 && norms[latest] !== 0) {
        let dot = 0;
        const base = i * dim;
        for (let d = 0; d < dim; d++) dot += vectors[base + d] * vectors[latestBase + d];
        distance = 1 - dot / (norms[i] * norms[latest]);
      }
      if (distance < minDistance[i]) minDistance[i] = distance;
    }
    if (selected.length === k) return selected;
    latest = firstIndexOfMax(minDistance, unselected);
    selected.push(latest);
  }
}

/**
 * Mean of `1 − cos` over all unordered pairs of rows; 0 when `count` < 2.
 * O(n·d): `Σ_{i<j} cos(v_i, v_j) = (|S|² − Σ|u_i|²) / 2` with unit rows `u_i` and `S = Σ u_i`.
 */
export function meanPairwiseCosineDistance(vectors: Float32Array, count: number, dim: number): number {
  checkShape(vectors, count, dim);
  if (count < 2) return 0;
  const norms = rowNorms(vectors, count, dim);
  const sum = sumOfUnitRows(vectors, count, dim, norms);
  let sumSquared = 0;
  for (let d = 0; d < dim; d++) sumSquared += sum[d] * sum[d];
  let nonzeroRows = 0;
  for (let i = 0; i < count; i++) if (norms[i] !== 0) nonzeroRows++;
  const pairs = (count * (count - 1)) / 2;
  return 1 - (sumSquared - nonzeroRows) / 2 / pairs;
}

/** `1 − cos(v_i, query)` for every row (1 where either vector is zero). */
export function cosineDistancesTo(vectors: Float32Array, count: number, dim: number, query: Float32Array): Float64Array {
  checkShape(vectors, count, dim);
  if (query.length !== dim) throw new RangeError(`query has ${query.length} values, expected dim ${dim}`);
  const distances = new Float64Array(count);
  let querySquared = 0;
  for (let d = 0; d < dim; d++) querySquared += query[d] * query[d];
  const queryNorm = Math.sqrt(querySquared);
  const norms = rowNorms(vectors, count, dim);
  for (let i = 0; i < count; i++) {
    if (norms[i] === 0 || queryNorm === 0) {
      distances[i] = 1;
      continue;
    }
    let dot = 0;
    const base = i * dim;
    for (let d = 0; d < dim; d++) dot += vectors[base + d] * query[d];
    distances[i] = 1 - dot / (norms[i] * queryNorm);
  }
  return distances;
}

/** Mean of `1 − cos(v_i, centroid)` over the rows: the within-cluster spread; 0 when `count` is 0. */
export function meanDistanceToCentroid(vectors: Float32Array, count: number, dim: number): number {
  checkShape(vectors, count, dim);
  if (count === 0) return 0;
  const distances = cosineDistancesTo(vectors, count, dim, centroidOf(vectors, count, dim));
  let sum = 0;
  for (let i = 0; i < count; i++) sum += distances[i];
  return sum / count;
}
