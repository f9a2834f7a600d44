/**
 * Hash embeddings of many memories, kept sparse. A hash embedding has at most one non-zero
 * component per distinct token (DESIGN §5), so 100 000 memories of a few dozen tokens take a few
 * megabytes here instead of the 1.2 GB their dense `Float64Array`s would. The values are the
 * kernel's float64 values, unchanged: `cosine` is the exact cosine of the float embeddings and
 * gives bit for bit what `cosineSimilarity` (src/retrieval/mmr.ts) gives on the dense vectors,
 * because the products it skips are zeros, and adding zero does not change a float sum.
 *
 * @example
 * const embeddings = SparseEmbeddings.embed(["alpha beta (note)", "alpha gamma (note)"], 1536);
 * embeddings.cosine(0, 1); // 0.333…
 */
import { hashEmbedEach } from "../vector/mod.ts";

/**
 * Texts embedded per call of the WebAssembly kernel. Its output is dense (rows × dim × 8 bytes,
 * 3 MiB at 1536-d, in the kernel's memory, which keeps the size of the largest call) and is read
 * in place into the sparse rows (`hashEmbedEach`): copying each dense row out, as
 * `hashEmbedMany` does, left ~0.9 GB of garbage over a 75 000-memory session.
 */
export const embedBatchRows = 256;

class GrowableColumns {
  indices = new Uint32Array(1 << 16);
  values = new Float64Array(1 << 16);
  length = 0;

  push(index: number, value: number): void {
    if (this.length === this.indices.length) {
      const indices = new Uint32Array(this.indices.length * 2);
      indices.set(this.indices);
      this.indices = indices;
      const values = new Float64Array(this.values.length * 2);
      values.set(this.values);
      this.values = values;
    }
    this.indices[this.length] = index;
    this.values[this.length++] = value;
  }
}

export class SparseEmbeddings {
  private constructor(
    readonly dim: number,
    /** Row `i`'s non-zeros are `indices/values[offsets[i] .. offsets[i + 1])`, indices ascending. */
    private readonly offsets: Uint32Array,
    private readonly indices: Uint32Array,
    private readonly values: Float64Array,
    /** Σ v² per row, summed in index order as the dense loop sums it. */
    private readonly sumSquares: Float64Array,
  ) {}

  /** Embeds `texts` with the hash embedding (the WebAssembly kernel), `embedBatchRows` at a time. */
  static embed(texts: readonly string[], dim: number, onBatch?: (done: number, total: number) => void): SparseEmbeddings {
    const offsets = new Uint32Array(texts.length + 1);
    const sumSquares = new Float64Array(texts.length);
    const columns = new GrowableColumns();
    for (let start = 0; start < texts.length; start += embedBatchRows) {
      const batch = texts.slice(start, start + embedBatchRows);
      hashEmbedEach(batch, dim, (offset, vector) => {
        let squares = 0;
        for (let d = 0; d < dim; d++) {
          const value = vector[d];
          if (value === 0) continue;
          columns.push(d, value);
          squares += value * value;
        }
        sumSquares[start + offset] = squares;
        offsets[start + offset + 1] = columns.length;
      });
      onBatch?.(start + batch.length, texts.length);
    }
    return new SparseEmbeddings(dim, offsets, columns.indices.slice(0, columns.length), columns.values.slice(0, columns.length), sumSquares);
  }

  get count(): number {
    return this.sumSquares.length;
  }

  /** True for a zero vector (its tokens cancelled out): it has no direction to compare. */
  isZero(row: number): boolean {
    return this.sumSquares[row] === 0;
  }

  /** Exact cosine of rows `a` and `b`; 0 when either is the zero vector. */
  cosine(a: number, b: number): number {
    return this.cosineWith(a, this, b);
  }

  /** Exact cosine of row `a` of this set and row `b` of `other` (same dimension). */
  cosineWith(a: number, other: SparseEmbeddings, b: number): number {
    if (other.dim !== this.dim) throw new RangeError(`cosineWith: dimensions differ (${this.dim} vs ${other.dim})`);
    const normA = this.sumSquares[a];
    const normB = other.sumSquares[b];
    if (normA === 0 || normB === 0) return 0;
    let i = this.offsets[a];
    const endA = this.offsets[a + 1];
    let j = other.offsets[b];
    const endB = other.offsets[b + 1];
    let dot = 0;
    while (i < endA && j < endB) {
      const di = this.indices[i];
      const dj = other.indices[j];
      if (di === dj) dot += this.values[i++] * other.values[j++];
      else if (di < dj) i++;
      else j++;
    }
    return dot / (Math.sqrt(normA) * Math.sqrt(normB));
  }

  /** Calls `visit(dimension, value)` for each non-zero of `row`, dimensions ascending. */
  forEachNonZero(row: number, visit: (dimension: number, value: number) => void): void {
    for (let k = this.offsets[row]; k < this.offsets[row + 1]; k++) visit(this.indices[k], this.values[k]);
  }
}
