/**
 * The vector lane's index: the hash embeddings of a session's entity versions stored as postings
 * by bucket (dimension), and an exact cosine search over them.
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
import { collectGarbageNow } from "../platform/mod.ts";
import { BinaryFile, f64Bytes, fileHeader, headerBytes, u32Bytes } from "../platform/binaryFile.ts";
import { entityEmbeddingText } from "../vector/mod.ts";
import { TokenBuckets } from "../vector/tokenBuckets.ts";
import type { EntityRow } from "./types.ts";

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

/** The postings of `count` texts' hash embeddings (text i is `textOf(i)`, under key `keyBase + i`), reporting progress every few thousand. */
export function embedTextPostings(
  count: number,
  textOf: (index: number) => string,
  dim: number,
  keyBase: number,
  onProgress?: (done: number, total: number) => void,
): VectorPostings {
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
  return groupByBucket(builder, dim, keyBase, count);
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
