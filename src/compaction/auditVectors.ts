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
 *
 * Storage: each row is one block of 32-bit words in a chunk: [norm, count, palette size P, the
 * P distinct f32 values of the row, count u16 dimension indices, count codes into the palette
 * (u8 when P ≤ 256, else u16)]. A row's values are `sum / norm` for a few distinct small
 * bucket sums, so a value costs a byte, not four: ~3.1 bytes per non-zero instead of 6, and a
 * cosine with a row reads one short run of memory (clustering reads its mates' rows in random
 * order: at a million rows that reading, not the arithmetic, was most of the clustering time).
 * Chunks are never copied or grown: one growing array per column held its old and new storage
 * at once while growing, and up to half its capacity unused.
 */
import { TokenBuckets } from "../vector/tokenBuckets.ts";
import { GrowableArray } from "../growableArray.ts";

export { tokenHash32 } from "../vector/tokenHash.ts";

export const sketchBins = 64;
export const binsPerBand = 4;
export const bandCount = sketchBins / binsPerBand;
const emptyBin = 0xffffffff;
/** A row's address is its chunk << chunkWordBits | its first word in the chunk. */
const chunkWordBits = 20;
/** Words of the first chunk; each next chunk doubles, up to 2^chunkWordBits words (4 MiB). */
const firstChunkWords = 1 << 14;
/** A block's words before its palette: the row's norm (f32), non-zero count and palette size (u32). */
const blockHeaderWords = 3;
/** Palettes up to this size are addressed by one byte per non-zero. */
const narrowPaletteMax = 256;

/** The words of a block of `count` non-zeros with `paletteSize` distinct values. */
function blockWords(count: number, paletteSize: number): number {
  const codeBytes = paletteSize <= narrowPaletteMax ? 1 : 2;
  return blockHeaderWords + paletteSize + Math.ceil((count * (2 + codeBytes)) / 4);
}

/**
 * Rows taken out of one `AuditVectors` (`takeRows`) to be appended to another (`appendRows`):
 * what a pass-one worker sends back. Every buffer is transferable.
 */
export interface AuditRowsPart {
  /** Packed blocks; `addresses` point into them (chunk << chunkWordBits | word). */
  chunks: ArrayBuffer[];
  addresses: Uint32Array;
  norms: Float32Array;
  /** `bandCount` keys per row. */
  bands: Uint32Array;
}

export class AuditVectors {
  readonly dim: number;
  // The same chunks seen as f32 (norms, palettes), u32 (sizes), u16 (indices, wide codes) and u8 (codes).
  private chunkFloats: Float32Array<ArrayBuffer>[] = [];
  private chunkWords: Uint32Array<ArrayBuffer>[] = [];
  private chunkHalves: Uint16Array<ArrayBuffer>[] = [];
  private chunkBytes: Uint8Array<ArrayBuffer>[] = [];
  // The block `locate` found: its chunk's views, count, where its palette, indices and codes start.
  private blockFloats = new Float32Array(0);
  private blockHalves = new Uint16Array(0);
  private blockBytes = new Uint8Array(0);
  private blockCount = 0;
  private blockPaletteAt = 0;
  private blockIndexAt = 0;
  private blockCodeAt = 0;
  private blockWide = false;
  /** Words used in the last chunk. */
  private chunkUsed = 0;
  /** Each row's block address (see `chunkWordBits`). */
  private readonly addresses = new GrowableArray(new Uint32Array(1 << 12), (n) => new Uint32Array(n));
  private readonly norms = new GrowableArray(new Float32Array(1 << 12), (n) => new Float32Array(n));
  private readonly bands = new GrowableArray(new Uint32Array(1 << 12), (n) => new Uint32Array(n));
  private readonly tokens: TokenBuckets;
  // Per-row scratch: bucket sums, the buckets touched (one bit each), the touched buckets in
  // ascending order (filled from the bits when the row is finished), sketch minimums.
  private readonly sums: Int32Array;
  private readonly touchedBits: Uint32Array;
  private readonly touched: Uint16Array;
  // Per-row scratch for the palette: each distinct sum's code (open addressing keyed by sum), an
  // entry being valid while its stamp is the row's `paletteRows` (which `release` never resets).
  private readonly paletteSums: Int32Array;
  private readonly paletteCodes: Int32Array;
  private readonly paletteStamp: Int32Array;
  private paletteRows = 0;
  private readonly mins = new Uint32Array(sketchBins);
  // How many times `accumulate` counts a token: 2 while `addContext` scans its repeated runs.
  private weight = 1;
  // One callback for every scan: a single target the scanner's call can inline.
  private readonly visitSlot = (slot: number): void => this.accumulate(slot);

  /** `tokens` is the token cache to use (a fresh one of the default size unless given). */
  constructor(dim: number, tokens: TokenBuckets = new TokenBuckets(dim)) {
    if (dim > 0xffff) throw new RangeError(`audit vectors hold dimensions up to 65535, got ${dim}`);
    if (tokens.dim !== dim) throw new RangeError(`token cache dimension ${tokens.dim} differs from ${dim}`);
    this.dim = dim;
    this.tokens = tokens;
    this.sums = new Int32Array(dim);
    this.touchedBits = new Uint32Array(Math.ceil(dim / 32));
    this.touched = new Uint16Array(dim);
    let paletteSlots = 16;
    while (paletteSlots < dim * 2) paletteSlots *= 2;
    this.paletteSums = new Int32Array(paletteSlots);
    this.paletteCodes = new Int32Array(paletteSlots);
    this.paletteStamp = new Int32Array(paletteSlots).fill(-1);
  }

  get count(): number {
    return this.addresses.length;
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
    this.weight = 1;
    this.tokens.eachTokenSlot(text, this.visitSlot);
    this.finishRow();
  }

  /**
   * Adds one row from a context text and runs cut out of it (`auditContext`, eventContext.ts):
   * the same row as `addText` of the whole context, whose tokens are `text`'s plus each of
   * `repeated`'s twice. A row is a multiset of tokens (bucket sums and sketch minimums do not
   * depend on the order tokens come in), so a run the context holds twice is scanned once.
   */
  addContext(text: string, repeated: readonly string[]): void {
    this.startRow();
    this.weight = 1;
    let tokenCount = this.tokens.scanTokenSlots(text, this.visitSlot);
    this.weight = 2;
    for (const run of repeated) tokenCount += this.tokens.scanTokenSlots(run, this.visitSlot);
    this.weight = 1;
    // Python embeds a text without tokens as the one token "".
    if (tokenCount === 0) this.accumulate(this.tokens.slotOf(""));
    this.finishRow();
  }

  private startRow(): void {
    this.mins.fill(emptyBin);
  }

  /**
   * Adds the token in cache slot `slot` to the row, `weight` times (a token seen twice adds
   * twice to its bucket; the sketch keeps minimums, which a repeat does not change).
   */
  private accumulate(slot: number): void {
    const cache = this.tokens;
    const bucket = cache.bucket[slot];
    this.touchedBits[bucket >>> 5] |= 1 << (bucket & 31);
    this.sums[bucket] += cache.positive[slot] === 1 ? this.weight : -this.weight;
    const h = cache.sketchHash[slot];
    const bin = h & (sketchBins - 1);
    // The bin takes the low bits; compare the rest so every bin is a min over fresh bits.
    const rest = h >>> 6;
    if (rest < this.mins[bin]) this.mins[bin] = rest;
  }

  private finishRow(): void {
    const sums = this.sums;
    const mins = this.mins;
    // The touched buckets in ascending order, read off their bits (and the bits cleared): no
    // sort per row.
    const bits = this.touchedBits;
    const touched = this.touched;
    let touchedCount = 0;
    for (let word = 0; word < bits.length; word++) {
      let rest = bits[word];
      if (rest === 0) continue;
      bits[word] = 0;
      while (rest !== 0) {
        const lowest = rest & -rest;
        touched[touchedCount++] = (word << 5) | (31 - Math.clz32(lowest));
        rest ^= lowest;
      }
    }
    let sumSquaresExact = 0;
    for (let k = 0; k < touchedCount; k++) sumSquaresExact += sums[touched[k]] * sums[touched[k]];
    const norm = Math.sqrt(sumSquaresExact);
    // Codes: the k-th distinct non-zero sum (in index order) is code k; `touched` is rewritten
    // to hold, per non-zero, its dimension, and `sums` its code, until the block is written.
    const row = this.paletteRows++;
    const slotMask = this.paletteSums.length - 1;
    let nonZero = 0;
    let paletteSize = 0;
    for (let k = 0; k < touchedCount; k++) {
      const bucket = touched[k];
      const sum = sums[bucket];
      if (sum === 0) continue;
      let slot = Math.imul(sum, 0x9e3779b1) & slotMask;
      while (this.paletteStamp[slot] === row && this.paletteSums[slot] !== sum) slot = (slot + 1) & slotMask;
      if (this.paletteStamp[slot] !== row) {
        this.paletteStamp[slot] = row;
        this.paletteSums[slot] = sum;
        this.paletteCodes[slot] = paletteSize++;
      }
      touched[nonZero++] = bucket;
    }
    const address = this.reserveBlock(nonZero, paletteSize);
    const at = address & ((1 << chunkWordBits) - 1);
    const words = this.chunkWords[address >>> chunkWordBits];
    words[at + 1] = nonZero;
    words[at + 2] = paletteSize;
    this.locate(address);
    const floats = this.blockFloats;
    const halves = this.blockHalves;
    const bytes = this.blockBytes;
    let sumSquares = 0;
    for (let k = 0; k < nonZero; k++) {
      const bucket = touched[k];
      const sum = sums[bucket];
      sums[bucket] = 0;
      let slot = Math.imul(sum, 0x9e3779b1) & slotMask;
      while (this.paletteSums[slot] !== sum) slot = (slot + 1) & slotMask;
      const code = this.paletteCodes[slot];
      const f = Math.fround(sum / norm);
      floats[this.blockPaletteAt + code] = f;
      halves[this.blockIndexAt + k] = bucket;
      if (this.blockWide) halves[this.blockCodeAt + k] = code;
      else bytes[this.blockCodeAt + k] = code;
      sumSquares += f * f;
    }
    const rowNorm = Math.fround(Math.sqrt(sumSquares));
    floats[at] = rowNorm;
    this.addresses.push(address);
    this.norms.push(rowNorm);
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

  /** Room for a block of `count` non-zeros and `paletteSize` values: its address (the caller fills it in). */
  private reserveBlock(count: number, paletteSize: number): number {
    const words = blockWords(count, paletteSize);
    const last = this.chunkFloats.length - 1;
    if (last >= 0 && this.chunkUsed + words <= this.chunkFloats[last].length) {
      const address = (last << chunkWordBits) | this.chunkUsed;
      this.chunkUsed += words;
      return address;
    }
    const previous = last >= 0 ? this.chunkFloats[last].length : firstChunkWords / 2;
    const size = Math.max(Math.min(previous * 2, 1 << chunkWordBits), words);
    if (size > 1 << chunkWordBits) throw new RangeError(`an audit row of ${count} non-zeros does not fit a chunk`);
    const buffer = new ArrayBuffer(size * 4);
    this.chunkFloats.push(new Float32Array(buffer));
    this.chunkWords.push(new Uint32Array(buffer));
    this.chunkHalves.push(new Uint16Array(buffer));
    this.chunkBytes.push(new Uint8Array(buffer));
    this.chunkUsed = words;
    return (last + 1) << chunkWordBits;
  }

  /**
   * Drops every row (the vectors are empty after). What holds the vectors may outlive them: the
   * collector scans the stack conservatively, and a stale reference there kept ~400 MB of rows
   * alive through the rest of a million-event audit.
   */
  release(): void {
    for (const column of [this.addresses, this.norms, this.bands]) column.clear();
    this.chunkFloats = [];
    this.chunkWords = [];
    this.chunkHalves = [];
    this.chunkBytes = [];
    this.chunkUsed = 0;
  }

  /**
   * Hands every row over as transferable buffers (`appendRows` adds them to other vectors, in
   * order) and empties these vectors. Consecutive chunks are packed into chunks of up to
   * 2^chunkWordBits words (block addresses rewritten), so a part costs few chunk numbers
   * however small its first chunks were, and no unused words.
   */
  takeRows(): AuditRowsPart {
    const chunkLimit = 1 << chunkWordBits;
    const used = this.chunkWords.map((words, c) => (c === this.chunkWords.length - 1 ? this.chunkUsed : words.length));
    // Each old chunk's new chunk and word offset there.
    const newChunk = new Int32Array(used.length);
    const newOffset = new Int32Array(used.length);
    const packedWords: number[] = [];
    for (let c = 0; c < used.length; c++) {
      const last = packedWords.length - 1;
      if (last >= 0 && packedWords[last] + used[c] <= chunkLimit) {
        newChunk[c] = last;
        newOffset[c] = packedWords[last];
        packedWords[last] += used[c];
      } else {
        newChunk[c] = packedWords.length;
        newOffset[c] = 0;
        packedWords.push(used[c]);
      }
    }
    const chunks = packedWords.map((words) => new ArrayBuffer(words * 4));
    for (let c = 0; c < used.length; c++) {
      new Uint32Array(chunks[newChunk[c]], newOffset[c] * 4, used[c]).set(this.chunkWords[c].subarray(0, used[c]));
    }
    const count = this.count;
    const addresses = new Uint32Array(count);
    const old = this.addresses.data;
    for (let row = 0; row < count; row++) {
      const c = old[row] >>> chunkWordBits;
      addresses[row] = ((newChunk[c] << chunkWordBits) | (newOffset[c] + (old[row] & (chunkLimit - 1)))) >>> 0;
    }
    const part: AuditRowsPart = { chunks, addresses, norms: this.norms.data.slice(0, count), bands: this.bands.data.slice(0, count * bandCount) };
    this.release();
    return part;
  }

  /** Adds a part's rows (`takeRows` of other vectors of the same dimension) after these rows; the part's buffers are kept, not copied. */
  appendRows(part: AuditRowsPart): void {
    const chunkBase = this.chunkFloats.length;
    if (chunkBase + part.chunks.length > 2 ** (32 - chunkWordBits)) throw new RangeError(`audit rows need more than ${2 ** (32 - chunkWordBits)} chunks`);
    for (const buffer of part.chunks) {
      this.chunkFloats.push(new Float32Array(buffer));
      this.chunkWords.push(new Uint32Array(buffer));
      this.chunkHalves.push(new Uint16Array(buffer));
      this.chunkBytes.push(new Uint8Array(buffer));
    }
    // The last chunk is exactly full: the next block added here starts a chunk of its own.
    if (part.chunks.length > 0) this.chunkUsed = part.chunks[part.chunks.length - 1].byteLength / 4;
    const count = part.addresses.length;
    for (let row = 0; row < count; row++) {
      const address = part.addresses[row];
      this.addresses.push((((chunkBase + (address >>> chunkWordBits)) << chunkWordBits) | (address & ((1 << chunkWordBits) - 1))) >>> 0);
      this.norms.push(part.norms[row]);
    }
    this.bands.reserve(part.bands.length);
    this.bands.data.set(part.bands, this.bands.length);
    this.bands.length += part.bands.length;
  }

  /** Points the `block…` fields at the block at `address` (its header must be written). */
  private locate(address: number): void {
    const chunk = address >>> chunkWordBits;
    const at = address & ((1 << chunkWordBits) - 1);
    const words = this.chunkWords[chunk];
    this.blockFloats = this.chunkFloats[chunk];
    this.blockHalves = this.chunkHalves[chunk];
    this.blockBytes = this.chunkBytes[chunk];
    const count = words[at + 1];
    const paletteSize = words[at + 2];
    this.blockCount = count;
    this.blockPaletteAt = at + blockHeaderWords;
    this.blockIndexAt = (at + blockHeaderWords + paletteSize) * 2;
    this.blockWide = paletteSize > narrowPaletteMax;
    this.blockCodeAt = this.blockWide ? this.blockIndexAt + count : (this.blockIndexAt + count) * 2;
  }

  /** Band `band`'s key for `row`. */
  bandKey(row: number, band: number): number {
    return this.bands.data[row * bandCount + band];
  }

  isZero(row: number): boolean {
    return this.norms.data[row] === 0;
  }

  /** Writes `row`'s values into `dense` (all zeros before); `clear` undoes it. */
  scatter(row: number, dense: Float64Array): void {
    this.locate(this.addresses.data[row]);
    const halves = this.blockHalves;
    const floats = this.blockFloats;
    const count = this.blockCount;
    const indexAt = this.blockIndexAt;
    const codeAt = this.blockCodeAt;
    const paletteAt = this.blockPaletteAt;
    if (this.blockWide) {
      for (let k = 0; k < count; k++) dense[halves[indexAt + k]] = floats[paletteAt + halves[codeAt + k]];
    } else {
      const bytes = this.blockBytes;
      for (let k = 0; k < count; k++) dense[halves[indexAt + k]] = floats[paletteAt + bytes[codeAt + k]];
    }
  }

  clear(row: number, dense: Float64Array): void {
    this.locate(this.addresses.data[row]);
    const halves = this.blockHalves;
    const count = this.blockCount;
    const indexAt = this.blockIndexAt;
    for (let k = 0; k < count; k++) dense[halves[indexAt + k]] = 0;
  }

  /**
   * Cosine of `row` (scattered into `dense` by `scatter`) with `other`, accumulated in f64 over
   * `other`'s non-zeros in ascending index order: the products of the two rows' f32 values
   * (exact in f64), summed in the order a merge of the two sparse rows would. Reads only
   * `other`'s block (its norm is the block's first word).
   */
  cosineScattered(row: number, dense: Float64Array, other: number): number {
    const na = this.norms.data[row];
    const address = this.addresses.data[other];
    const nb = this.chunkFloats[address >>> chunkWordBits][address & ((1 << chunkWordBits) - 1)];
    if (na === 0 || nb === 0) return 0;
    this.locate(address);
    const halves = this.blockHalves;
    const floats = this.blockFloats;
    const count = this.blockCount;
    const indexAt = this.blockIndexAt;
    const codeAt = this.blockCodeAt;
    const paletteAt = this.blockPaletteAt;
    let dot = 0;
    if (this.blockWide) {
      for (let k = 0; k < count; k++) dot += dense[halves[indexAt + k]] * floats[paletteAt + halves[codeAt + k]];
    } else {
      const bytes = this.blockBytes;
      for (let k = 0; k < count; k++) dot += dense[halves[indexAt + k]] * floats[paletteAt + bytes[codeAt + k]];
    }
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
    for (let r = 0; r < rows.length; r++) {
      const base = r * this.dim;
      this.locate(this.addresses.data[rows[r]]);
      const halves = this.blockHalves;
      const floats = this.blockFloats;
      const bytes = this.blockBytes;
      const wide = this.blockWide;
      for (let k = 0; k < this.blockCount; k++) {
        const code = wide ? halves[this.blockCodeAt + k] : bytes[this.blockCodeAt + k];
        out[base + halves[this.blockIndexAt + k]] = floats[this.blockPaletteAt + code];
      }
    }
    return out;
  }
}
