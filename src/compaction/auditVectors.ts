/**
 * The audit's vectors, kept sparse: a hash embedding has at most one non-zero per distinct
 * token (DESIGN §5), so 100 000 events of ~95 tokens take ~60 MB here instead of the 600 MB
 * of a dense 100 000 × 1536 f32 matrix. Rows are densified only a cluster at a time, for the
 * geometry kernels (src/vector/geometry.ts). Rows are built from cached per-token buckets
 * (src/vector/tokenBuckets.ts) and equal the kernel's `hashEmbedMany` rows stored as f32, bit for bit
 * (tests/compaction/audit_differential_test.ts).
 *
 * Each row also gets a one-permutation MinHash sketch of its token set (`sketchBins` bins, each
 * the smallest 32-bit token hash falling into it), cut into bands of `binsPerBand`. Rows sharing
 * a band are candidate neighbours; candidates are always re-scored with the exact cosine, so the
 * sketch only decides who is compared, never how near they are. For two rows with token-set
 * Jaccard J, P(share a band) = 1 − (1 − J⁴)¹⁶: 0.94 at J = 0.6, 0.996 at 0.7, > 0.9999 at 0.8.
 * What must never change without re-measuring: the hash, the bin and band counts.
 */
import { TokenBuckets } from "../vector/tokenBuckets.ts";
import { GrowableArray } from "../growableArray.ts";

export { tokenHash32 } from "../vector/tokenHash.ts";

export const sketchBins = 64;
export const binsPerBand = 4;
export const bandCount = sketchBins / binsPerBand;
const emptyBin = 0xffffffff;

export class AuditVectors {
  readonly dim: number;
  private readonly indices = new GrowableArray(new Uint16Array(1 << 16), (n) => new Uint16Array(n));
  private readonly values = new GrowableArray(new Float32Array(1 << 16), (n) => new Float32Array(n));
  private readonly offsets = new GrowableArray(new Uint32Array(1 << 12), (n) => new Uint32Array(n));
  private readonly norms = new GrowableArray(new Float32Array(1 << 12), (n) => new Float32Array(n));
  private readonly bands = new GrowableArray(new Uint32Array(1 << 12), (n) => new Uint32Array(n));
  private readonly tokens: TokenBuckets;
  // Per-row scratch: bucket sums, the buckets touched (and a stamp saying so), sketch minimums.
  private readonly sums: Int32Array;
  private readonly touchedStamp: Int32Array;
  private touched = new Uint16Array(256);
  private touchedCount = 0;
  private readonly mins = new Uint32Array(sketchBins);

  /** `tokens` is the token cache to use (a fresh one of the default size unless given). */
  constructor(dim: number, tokens: TokenBuckets = new TokenBuckets(dim)) {
    if (dim > 0xffff) throw new RangeError(`audit vectors hold dimensions up to 65535, got ${dim}`);
    if (tokens.dim !== dim) throw new RangeError(`token cache dimension ${tokens.dim} differs from ${dim}`);
    this.dim = dim;
    this.offsets.push(0);
    this.tokens = tokens;
    this.sums = new Int32Array(dim);
    this.touchedStamp = new Int32Array(dim).fill(-1);
  }

  get count(): number {
    return this.offsets.length - 1;
  }

  /**
   * Adds one row from its tokens (Python's `text.casefold().split()`); rows are numbered in order.
   * The row equals the kernel's `hashEmbedMany` row stored as f32: bucket sums are small
   * integers, so their sum of squares is exact in any order, and each value is `sum / norm` in
   * f64, as the kernel divides (hashEmbedding.ts, wasm/vector.ts).
   */
  add(tokens: readonly string[]): void {
    this.startRow();
    for (let t = 0; t < tokens.length; t++) this.accumulate(this.tokens.slotOf(tokens[t]));
    this.finishRow();
  }

  /**
   * Adds one row from a context text: the same row as `add(contextTokens(text))` (Python's
   * `text.casefold().split()`), in one scan. Splitting before folding gives the same tokens:
   * casefold maps each code point on its own, whitespace folds to itself and nothing folds to
   * whitespace (checked over all of Unicode with python3). The scan is the token cache's
   * (`TokenBuckets.eachTokenSlot`), which the vector postings use too.
   */
  addText(text: string): void {
    this.startRow();
    this.tokens.eachTokenSlot(text, (slot) => this.accumulate(slot));
    this.finishRow();
  }

  private startRow(): void {
    this.mins.fill(emptyBin);
    this.touchedCount = 0;
  }

  private accumulate(slot: number): void {
    const cache = this.tokens;
    const bucket = cache.bucket[slot];
    if (this.touchedStamp[bucket] !== this.count) {
      this.touchedStamp[bucket] = this.count;
      if (this.touchedCount === this.touched.length) this.growTouched();
      this.touched[this.touchedCount++] = bucket;
    }

    this.sums[bucket] += cache.positive[slot] === 1 ? 1 : -1;
    const h = cache.sketchHash[slot];
    const bin = h & (sketchBins - 1);
    // The bin takes the low bits; compare the rest so every bin is a min over fresh bits.
    const rest = h >>> 6;
    if (rest < this.mins[bin]) this.mins[bin] = rest;
  }

  private growTouched(): void {
    const bigger = new Uint16Array(this.touched.length * 2);
    bigger.set(this.touched);
    this.touched = bigger;
  }

  private finishRow(): void {
    const sums = this.sums;
    const mins = this.mins;
    const touchedCount = this.touchedCount;
    // Insertion sort: ~90 small integers per row, cheaper than a native sort call per row.
    const touched = this.touched;
    for (let k = 1; k < touchedCount; k++) {
      const value = touched[k];
      let j = k - 1;
      while (j >= 0 && touched[j] > value) {
        touched[j + 1] = touched[j];
        j--;
      }
      touched[j + 1] = value;
    }
    let sumSquaresExact = 0;
    for (let k = 0; k < touchedCount; k++) sumSquaresExact += sums[touched[k]] * sums[touched[k]];
    const norm = Math.sqrt(sumSquaresExact);
    this.indices.reserve(touchedCount);
    this.values.reserve(touchedCount);
    const indices = this.indices.data;
    const values = this.values.data;
    let at = this.indices.length;
    let sumSquares = 0;
    for (let k = 0; k < touchedCount; k++) {
      const bucket = touched[k];
      const sum = sums[bucket];
      sums[bucket] = 0;
      if (sum === 0) continue;
      const f = Math.fround(sum / norm);
      indices[at] = bucket;
      values[at] = f;
      at++;
      sumSquares += f * f;
    }
    this.indices.length = at;
    this.values.length = at;
    this.offsets.push(at);
    this.norms.push(Math.sqrt(sumSquares));
    this.bands.reserve(bandCount);
    const bands = this.bands.data;
    const bandBase = this.bands.length;
    for (let b = 0; b < bandCount; b++) {
      let key = 0x9e3779b9 ^ b;
      for (let j = 0; j < binsPerBand; j++) {
        key = Math.imul(key ^ mins[b * binsPerBand + j], 0x01000193);
        key ^= key >>> 15;
      }
      bands[bandBase + b] = key >>> 0;
    }
    this.bands.length = bandBase + bandCount;
  }

  /**
   * Drops every row (the vectors are empty after). What holds the vectors may outlive them: the
   * collector scans the stack conservatively, and a stale reference there kept ~400 MB of rows
   * alive through the rest of a million-event audit.
   */
  release(): void {
    for (const column of [this.indices, this.values, this.offsets, this.norms, this.bands]) column.clear();
    this.offsets.push(0);
  }

  /** Band `band`'s key for `row`. */
  bandKey(row: number, band: number): number {
    return this.bands.data[row * bandCount + band];
  }

  isZero(row: number): boolean {
    return this.norms.data[row] === 0;
  }

  /** Exact cosine of two rows (0 when either is zero), accumulated in f64. */
  cosine(a: number, b: number): number {
    const na = this.norms.data[a];
    const nb = this.norms.data[b];
    if (na === 0 || nb === 0) return 0;
    const idx = this.indices.data;
    const val = this.values.data;
    let i = this.offsets.data[a];
    const iEnd = this.offsets.data[a + 1];
    let j = this.offsets.data[b];
    const jEnd = this.offsets.data[b + 1];
    let dot = 0;
    while (i < iEnd && j < jEnd) {
      const di = idx[i];
      const dj = idx[j];
      if (di === dj) dot += val[i++] * val[j++];
      else if (di < dj) i++;
      else j++;
    }
    return dot / (na * nb);
  }

  /** Writes `row`'s values into `dense` (all zeros before); `clear` undoes it. */
  scatter(row: number, dense: Float64Array): void {
    for (let k = this.offsets.data[row]; k < this.offsets.data[row + 1]; k++) dense[this.indices.data[k]] = this.values.data[k];
  }

  clear(row: number, dense: Float64Array): void {
    for (let k = this.offsets.data[row]; k < this.offsets.data[row + 1]; k++) dense[this.indices.data[k]] = 0;
  }

  /**
   * Cosine of `row` (scattered into `dense` by `scatter`) with `other`: the same products as
   * `cosine`, summed in `other`'s index order, which is ascending as in `cosine`.
   */
  cosineScattered(row: number, dense: Float64Array, other: number): number {
    const na = this.norms.data[row];
    const nb = this.norms.data[other];
    if (na === 0 || nb === 0) return 0;
    const idx = this.indices.data;
    const val = this.values.data;
    let dot = 0;
    for (let k = this.offsets.data[other]; k < this.offsets.data[other + 1]; k++) dot += dense[idx[k]] * val[k];
    return dot / (na * nb);
  }

  /** The rows, dense and row-major (`rows.length × dim` f32), for the geometry kernels. */
  dense(rows: ArrayLike<number>): Float32Array {
    return this.denseInto(rows, new Float32Array(rows.length * this.dim));
  }

  /**
   * `dense(rows)` written into the front of `scratch` (at least `rows.length × dim` long), which
   * is returned as a view of exactly that length: one buffer serves every cluster in turn.
   */
  denseInto(rows: ArrayLike<number>, scratch: Float32Array): Float32Array {
    const out = scratch.subarray(0, rows.length * this.dim);
    out.fill(0);
    const idx = this.indices.data;
    const val = this.values.data;
    for (let r = 0; r < rows.length; r++) {
      const base = r * this.dim;
      for (let k = this.offsets.data[rows[r]]; k < this.offsets.data[rows[r] + 1]; k++) out[base + idx[k]] = val[k];
    }
    return out;
  }
}
