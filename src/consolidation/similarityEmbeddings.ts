/**
 * Hash embeddings of many memories, kept sparse. A hash embedding has at most one non-zero
 * component per distinct token (DESIGN §5), so 100 000 memories of a few dozen tokens take a few
 * megabytes here instead of the 1.2 GB their dense `Float64Array`s would. The values are the
 * kernel's float64 values, unchanged: `cosine` is the exact cosine of the float embeddings and
 * gives bit for bit what `cosineSimilarity` (src/retrieval/engine.ts) gives on the dense vectors,
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

  /**
   * For each row, its highest exact cosine to any row of `targets` (0 when `targets` is empty):
   * `max over t of cosineWith(row, targets, t)`, bit for bit, without comparing every pair. The
   * targets are inverted by dimension, so a row visits only the targets it shares a dimension
   * with, and each shared product is added in ascending dimension, the order the merge in
   * `cosineWith` adds it. A target sharing no dimension (or a zero row on either side) has cosine
   * 0. A session's goals grow with its history (2 % of the events in a mixed session): all pairs
   * were 15 G merges for 750 000 memories and 20 000 goals.
   */
  maxCosineWith(targets: SparseEmbeddings): Float64Array {
    if (targets.dim !== this.dim) throw new RangeError(`maxCosineWith: dimensions differ (${this.dim} vs ${targets.dim})`);
    const best = new Float64Array(this.count);
    const targetCount = targets.count;
    if (targetCount === 0) return best;
    // Postings: for each dimension, the targets with a non-zero there (ascending) and its value.
    const postingStarts = new Uint32Array(this.dim + 1);
    let nonZeroTargets = 0;
    for (let t = 0; t < targetCount; t++) {
      if (targets.sumSquares[t] === 0) continue;
      nonZeroTargets++;
      for (let k = targets.offsets[t]; k < targets.offsets[t + 1]; k++) postingStarts[targets.indices[k] + 1]++;
    }
    for (let d = 0; d < this.dim; d++) postingStarts[d + 1] += postingStarts[d];
    const postingTargets = new Uint32Array(postingStarts[this.dim]);
    const postingValues = new Float64Array(postingStarts[this.dim]);
    const fill = postingStarts.slice(0, this.dim);
    for (let t = 0; t < targetCount; t++) {
      if (targets.sumSquares[t] === 0) continue;
      for (let k = targets.offsets[t]; k < targets.offsets[t + 1]; k++) {
        const at = fill[targets.indices[k]]++;
        postingTargets[at] = t;
        postingValues[at] = targets.values[k];
      }
    }
    const targetRoots = Float64Array.from(targets.sumSquares, Math.sqrt);
    const dots = new Float64Array(targetCount);
    // `seenBy[t] === row + 1` when target t's dot already holds row's sum.
    const seenBy = new Uint32Array(targetCount);
    const touched = new Uint32Array(targetCount);
    for (let row = 0; row < this.count; row++) {
      const squares = this.sumSquares[row];
      if (squares === 0) continue;
      let touchedCount = 0;
      for (let k = this.offsets[row]; k < this.offsets[row + 1]; k++) {
        const dimension = this.indices[k];
        const value = this.values[k];
        for (let p = postingStarts[dimension]; p < postingStarts[dimension + 1]; p++) {
          const t = postingTargets[p];
          if (seenBy[t] !== row + 1) {
            seenBy[t] = row + 1;
            dots[t] = 0;
            touched[touchedCount++] = t;
          }
          dots[t] += value * postingValues[p];
        }
      }
      // Targets it shares nothing with, and zero targets, have cosine 0.
      let max = touchedCount < targetCount || nonZeroTargets < targetCount ? 0 : -Infinity;
      const root = Math.sqrt(squares);
      for (let i = 0; i < touchedCount; i++) {
        const t = touched[i];
        const cosine = dots[t] / (root * targetRoots[t]);
        if (cosine > max) max = cosine;
      }
      best[row] = max;
    }
    return best;
  }

  /** Calls `visit(dimension, value)` for each non-zero of `row`, dimensions ascending. */
  forEachNonZero(row: number, visit: (dimension: number, value: number) => void): void {
    for (let k = this.offsets[row]; k < this.offsets[row + 1]; k++) visit(this.indices[k], this.values[k]);
  }
}
