/**
 * The vector lane's index per session (`<root>/projections/vectors/<session>.vectors`, key = the
 * row's `vectorKey`): the hash embeddings of its entity versions as postings by bucket,
 * searched exactly. It is kept in step with the projection:
 * appended to when the projection catches up, rebuilt when the projection was rebuilt. A side
 * file (`.vectors.json`) records the head the index reflects, its vector count, byte size and
 * SHA-256. An index whose side file is unreadable, whose head is not an event of the verified
 * log, whose dimension differs, whose count exceeds the rows, whose file does not match its
 * recorded size and SHA-256, or that opens with another vector count, is rebuilt from the rows,
 * and the rebuild is reported through `warn` (a first build is not).
 *
 * Earlier releases kept a usearch HNSW index (`<session>.usearch`): approximate, ~30
 * core-seconds to build for 95k versions, and different from one multi-threaded build to the
 * next. The postings give the exact answer the lane used to re-score its way towards; a
 * leftover `.usearch` file is removed when the new index is written.
 *
 * Why postings and not an HNSW graph: a hash embedding has one non-zero per distinct token bucket
 * (a dozen or two of 1536), so the vectors that share a bucket with the query are the only ones
 * with a non-zero cosine, and summing the query's weight times each stored value, bucket by
 * bucket in ascending order, gives exactly (bit for bit) the dense dot product the lane ranks by.
 * The search is therefore exact where usearch's HNSW was approximate, and the index is built in
 * one pass over the embeddings (the HNSW insertion was ~30 core-seconds for 95k versions, most
 * of a 100k-event reproject) into a file a tenth the size, byte-identical from one build to the
 * next.
 *
 * File (little-endian, docs/read-model.md "Vector postings"): the read model's 16-byte header
 * (magic `ZXVPOS01`), then u32 dim, u32 vector count, u32 posting count, u32 reserved; u32
 * offsets[dim + 1] (posting index where each bucket starts); zero padding to a multiple of 8;
 * f64 values[postings]; u32 keys[postings]. Within a bucket, keys ascend.
 *
 * @example
 * const postings = embedPostings(rows, 1536, 0);
 * fs.writeFileSync(file, Buffer.concat(encodeVectorPostings(postings)));
 * const index = VectorPostingsFile.open(file, fs.statSync(file).size);
 * exactCosineTop(index, hashEmbedMany(["which editor"], 1536)[0], 10); // [{ key: 12, similarity: 0.61 }, ...]
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { projectionsDir, refuseLinkUnderRoot } from "../eventloom/root.ts";
import { writeChunksAtomically, writeFileAtomic } from "../platform/atomicFile.ts";
import type { EntityRow, ProjectionHead } from "./types.ts";
import { collectGarbageNow, fileStamp, sha256OfFile } from "../platform/mod.ts";
import { BinaryFile, f64Bytes, fileHeader, headerBytes, u32Bytes } from "../platform/binaryFile.ts";
import { entityEmbeddingText } from "../vector/mod.ts";
import { TokenBuckets } from "../vector/tokenBuckets.ts";

export const vectorPostingsMagic = "ZXVPOS01";

/** Texts embedded between two progress reports. */
const progressRows = 4096;

/** Decoded postings kept by an open file for the buckets searched most recently (12 bytes each). */
const cachedPostingsMax = 2_000_000;

/** Postings of consecutive vector keys [keyBase, keyBase + count), grouped by bucket. */
export interface VectorPostings {
  dim: number;
  keyBase: number;
  count: number;
  /** Where bucket b's postings start: `offsets[b]`..`offsets[b + 1]`. */
  offsets: Uint32Array;
  values: Float64Array;
  keys: Uint32Array;
}

/** Postings of one bucket: stored values and their vector keys, keys ascending. */
export interface BucketPostings {
  values: Float64Array;
  keys: Uint32Array;
}

/**
 * What the vector lane asks of a session's index: for each of the query's buckets, the stored
 * vectors' values there. A file, the vectors of a few versions folded since (a tail catch-up),
 * or both.
 */
export interface VectorNeighbourSearch {
  /** The postings of `bucket`, in ascending key order. */
  bucket(bucket: number): readonly BucketPostings[];
  /** Number of vectors held (keys 0..size-1). */
  size(): number;
  /** Releases the open file, if any; the index is unusable after. */
  close(): void;
}

/** Postings held per builder block: a block is added as the last fills, so nothing is copied to grow. */
const builderBlockPostings = 1 << 20;

/**
 * Every non-zero of `count` consecutive vectors, in key order (then bucket order), as each
 * vector's bucket and integer count with one norm per vector: the value is `count / norm`,
 * divided only when the postings are grouped (the same IEEE-754 division the embedder did). At
 * 6 bytes a non-zero instead of 14 (bucket, key and f64 value) and in blocks instead of one array
 * doubled as it filled, a million long-summary versions' ~42 M non-zeros no longer took ~1.4 GB
 * while they were gathered.
 */
class PostingBuilder {
  private readonly bucketBlocks: Uint16Array[] = [];
  private readonly countBlocks: Int32Array[] = [];
  /** Non-zeros pushed; vector k's are `ends[k - 1]`..`ends[k]` (from 0 for the first). */
  length = 0;
  readonly ends: Uint32Array;
  readonly norms: Float64Array;

  constructor(vectors: number) {
    this.ends = new Uint32Array(vectors);
    this.norms = new Float64Array(vectors);
  }

  push(bucket: number, count: number): void {
    const block = Math.floor(this.length / builderBlockPostings);
    if (block === this.bucketBlocks.length) {
      this.bucketBlocks.push(new Uint16Array(builderBlockPostings));
      this.countBlocks.push(new Int32Array(builderBlockPostings));
    }
    const at = this.length - block * builderBlockPostings;
    this.bucketBlocks[block][at] = bucket;
    this.countBlocks[block][at] = count;
    this.length++;
  }

  /** Ends vector `index`, whose non-zeros were the last pushed, with its norm. */
  endVector(index: number, norm: number): void {
    this.ends[index] = this.length;
    this.norms[index] = norm;
  }

  bucket(i: number): number {
    return this.bucketBlocks[Math.floor(i / builderBlockPostings)][i % builderBlockPostings];
  }

  count(i: number): number {
    return this.countBlocks[Math.floor(i / builderBlockPostings)][i % builderBlockPostings];
  }

  /** Drops the blocks before the one holding non-zero `i` (the grouping is past them). */
  releaseBefore(i: number): void {
    const block = Math.floor(i / builderBlockPostings);
    for (let b = 0; b < block; b++) {
      if (this.bucketBlocks[b].length === 0) continue;
      this.bucketBlocks[b] = new Uint16Array(0);
      this.countBlocks[b] = new Int32Array(0);
    }
  }
}

/**
 * The hash embedding of many texts, sparse: each distinct token's bucket and sign come from a
 * token cache (src/vector/tokenBuckets.ts, the kernel's SHA-256), found by scanning the text
 * without splitting it into strings (a Map of token strings, looked up once per token of 100k
 * texts, was most of a reproject's vector time). The arithmetic is the kernel's (integer counts
 * per bucket, their squares summed, each divided by the square root) in the same IEEE-754
 * operations, so each value is the kernel's bit for bit (the tests compare them).
 */
class SparseEmbedder {
  private readonly tokens: TokenBuckets;
  private readonly counts: Float64Array;
  private readonly marks: Uint8Array;
  private touched: Uint32Array;
  private distinct = 0;

  constructor(readonly dim: number) {
    this.tokens = new TokenBuckets(dim);
    this.counts = new Float64Array(dim);
    this.marks = new Uint8Array(dim);
    this.touched = new Uint32Array(Math.min(dim, 256));
  }

  /**
   * Calls `emit(bucket, count)` for each non-zero of the embedding of `text` and returns the
   * norm: the non-zero's value is `count / norm`.
   */
  embed(text: string, emit: (bucket: number, count: number) => void): number {
    const { counts, marks, tokens } = this;
    this.distinct = 0;
    tokens.eachTokenSlot(text, (slot) => {
      const bucket = tokens.bucket[slot];
      if (marks[bucket] === 0) {
        marks[bucket] = 1;
        if (this.distinct === this.touched.length) this.growTouched();
        this.touched[this.distinct++] = bucket;
      }
      counts[bucket] += tokens.positive[slot] === 1 ? 1 : -1;
    });
    const touched = this.touched;
    const distinct = this.distinct;
    let sumSquares = 0;
    for (let i = 0; i < distinct; i++) {
      const v = counts[touched[i]];
      sumSquares += v * v;
    }
    const norm = Math.sqrt(sumSquares);
    for (let i = 0; i < distinct; i++) {
      const bucket = touched[i];
      const v = counts[bucket];
      counts[bucket] = 0;
      marks[bucket] = 0;
      // Tokens that cancelled out leave a zero of the dense vector: not a non-zero.
      if (v !== 0) emit(bucket, v);
    }
    return norm;
  }

  private growTouched(): void {
    const grown = new Uint32Array(Math.min(this.dim, this.touched.length * 2));
    grown.set(this.touched);
    this.touched = grown;
  }
}

/**
 * The postings of `rows`' hash embeddings (`entityEmbeddingText`), the row at index i under key
 * `keyBase + i`. Values are the kernel's f64 values, unrounded, so a search sums exactly what the
 * dense dot product sums.
 */
export function embedPostings(rows: readonly Pick<EntityRow, "name" | "entityType" | "summary">[], dim: number, keyBase: number, onProgress?: (done: number, total: number) => void): VectorPostings {
  return embedTextPostings(rows.length, (i) => entityEmbeddingText(rows[i].name, rows[i].entityType, rows[i].summary), dim, keyBase, onProgress);
}

/**
 * Characters of text embedded between two collections: each text (read, and joined from its
 * parts) is garbage once embedded, and the collector let it pile up (a million long summaries,
 * ~470 M characters: ~0.9 GB of it under the postings before they were grouped). Texts that never
 * add up to this (the bench generator's million versions: ~140 M) are left to the collector.
 */
const embeddingCharsPerCollection = 150_000_000;

/**
 * The same on the vectors' worker thread (`writeTextPostingsFile`), whose heap holds little but
 * the texts' garbage, so that a collection costs little: what it lets pile up adds to the read
 * model's peak on the main thread at the same time.
 */
const workerEmbeddingCharsPerCollection = 16_000_000;

/** The postings of `count` texts' hash embeddings (text i is `textOf(i)`, under key `keyBase + i`), reporting progress every few thousand. */
export function embedTextPostings(
  count: number,
  textOf: (index: number) => string,
  dim: number,
  keyBase: number,
  onProgress?: (done: number, total: number) => void,
): VectorPostings {
  return groupByBucket(embedTexts(count, textOf, dim, onProgress), dim, keyBase, count);
}

/** Every non-zero of `count` texts' hash embeddings (text i is `textOf(i)`), in text order. */
function embedTexts(count: number, textOf: (index: number) => string, dim: number, onProgress?: (done: number, total: number) => void): PostingBuilder {
  if (!Number.isInteger(dim) || dim < 1 || dim > 0xffff) throw new RangeError(`vector postings hold 1..65535 dimensions, got ${dim}`);
  const builder = new PostingBuilder(count);
  const embedder = new SparseEmbedder(dim);
  const push = (bucket: number, nonZero: number) => builder.push(bucket, nonZero);
  let chars = 0;
  let collected = false;
  for (let i = 0; i < count; i++) {
    const text = textOf(i);
    builder.endVector(i, embedder.embed(text, push));
    if ((i + 1) % progressRows === 0 || i + 1 === count) onProgress?.(i + 1, count);
    chars += text.length;
    if (chars >= embeddingCharsPerCollection) {
      collectGarbageNow();
      collected = true;
      chars = 0;
    }
  }
  // The last texts' garbage goes before the grouped postings are allocated.
  if (collected) collectGarbageNow();
  return builder;
}

/** Postings per bucket gathered before they are written at their place in the file. */
const bucketBufferPostings = 512;

/**
 * Writes the postings file (`encodeVectorPostings`'s bytes) of `count` texts' hash embeddings
 * (text i is `textOf(i)`, under key i) to `fd`, a new empty file, and returns its size (on the
 * vectors' worker thread, vectorIndexWorker.ts, beside the read model's writer). The texts are
 * embedded twice: once to count each bucket's postings, then again to write each posting at its
 * place in the file, gathered per bucket in a small buffer. So neither the embeddings (6 bytes a
 * non-zero) nor the grouped values and keys (12 bytes) are ever held: ~42 M non-zeros for a
 * million long-summary versions, ~250 and ~500 MB, which on top of the read model's own peak
 * took a reproject past 2 GB. The same values (`count / norm`, the same IEEE-754 division) in
 * the same places as `groupByBucket`, so the same bytes.
 */
export function writeTextPostingsFile(fd: number, count: number, textOf: (index: number) => string, dim: number): number {
  if (!Number.isInteger(dim) || dim < 1 || dim > 0xffff) throw new RangeError(`vector postings hold 1..65535 dimensions, got ${dim}`);
  const embedder = new SparseEmbedder(dim);
  const offsets = new Uint32Array(dim + 1);
  eachText(count, textOf, (text) => embedder.embed(text, (bucket) => offsets[bucket + 1]++));
  for (let b = 0; b < dim; b++) offsets[b + 1] += offsets[b];
  const total = offsets[dim];
  const at = layout(dim, total);
  const head = Buffer.concat([
    fileHeader(vectorPostingsMagic),
    Buffer.alloc(16),
    u32Bytes(offsets),
    Buffer.alloc(at.valuesAt - (headerBytes + 16 + (dim + 1) * 4)),
  ]);
  head.writeUInt32LE(dim, headerBytes);
  head.writeUInt32LE(count, headerBytes + 4);
  head.writeUInt32LE(total, headerBytes + 8);
  writeAt(fd, head, 0);
  // Bucket b's buffered postings: its slots from `flushed[b]`, `filled[b]` of them so far.
  const values = new Float64Array(dim * bucketBufferPostings);
  const keys = new Uint32Array(dim * bucketBufferPostings);
  const filled = new Uint32Array(dim);
  const flushed = offsets.slice(0, dim);
  const flush = (bucket: number) => {
    const n = filled[bucket];
    if (n === 0) return;
    const from = bucket * bucketBufferPostings;
    writeAt(fd, f64Bytes(values.subarray(from, from + n)), at.valuesAt + flushed[bucket] * 8);
    writeAt(fd, u32Bytes(keys.subarray(from, from + n)), at.keysAt + flushed[bucket] * 4);
    flushed[bucket] += n;
    filled[bucket] = 0;
  };
  // A vector's non-zeros wait here until its norm is known.
  let pendingBuckets = new Uint16Array(256);
  let pendingCounts = new Float64Array(256);
  eachText(count, textOf, (text, vector) => {
    let pending = 0;
    const norm = embedder.embed(text, (bucket, nonZero) => {
      if (pending === pendingBuckets.length) {
        const buckets = new Uint16Array(pending * 2);
        buckets.set(pendingBuckets);
        pendingBuckets = buckets;
        const counts = new Float64Array(pending * 2);
        counts.set(pendingCounts);
        pendingCounts = counts;
      }
      pendingBuckets[pending] = bucket;
      pendingCounts[pending++] = nonZero;
    });
    for (let j = 0; j < pending; j++) {
      const bucket = pendingBuckets[j];
      const slot = bucket * bucketBufferPostings + filled[bucket]++;
      keys[slot] = vector;
      values[slot] = pendingCounts[j] / norm;
      if (filled[bucket] === bucketBufferPostings) flush(bucket);
    }
  });
  for (let b = 0; b < dim; b++) flush(b);
  if (flushed.some((end, b) => end !== offsets[b + 1])) throw new Error("vector postings: the texts embedded differently the second time");
  return at.bytes;
}

/** Calls `use` with each of `count` texts in order, collecting the texts' garbage every few million characters (a worker's heap is small, so a collection costs little). */
function eachText(count: number, textOf: (index: number) => string, use: (text: string, index: number) => void): void {
  let chars = 0;
  for (let i = 0; i < count; i++) {
    const text = textOf(i);
    use(text, i);
    chars += text.length;
    if (chars >= workerEmbeddingCharsPerCollection) {
      collectGarbageNow();
      chars = 0;
    }
  }
}

function writeAt(fd: number, bytes: Uint8Array, position: number): void {
  let done = 0;
  while (done < bytes.length) done += fs.writeSync(fd, bytes, done, bytes.length - done, position + done);
}

/**
 * A counting sort by bucket: stable, so keys stay ascending within each bucket. The builder's
 * blocks are dropped as the sort passes them.
 */
function groupByBucket(builder: PostingBuilder, dim: number, keyBase: number, count: number): VectorPostings {
  const total = builder.length;
  const offsets = new Uint32Array(dim + 1);
  for (let i = 0; i < total; i++) offsets[builder.bucket(i) + 1]++;
  for (let b = 0; b < dim; b++) offsets[b + 1] += offsets[b];
  const next = offsets.slice(0, dim);
  const keys = new Uint32Array(total);
  const values = new Float64Array(total);
  let i = 0;
  for (let vector = 0; vector < count; vector++) {
    const key = keyBase + vector;
    const norm = builder.norms[vector];
    for (const end = builder.ends[vector]; i < end; i++) {
      const slot = next[builder.bucket(i)]++;
      keys[slot] = key;
      values[slot] = builder.count(i) / norm;
    }
    if (vector % 4096 === 4095) builder.releaseBefore(i);
  }
  return { dim, keyBase, count, offsets, values, keys };
}

/** `head` followed by `tail` (whose keys continue `head`'s): per bucket, head's postings then tail's. */
export function concatPostings(head: VectorPostings, tail: VectorPostings): VectorPostings {
  if (head.dim !== tail.dim) throw new RangeError(`vector postings of dimension ${head.dim} and ${tail.dim} cannot be joined`);
  if (tail.keyBase !== head.keyBase + head.count) throw new RangeError(`vector postings: keys from ${tail.keyBase} cannot follow keys up to ${head.keyBase + head.count}`);
  const dim = head.dim;
  const total = head.keys.length + tail.keys.length;
  const offsets = new Uint32Array(dim + 1);
  const keys = new Uint32Array(total);
  const values = new Float64Array(total);
  let at = 0;
  for (let b = 0; b < dim; b++) {
    offsets[b] = at;
    for (const part of [head, tail]) {
      const from = part.offsets[b];
      const to = part.offsets[b + 1];
      keys.set(part.keys.subarray(from, to), at);
      values.set(part.values.subarray(from, to), at);
      at += to - from;
    }
  }
  offsets[dim] = at;
  return { dim, keyBase: head.keyBase, count: head.count + tail.count, offsets, values, keys };
}

function paddingAfter(bytes: number): number {
  return (8 - (bytes % 8)) % 8;
}

function layout(dim: number, postings: number): { offsetsAt: number; valuesAt: number; keysAt: number; bytes: number } {
  const offsetsAt = headerBytes + 16;
  const offsetsEnd = offsetsAt + (dim + 1) * 4;
  const valuesAt = offsetsEnd + paddingAfter(offsetsEnd);
  const keysAt = valuesAt + postings * 8;
  return { offsetsAt, valuesAt, keysAt, bytes: keysAt + postings * 4 };
}

/** The file's bytes, as chunks for an atomic write. Only postings of keys from 0 are a file. */
export function encodeVectorPostings(postings: VectorPostings): Buffer[] {
  if (postings.keyBase !== 0) throw new RangeError(`a vector postings file starts at key 0, not ${postings.keyBase}`);
  const counts = Buffer.alloc(16);
  counts.writeUInt32LE(postings.dim, 0);
  counts.writeUInt32LE(postings.count, 4);
  counts.writeUInt32LE(postings.keys.length, 8);
  const offsetsEnd = headerBytes + 16 + (postings.dim + 1) * 4;
  return [
    fileHeader(vectorPostingsMagic),
    counts,
    u32Bytes(postings.offsets),
    Buffer.alloc(paddingAfter(offsetsEnd)),
    f64Bytes(postings.values),
    u32Bytes(postings.keys),
  ];
}

/** Postings held in memory (a tail catch-up's new versions). */
export class MemoryVectorPostings implements VectorNeighbourSearch {
  constructor(readonly postings: VectorPostings) {}

  bucket(bucket: number): readonly BucketPostings[] {
    const { offsets, values, keys } = this.postings;
    const from = offsets[bucket];
    const to = offsets[bucket + 1];
    return from === to ? [] : [{ values: values.subarray(from, to), keys: keys.subarray(from, to) }];
  }

  size(): number {
    return this.postings.keyBase + this.postings.count;
  }

  close(): void {
    // Nothing is open.
  }
}

/** An index followed by the versions folded after it (keys continuing the base's). */
export class ExtendedVectorSearch implements VectorNeighbourSearch {
  constructor(private readonly base: VectorNeighbourSearch, private readonly tail: MemoryVectorPostings) {
    if (tail.postings.keyBase !== base.size()) throw new RangeError(`vector index extension starts at key ${tail.postings.keyBase}, the base holds ${base.size()} vectors`);
  }

  bucket(bucket: number): readonly BucketPostings[] {
    return [...this.base.bucket(bucket), ...this.tail.bucket(bucket)];
  }

  size(): number {
    return this.tail.size();
  }

  close(): void {
    this.base.close();
  }
}

/**
 * Closes the file of an index nobody holds any more (an in-memory session index or a server's
 * evicted one is dropped, not closed).
 */
const unreferencedFiles = new FinalizationRegistry<BinaryFile>((file) => file.close());

/**
 * A postings file read lazily: the header and bucket offsets at open (~6 KB at dimension 1536),
 * then only the buckets a query has. The descriptor stays open, so a file renamed over this one
 * by a later catch-up does not change what this index reads. Decoded buckets are cached up to a
 * fixed number of postings (a server asks for common buckets again and again).
 */
export class VectorPostingsFile implements VectorNeighbourSearch {
  private readonly cache = new Map<number, BucketPostings>();
  private cachedPostings = 0;

  private constructor(
    private readonly file: BinaryFile,
    readonly dim: number,
    private readonly count: number,
    private readonly offsets: Uint32Array,
    private readonly valuesAt: number,
    private readonly keysAt: number,
  ) {
    unreferencedFiles.register(this, file, this);
  }

  /** Opens and checks `file` (`bytes` long, as its metadata records). Throws `ReadModelCorruptError` naming what is wrong. */
  static open(path: string, bytes: number): VectorPostingsFile {
    const file = BinaryFile.open(path, vectorPostingsMagic, bytes);
    try {
      file.check(file.size >= headerBytes + 16, "is too short for its counts");
      const counts = file.bytes(headerBytes, 16);
      const dim = counts.readUInt32LE(0);
      const count = counts.readUInt32LE(4);
      const postings = counts.readUInt32LE(8);
      file.check(dim >= 1 && dim <= 0xffff, `records dimension ${dim}`);
      const at = layout(dim, postings);
      file.check(file.size === at.bytes, `has ${file.size} bytes, its counts (dimension ${dim}, ${postings} postings) need ${at.bytes}`);
      const offsets = file.u32Array(at.offsetsAt, dim + 1);
      file.check(offsets[0] === 0 && offsets[dim] === postings, "has bucket offsets that do not span its postings");
      for (let b = 0; b < dim; b++) file.check(offsets[b] <= offsets[b + 1], `has bucket ${b} ending before it starts`);
      return new VectorPostingsFile(file, dim, count, offsets, at.valuesAt, at.keysAt);
    } catch (error) {
      file.close();
      throw error;
    }
  }

  bucket(bucket: number): readonly BucketPostings[] {
    const cached = this.cache.get(bucket);
    if (cached !== undefined) {
      this.cache.delete(bucket);
      this.cache.set(bucket, cached);
      return [cached];
    }
    const from = this.offsets[bucket];
    const n = this.offsets[bucket + 1] - from;
    if (n === 0) return [];
    const read = { values: this.file.f64Array(this.valuesAt + from * 8, n), keys: this.file.u32Array(this.keysAt + from * 4, n) };
    this.file.check(read.keys[n - 1] < this.count, `has a key in bucket ${bucket} beyond its ${this.count} vectors`);
    this.remember(bucket, read);
    return [read];
  }

  private remember(bucket: number, read: BucketPostings): void {
    if (read.keys.length > cachedPostingsMax) return;
    this.cache.set(bucket, read);
    this.cachedPostings += read.keys.length;
    for (const [oldest, entry] of this.cache) {
      if (this.cachedPostings <= cachedPostingsMax) break;
      this.cache.delete(oldest);
      this.cachedPostings -= entry.keys.length;
    }
  }

  /** Every posting, decoded (a catch-up appends to them and writes a new file). */
  readAll(): VectorPostings {
    const postings = this.offsets[this.dim];
    return {
      dim: this.dim,
      keyBase: 0,
      count: this.count,
      offsets: this.offsets.slice(),
      values: this.file.f64Array(this.valuesAt, postings),
      keys: this.file.u32Array(this.keysAt, postings),
    };
  }

  size(): number {
    return this.count;
  }

  close(): void {
    unreferencedFiles.unregister(this);
    this.cache.clear();
    this.cachedPostings = 0;
    this.file.close();
  }
}

export interface CosineHit {
  key: number;
  /** Exactly the dense dot product of the query and the stored vector, > 0. */
  similarity: number;
}

/**
 * The `limit` stored vectors with the highest positive dot product with `query` (a dense,
 * L2-normalised embedding of `search`'s dimension), highest first, ties by key ascending; only
 * keys `accept` takes. Each vector's sum is accumulated over its shared buckets in ascending
 * order, the order a dense dot product adds its non-zero terms, so the similarities are the
 * dense ones bit for bit.
 */
export function exactCosineTop(search: VectorNeighbourSearch, query: Float64Array, limit: number, accept: (key: number) => boolean = () => true): CosineHit[] {
  const count = search.size();
  if (limit <= 0 || count === 0) return [];
  const sums = new Float64Array(count);
  const seen = new Uint8Array(count);
  const touched: number[] = [];
  for (let b = 0; b < query.length; b++) {
    const weight = query[b];
    if (weight === 0) continue;
    for (const { values, keys } of search.bucket(b)) {
      for (let j = 0; j < keys.length; j++) {
        const key = keys[j];
        if (seen[key] === 0) {
          seen[key] = 1;
          touched.push(key);
        }
        sums[key] += weight * values[j];
      }
    }
  }
  const best = new BestHits(limit);
  for (const key of touched) {
    const similarity = sums[key];
    if (similarity > 0 && accept(key)) best.offer(key, similarity);
  }
  return best.sorted();
}

/** The best `limit` (similarity descending, key ascending) of the hits offered: a bounded min-heap of the worst kept. */
class BestHits {
  private readonly heap: CosineHit[] = [];

  constructor(private readonly limit: number) {}

  /** True when `a` ranks below `b`. */
  private static worse(a: CosineHit, b: CosineHit): boolean {
    return a.similarity < b.similarity || (a.similarity === b.similarity && a.key > b.key);
  }

  offer(key: number, similarity: number): void {
    const hit = { key, similarity };
    const heap = this.heap;
    if (heap.length < this.limit) {
      heap.push(hit);
      this.up(heap.length - 1);
    } else if (BestHits.worse(heap[0], hit)) {
      heap[0] = hit;
      this.down(0);
    }
  }

  sorted(): CosineHit[] {
    return this.heap.slice().sort((a, b) => b.similarity - a.similarity || a.key - b.key);
  }

  private up(i: number): void {
    const heap = this.heap;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!BestHits.worse(heap[i], heap[parent])) break;
      [heap[i], heap[parent]] = [heap[parent], heap[i]];
      i = parent;
    }
  }

  private down(i: number): void {
    const heap = this.heap;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let worst = i;
      if (left < heap.length && BestHits.worse(heap[left], heap[worst])) worst = left;
      if (right < heap.length && BestHits.worse(heap[right], heap[worst])) worst = right;
      if (worst === i) return;
      [heap[i], heap[worst]] = [heap[worst], heap[i]];
      i = worst;
    }
  }
}

// ---------------------------------------------------------------------------
// The index of a session: its file, its side file and when it is rebuilt.

export const vectorMetaSchema = "zaxy.projection.vectors.v3";
/** What the side file records as the vectors' kind: the kernel's f64 values, stored unrounded. */
const storedValues = "f64";

interface VectorMeta {
  schema: string;
  session_id: string;
  head_seq: number;
  head_hash: string;
  count: number;
  dim: number;
  quantization: string;
  /** SHA-256 of the index file, checked before the file is trusted. */
  sha256: string;
  /** Size of the index file in bytes: a cut file is refused before it is even hashed. */
  bytes: number;
  /** `fileStamp` of the index file when its SHA-256 was computed: the same stamp needs no new hash. */
  stamp?: string;
}

export interface SessionVectorIndex {
  index: VectorNeighbourSearch;
  count: number;
  dim: number;
  path: string;
  /** How the index was brought up to date: read as is, appended to, or built from scratch. */
  action: "loaded" | "appended" | "built";
}

export function vectorIndexPath(root: string, sessionId: string): string {
  return path.join(projectionsDir(root), "vectors", `${sessionId}.vectors`);
}

/** The HNSW index file earlier versions kept beside it (removed once the postings are written). */
function legacyUsearchPath(indexPath: string): string {
  return indexPath.replace(/\.vectors$/, ".usearch");
}

function metaPath(indexPath: string): string {
  return `${indexPath}.json`;
}

/** The side file, `missing` when neither it nor the index exists (a first build), or why it is unusable. */
function readMeta(indexPath: string): VectorMeta | "missing" | { problem: string } {
  let text: string;
  try {
    text = fs.readFileSync(metaPath(indexPath), "utf8");
  } catch {
    return fs.existsSync(indexPath) ? { problem: `its metadata file "${metaPath(indexPath)}" is missing` } : "missing";
  }
  let meta: VectorMeta;
  try {
    meta = JSON.parse(text) as VectorMeta;
  } catch {
    return { problem: `its metadata file "${metaPath(indexPath)}" is not JSON` };
  }
  if (meta?.schema !== vectorMetaSchema) return { problem: `its metadata file has schema ${JSON.stringify(meta?.schema ?? null)}, not ${vectorMetaSchema}` };
  if (!fs.existsSync(indexPath)) return { problem: "the index file is missing" };
  return meta;
}

/** What the vectors read of an entity version: its embedded text's fields and its seq. */
export type VectorEntity = Pick<EntityRow, "name" | "entityType" | "summary" | "sourceEventSeq">;

/** The rows the vectors are built from (a session's `SessionGraphRows` is one). */
export interface VectorRows {
  entities: readonly VectorEntity[];
  head: ProjectionHead | null;
}

/** Why an index described by `meta` cannot be reused for `rows`, or null when it can. */
function metaProblem(meta: VectorMeta, sessionId: string, rows: VectorRows, events: LogEvents, dim: number): string | null {
  const total = rows.entities.length;
  const headEvent = events[meta.head_seq - 1];
  if (meta.session_id !== sessionId) return `its metadata names session ${JSON.stringify(meta.session_id)}`;
  if (meta.dim !== dim || meta.quantization !== storedValues) {
    return `it holds ${meta.dim}-dimensional ${meta.quantization} vectors, ${dim}-dimensional ${storedValues} are wanted`;
  }
  if (!Number.isSafeInteger(meta.count) || meta.count < 0 || meta.count > total) return `it records ${meta.count} vectors for ${total} entity versions`;
  if (meta.head_seq > 0 && (headEvent === undefined || headEvent.hash !== meta.head_hash)) {
    return `its head (seq ${meta.head_seq}) is not an event of the verified log`;
  }
  if (meta.count > 0 && rows.entities[meta.count - 1].sourceEventSeq > meta.head_seq) return "its vectors do not match the projected rows";
  return null;
}

function fileProblem(indexPath: string, meta: VectorMeta): string | null {
  const bytes = fs.statSync(indexPath).size;
  if (bytes !== meta.bytes) return `the index file has ${bytes} bytes, its metadata records ${meta.bytes}`;
  if (meta.stamp !== undefined && fileStamp(indexPath) === meta.stamp) return null;
  // Hashed in chunks: the file can be hundreds of megabytes.
  if (sha256OfFile(indexPath, meta.bytes) !== meta.sha256) return "the index file does not match the SHA-256 its metadata records";
  restamp(indexPath, meta);
  return null;
}

/**
 * Records the index file's current stamp once its SHA-256 has been checked, so the next open
 * need not hash it again; best effort (a read-only root only loses the shortcut).
 */
function restamp(indexPath: string, meta: VectorMeta): void {
  try {
    writeChunksAtomically(metaPath(indexPath), [Buffer.from(JSON.stringify({ ...meta, stamp: fileStamp(indexPath) }), "utf8")]);
  } catch {
    // The stamp only saves a hash on the next open.
  }
}

/**
 * Where the index of `indexPath` is written before it is renamed into place, its directory made
 * (`<root>/projections/vectors/<session>.vectors`: never written through a link under the root).
 */
function preparedTempPath(indexPath: string): string {
  refuseLinkUnderRoot(path.dirname(path.dirname(path.dirname(path.resolve(indexPath)))), indexPath, `write the vector index ${indexPath}`);
  fs.mkdirSync(path.dirname(indexPath), { recursive: true });
  return `${indexPath}.tmp-${process.pid}`;
}

/**
 * Writes the index atomically and opens what was written. The file is opened before the rename,
 * so the index returned reads this file whatever another writer renames over the path.
 */
function save(postings: VectorPostings, indexPath: string, meta: VectorMeta): VectorPostingsFile {
  const temp = preparedTempPath(indexPath);
  try {
    meta.bytes = writeChunksAtomically(temp, encodeVectorPostings(postings));
    meta.sha256 = sha256OfFile(temp)!;
  } catch (error) {
    // A full disk must not leave a partial index behind to fill it further.
    fs.rmSync(temp, { force: true });
    throw error;
  }
  return install(temp, indexPath, meta);
}

/** Moves the written index `temp` (`meta.bytes` long, its SHA-256 `meta.sha256`) into place with its side file, and opens it. */
function install(temp: string, indexPath: string, meta: VectorMeta): VectorPostingsFile {
  let opened: VectorPostingsFile;
  try {
    opened = VectorPostingsFile.open(temp, meta.bytes);
    fs.renameSync(temp, indexPath);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
  meta.stamp = fileStamp(indexPath);
  try {
    writeFileAtomic(metaPath(indexPath), JSON.stringify(meta));
  } catch (error) {
    // An index without its side file would be refused, with a warning, by every later read: a
    // side file that cannot land (a full disk) takes the index with it, so the next read finds
    // none and builds one, as a first read does. (The old side file goes too: it described the
    // index just replaced.)
    opened.close();
    for (const file of [indexPath, metaPath(indexPath)]) fs.rmSync(file, { force: true });
    throw error;
  }
  removeLegacyIndex(indexPath);
  return opened;
}

function removeLegacyIndex(indexPath: string): void {
  const legacy = legacyUsearchPath(indexPath);
  if (legacy === indexPath) return;
  for (const file of [legacy, `${legacy}.json`]) {
    try {
      fs.rmSync(file, { force: true });
    } catch {
      // A leftover only costs disk space; nothing reads it.
    }
  }
}

function openChecked(indexPath: string, meta: VectorMeta): VectorPostingsFile {
  const index = VectorPostingsFile.open(indexPath, meta.bytes);
  if (index.size() !== meta.count || index.dim !== meta.dim) {
    index.close();
    throw new Error(`the index file holds ${index.size()} ${index.dim}-dimensional vectors, its metadata records ${meta.count} ${meta.dim}-dimensional`);
  }
  return index;
}

/**
 * The session's index exactly at `head` with `count` vectors, for a read model at that head
 * (read lazily: a search reads only the buckets of its query); throws with the reason when the
 * index on disk is not that one (the caller then brings it up to date from the rows).
 */
export async function viewVectorIndexAt(root: string, sessionId: string, head: { seq: number; hash: string }, count: number, dim: number): Promise<SessionVectorIndex> {
  const indexPath = vectorIndexPath(root, sessionId);
  const read = readMeta(indexPath);
  const problem = read === "missing" ? "there is none" : "problem" in read ? read.problem
    : read.session_id !== sessionId || read.head_seq !== head.seq || read.head_hash !== head.hash ? `it is at seq ${read.head_seq}, not at the read model's head ${head.seq}`
    : read.count !== count || read.dim !== dim || read.quantization !== storedValues ? `it holds ${read.count} ${read.dim}-dimensional ${read.quantization} vectors, ${count} ${dim}-dimensional ${storedValues} are wanted`
    : fileProblem(indexPath, read);
  if (problem !== null) throw new Error(`vector index "${indexPath}" is not at the read model's head: ${problem}`);
  try {
    return { index: openChecked(indexPath, read as VectorMeta), count, dim, path: indexPath, action: "loaded" };
  } catch (error) {
    throw new Error(`vector index "${indexPath}": ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * `base` (an index opened at an earlier head) followed by `rows`, the versions folded since
 * (vector keys following the base's), held in memory and not saved: the same vectors, so the
 * same answers, as the full catch-up gives at the same head.
 */
export async function extendVectorIndex(base: SessionVectorIndex, rows: readonly EntityRow[]): Promise<SessionVectorIndex> {
  if (rows.length === 0) return base;
  rows.forEach((row, i) => {
    if (row.vectorKey !== base.count + i) throw new RangeError(`vector index extension: version ${i} has vector key ${row.vectorKey}, expected ${base.count + i}`);
  });
  if (base.index.size() !== base.count) throw new Error(`vector index "${base.path}" holds ${base.index.size()} vectors, ${base.count} were opened`);
  const tail = new MemoryVectorPostings(embedPostings(rows, base.dim, base.count));
  return { index: new ExtendedVectorSearch(base.index, tail), count: base.count + rows.length, dim: base.dim, path: base.path, action: "appended" };
}

/** What the vector index reads of the verified log: event `seq`'s hash at index `seq - 1`. */
export type LogEvents = readonly { readonly hash: string }[];

/**
 * The part of the verified log `syncVectorIndex` reads: the event at the session's saved index's
 * recorded head (a sparse array holding only it), for a caller that releases the parsed events
 * before building vectors (`zaxy reproject`: at 1M events they are ~3 GB of heap that the build
 * would otherwise sit on top of).
 */
export function vectorHeadEvents(root: string, sessionId: string, events: LogEvents): LogEvents {
  const headSeq = savedVectorHeadSeq(root, sessionId);
  const kept: { hash: string }[] = [];
  if (headSeq !== null && headSeq <= events.length) kept[headSeq - 1] = { hash: events[headSeq - 1].hash };
  return kept;
}

/**
 * The seq of the session's saved index's recorded head (null when there is no readable index,
 * or it records none): the one event whose hash `syncVectorIndex` checks, for a caller that
 * sees the events pass one at a time.
 */
export function savedVectorHeadSeq(root: string, sessionId: string): number | null {
  const read = readMeta(vectorIndexPath(root, sessionId));
  return read !== "missing" && !("problem" in read) && Number.isSafeInteger(read.head_seq) && read.head_seq > 0 ? read.head_seq : null;
}

/**
 * What `syncVectorIndex` found of the session's saved index before embedding anything: the index
 * itself when it is already at `rows` (`loaded`), else the saved index whose vectors it keeps
 * (`kept`, null for a build from scratch) and why the saved one is rebuilt (`problem`, null for a first build
 * or an append).
 */
export interface VectorSyncPlan {
  indexPath: string;
  loaded: SessionVectorIndex | null;
  /** The saved index whose vectors are kept and appended to (read when the vectors are built). */
  kept: VectorMeta | null;
  problem: string | null;
}

/** The first step of `syncVectorIndex`: the saved index checked against `rows` and `events`. */
export function planVectorSync(root: string, sessionId: string, rows: VectorRows, events: LogEvents, dim: number): VectorSyncPlan {
  const indexPath = vectorIndexPath(root, sessionId);
  const total = rows.entities.length;
  const read = readMeta(indexPath);
  const meta = read === "missing" || "problem" in read ? null : read;
  let problem = read === "missing" ? null : "problem" in read ? read.problem : metaProblem(read, sessionId, rows, events, dim);
  if (meta !== null && problem === null) problem = fileProblem(indexPath, meta);
  if (meta !== null && problem === null) {
    try {
      if (meta.count === total) return { indexPath, loaded: { index: openChecked(indexPath, meta), count: total, dim, path: indexPath, action: "loaded" }, kept: null, problem: null };
      return { indexPath, loaded: null, kept: meta, problem: null };
    } catch (error) {
      problem = cannotBeRead(error);
    }
  }
  return { indexPath, loaded: null, kept: null, problem };
}

function cannotBeRead(error: unknown): string {
  return `it cannot be read (${error instanceof Error ? error.message : String(error)})`;
}

/** The postings of the saved index `plan` keeps, or null with `plan.problem` set when it cannot be read after all. */
function readKept(plan: VectorSyncPlan): VectorPostings | null {
  if (plan.kept === null) return null;
  try {
    const index = openChecked(plan.indexPath, plan.kept);
    try {
      return index.readAll();
    } finally {
      index.close();
    }
  } catch (error) {
    plan.problem = cannotBeRead(error);
    return null;
  }
}

function builtMeta(sessionId: string, rows: VectorRows, dim: number): VectorMeta {
  const head = rows.head;
  return {
    schema: vectorMetaSchema,
    session_id: sessionId,
    head_seq: head?.seq ?? 0,
    head_hash: head?.hash ?? "",
    count: rows.entities.length,
    dim,
    quantization: storedValues,
    sha256: "",
    bytes: 0,
  };
}

function rebuildWarning(plan: VectorSyncPlan): string {
  return `vector index "${plan.indexPath}" is rebuilt from the projected rows: ${plan.problem}`;
}

/**
 * The session's index, brought up to `rows` (appending new versions or rebuilding), opened from
 * the file written. `events` is the verified log (or `vectorHeadEvents` of it), used to check
 * that the index's recorded head is still part of it. A rebuild of an index that existed is
 * reported through `warn` with the reason.
 */
export async function syncVectorIndex(
  root: string,
  sessionId: string,
  rows: VectorRows,
  events: LogEvents,
  dim: number,
  onProgress?: (done: number, total: number) => void,
  warn?: (message: string) => void,
): Promise<SessionVectorIndex> {
  return syncVectorIndexFromPlan(planVectorSync(root, sessionId, rows, events, dim), sessionId, rows, dim, onProgress, warn);
}

/** The rest of `syncVectorIndex` once its `planVectorSync` is made. */
export function syncVectorIndexFromPlan(
  plan: VectorSyncPlan,
  sessionId: string,
  rows: VectorRows,
  dim: number,
  onProgress?: (done: number, total: number) => void,
  warn?: (message: string) => void,
): Promise<SessionVectorIndex> {
  if (plan.loaded !== null) return Promise.resolve(plan.loaded);
  const kept = readKept(plan);
  if (plan.problem !== null) warn?.(rebuildWarning(plan));
  const from = kept?.count ?? 0;
  const added = embedPostings(rows.entities.slice(from), dim, from, onProgress);
  const postings = kept === null ? added : concatPostings(kept, added);
  const index = save(postings, plan.indexPath, builtMeta(sessionId, rows, dim));
  return Promise.resolve({ index, count: rows.entities.length, dim, path: plan.indexPath, action: kept === null ? "built" : "appended" });
}

/** An index file written from scratch elsewhere (`writeTextPostingsFile`, on a worker): where, its size and SHA-256. */
export interface WrittenVectorIndex {
  temp: string;
  bytes: number;
  sha256: string;
}

/**
 * Where a build from scratch for `plan` (no `kept` postings) writes its file, to be handed to
 * `installBuiltVectorIndex`: checked and its directory made.
 */
export function builtVectorIndexTempPath(plan: VectorSyncPlan): string {
  if (plan.loaded !== null || plan.kept !== null) throw new Error(`vector index "${plan.indexPath}" is not built from scratch`);
  return preparedTempPath(plan.indexPath);
}

/**
 * The end of `syncVectorIndex` for an index built from scratch elsewhere: the rebuild reported
 * through `warn` as `syncVectorIndex` reports it, the file moved into place with its side file,
 * and opened.
 */
export function installBuiltVectorIndex(
  plan: VectorSyncPlan,
  sessionId: string,
  rows: VectorRows,
  dim: number,
  written: WrittenVectorIndex,
  warn?: (message: string) => void,
): SessionVectorIndex {
  if (plan.problem !== null) warn?.(rebuildWarning(plan));
  const meta = builtMeta(sessionId, rows, dim);
  meta.bytes = written.bytes;
  meta.sha256 = written.sha256;
  const index = install(written.temp, plan.indexPath, meta);
  return { index, count: rows.entities.length, dim, path: plan.indexPath, action: "built" };
}
