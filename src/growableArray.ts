/**
 * A typed array that grows as values are pushed: columns with one value per event or per
 * non-zero (the compaction audit's, the events a streamed reproject keeps for its folds), which
 * must not be one JS number or object per value.
 *
 * @example
 * const seqs = new GrowableArray(new Uint32Array(64), (n) => new Uint32Array(n));
 * seqs.push(7);
 * seqs.data.subarray(0, seqs.length); // Uint32Array [7]
 */
type NumberArray = Uint8Array | Uint16Array | Uint32Array | Int32Array | Float32Array | Float64Array;

export class GrowableArray<T extends NumberArray> {
  length = 0;
  constructor(public data: T, private readonly make: (n: number) => T) {}
  push(value: number): void {
    if (this.length === this.data.length) this.reserve(1);
    this.data[this.length++] = value;
  }

  /** Drops the values and their storage. */
  clear(): void {
    this.data = this.make(0);
    this.length = 0;
  }

  /** Makes every index below `length` valid (a column indexed by id rather than pushed to). */
  extendTo(length: number): void {
    if (length <= this.length) return;
    this.reserve(length - this.length);
    this.length = length;
  }

  /** Makes room for `more` values past `length`. */
  reserve(more: number): void {
    if (this.length + more <= this.data.length) return;
    // 1.5x: the largest arrays (one entry per non-zero of the log) overshoot by at most half.
    let size = Math.max(1, Math.ceil(this.data.length * 1.5));
    while (size < this.length + more) size = Math.ceil(size * 1.5);
    const bigger = this.make(size);
    bigger.set(this.data.subarray(0, this.length));
    this.data = bigger;
  }
}
