/**
 * BM25 postings on disk, read lazily: a segment file holds the postings of documents
 * [docBase, docBase + docCount) of one index, and a `Bm25SegmentSet` over consecutive segments
 * answers `search` with exactly the hits of the in-memory `Bm25Index` (src/retrieval/bm25.ts)
 * over all their documents added in order: the same document ids, the same doubles, the same
 * order. A query reads the header, the dictionary entries its binary searches visit, the
 * postings of its terms and the length blocks of the documents in those postings, nothing else.
 *
 * Format (version 1; all integers little-endian; full description in docs/read-model.md):
 *
 *   header        104 bytes: "ZXBM25S1", version, header size, docBase, docCount, termCount,
 *                 lengths per block (1024), total length (u64), averageLengthFloor (f64), the
 *                 offsets of the five sections and the file size (u64 each), CRC-32 of the
 *                 preceding 96 bytes, 4 zero bytes
 *   doc lengths   docCount × i32: terms per document, in document order
 *   block CRCs    ceil(docCount / 1024) × u32: CRC-32 of each 1024-document block of lengths
 *   term table    termCount × 32 bytes, terms sorted by their UTF-8 bytes: key offset (u64),
 *                 postings offset (u64), key length (u32), document frequency (u32), CRC-32 of
 *                 the postings (u32), CRC-32 of (the first 28 bytes ‖ entry index u32 ‖ key)
 *   keys          the UTF-8 terms, concatenated in table order
 *   postings      per term, in table order: df × (document − docBase: u32, term count: u32),
 *                 documents ascending
 *
 * Sections follow one another with no gaps and the file ends with the postings, so every offset
 * is checked against the file size on open. Every piece a reader uses is checked against its
 * CRC when read, so a flipped or truncated byte is refused with `ReadModelCorruptError`, never
 * scored. What must never change without a new version: the header layout, the sort order of
 * the terms (UTF-8 bytes, i.e. code points), the block size and what each CRC covers.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import { isZaxyError, ioError } from "../errors.ts";
import { writeFileAtomically } from "../platform/atomicFile.ts";
import { openRegularFile } from "../platform/regularFile.ts";
import {
  bm25AverageLength,
  bm25Idf,
  Bm25Index,
  bm25K1,
  bm25Norm,
  topHits,
  type Bm25Hit,
  type Bm25Postings,
} from "../retrieval/bm25.ts";
import { crc32 } from "./crc32.ts";
import { ReadModelCorruptError } from "./readModelError.ts";

export const bm25SegmentMagic = "ZXBM25S1";
export const bm25SegmentVersion = 1;
const headerBytes = 104;
/** The bytes of the header its CRC covers (everything before the CRC field). */
const headerCheckedBytes = 96;
const entryBytes = 32;
/** The bytes of an entry its own CRC covers (everything before that CRC). */
const entryCheckedBytes = 28;
const postingBytes = 8;
/** Documents per checked block of lengths: one 4 KiB page, the unit a query reads lengths in. */
const docLengthBlockDocs = 1024;
/** Document ids are Int32 in `Bm25Index`; a segment may not reach past the largest. */
const docIdMax = 0x7fffffff;
/** Buffer size of the writers and of sequential reads. */
const ioChunkBytes = 1 << 16;

const utf8 = new TextEncoder();
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** What the writer reports: the size and the lowercase hex SHA-256 of the file it wrote. */
export interface WrittenBm25Segment {
  bytes: number;
  sha256: string;
}

/**
 * The documents of one segment: `texts` tokenised as `Bm25Index.add` does, `termsPerDoc` taken
 * as given (`Bm25Index.addTerms`), or an index already built over exactly these documents.
 */
export type Bm25SegmentSource =
  | { docBase: number; averageLengthFloor: number; texts: readonly string[] }
  | { docBase: number; averageLengthFloor: number; termsPerDoc: readonly (readonly string[])[] }
  | { docBase: number; index: Bm25Index };

export interface Bm25SegmentSetOptions {
  /** The index's floor (0 for the graph lane, 1 for the verbatim lane); every segment must carry it. */
  averageLengthFloor: number;
}

interface SegmentHeader {
  docBase: number;
  docCount: number;
  termCount: number;
  totalLength: number;
  averageLengthFloor: number;
  docLengthsOffset: number;
  blockChecksumsOffset: number;
  termTableOffset: number;
  keysOffset: number;
  postingsOffset: number;
  fileBytes: number;
}

interface TermEntry {
  index: number;
  key: Uint8Array;
  keyOffset: number;
  postingsOffset: number;
  documentFrequency: number;
  postingsCrc: number;
}

function blockCount(docCount: number): number {
  return Math.ceil(docCount / docLengthBlockDocs);
}

/** The header of a file with these contents; every section offset follows from the sizes. */
function headerFor(
  docBase: number,
  docCount: number,
  termCount: number,
  totalLength: number,
  averageLengthFloor: number,
  keyBytes: number,
  postingCount: number,
): SegmentHeader {
  const docLengthsOffset = headerBytes;
  const blockChecksumsOffset = docLengthsOffset + 4 * docCount;
  const termTableOffset = blockChecksumsOffset + 4 * blockCount(docCount);
  const keysOffset = termTableOffset + entryBytes * termCount;
  const postingsOffset = keysOffset + keyBytes;
  const fileBytes = postingsOffset + postingBytes * postingCount;
  return {
    docBase, docCount, termCount, totalLength, averageLengthFloor,
    docLengthsOffset, blockChecksumsOffset, termTableOffset, keysOffset, postingsOffset, fileBytes,
  };
}

function encodeHeader(header: SegmentHeader): Uint8Array {
  const bytes = new Uint8Array(headerBytes);
  const view = new DataView(bytes.buffer);
  bytes.set(utf8.encode(bm25SegmentMagic), 0);
  view.setUint32(8, bm25SegmentVersion, true);
  view.setUint32(12, headerBytes, true);
  view.setUint32(16, header.docBase, true);
  view.setUint32(20, header.docCount, true);
  view.setUint32(24, header.termCount, true);
  view.setUint32(28, docLengthBlockDocs, true);
  view.setBigUint64(32, BigInt(header.totalLength), true);
  view.setFloat64(40, header.averageLengthFloor, true);
  view.setBigUint64(48, BigInt(header.docLengthsOffset), true);
  view.setBigUint64(56, BigInt(header.blockChecksumsOffset), true);
  view.setBigUint64(64, BigInt(header.termTableOffset), true);
  view.setBigUint64(72, BigInt(header.keysOffset), true);
  view.setBigUint64(80, BigInt(header.postingsOffset), true);
  view.setBigUint64(88, BigInt(header.fileBytes), true);
  view.setUint32(96, crc32(bytes, 0, 0, headerCheckedBytes), true);
  return bytes;
}

/** A u64 field as a number, or undefined past 2^53 (no real file is that large). */
function safeU64(view: DataView, at: number): number | undefined {
  const value = view.getBigUint64(at, true);
  return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : undefined;
}

/** Decodes and checks a header read from a file of `sizeBytes`; the reason it is refused, or the header. */
function decodeHeader(bytes: Uint8Array, sizeBytes: number): SegmentHeader | string {
  if (sizeBytes < headerBytes) return `it is ${sizeBytes} bytes, shorter than the ${headerBytes}-byte header`;
  const view = new DataView(bytes.buffer, bytes.byteOffset, headerBytes);
  if (new TextDecoder().decode(bytes.subarray(0, 8)) !== bm25SegmentMagic) return `it does not start with "${bm25SegmentMagic}"`;
  const version = view.getUint32(8, true);
  if (version !== bm25SegmentVersion) return `it is format version ${version}, expected ${bm25SegmentVersion}`;
  if (view.getUint32(96, true) !== crc32(bytes, 0, 0, headerCheckedBytes)) return "the header checksum does not match";
  if (view.getUint32(12, true) !== headerBytes || view.getUint32(28, true) !== docLengthBlockDocs || view.getUint32(100, true) !== 0) {
    return "the header size, the lengths block size or the reserved field is not the version's";
  }
  const docBase = view.getUint32(16, true);
  const docCount = view.getUint32(20, true);
  const termCount = view.getUint32(24, true);
  const totalLength = safeU64(view, 32);
  const offsets = [48, 56, 64, 72, 80, 88].map((at) => safeU64(view, at));
  if (totalLength === undefined || offsets.some((offset) => offset === undefined)) return "a size in the header is out of range";
  if (docBase + docCount > docIdMax + 1) return `documents [${docBase}, ${docBase + docCount}) pass the largest document id`;
  const [docLengthsOffset, blockChecksumsOffset, termTableOffset, keysOffset, postingsOffset, fileBytes] = offsets as number[];
  const expected = headerFor(docBase, docCount, termCount, totalLength, view.getFloat64(40, true), 0, 0);
  if (
    docLengthsOffset !== expected.docLengthsOffset ||
    blockChecksumsOffset !== expected.blockChecksumsOffset ||
    termTableOffset !== expected.termTableOffset ||
    keysOffset !== expected.keysOffset ||
    postingsOffset < keysOffset ||
    fileBytes < postingsOffset ||
    (fileBytes - postingsOffset) % postingBytes !== 0
  ) {
    return "its section offsets do not follow from its sizes";
  }
  if (fileBytes !== sizeBytes) return `the header says ${fileBytes} bytes but the file has ${sizeBytes}`;
  return { ...expected, postingsOffset, fileBytes };
}

/**
 * Writes bytes at increasing positions through a buffer, so a section streamed a posting at a
 * time costs one system call per 64 KiB.
 */
class PositionalWriter {
  private readonly buffer = new Uint8Array(ioChunkBytes);
  private used = 0;

  constructor(
    private readonly fd: number,
    private position: number,
  ) {}

  write(bytes: Uint8Array): void {
    if (this.used + bytes.length > this.buffer.length) this.flush();
    if (bytes.length >= this.buffer.length) {
      writeFully(this.fd, bytes, this.position);
      this.position += bytes.length;
      return;
    }
    this.buffer.set(bytes, this.used);
    this.used += bytes.length;
  }

  flush(): void {
    if (this.used === 0) return;
    writeFully(this.fd, this.buffer.subarray(0, this.used), this.position);
    this.position += this.used;
    this.used = 0;
  }
}

function writeFully(fd: number, bytes: Uint8Array, position: number): void {
  let done = 0;
  while (done < bytes.length) done += fs.writeSync(fd, bytes, done, bytes.length - done, position + done);
}

/**
 * Lays out one segment file as its sections are fed in order: document lengths, then terms in
 * key order with their postings (streamed in pieces). Checks at `finish` that what was fed
 * matches the header it started from.
 */
class SegmentFileWriter {
  private readonly docLengths: PositionalWriter;
  private readonly blockChecksums: PositionalWriter;
  private readonly termTable: PositionalWriter;
  private readonly keys: PositionalWriter;
  private readonly postings: PositionalWriter;
  private readonly block = new Uint8Array(4 * docLengthBlockDocs);
  private readonly blockView = new DataView(this.block.buffer);
  private blockDocs = 0;
  private docsWritten = 0;
  private lengthSum = 0;
  private termsWritten = 0;
  private keyCursor = 0;
  private postingCursor = 0;
  private termKey: Uint8Array | undefined;
  private termPostingStart = 0;
  private termPostingsCrc = 0;

  constructor(
    fd: number,
    private readonly header: SegmentHeader,
  ) {
    writeFully(fd, encodeHeader(header), 0);
    this.docLengths = new PositionalWriter(fd, header.docLengthsOffset);
    this.blockChecksums = new PositionalWriter(fd, header.blockChecksumsOffset);
    this.termTable = new PositionalWriter(fd, header.termTableOffset);
    this.keys = new PositionalWriter(fd, header.keysOffset);
    this.postings = new PositionalWriter(fd, header.postingsOffset);
  }

  addDocLength(length: number): void {
    this.blockView.setInt32(4 * this.blockDocs, length, true);
    this.blockDocs++;
    this.docsWritten++;
    this.lengthSum += length;
    if (this.blockDocs === docLengthBlockDocs) this.closeBlock();
  }

  beginTerm(key: Uint8Array): void {
    this.termKey = key;
    this.termPostingStart = this.postingCursor;
    this.termPostingsCrc = 0;
  }

  /** Postings of the current term: (document − docBase, term count) pairs, documents ascending. */
  addPostings(bytes: Uint8Array): void {
    this.postings.write(bytes);
    this.termPostingsCrc = crc32(bytes, this.termPostingsCrc);
    this.postingCursor += bytes.length / postingBytes;
  }

  endTerm(): void {
    const key = this.termKey as Uint8Array;
    const entry = new Uint8Array(entryBytes);
    const view = new DataView(entry.buffer);
    view.setBigUint64(0, BigInt(this.keyCursor), true);
    view.setBigUint64(8, BigInt(postingBytes * this.termPostingStart), true);
    view.setUint32(16, key.length, true);
    view.setUint32(20, this.postingCursor - this.termPostingStart, true);
    view.setUint32(24, this.termPostingsCrc, true);
    view.setUint32(28, entryChecksum(entry, this.termsWritten, key), true);
    this.termTable.write(entry);
    this.keys.write(key);
    this.keyCursor += key.length;
    this.termsWritten++;
    this.termKey = undefined;
  }

  finish(): void {
    if (this.blockDocs > 0) this.closeBlock();
    const fed = headerFor(
      this.header.docBase, this.docsWritten, this.termsWritten, this.lengthSum,
      this.header.averageLengthFloor, this.keyCursor, this.postingCursor,
    );
    if (JSON.stringify(fed) !== JSON.stringify(this.header)) {
      throw new Error(`BM25 segment writer was fed ${JSON.stringify(fed)} for header ${JSON.stringify(this.header)}`);
    }
    for (const writer of [this.docLengths, this.blockChecksums, this.termTable, this.keys, this.postings]) writer.flush();
  }

  private closeBlock(): void {
    const checksum = new Uint8Array(4);
    new DataView(checksum.buffer).setUint32(0, crc32(this.block, 0, 0, 4 * this.blockDocs), true);
    this.docLengths.write(this.block.subarray(0, 4 * this.blockDocs));
    this.blockChecksums.write(checksum);
    this.blockDocs = 0;
  }
}

/** CRC-32 of an entry's first 28 bytes, its index (u32) and its key: a moved or edited entry fails. */
function entryChecksum(entry: Uint8Array, index: number, key: Uint8Array): number {
  const indexBytes = new Uint8Array(4);
  new DataView(indexBytes.buffer).setUint32(0, index, true);
  return crc32(key, crc32(indexBytes, crc32(entry, 0, 0, entryCheckedBytes)));
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

/** The SHA-256 of the first `sizeBytes` of an open file, read back in chunks. */
function fileSha256(fd: number, sizeBytes: number): string {
  const hash = createHash("sha256");
  const buffer = new Uint8Array(ioChunkBytes);
  for (let at = 0; at < sizeBytes; ) {
    const read = fs.readSync(fd, buffer, 0, Math.min(buffer.length, sizeBytes - at), at);
    if (read === 0) throw new Error(`the file ended at ${at} of ${sizeBytes} bytes while it was hashed`);
    hash.update(buffer.subarray(0, read));
    at += read;
  }
  return hash.digest("hex");
}

function checkDocBase(docBase: number, docCount: number): void {
  if (!Number.isInteger(docBase) || docBase < 0 || docBase + docCount > docIdMax + 1) {
    throw new RangeError(`BM25 segment documents [${docBase}, ${docBase + docCount}) must lie in [0, ${docIdMax + 1})`);
  }
}

/** Writes through the atomic helper and reports the file; I/O failures become `read_model_write_failed`. */
function writeSegmentFile(file: string, header: SegmentHeader, feed: (writer: SegmentFileWriter) => void): WrittenBm25Segment {
  let sha256 = "";
  try {
    writeFileAtomically(file, (fd) => {
      const writer = new SegmentFileWriter(fd, header);
      feed(writer);
      writer.finish();
      sha256 = fileSha256(fd, header.fileBytes);
    });
  } catch (error) {
    if (isZaxyError(error) || error instanceof RangeError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw ioError("read_model_write_failed", `Cannot write BM25 segment "${file}": ${reason}`);
  }
  return { bytes: header.fileBytes, sha256 };
}

/**
 * Writes the segment of `source`'s documents to `file` atomically (temp file in the same
 * directory, fsync, rename, directory fsync) and returns its size and SHA-256. Tokenisation is
 * `Bm25Index`'s own: the documents are added to an index and its postings written out.
 *
 * @example
 * writeBm25Segment(".eventloom/projections/s/verbatim.000000.bm25", {
 *   docBase: 0, averageLengthFloor: 1, texts: ["Decision: use Postgres", "Task: migrate"],
 * }); // { bytes: 317, sha256: "…" }
 */
export function writeBm25Segment(file: string, source: Bm25SegmentSource): WrittenBm25Segment {
  let index: Bm25Index;
  if ("index" in source) index = source.index;
  else {
    index = new Bm25Index({ averageLengthFloor: source.averageLengthFloor });
    if ("texts" in source) for (const text of source.texts) index.add(text);
    else for (const terms of source.termsPerDoc) index.addTerms(terms);
  }
  checkDocBase(source.docBase, index.size);
  return writePostings(file, source.docBase, index.exportPostings());
}

function writePostings(file: string, docBase: number, postings: Bm25Postings): WrittenBm25Segment {
  const { terms, termStart, docs, counts, docLengths } = postings;
  const keys = terms.map((term) => utf8.encode(term));
  const order = terms.map((_, id) => id).sort((a, b) => compareBytes(keys[a], keys[b]));
  let keyBytes = 0;
  for (let i = 0; i < order.length; i++) {
    keyBytes += keys[order[i]].length;
    if (i > 0 && compareBytes(keys[order[i - 1]], keys[order[i]]) === 0) {
      throw new RangeError(`BM25 terms ${JSON.stringify(terms[order[i - 1]])} and ${JSON.stringify(terms[order[i]])} have the same UTF-8 bytes (a lone surrogate)`);
    }
  }
  const header = headerFor(docBase, docLengths.length, terms.length, postings.totalLength, postings.averageLengthFloor, keyBytes, docs.length);
  return writeSegmentFile(file, header, (writer) => {
    for (const length of docLengths) writer.addDocLength(length);
    for (const id of order) {
      const from = termStart[id];
      const to = termStart[id + 1];
      const bytes = new Uint8Array(postingBytes * (to - from));
      const view = new DataView(bytes.buffer);
      for (let at = from; at < to; at++) {
        view.setUint32(postingBytes * (at - from), docs[at], true);
        view.setUint32(postingBytes * (at - from) + 4, counts[at], true);
      }
      writer.beginTerm(keys[id]);
      writer.addPostings(bytes);
      writer.endTerm();
    }
  });
}

/** One open, checked segment file: positional reads, each piece checked against its CRC. */
class SegmentFile {
  readonly blockChecksums: Uint32Array;
  private readonly lengthBlocks = new Map<number, Int32Array>();
  bytesRead = 0;

  private constructor(
    readonly file: string,
    private fd: number,
    readonly header: SegmentHeader,
  ) {
    const blocks = blockCount(header.docCount);
    const bytes = this.read(header.blockChecksumsOffset, 4 * blocks);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
    this.blockChecksums = new Uint32Array(blocks);
    for (let b = 0; b < blocks; b++) this.blockChecksums[b] = view.getUint32(4 * b, true);
  }

  static open(file: string): SegmentFile {
    const opened = openRegularFile(file);
    if (!opened.ok) throw ioError("read_model_unreadable", `Cannot open read-model file "${file}": ${opened.reason}`);
    try {
      const bytes = new Uint8Array(headerBytes);
      let read = 0;
      while (opened.sizeBytes >= headerBytes && read < headerBytes) {
        const got = fs.readSync(opened.fd, bytes, read, headerBytes - read, read);
        if (got === 0) break;
        read += got;
      }
      const header = decodeHeader(bytes, read < headerBytes ? Math.min(read, opened.sizeBytes) : opened.sizeBytes);
      if (typeof header === "string") throw new ReadModelCorruptError(file, header);
      const segment = new SegmentFile(file, opened.fd, header);
      segment.bytesRead += headerBytes;
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
   * Entries `[from, to)`, read with one read for the entries and one for their keys (the writer
   * lays keys out in entry order, so they are one run; a file where they are not is corrupt).
   */
  entries(from: number, to: number): TermEntry[] {
    const { header } = this;
    const table = this.read(header.termTableOffset + entryBytes * from, entryBytes * (to - from));
    const tableView = new DataView(table.buffer);
    const firstKey = safeU64(tableView, 0) ?? Number.MAX_SAFE_INTEGER;
    let keyRunBytes = 0;
    for (let i = 0; i < to - from; i++) {
      if (safeU64(tableView, entryBytes * i) !== firstKey + keyRunBytes) throw this.corrupt(`term entry ${from + i} does not continue the key run`);
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
    const keysSize = header.postingsOffset - header.keysOffset;
    const postingsSize = header.fileBytes - header.postingsOffset;
    if (
      keyOffset === undefined || postingsOffset === undefined ||
      keyOffset + keyLength > keysSize ||
      documentFrequency < 1 || documentFrequency > header.docCount ||
      postingsOffset % postingBytes !== 0 ||
      postingsOffset + postingBytes * documentFrequency > postingsSize
    ) {
      throw this.corrupt(`term entry ${index} points outside its sections`);
    }
    const key = keyAt(keyOffset, keyLength);
    if (view.getUint32(28, true) !== entryChecksum(bytes, index, key)) throw this.corrupt(`term entry ${index} fails its checksum`);
    return { index, key, keyOffset, postingsOffset, documentFrequency, postingsCrc: view.getUint32(24, true) };
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
   * Postings `[from, to)` of a term (relative documents and counts), checked: documents
   * ascending after `previousDoc` and inside the segment, counts at least 1. The caller checks
   * the CRC over all pieces of a term.
   */
  postingBytes(entry: TermEntry, from: number, to: number): Uint8Array {
    return this.read(this.header.postingsOffset + entry.postingsOffset + postingBytes * from, postingBytes * (to - from));
  }

  checkPostings(bytes: Uint8Array, previousDoc: number): number {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
    let last = previousDoc;
    for (let at = 0; at < bytes.length; at += postingBytes) {
      const doc = view.getUint32(at, true);
      if (doc <= last || doc >= this.header.docCount || view.getUint32(at + 4, true) < 1) {
        throw this.corrupt("a posting list is out of order or out of range");
      }
      last = doc;
    }
    return last;
  }

  /** All postings of a term in one piece, checked against its CRC. */
  postings(entry: TermEntry): Uint8Array {
    const bytes = this.postingBytes(entry, 0, entry.documentFrequency);
    if (crc32(bytes) !== entry.postingsCrc) throw this.corrupt(`the postings of term entry ${entry.index} fail their checksum`);
    this.checkPostings(bytes, -1);
    return bytes;
  }

  /** The lengths of documents [1024·b, 1024·(b+1)) (relative), checked against the block CRC. */
  lengthBlock(block: number): Int32Array {
    const cached = this.lengthBlocks.get(block);
    if (cached !== undefined) return cached;
    const docs = Math.min(docLengthBlockDocs, this.header.docCount - block * docLengthBlockDocs);
    const bytes = this.read(this.header.docLengthsOffset + 4 * docLengthBlockDocs * block, 4 * docs);
    if (crc32(bytes) !== this.blockChecksums[block]) throw this.corrupt(`document length block ${block} fails its checksum`);
    const view = new DataView(bytes.buffer);
    const lengths = new Int32Array(docs);
    for (let i = 0; i < docs; i++) {
      lengths[i] = view.getInt32(4 * i, true);
      if (lengths[i] < 0) throw this.corrupt(`document length block ${block} holds a negative length`);
    }
    this.lengthBlocks.set(block, lengths);
    return lengths;
  }

  docLength(relativeDoc: number): number {
    return this.lengthBlock(Math.floor(relativeDoc / docLengthBlockDocs))[relativeDoc % docLengthBlockDocs];
  }
}

/** Opens every file, closing the ones already open when one is refused. */
function openSegments(files: readonly string[]): SegmentFile[] {
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
function checkSequence(segments: readonly SegmentFile[], averageLengthFloor: number | undefined): void {
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

/**
 * The BM25 index of consecutive segment files, read lazily. `search` returns exactly what
 * `Bm25Index.search` returns over the same documents added in order, with document ids counted
 * from the first segment's `docBase` (0 for a whole index). Open descriptors are held until
 * `close()`; document-length blocks read once are kept (4 bytes per document at most).
 *
 * @example
 * const set = Bm25SegmentSet.open(["verbatim.000000.bm25", "verbatim.100000.bm25"], { averageLengthFloor: 1 });
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
  /** Per-search score accumulator by document − firstDocId; all zero between searches. */
  private scratch = new Float64Array(0);

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

  /** Bytes read from the files so far (headers, dictionary probes, postings, length blocks). */
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
   * duplicate terms count once and unknown terms are ignored, as `Bm25Index.search`.
   */
  search(terms: readonly string[], limit: number): Bm25Hit[] {
    if (limit <= 0 || this.documentCount === 0) return [];
    const n = this.documentCount;
    const average = bm25AverageLength(this.totalLength, n, this.averageLengthFloor);
    if (this.scratch.length < n) this.scratch = new Float64Array(n);
    const scores = this.scratch;
    const touched: number[] = [];
    const seen = new Set<string>();
    try {
      for (const term of terms) {
        if (seen.has(term)) continue;
        const found = this.lookup(term);
        if (found.length === 0) continue;
        seen.add(term);
        let df = 0;
        for (const { entry } of found) df += entry.documentFrequency;
        const idf = bm25Idf(n, df);
        for (const { segment, entry } of found) {
          const bytes = segment.postings(entry);
          const view = new DataView(bytes.buffer);
          const offset = segment.header.docBase - this.firstDocId;
          for (let at = 0; at < bytes.length; at += postingBytes) {
            const relative = view.getUint32(at, true);
            const norm = bm25Norm(segment.docLength(relative), average);
            // As Bm25Index.search: a document whose norm is not positive scores 0.
            if (norm <= 0) continue;
            const tf = view.getUint32(at + 4, true);
            const doc = offset + relative;
            if (scores[doc] === 0) touched.push(doc);
            scores[doc] += (idf * (tf * (bm25K1 + 1))) / (tf + norm);
          }
        }
      }
      const hits = topHits(scores, touched, limit);
      if (this.firstDocId !== 0) for (const hit of hits) hit.docId += this.firstDocId;
      return hits;
    } finally {
      for (const doc of touched) scores[doc] = 0;
    }
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

/** Dictionary entries a merge cursor reads at a time (8 KiB of table). */
const cursorChunkEntries = 256;

/** Walks one segment's dictionary in order, a chunk of entries at a time. */
class DictionaryCursor {
  private chunk: TermEntry[] = [];
  private chunkAt = 0;
  private next = 0;
  current: TermEntry | undefined;

  constructor(readonly segment: SegmentFile) {
    this.advance();
  }

  advance(): void {
    const { segment } = this;
    const previous = this.current;
    if (this.chunkAt === this.chunk.length) {
      const to = Math.min(segment.header.termCount, this.next + cursorChunkEntries);
      this.chunk = this.next < to ? segment.entries(this.next, to) : [];
      this.chunkAt = 0;
      this.next = to;
    }
    if (this.chunkAt === this.chunk.length) {
      this.current = undefined;
      return;
    }
    const entry = this.chunk[this.chunkAt++];
    // The writer lays keys and postings out in entry order, strictly ascending by key.
    if (previous !== undefined && compareBytes(previous.key, entry.key) >= 0) {
      throw segment.corrupt(`term entry ${entry.index} is not after the one before it`);
    }
    this.current = entry;
  }
}

/**
 * Merges consecutive segments into one file covering all their documents, atomically; a set
 * over the merged file searches exactly as a set over the inputs. Streams: two passes of a k-way
 * merge over the sorted dictionaries (the first sizes the sections, the second writes them), and
 * each posting list is copied in 64 KiB pieces, so memory does not grow with the segments.
 * Every input piece is checked against its CRC on the way (`ReadModelCorruptError`).
 *
 * @example
 * mergeBm25Segments(["v.000000.bm25", "v.004096.bm25"], "v.000000-merged.bm25"); // { bytes, sha256 }
 */
export function mergeBm25Segments(files: readonly string[], outFile: string): WrittenBm25Segment {
  if (files.length === 0) throw new RangeError("mergeBm25Segments needs at least one segment");
  const segments = openSegments(files);
  try {
    checkSequence(segments, undefined);
    const first = segments[0].header;
    let termCount = 0;
    let keyBytes = 0;
    mergeDictionaries(segments, (key) => {
      termCount++;
      keyBytes += key.length;
    });
    const docCount = segments.reduce((sum, segment) => sum + segment.header.docCount, 0);
    const totalLength = segments.reduce((sum, segment) => sum + segment.header.totalLength, 0);
    const postingCount = segments.reduce((sum, s) => sum + (s.header.fileBytes - s.header.postingsOffset) / postingBytes, 0);
    checkDocBase(first.docBase, docCount);
    const header = headerFor(first.docBase, docCount, termCount, totalLength, first.averageLengthFloor, keyBytes, postingCount);
    return writeSegmentFile(outFile, header, (writer) => {
      for (const segment of segments) copyDocLengths(segment, writer);
      mergeDictionaries(segments, (key, holders) => {
        writer.beginTerm(key);
        for (const { segment, entry } of holders) copyPostings(segment, entry, segment.header.docBase - first.docBase, writer);
        writer.endTerm();
      });
    });
  } finally {
    for (const segment of segments) segment.close();
  }
}

/** Calls `onTerm` once per distinct key of all dictionaries, in key order, with the segments holding it (in segment order). */
function mergeDictionaries(
  segments: readonly SegmentFile[],
  onTerm: (key: Uint8Array, holders: Array<{ segment: SegmentFile; entry: TermEntry }>) => void,
): void {
  const cursors = segments.map((segment) => new DictionaryCursor(segment));
  for (;;) {
    let smallest: Uint8Array | undefined;
    for (const cursor of cursors) {
      const entry = cursor.current;
      if (entry !== undefined && (smallest === undefined || compareBytes(entry.key, smallest) < 0)) smallest = entry.key;
    }
    if (smallest === undefined) return;
    const holders: Array<{ segment: SegmentFile; entry: TermEntry }> = [];
    for (const cursor of cursors) {
      const entry = cursor.current;
      if (entry !== undefined && compareBytes(entry.key, smallest) === 0) {
        holders.push({ segment: cursor.segment, entry });
        cursor.advance();
      }
    }
    onTerm(smallest, holders);
  }
}

/** Copies a segment's document lengths block by block, checking each block and the total. */
function copyDocLengths(segment: SegmentFile, writer: SegmentFileWriter): void {
  let sum = 0;
  for (let block = 0; block < segment.blockChecksums.length; block++) {
    for (const length of segment.lengthBlock(block)) {
      writer.addDocLength(length);
      sum += length;
    }
  }
  if (sum !== segment.header.totalLength) throw segment.corrupt(`its lengths add up to ${sum}, the header says ${segment.header.totalLength}`);
}

/** Copies one term's postings in pieces, documents shifted by `shift`, checking order and CRC. */
function copyPostings(segment: SegmentFile, entry: TermEntry, shift: number, writer: SegmentFileWriter): void {
  const piecePostings = ioChunkBytes / postingBytes;
  let crc = 0;
  let last = -1;
  for (let from = 0; from < entry.documentFrequency; from += piecePostings) {
    const to = Math.min(entry.documentFrequency, from + piecePostings);
    const bytes = segment.postingBytes(entry, from, to);
    crc = crc32(bytes, crc);
    last = segment.checkPostings(bytes, last);
    const view = new DataView(bytes.buffer);
    for (let at = 0; at < bytes.length; at += postingBytes) view.setUint32(at, view.getUint32(at, true) + shift, true);
    writer.addPostings(bytes);
  }
  if (crc !== entry.postingsCrc) throw segment.corrupt(`the postings of term entry ${entry.index} fail their checksum`);
}
