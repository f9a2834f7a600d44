// Geometry kernels (AssemblyScript, SIMD): the per-row passes behind centroid, medoid,
// farthest-point exemplars, within-cluster spread and cosine distances (DESIGN §5, §9).
//
// Rows are `count × dim` f32 values, row-major. Every kernel here except the O(n²·d) baseline
// multiplies f32 by f32 (or f32 by f64) after promoting to f64, so each product is exact and
// every sum accumulates in f64: the scores the medoid and the exemplars compare differ from a
// plain f64 implementation only by summation order, far below the tie tolerance the wrapper uses.
//
// `pairwiseCosineRowSumsTile` is the honest O(n²·d) medoid baseline for `zaxy bench medoid`:
// f32x4 products and f32 accumulation per pair (as an sgemm would), symmetric half, cache-tiled.
//
// Memory layout is owned by src/vector/geometry.ts; nothing here allocates.

/** First byte of linear memory not used by static data. */
export function heapBase(): usize {
  return __heap_base;
}

// Σ a[d]·b[d] over f32 rows, products and sum in f64.
@inline function dotF32F32(a: usize, b: usize, dim: i32): f64 {
  let acc0 = f64x2.splat(0);
  let acc1 = f64x2.splat(0);
  let d = 0;
  for (; d + 4 <= dim; d += 4) {
    const offset = <usize>d << 2;
    const a0 = f64x2.promote_low_f32x4(v128.load64_zero(a + offset));
    const a1 = f64x2.promote_low_f32x4(v128.load64_zero(a + offset + 8));
    const b0 = f64x2.promote_low_f32x4(v128.load64_zero(b + offset));
    const b1 = f64x2.promote_low_f32x4(v128.load64_zero(b + offset + 8));
    acc0 = f64x2.add(acc0, f64x2.mul(a0, b0));
    acc1 = f64x2.add(acc1, f64x2.mul(a1, b1));
  }
  const both = f64x2.add(acc0, acc1);
  let sum = f64x2.extract_lane(both, 0) + f64x2.extract_lane(both, 1);
  for (; d < dim; d++) {
    const offset = <usize>d << 2;
    sum += <f64>load<f32>(a + offset) * <f64>load<f32>(b + offset);
  }
  return sum;
}

// Σ row[d]·vec[d] for an f32 row and an f64 vector, in f64.
@inline function dotF32F64(row: usize, vec: usize, dim: i32): f64 {
  let acc0 = f64x2.splat(0);
  let acc1 = f64x2.splat(0);
  let d = 0;
  for (; d + 4 <= dim; d += 4) {
    const r = row + (<usize>d << 2);
    const v = vec + (<usize>d << 3);
    acc0 = f64x2.add(acc0, f64x2.mul(f64x2.promote_low_f32x4(v128.load64_zero(r)), v128.load(v)));
    acc1 = f64x2.add(acc1, f64x2.mul(f64x2.promote_low_f32x4(v128.load64_zero(r + 8)), v128.load(v + 16)));
  }
  const both = f64x2.add(acc0, acc1);
  let sum = f64x2.extract_lane(both, 0) + f64x2.extract_lane(both, 1);
  for (; d < dim; d++) sum += <f64>load<f32>(row + (<usize>d << 2)) * load<f64>(vec + (<usize>d << 3));
  return sum;
}

// sum[d] += row[d]·scale for d < dim (sum is f64).
@inline function addScaledRow(sum: usize, row: usize, scale: f64, dim: i32): void {
  const scaleV = f64x2.splat(scale);
  let d = 0;
  for (; d + 2 <= dim; d += 2) {
    const s = sum + (<usize>d << 3);
    const r = f64x2.promote_low_f32x4(v128.load64_zero(row + (<usize>d << 2)));
    v128.store(s, f64x2.add(v128.load(s), f64x2.mul(r, scaleV)));
  }
  for (; d < dim; d++) {
    const s = sum + (<usize>d << 3);
    store<f64>(s, load<f64>(s) + <f64>load<f32>(row + (<usize>d << 2)) * scale);
  }
}

@inline function rowAt(rows: usize, i: i32, dim: i32): usize {
  return rows + ((<usize>i * <usize>dim) << 2);
}

/** Writes the Euclidean norm of each row (f64) at `norms`. */
export function rowNorms(rows: usize, count: i32, dim: i32, norms: usize): void {
  for (let i = 0; i < count; i++) {
    const row = rowAt(rows, i, dim);
    store<f64>(norms + (<usize>i << 3), Math.sqrt(dotF32F32(row, row, dim)));
  }
}

/** Writes each row's norm at `norms` and Σ row/‖row‖ over the nonzero rows (dim f64) at `sum`. */
export function unitRowSum(rows: usize, count: i32, dim: i32, norms: usize, sum: usize): void {
  memory.fill(sum, 0, <usize>dim << 3);
  for (let i = 0; i < count; i++) {
    const row = rowAt(rows, i, dim);
    const norm = Math.sqrt(dotF32F32(row, row, dim));
    store<f64>(norms + (<usize>i << 3), norm);
    if (norm != 0) addScaledRow(sum, row, 1.0 / norm, dim);
  }
}

/** Writes Σ rows (dim f64) at `sum`. */
export function rowSum(rows: usize, count: i32, dim: i32, sum: usize): void {
  memory.fill(sum, 0, <usize>dim << 3);
  for (let i = 0; i < count; i++) addScaledRow(sum, rowAt(rows, i, dim), 1.0, dim);
}

/** Writes row_i · vec (f64) for every row at `dots`; `vec` holds dim f64 values. */
export function dotsWith(rows: usize, count: i32, dim: i32, vec: usize, dots: usize): void {
  for (let i = 0; i < count; i++) store<f64>(dots + (<usize>i << 3), dotF32F64(rowAt(rows, i, dim), vec, dim));
}

/** Like `dotsWith`, also writing each row's norm at `norms`. */
export function dotsAndNorms(rows: usize, count: i32, dim: i32, vec: usize, dots: usize, norms: usize): void {
  for (let i = 0; i < count; i++) {
    const row = rowAt(rows, i, dim);
    store<f64>(dots + (<usize>i << 3), dotF32F64(row, vec, dim));
    store<f64>(norms + (<usize>i << 3), Math.sqrt(dotF32F32(row, row, dim)));
  }
}

/**
 * One step of farthest-point selection: for every row i whose `minDistances[i]` is not negative
 * (selected rows are marked -1 by the caller), lowers it to 1 − cos(row_i, row_latest) when that
 * is smaller. A zero row on either side has distance 1. `latestF64` is dim f64 of scratch.
 */
export function updateMinDistances(
  rows: usize, count: i32, dim: i32, norms: usize, latest: i32, minDistances: usize, latestF64: usize,
): void {
  // The latest row promoted to f64 once (exact), so each dot promotes only the other row; the
  // products and their summation order are the same as dotF32F32's.
  const latestRow = rowAt(rows, latest, dim);
  for (let d = 0; d < dim; d++) store<f64>(latestF64 + (<usize>d << 3), <f64>load<f32>(latestRow + (<usize>d << 2)));
  const latestNorm = load<f64>(norms + (<usize>latest << 3));
  for (let i = 0; i < count; i++) {
    const slot = minDistances + (<usize>i << 3);
    const current = load<f64>(slot);
    if (current < 0) continue;
    const norm = load<f64>(norms + (<usize>i << 3));
    let distance: f64 = 1;
    if (norm != 0 && latestNorm != 0) distance = 1 - dotF32F64(rowAt(rows, i, dim), latestF64, dim) / (norm * latestNorm);
    if (distance < current) store<f64>(slot, distance);
  }
}

// Horizontal sum of an f32x4 accumulator, in f64.
@inline function laneSum(acc: v128): f64 {
  return <f64>f32x4.extract_lane(acc, 0) + <f64>f32x4.extract_lane(acc, 1) + <f64>f32x4.extract_lane(acc, 2) + <f64>f32x4.extract_lane(acc, 3);
}

// Σ a[d]·b[d] with f32x4 products and f32 lane accumulators (the baseline's single-pair dot).
@inline function dotF32Lanes(a: usize, b: usize, dim: i32): f64 {
  let acc = f32x4.splat(0);
  let d = 0;
  for (; d + 4 <= dim; d += 4) {
    const offset = <usize>d << 2;
    acc = f32x4.add(acc, f32x4.mul(v128.load(a + offset), v128.load(b + offset)));
  }
  let sum = laneSum(acc);
  for (; d < dim; d++) sum += <f64>(load<f32>(a + (<usize>d << 2)) * load<f32>(b + (<usize>d << 2)));
  return sum;
}

/**
 * The O(n²·d) baseline, one tile of rows [iStart, iEnd): for every pair i < j with i in the tile
 * adds cos(row_i, row_j) = dot · inverseNorms[i] · inverseNorms[j] to `rowSums[i]` and
 * `rowSums[j]` (f64). Rows j stream past the tile once (the tile stays in cache); four tile rows
 * share each load of row j. Calling it for consecutive tiles covering [0, count) visits every
 * unordered pair exactly once.
 */
export function pairwiseCosineRowSumsTile(
  rows: usize, count: i32, dim: i32, inverseNorms: usize, rowSums: usize, iStart: i32, iEnd: i32,
): void {
  const dim4 = dim & ~3;
  for (let j = iStart + 1; j < count; j++) {
    const b = rowAt(rows, j, dim);
    const inverseJ = load<f64>(inverseNorms + (<usize>j << 3));
    const iStop = j < iEnd ? j : iEnd;
    let sumJ: f64 = 0;
    let i = iStart;
    for (; i + 4 <= iStop; i += 4) {
      const a0 = rowAt(rows, i, dim);
      const a1 = rowAt(rows, i + 1, dim);
      const a2 = rowAt(rows, i + 2, dim);
      const a3 = rowAt(rows, i + 3, dim);
      let acc0 = f32x4.splat(0);
      let acc1 = f32x4.splat(0);
      let acc2 = f32x4.splat(0);
      let acc3 = f32x4.splat(0);
      for (let d = 0; d < dim4; d += 4) {
        const offset = <usize>d << 2;
        const bv = v128.load(b + offset);
        acc0 = f32x4.add(acc0, f32x4.mul(v128.load(a0 + offset), bv));
        acc1 = f32x4.add(acc1, f32x4.mul(v128.load(a1 + offset), bv));
        acc2 = f32x4.add(acc2, f32x4.mul(v128.load(a2 + offset), bv));
        acc3 = f32x4.add(acc3, f32x4.mul(v128.load(a3 + offset), bv));
      }
      let dot0 = laneSum(acc0);
      let dot1 = laneSum(acc1);
      let dot2 = laneSum(acc2);
      let dot3 = laneSum(acc3);
      for (let d = dim4; d < dim; d++) {
        const offset = <usize>d << 2;
        const bd = load<f32>(b + offset);
        dot0 += <f64>(load<f32>(a0 + offset) * bd);
        dot1 += <f64>(load<f32>(a1 + offset) * bd);
        dot2 += <f64>(load<f32>(a2 + offset) * bd);
        dot3 += <f64>(load<f32>(a3 + offset) * bd);
      }
      const slot = rowSums + (<usize>i << 3);
      const c0 = dot0 * load<f64>(inverseNorms + (<usize>i << 3)) * inverseJ;
      const c1 = dot1 * load<f64>(inverseNorms + (<usize>(i + 1) << 3)) * inverseJ;
      const c2 = dot2 * load<f64>(inverseNorms + (<usize>(i + 2) << 3)) * inverseJ;
      const c3 = dot3 * load<f64>(inverseNorms + (<usize>(i + 3) << 3)) * inverseJ;
      store<f64>(slot, load<f64>(slot) + c0);
      store<f64>(slot + 8, load<f64>(slot + 8) + c1);
      store<f64>(slot + 16, load<f64>(slot + 16) + c2);
      store<f64>(slot + 24, load<f64>(slot + 24) + c3);
      sumJ += c0 + c1 + c2 + c3;
    }
    for (; i < iStop; i++) {
      const c = dotF32Lanes(rowAt(rows, i, dim), b, dim) * load<f64>(inverseNorms + (<usize>i << 3)) * inverseJ;
      const slot = rowSums + (<usize>i << 3);
      store<f64>(slot, load<f64>(slot) + c);
      sumJ += c;
    }
    const slotJ = rowSums + (<usize>j << 3);
    store<f64>(slotJ, load<f64>(slotJ) + sumJ);
  }
}
