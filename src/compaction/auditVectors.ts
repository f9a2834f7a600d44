/**
 * The audit's vectors, kept sparse: a hash embedding has at most one non-zero per distinct
 * token (DESIGN §5), so 100 000 events of ~150 tokens take ~100 MB here instead of the 600 MB
 * of a dense 100 000 × 1536 f32 matrix. Rows are densified only a cluster at a time, for the
 * geometry kernels (src/vector/geometry.ts).
 *
 * Each row also gets a one-permutation MinHash sketch of its token set (`sketchBins` bins, each
 * the smallest 32-bit token hash falling into it), cut into bands of `binsPerBand`. Rows sharing
 * a band are candidate neighbours; candidates are always re-scored with the exact cosine, so the
 * sketch only decides who is compared, never how near they are. For two rows with token-set
 * Jaccard J, P(share a band) = 1 − (1 − J⁴)¹⁶: 0.94 at J = 0.6, 0.996 at 0.7, > 0.9999 at 0.8.
 * What must never change without re-measuring: the hash, the bin and band counts.
 */
import { embedTokensInKernel } from "../vector/hashEmbeddingKernel.ts";

export const sketchBins = 64;
export const binsPerBand = 4;
export const bandCount = sketchBins / binsPerBand;
/** Texts embedded per kernel call (its output is dense: rows × dim × 8 bytes). */
export const embedBatchRows = 2048;
const emptyBin = 0xffffffff;

/** FNV-1a over UTF-16 code units, then a murmur3 finaliser: a fast, fixed 32-bit token hash. */
export function tokenHash32(token: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < token.length; i++) {
    h ^= token.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

class Growable<T extends Uint16Array | Uint32Array | Float32Array> {
  length = 0;
  constructor(public data: T, private readonly make: (n: number) => T) {}
  push(value: number): void {
    if (this.length === this.data.length) {
      const bigger = this.make(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = value;
  }
}

export class AuditVectors {
  readonly dim: number;
  private readonly indices = new Growable(new Uint16Array(1 << 16), (n) => new Uint16Array(n));
  private readonly values = new Growable(new Float32Array(1 << 16), (n) => new Float32Array(n));
  private readonly offsets = new Growable(new Uint32Array(1 << 12), (n) => new Uint32Array(n));
  private readonly norms = new Growable(new Float32Array(1 << 12), (n) => new Float32Array(n));
  private readonly bands = new Growable(new Uint32Array(1 << 12), (n) => new Uint32Array(n));
  private pending: string[][] = [];

  constructor(dim: number) {
    if (dim > 0xffff) throw new RangeError(`audit vectors hold dimensions up to 65535, got ${dim}`);
    this.dim = dim;
    this.offsets.push(0);
  }

  get count(): number {
    return this.offsets.length - 1;
  }

  /** Queues one row's tokens (Python's `text.casefold().split()`); rows are numbered in order. */
  add(tokens: string[]): void {
    this.pending.push(tokens);
    if (this.pending.length >= embedBatchRows) this.flush();
  }

  /** Embeds queued rows. Call before reading. */
  flush(): void {
    if (this.pending.length === 0) return;
    const dense = embedTokensInKernel(this.pending, this.dim);
    const mins = new Uint32Array(sketchBins);
    for (let r = 0; r < dense.length; r++) {
      const vector = dense[r];
      let sumSquares = 0;
      for (let d = 0; d < this.dim; d++) {
        const value = vector[d];
        if (value !== 0) {
          const f = Math.fround(value);
          this.indices.push(d);
          this.values.push(f);
          sumSquares += f * f;
        }
      }
      this.offsets.push(this.indices.length);
      this.norms.push(Math.sqrt(sumSquares));
      mins.fill(emptyBin);
      for (const token of this.pending[r]) {
        const h = tokenHash32(token);
        const bin = h & (sketchBins - 1);
        // The bin takes the low bits; compare the rest so every bin is a min over fresh bits.
        const rest = h >>> 6;
        if (rest < mins[bin]) mins[bin] = rest;
      }
      for (let b = 0; b < bandCount; b++) {
        let key = 0x9e3779b9 ^ b;
        for (let j = 0; j < binsPerBand; j++) {
          key = Math.imul(key ^ mins[b * binsPerBand + j], 0x01000193);
          key ^= key >>> 15;
        }
        this.bands.push(key >>> 0);
      }
    }
    this.pending = [];
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
    const out = new Float32Array(rows.length * this.dim);
    const idx = this.indices.data;
    const val = this.values.data;
    for (let r = 0; r < rows.length; r++) {
      const base = r * this.dim;
      for (let k = this.offsets.data[rows[r]]; k < this.offsets.data[rows[r] + 1]; k++) out[base + idx[k]] = val[k];
    }
    return out;
  }
}
