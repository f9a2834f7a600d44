/**
 * Geometry of a set of embedding vectors (DESIGN §5, §9): centroid, medoid, farthest-point
 * exemplars, within-cluster spread and distances to a query, as compaction needs them. The
 * per-row passes run in the WebAssembly kernel (wasm/geometry.ts, SIMD); this module owns its
 * memory layout and is its only caller. src/vector/geometryReference.ts has the same functions
 * written from the definitions, which the tests compare these with.
 *
 * Vectors are one row-major `Float32Array` of `count × dim` values (rows beyond `count` are
 * ignored). Distances are cosine distances `1 − cos`; a zero vector has cosine 0 with everything
 * (distance 1), as in Python's `cosine`. Products are exact and sums accumulate in f64.
 *
 * Ties: two scores within `geometryTieTolerance` of each other are a tie, and ties go to the
 * lowest index (Python's `min`/`max` keep the first of equal keys). Without a tolerance, float
 * noise (different summation orders) would decide between mathematically equal candidates.
 *
 * Each call copies the rows into the kernel's memory once (growing it as needed; 100,000 × 1536
 * rows take 614 MB) and allocates nothing in its loops.
 *
 * @example
 * ```ts
 * const vectors = new Float32Array([1, 0, 0.8, 0.6, 0, 1]); // 3 vectors, dim 2
 * medoidIndex(vectors, 3, 2); // 1: closest on average to the other two
 * farthestPointExemplars(vectors, 3, 2, 2, 1); // [1, 2]
 * ```
 */
import { geometryWasmBase64 } from "../generated/geometryWasm.ts";
import { instantiateWasmKernel } from "../platform/mod.ts";

/** Scores closer than this (on the 0..2 cosine-distance scale) are ties; f32 inputs carry ~6e-8 relative error, summation noise is ~1e-13. */
export const geometryTieTolerance = 1e-9;

/** Rows of the O(n²·d) baseline processed per kernel call: 64 rows of dim 1536 (384 KiB) stay in a 512 KiB L2. */
const allPairsTileRows = 64;

interface GeometryKernelExports {
  memory: WebAssembly.Memory;
  heapBase(): number;
  rowNorms(rows: number, count: number, dim: number, norms: number): void;
  unitRowSum(rows: number, count: number, dim: number, norms: number, sum: number): void;
  rowSum(rows: number, count: number, dim: number, sum: number): void;
  dotsWith(rows: number, count: number, dim: number, vec: number, dots: number): void;
  dotsAndNorms(rows: number, count: number, dim: number, vec: number, dots: number, norms: number): void;
  updateMinDistances(
    rows: number, count: number, dim: number, norms: number, latest: number, minDistances: number, latestF64: number,
  ): void;
  pairwiseCosineRowSumsTile(
    rows: number, count: number, dim: number, inverseNorms: number, rowSums: number, iStart: number, iEnd: number,
  ): void;
}

const pageBytes = 65536;
let kernel: GeometryKernelExports | undefined;

function instance(): GeometryKernelExports {
  kernel ??= instantiateWasmKernel<GeometryKernelExports>("geometry", geometryWasmBase64);
  return kernel;
}

/**
 * Per-call layout of kernel memory: the rows first, then f64 arrays, each 16-byte aligned.
 * `reserve` hands out offsets; `commit` grows the memory once; views are made after it, because
 * growing detaches the old buffer.
 */
class KernelArena {
  readonly k = instance();
  private end = align16(this.k.heapBase());

  reserve(bytes: number): number {
    const ptr = this.end;
    this.end = align16(ptr + bytes);
    return ptr;
  }

  commit(): void {
    const have = this.k.memory.buffer.byteLength;
    if (this.end > have) this.k.memory.grow(Math.ceil((this.end - have) / pageBytes));
  }

  f64(ptr: number, length: number): Float64Array {
    return new Float64Array(this.k.memory.buffer, ptr, length);
  }
}

function align16(n: number): number {
  return Math.ceil(n / 16) * 16;
}

/** Reserves room for the rows; `copyRows` fills it after `commit`. */
function reserveRows(arena: KernelArena, count: number, dim: number): number {
  return arena.reserve(count * dim * 4);
}

function copyRows(arena: KernelArena, ptr: number, vectors: Float32Array, count: number, dim: number): void {
  new Float32Array(arena.k.memory.buffer, ptr, count * dim).set(vectors.subarray(0, count * dim));
}

function checkShape(vectors: Float32Array, count: number, dim: number): void {
  if (!Number.isInteger(count) || count < 0) throw new RangeError(`count must be an integer >= 0, got ${count}`);
  if (!Number.isInteger(dim) || dim < 1) throw new RangeError(`dim must be an integer >= 1, got ${dim}`);
  if (vectors.length < count * dim) {
    throw new RangeError(`vectors holds ${vectors.length} values, fewer than count ${count} × dim ${dim}`);
  }
}

/**
 * Lowest index whose score is within `geometryTieTolerance` of the highest, considering only
 * indexes where `eligible` is true (all when omitted); -1 when none is eligible.
 */
export function firstIndexOfMax(scores: ArrayLike<number>, eligible?: ArrayLike<boolean>): number {
  let best = -Infinity;
  for (let i = 0; i < scores.length; i++) if ((eligible === undefined || eligible[i]) && scores[i] > best) best = scores[i];
  if (best === -Infinity) return -1;
  for (let i = 0; i < scores.length; i++) {
    if ((eligible === undefined || eligible[i]) && scores[i] >= best - geometryTieTolerance) return i;
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
  const centroid = new Float32Array(dim);
  if (count === 0) return centroid;
  const arena = new KernelArena();
  const rows = reserveRows(arena, count, dim);
  const sum = arena.reserve(dim * 8);
  arena.commit();
  copyRows(arena, rows, vectors, count, dim);
  arena.k.rowSum(rows, count, dim, sum);
  const sums = arena.f64(sum, dim);
  for (let d = 0; d < dim; d++) centroid[d] = sums[d] / count;
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
  const arena = new KernelArena();
  const rows = reserveRows(arena, count, dim);
  const norms = arena.reserve(count * 8);
  const sum = arena.reserve(dim * 8);
  const dots = arena.reserve(count * 8);
  arena.commit();
  copyRows(arena, rows, vectors, count, dim);
  arena.k.unitRowSum(rows, count, dim, norms, sum);
  arena.k.dotsWith(rows, count, dim, sum, dots);
  const normOf = arena.f64(norms, count);
  const dotOf = arena.f64(dots, count);
  const meanSimilarity = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    if (normOf[i] !== 0) meanSimilarity[i] = (dotOf[i] / normOf[i] - 1) / (count - 1);
  }
  return firstIndexOfMax(meanSimilarity);
}

/**
 * The medoid by all pairs, O(n²·d): the baseline `zaxy bench medoid` measures the O(n·d) form
 * against. Sums cos(v_i, v_j) over the symmetric half in cache tiles, f32x4 products with f32
 * accumulation per pair (as an sgemm would), f64 row sums. `onTile(pairsDone, pairsTotal)` is
 * called after each tile so a long run can report progress.
 */
export function medoidIndexAllPairs(
  vectors: Float32Array,
  count: number,
  dim: number,
  onTile?: (pairsDone: number, pairsTotal: number) => void,
): number {
  checkShape(vectors, count, dim);
  if (count <= 1) return count - 1;
  const arena = new KernelArena();
  const rows = reserveRows(arena, count, dim);
  const norms = arena.reserve(count * 8);
  const rowSums = arena.reserve(count * 8);
  arena.commit();
  copyRows(arena, rows, vectors, count, dim);
  arena.k.rowNorms(rows, count, dim, norms);
  const inverse = arena.f64(norms, count);
  for (let i = 0; i < count; i++) inverse[i] = inverse[i] === 0 ? 0 : 1 / inverse[i];
  arena.f64(rowSums, count).fill(0);
  const pairsTotal = (count * (count - 1)) / 2;
  for (let start = 0; start < count; start += allPairsTileRows) {
    const end = Math.min(count, start + allPairsTileRows);
    arena.k.pairwiseCosineRowSumsTile(rows, count, dim, norms, rowSums, start, end);
    // Pairs (i, j) with i < j and i < end: all rows before `end` are done.
    onTile?.(pairsTotal - ((count - end) * (count - end - 1)) / 2, pairsTotal);
  }
  const sums = arena.f64(rowSums, count);
  return firstIndexOfMax(Float64Array.from(sums, (s) => s / (count - 1)));
}

/**
 * Greedy max-min diversity: starts with `firstIndex` (callers pass the medoid) and repeatedly
 * adds the unselected row whose minimum cosine distance to the selected rows is largest (ties to
 * the lowest index), until `k` rows are selected. When `k >= count` every index is returned in
 * order 0..count-1 (Python keeps all events in log order). Result in selection order. O(k·n·d).
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
  const arena = new KernelArena();
  const rows = reserveRows(arena, count, dim);
  const norms = arena.reserve(count * 8);
  const minDistancesPtr = arena.reserve(count * 8);
  const latestF64 = arena.reserve(dim * 8);
  arena.commit();
  copyRows(arena, rows, vectors, count, dim);
  arena.k.rowNorms(rows, count, dim, norms);
  const minDistances = arena.f64(minDistancesPtr, count).fill(Infinity);
  const unselected = new Array<boolean>(count).fill(true);
  const selected = [firstIndex];
  let latest = firstIndex;
  while (true) {
    // The kernel skips rows marked -1 (selected); distances are never below about -1e-15.
    unselected[latest] = false;
    minDistances[latest] = -1;
    arena.k.updateMinDistances(rows, count, dim, norms, latest, minDistancesPtr, latestF64);
    if (selected.length === k) return selected;
    latest = firstIndexOfMax(minDistances, unselected);
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
  const arena = new KernelArena();
  const rows = reserveRows(arena, count, dim);
  const norms = arena.reserve(count * 8);
  const sum = arena.reserve(dim * 8);
  arena.commit();
  copyRows(arena, rows, vectors, count, dim);
  arena.k.unitRowSum(rows, count, dim, norms, sum);
  const sums = arena.f64(sum, dim);
  let sumSquared = 0;
  for (let d = 0; d < dim; d++) sumSquared += sums[d] * sums[d];
  let nonzeroRows = 0;
  for (const norm of arena.f64(norms, count)) if (norm !== 0) nonzeroRows++;
  const pairs = (count * (count - 1)) / 2;
  return 1 - (sumSquared - nonzeroRows) / 2 / pairs;
}

/** `1 − cos` from rows to an f64 vector already placed in kernel memory at `vec`. */
function distancesToPlaced(arena: KernelArena, rows: number, count: number, dim: number, vec: number, vecNorm: number): Float64Array {
  const dots = arena.reserve(count * 8);
  const norms = arena.reserve(count * 8);
  arena.commit();
  arena.k.dotsAndNorms(rows, count, dim, vec, dots, norms);
  const dotOf = arena.f64(dots, count);
  const normOf = arena.f64(norms, count);
  return Float64Array.from(dotOf, (dot, i) => (normOf[i] === 0 || vecNorm === 0 ? 1 : 1 - dot / (normOf[i] * vecNorm)));
}

/** `1 − cos(v_i, query)` for every row (1 where either vector is zero). */
export function cosineDistancesTo(vectors: Float32Array, count: number, dim: number, query: Float32Array): Float64Array {
  checkShape(vectors, count, dim);
  if (query.length !== dim) throw new RangeError(`query has ${query.length} values, expected dim ${dim}`);
  if (count === 0) return new Float64Array(0);
  const arena = new KernelArena();
  const rows = reserveRows(arena, count, dim);
  const vec = arena.reserve(dim * 8);
  arena.commit();
  copyRows(arena, rows, vectors, count, dim);
  const placed = arena.f64(vec, dim);
  let squares = 0;
  for (let d = 0; d < dim; d++) {
    placed[d] = query[d];
    squares += query[d] * query[d];
  }
  return distancesToPlaced(arena, rows, count, dim, vec, Math.sqrt(squares));
}

/** Mean of `1 − cos(v_i, centroid)` over the rows: the within-cluster spread; 0 when `count` is 0. */
export function meanDistanceToCentroid(vectors: Float32Array, count: number, dim: number): number {
  checkShape(vectors, count, dim);
  if (count === 0) return 0;
  const arena = new KernelArena();
  const rows = reserveRows(arena, count, dim);
  const vec = arena.reserve(dim * 8);
  arena.commit();
  copyRows(arena, rows, vectors, count, dim);
  arena.k.rowSum(rows, count, dim, vec);
  // The centroid is rounded to f32 as `centroidOf` returns it, so both paths measure the same vector.
  const centroid = arena.f64(vec, dim);
  let squares = 0;
  for (let d = 0; d < dim; d++) {
    centroid[d] = Math.fround(centroid[d] / count);
    squares += centroid[d] * centroid[d];
  }
  const distances = distancesToPlaced(arena, rows, count, dim, vec, Math.sqrt(squares));
  let sum = 0;
  for (const distance of distances) sum += distance;
  return sum / count;
}
