/**
 * A BM25 segment file (version 1) and reading it: the byte layout and codecs (header,
 * dictionary entry, posting varints, key order; the writer encodes with the same), one open file
 * checked piece by piece against its CRCs, and consecutive segment files searched as one index
 * with exactly `Bm25Index.search`'s hits. See `bm25Segment.ts` and docs/read-model.md for the
 * format; everything that must not change without a new version is here.
 */
import { crc32 } from "../platform/binaryFile.ts";
import * as fs from "node:fs";
import { ioError } from "../errors.ts";
import { openRegularFile } from "../platform/mod.ts";
import { ReadModelCorruptError } from "../platform/readModelError.ts";
import { type Bm25Corpus, Bm25CorpusScorer, type Bm25Hit } from "../retrieval/bm25.ts";

// ---------------------------------------------------------------------------
/* The byte layout and its codecs. */
export const bm25SegmentMagic = "ZXBM25S1";
export const bm25SegmentVersion = 1;
export const headerBytes = 88;
/** The bytes of the header its CRC covers (everything before the CRC field). */
export const headerCheckedBytes = 80;
export const entryBytes = 36;
/** The bytes of an entry its own CRC covers (everything before that CRC). */
export const entryCheckedBytes = 32;
/** The most bytes one posting takes: three 32-bit varints of at most 5 bytes. */
export const postingBytesMax = 15;
/** Document ids are Int32 in `Bm25Index`; a segment may not reach past the largest. */
export const docIdMax = 0x7fffffff;
/** A posting list's byte length is a u32; no real term comes near (it would need ~300M documents). */
export const postingListBytesMax = 0xffffffff;
/** Buffer size of the writers and of the read-back for the SHA-256. */
export const ioChunkBytes = 1 << 16;
/** Dictionary entries a merge cursor reads at a time (9 KiB of table). */
export const cursorChunkEntries = 256;

export const utf8 = new TextEncoder();
export const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** What a header says, all offsets from the start of the file. */
export interface SegmentHeader {
  docBase: number;
  docCount: number;
  termCount: number;
  totalLength: number;
  averageLengthFloor: number;
  termTableOffset: number;
  keysOffset: number;
  postingsOffset: number;
  fileBytes: number;
}

export interface TermEntry {
  index: number;
  key: Uint8Array;
  postingsOffset: number;
  documentFrequency: number;
  postingsBytes: number;
  postingsCrc: number;
}

/** One term's postings, decoded: documents relative to docBase, ascending. */
export interface DecodedPostings {
  docs: Uint32Array;
  counts: Uint32Array;
  lengths: Uint32Array;
}

/** The header of a file of these sizes; the offsets follow from them. */
export function headerFor(
  sizes: { docBase: number; docCount: number; termCount: number; totalLength: number; averageLengthFloor: number },
  keyBytes: number,
  postingsBytes: number,
): SegmentHeader {
  const termTableOffset = headerBytes;
  const keysOffset = termTableOffset + entryBytes * sizes.termCount;
  const postingsOffset = keysOffset + keyBytes;
  return { ...sizes, termTableOffset, keysOffset, postingsOffset, fileBytes: postingsOffset + postingsBytes };
}

export function encodeHeader(header: SegmentHeader): Uint8Array {
  const bytes = new Uint8Array(headerBytes);
  const view = new DataView(bytes.buffer);
  bytes.set(utf8.encode(bm25SegmentMagic), 0);
  view.setUint32(8, bm25SegmentVersion, true);
  view.setUint32(12, headerBytes, true);
  view.setUint32(16, header.docBase, true);
  view.setUint32(20, header.docCount, true);
  view.setUint32(24, header.termCount, true);
  view.setBigUint64(32, BigInt(header.totalLength), true);
  view.setFloat64(40, header.averageLengthFloor, true);
  view.setBigUint64(48, BigInt(header.termTableOffset), true);
  view.setBigUint64(56, BigInt(header.keysOffset), true);
  view.setBigUint64(64, BigInt(header.postingsOffset), true);
  view.setBigUint64(72, BigInt(header.fileBytes), true);
  view.setUint32(80, crc32(bytes, 0, 0, headerCheckedBytes), true);
  return bytes;
}

/** A u64 field as a number, or undefined past 2^53 (no real file is that large). */
export function safeU64(view: DataView, at: number): number | undefined {
  const value = view.getBigUint64(at, true);
  return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : undefined;
}

/** Decodes and checks the header of a file of `sizeBytes`: the header, or why it is refused. */
export function decodeHeader(bytes: Uint8Array, sizeBytes: number): SegmentHeader | string {
  if (sizeBytes < headerBytes) return `it is ${sizeBytes} bytes, shorter than the ${headerBytes}-byte header`;
  const view = new DataView(bytes.buffer, bytes.byteOffset, headerBytes);
  if (new TextDecoder().decode(bytes.subarray(0, 8)) !== bm25SegmentMagic) return `it does not start with "${bm25SegmentMagic}"`;
  const version = view.getUint32(8, true);
  if (version !== bm25SegmentVersion) return `it is format version ${version}, expected ${bm25SegmentVersion}`;
  if (view.getUint32(80, true) !== crc32(bytes, 0, 0, headerCheckedBytes)) return "the header checksum does not match";
  if (view.getUint32(12, true) !== headerBytes || view.getUint32(28, true) !== 0 || view.getUint32(84, true) !== 0) {
    return "the header size or a reserved field is not the version's";
  }
  const sizes = {
    docBase: view.getUint32(16, true),
    docCount: view.getUint32(20, true),
    termCount: view.getUint32(24, true),
    totalLength: safeU64(view, 32),
    averageLengthFloor: view.getFloat64(40, true),
  };
  const offsets = [48, 56, 64, 72].map((at) => safeU64(view, at));
  if (sizes.totalLength === undefined || offsets.some((offset) => offset === undefined)) return "a size in the header is out of range";
  if (sizes.docBase + sizes.docCount > docIdMax + 1) return `documents [${sizes.docBase}, ${sizes.docBase + sizes.docCount}) pass the largest document id`;
  const [termTableOffset, keysOffset, postingsOffset, fileBytes] = offsets as number[];
  const header = headerFor({ ...sizes, totalLength: sizes.totalLength }, postingsOffset - keysOffset, fileBytes - postingsOffset);
  if (termTableOffset !== header.termTableOffset || keysOffset !== header.keysOffset || postingsOffset < keysOffset || fileBytes < postingsOffset) {
    return "its section offsets do not follow from its sizes";
  }
  if (fileBytes !== sizeBytes) return `the header says ${fileBytes} bytes but the file has ${sizeBytes}`;
  return header;
}

/** Appends `value` (< 2^32) as an unsigned LEB128 varint at `at`; returns the position after it. */
export function putVarint(bytes: Uint8Array, at: number, value: number): number {
  while (value > 0x7f) {
    bytes[at++] = (value & 0x7f) | 0x80;
    value = Math.floor(value / 128);
  }
  bytes[at++] = value;
  return at;
}

/**
 * Encodes postings (documents relative to docBase, ascending, after `previous`; parallel arrays)
 * as the file stores them.
 */
export function encodePostings(docs: ArrayLike<number>, counts: ArrayLike<number>, lengths: ArrayLike<number>, previous: number): Uint8Array {
  const bytes = new Uint8Array(postingBytesMax * docs.length);
  let at = 0;
  for (let i = 0; i < docs.length; i++) {
    at = putVarint(bytes, at, docs[i] - previous - 1);
    at = putVarint(bytes, at, counts[i]);
    at = putVarint(bytes, at, lengths[i]);
    previous = docs[i];
  }
  return bytes.subarray(0, at);
}

/**
 * Encodes postings `[from, to)` of parallel arrays into `out` (at least `postingBytesMax` bytes
 * per posting), each document's length looked up in `docLengths`, as `encodePostings` does;
 * returns the bytes written. A writer encoding term after term reuses one `out`.
 */
export function encodePostingsInto(out: Uint8Array, docs: ArrayLike<number>, counts: ArrayLike<number>, docLengths: ArrayLike<number>, from: number, to: number, previous: number): number {
  let at = 0;
  for (let i = from; i < to; i++) {
    const doc = docs[i];
    at = putVarint(out, at, doc - previous - 1);
    at = putVarint(out, at, counts[i]);
    at = putVarint(out, at, docLengths[doc]);
    previous = doc;
  }
  return at;
}

/** CRC-32 of an entry's first 32 bytes, its index (u32) and its key: a moved or edited entry fails. */
export function entryChecksum(entry: Uint8Array, index: number, key: Uint8Array): number {
  // One buffer, one call: the native CRC costs more per call than per byte at these sizes. The
  // buffer is reused: a writer checksums every term (1M events: ~0.5 M of them).
  const size = entryCheckedBytes + 4 + key.length;
  if (checkedScratch.length < size) checkedScratch = new Uint8Array(2 * size);
  const checked = checkedScratch.subarray(0, size);
  checked.set(entry.subarray(0, entryCheckedBytes));
  checked[entryCheckedBytes] = index & 0xff;
  checked[entryCheckedBytes + 1] = (index >>> 8) & 0xff;
  checked[entryCheckedBytes + 2] = (index >>> 16) & 0xff;
  checked[entryCheckedBytes + 3] = (index >>> 24) & 0xff;
  checked.set(key, entryCheckedBytes + 4);
  return crc32(checked);
}

let checkedScratch = new Uint8Array(256);

export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

/** Where the varint `varintAt` read last ended. */
let varintEnd = 0;

/**
 * The unsigned LEB128 varint at `at` (sets `varintEnd`); -1 when it runs past the end or past
 * 32 bits, which the caller refuses as out of range.
 */
function varintAt(bytes: Uint8Array, at: number): number {
  let value = 0;
  let scale = 1;
  for (let i = 0; i < 5; i++) {
    if (at >= bytes.length) break;
    const byte = bytes[at++];
    value += (byte & 0x7f) * scale;
    scale *= 128;
    if (byte < 0x80) {
      varintEnd = at;
      return value <= 0xffffffff ? value : -1;
    }
  }
  varintEnd = at;
  return -1;
}

/**
 * Decodes a posting list of `df` postings in a segment of `docCount` documents: the postings, or
 * why they are refused (documents ascending inside the segment, counts at least 1, lengths at
 * least the count, exactly `df` postings filling the bytes).
 */
export function decodePostings(bytes: Uint8Array, df: number, docCount: number): DecodedPostings | string {
  const docs = new Uint32Array(df);
  const counts = new Uint32Array(df);
  const lengths = new Uint32Array(df);
  let at = 0;
  let doc = -1;
  const end = bytes.length;
  // Most varints are one byte; those take the inline path, the rest `varintAt`. A CLI query
  // runs this loop once, before any JIT tier, so it is kept short.
  for (let k = 0; k < df; k++) {
    if (at + 3 > end) return "are malformed";
    let gap = bytes[at++];
    if (gap >= 0x80) {
      gap = varintAt(bytes, at - 1);
      at = varintEnd;
    }
    let count = at < end ? bytes[at++] : -1;
    if (count >= 0x80) {
      count = varintAt(bytes, at - 1);
      at = varintEnd;
    }
    let length = at < end ? bytes[at++] : -1;
    if (length >= 0x80) {
      length = varintAt(bytes, at - 1);
      at = varintEnd;
    }
    doc += gap + 1;
    if (gap < 0 || count < 1 || length < count || doc >= docCount) {
      return "are out of range";
    }
    docs[k] = doc;
    counts[k] = count;
    lengths[k] = length;
  }
  if (at !== bytes.length) return "do not fill their bytes";
  return { docs, counts, lengths };
}

// ---------------------------------------------------------------------------
/*
 * One open BM25 segment file, checked as it is read: the header on open, each dictionary entry
 * (with its key) and each posting list against its CRC when read, by positional reads into small
 * buffers. A piece that fails is a `ReadModelCorruptError` naming the file.
 */
/** One open, checked segment file: positional reads, each piece checked against its CRC. */
export class SegmentFile {
  bytesRead = 0;

  private constructor(
    readonly file: string,
    private fd: number,
    readonly header: SegmentHeader,
  ) {}

  /** Opens and checks the header; `read_model_unreadable` when the path cannot be opened as a regular file. */
  static open(file: string): SegmentFile {
    const opened = openRegularFile(file);
    if (!opened.ok) throw ioError("read_model_unreadable", `Cannot open read-model file "${file}": ${opened.reason}`);
    try {
      const bytes = new Uint8Array(headerBytes);
      let read = 0;
      while (opened.sizeBytes >= headerBytes && read < headerBytes) {
        const got = fs.readSync(opened.fd, bytes, read, headerBytes - read, read);
        if (got === 0) throw new ReadModelCorruptError(file, `it ended at byte ${read}, inside the header`);
        read += got;
      }
      const header = decodeHeader(bytes, opened.sizeBytes);
      if (typeof header === "string") throw new ReadModelCorruptError(file, header);
      const segment = new SegmentFile(file, opened.fd, header);
      segment.bytesRead = read;
      return segment;
    } catch (error) {
      fs.closeSync(opened.fd);
      throw error;
    }
  }

  close(): void {
    if (this.fd < 0) return;
    fs.closeSync(this.fd);
    this.fd = -1;
  }

  corrupt(reason: string): ReadModelCorruptError {
    return new ReadModelCorruptError(this.file, reason);
  }

  /** `length` bytes at `position`; a file that ends early (truncated since it was opened) is corrupt. */
  read(position: number, length: number): Uint8Array {
    const bytes = new Uint8Array(length);
    let done = 0;
    while (done < length) {
      const read = fs.readSync(this.fd, bytes, done, length - done, position + done);
      if (read === 0) throw this.corrupt(`it ended at byte ${position + done}, expected ${this.header.fileBytes}`);
      done += read;
    }
    this.bytesRead += length;
    return bytes;
  }

  /** Dictionary entry `index`, checked: its CRC, and its key and postings inside their sections. */
  entry(index: number): TermEntry {
    const bytes = this.read(this.header.termTableOffset + entryBytes * index, entryBytes);
    return this.decodeEntry(index, bytes, (offset, length) => this.read(this.header.keysOffset + offset, length));
  }

  /**
   * Entries `[from, to)`, with one read for the entries and one for their keys (the writer lays
   * keys out in entry order, so they are one run; a file where they are not is corrupt).
   */
  entries(from: number, to: number): TermEntry[] {
    const { header } = this;
    const table = this.read(header.termTableOffset + entryBytes * from, entryBytes * (to - from));
    const tableView = new DataView(table.buffer);
    const firstKey = safeU64(tableView, 0) ?? Number.MAX_SAFE_INTEGER;
    let keyRunBytes = 0;
    for (let i = 0; i < to - from; i++) {
      if (safeU64(tableView, entryBytes * i) !== firstKey + keyRunBytes) throw this.corrupt(`term entry ${from + i} does not continue the run of keys`);
      keyRunBytes += tableView.getUint32(entryBytes * i + 16, true);
    }
    if (firstKey + keyRunBytes > header.postingsOffset - header.keysOffset) throw this.corrupt(`term entries ${from}-${to - 1} point outside the keys`);
    const run = this.read(header.keysOffset + firstKey, keyRunBytes);
    const out: TermEntry[] = [];
    for (let i = 0; i < to - from; i++) {
      const bytes = table.subarray(entryBytes * i, entryBytes * (i + 1));
      out.push(this.decodeEntry(from + i, bytes, (offset, length) => run.subarray(offset - firstKey, offset - firstKey + length)));
    }
    return out;
  }

  private decodeEntry(index: number, bytes: Uint8Array, keyAt: (offset: number, length: number) => Uint8Array): TermEntry {
    const { header } = this;
    const view = new DataView(bytes.buffer, bytes.byteOffset, entryBytes);
    const keyOffset = safeU64(view, 0);
    const postingsOffset = safeU64(view, 8);
    const keyLength = view.getUint32(16, true);
    const documentFrequency = view.getUint32(20, true);
    const postingsBytes = view.getUint32(24, true);
    if (
      keyOffset === undefined || postingsOffset === undefined ||
      keyOffset + keyLength > header.postingsOffset - header.keysOffset ||
      documentFrequency < 1 || documentFrequency > header.docCount ||
      postingsOffset + postingsBytes > header.fileBytes - header.postingsOffset
    ) {
      throw this.corrupt(`term entry ${index} points outside its sections`);
    }
    const key = keyAt(keyOffset, keyLength);
    if (view.getUint32(32, true) !== entryChecksum(bytes, index, key)) throw this.corrupt(`term entry ${index} fails its checksum`);
    return { index, key, postingsOffset, documentFrequency, postingsBytes, postingsCrc: view.getUint32(28, true) };
  }

  /** The entry of `key`, by binary search over the sorted dictionary, or undefined. */
  find(key: Uint8Array): TermEntry | undefined {
    let low = 0;
    let high = this.header.termCount;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const entry = this.entry(middle);
      const order = compareBytes(entry.key, key);
      if (order === 0) return entry;
      if (order < 0) low = middle + 1;
      else high = middle;
    }
    return undefined;
  }

  /**
   * A term's postings, read in one piece (by `reader`, default a positional read), checked
   * against the CRC and decoded: documents ascending inside the segment, counts at least 1,
   * exactly `df` postings filling the bytes.
   */
  postings(entry: TermEntry, reader: (position: number, length: number) => Uint8Array = (p, l) => this.read(p, l)): DecodedPostings {
    const bytes = reader(this.header.postingsOffset + entry.postingsOffset, entry.postingsBytes);
    if (crc32(bytes) !== entry.postingsCrc) throw this.corrupt(`the postings of term entry ${entry.index} fail their checksum`);
    const decoded = decodePostings(bytes, entry.documentFrequency, this.header.docCount);
    if (typeof decoded === "string") throw this.corrupt(`the postings of term entry ${entry.index} ${decoded}`);
    return decoded;
  }
}

/**
 * Positional reads of a region read front to back (a merge reads every posting list in file
 * order), served from one 64 KiB window so that a small list costs no system call.
 */
export function windowedReader(segment: SegmentFile): (position: number, length: number) => Uint8Array {
  let window: Uint8Array = new Uint8Array(0);
  let windowStart = 0;
  return (position, length) => {
    if (position < windowStart || position + length > windowStart + window.length) {
      window = segment.read(position, Math.max(length, Math.min(ioChunkBytes, segment.header.fileBytes - position)));
      windowStart = position;
    }
    return window.subarray(position - windowStart, position - windowStart + length);
  };
}

/** Opens every file, closing the ones already open when one is refused. */
export function openSegments(files: readonly string[]): SegmentFile[] {
  const segments: SegmentFile[] = [];
  try {
    for (const file of files) segments.push(SegmentFile.open(file));
  } catch (error) {
    for (const segment of segments) segment.close();
    throw error;
  }
  return segments;
}

/** Segments must cover consecutive document ranges and share one floor. */
export function checkSequence(segments: readonly SegmentFile[], averageLengthFloor: number | undefined): void {
  for (let i = 0; i < segments.length; i++) {
    const { header, file } = segments[i];
    const floor = averageLengthFloor ?? segments[0].header.averageLengthFloor;
    if (!Object.is(header.averageLengthFloor, floor)) {
      throw new ReadModelCorruptError(file, `it was written with averageLengthFloor ${header.averageLengthFloor}, expected ${floor}`);
    }
    if (i > 0) {
      const previous = segments[i - 1].header;
      if (header.docBase !== previous.docBase + previous.docCount) {
        throw new ReadModelCorruptError(file, `it starts at document ${header.docBase}, but the segment before it ends at ${previous.docBase + previous.docCount}`);
      }
    }
  }
}

// ---------------------------------------------------------------------------
/*
 * Searching consecutive BM25 segment files as one index, with exactly `Bm25Index.search`'s hits.
 */
export interface Bm25SegmentSetOptions {
  /** The index's floor (0 for the graph lane, 1 for the verbatim lane); every segment must carry it. */
  averageLengthFloor: number;
}

/** Postings the term cache of one set may hold (12 bytes each decoded): about 24 MB. */
const cachedPostingsMax = 2_000_000;

type CachedTerm = Array<{ segment: SegmentFile; entry: TermEntry; postings: DecodedPostings }>;

/**
 * The BM25 index of consecutive segment files, read lazily. `search` returns exactly what
 * `Bm25Index.search` returns over the same documents added in order, with document ids counted
 * from the first segment's `docBase` (0 for a whole index). Descriptors stay open until
 * `close()`; decoded postings of recently searched terms are kept up to a fixed bound
 * (`cachedPostingsMax`), so memory does not grow with queries.
 *
 * @example
 * const set = Bm25SegmentSet.open(["verbatim.0.bm25", "verbatim.1.bm25"], { averageLengthFloor: 1 });
 * try {
 *   set.search(queryTerms("postgres decision"), 10); // [{ docId: 123456, score: 7.81… }, …]
 * } finally {
 *   set.close();
 * }
 */
export class Bm25SegmentSet {
  private readonly firstDocId: number;
  private readonly documentCount: number;
  private readonly totalLength: number;
  private readonly scorer = new Bm25CorpusScorer();
  /**
   * Terms already looked up, with their checked and decoded postings, most recently used last:
   * a long-running server asks for the same common terms again and again. Segment files are
   * never rewritten (a new generation has new names), so what was checked once stays true.
   */
  private readonly termCache = new Map<string, CachedTerm>();
  private cachedPostings = 0;

  private constructor(
    private readonly segments: readonly SegmentFile[],
    private readonly averageLengthFloor: number,
  ) {
    this.firstDocId = segments.length === 0 ? 0 : segments[0].header.docBase;
    this.documentCount = segments.reduce((sum, segment) => sum + segment.header.docCount, 0);
    this.totalLength = segments.reduce((sum, segment) => sum + segment.header.totalLength, 0);
  }

  /**
   * Opens and checks the files (in document order). Throws `ReadModelCorruptError` naming the
   * file when one is not a valid segment, does not follow the one before it, or was written
   * with another `averageLengthFloor`; `read_model_unreadable` when one cannot be opened.
   */
  static open(files: readonly string[], options: Bm25SegmentSetOptions): Bm25SegmentSet {
    const segments = openSegments(files);
    try {
      checkSequence(segments, options.averageLengthFloor);
    } catch (error) {
      for (const segment of segments) segment.close();
      throw error;
    }
    return new Bm25SegmentSet(segments, options.averageLengthFloor);
  }

  /** Number of documents in all segments. */
  get size(): number {
    return this.documentCount;
  }

  /** Bytes read from the files so far (headers, dictionary probes, postings). */
  get bytesRead(): number {
    return this.segments.reduce((sum, segment) => sum + segment.bytesRead, 0);
  }

  close(): void {
    for (const segment of this.segments) segment.close();
  }

  /** How many documents contain `term`. */
  documentFrequency(term: string): number {
    let df = 0;
    for (const { entry } of this.lookup(term)) df += entry.documentFrequency;
    return df;
  }

  /**
   * The `limit` best documents for the query terms, best first, ties by lower document id;
   * duplicate terms count once and unknown terms are ignored, as `Bm25Index.search`. Throws
   * `ReadModelCorruptError` when a piece it reads fails its checks.
   */
  search(terms: readonly string[], limit: number): Bm25Hit[] {
    return this.scorer.search([this.corpus()], terms, limit);
  }

  /**
   * The segments as one corpus (retrieval/bm25.ts `Bm25CorpusScorer`), to score together with documents added after
   * them (a tail catch-up's); its postings come through the same checks and term cache as `search`.
   */
  corpus(): Bm25Corpus {
    return {
      firstDocId: this.firstDocId,
      documentCount: this.documentCount,
      totalLength: this.totalLength,
      averageLengthFloor: this.averageLengthFloor,
      termPostings: (term) => this.cachedTerm(term).map(({ segment, postings }) => ({ docBase: segment.header.docBase, ...postings })),
    };
  }

  /** `lookup` with each segment's postings read and decoded, through the bounded term cache. */
  private cachedTerm(term: string): CachedTerm {
    const cached = this.termCache.get(term);
    if (cached !== undefined) {
      this.termCache.delete(term);
      this.termCache.set(term, cached);
      return cached;
    }
    const found = this.lookup(term).map(({ segment, entry }) => ({ segment, entry, postings: segment.postings(entry) }));
    const size = found.reduce((sum, { entry }) => sum + entry.documentFrequency, 0) + 1;
    for (const [oldest, held] of this.termCache) {
      if (this.cachedPostings + size <= cachedPostingsMax) break;
      this.termCache.delete(oldest);
      this.cachedPostings -= held.reduce((sum, { entry }) => sum + entry.documentFrequency, 0) + 1;
    }
    if (size <= cachedPostingsMax) {
      this.termCache.set(term, found);
      this.cachedPostings += size;
    }
    return found;
  }

  /** The segments holding `term`, with their entries; none for a term no UTF-8 can spell. */
  private lookup(term: string): Array<{ segment: SegmentFile; entry: TermEntry }> {
    if (loneSurrogate.test(term)) return [];
    const key = utf8.encode(term);
    const found: Array<{ segment: SegmentFile; entry: TermEntry }> = [];
    for (const segment of this.segments) {
      const entry = segment.find(key);
      if (entry !== undefined) found.push({ segment, entry });
    }
    return found;
  }
}
