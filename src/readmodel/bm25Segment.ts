/**
 * BM25 postings on disk, read lazily: a segment file holds the postings of documents
 * [docBase, docBase + docCount) of one index, and a `Bm25SegmentSet` over consecutive segments
 * answers `search` with exactly the hits of the in-memory `Bm25Index` (src/retrieval/bm25.ts)
 * over all their documents added in order: the same document ids, the same doubles, the same
 * order. A query reads the header, the dictionary entries its binary searches visit and the
 * postings of its terms, nothing else: each posting carries its document's length, so scoring
 * needs no other section.
 *
 * Format (version 1; integers little-endian; full description in docs/read-model.md):
 *
 *   header      88 bytes: "ZXBM25S1", version (u32), header size (u32), docBase, docCount,
 *               termCount (u32 each), 4 zero bytes, total length (u64), averageLengthFloor (f64),
 *               the offsets of the term table, keys and postings and the file size (u64 each),
 *               CRC-32 of the preceding 80 bytes, 4 zero bytes
 *   term table  termCount × 36 bytes, terms sorted by their UTF-8 bytes: key offset (u64),
 *               postings offset (u64), key length, document frequency, postings byte length,
 *               CRC-32 of the postings, CRC-32 of (the first 32 bytes ‖ entry index ‖ key) (u32 each)
 *   keys        the UTF-8 terms, concatenated in table order
 *   postings    per term, in table order, documents ascending: df × three unsigned LEB128
 *               varints (document − previous document − 1, where the first "previous" is
 *               docBase − 1; term count; the document's length)
 *
 * Sections follow one another with no gaps and the file ends with the postings, so every offset
 * is checked against the file size on open. Every piece a reader uses is checked against its
 * CRC when read, so a flipped or truncated byte is refused with `ReadModelCorruptError`, never
 * scored. What must never change without a new version: the header layout, the sort order of
 * the terms (UTF-8 bytes, i.e. code points), the posting encoding and what each CRC covers.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import { ioError, isZaxyError } from "../errors.ts";
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
const headerBytes = 88;
/** The bytes of the header its CRC covers (everything before the CRC field). */
const headerCheckedBytes = 80;
const entryBytes = 36;
/** The bytes of an entry its own CRC covers (everything before that CRC). */
const entryCheckedBytes = 32;
/** The most bytes one posting takes: three 32-bit varints of at most 5 bytes. */
const postingBytesMax = 15;
/** Document ids are Int32 in `Bm25Index`; a segment may not reach past the largest. */
const docIdMax = 0x7fffffff;
/** A posting list's byte length is a u32; no real term comes near (it would need ~300M documents). */
const postingListBytesMax = 0xffffffff;
/** Buffer size of the writers and of the read-back for the SHA-256. */
const ioChunkBytes = 1 << 16;
/** Dictionary entries a merge cursor reads at a time (9 KiB of table). */
const cursorChunkEntries = 256;

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

/** What a header says, all offsets from the start of the file. */
interface SegmentHeader {
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

interface TermEntry {
  index: number;
  key: Uint8Array;
  postingsOffset: number;
  documentFrequency: number;
  postingsBytes: number;
  postingsCrc: number;
}

/** One term's postings, decoded: documents relative to docBase, ascending. */
interface DecodedPostings {
  docs: Uint32Array;
  counts: Uint32Array;
  lengths: Uint32Array;
}

/** The header of a file of these sizes; the offsets follow from them. */
function headerFor(
  sizes: { docBase: number; docCount: number; termCount: number; totalLength: number; averageLengthFloor: number },
  keyBytes: number,
  postingsBytes: number,
): SegmentHeader {
  const termTableOffset = headerBytes;
  const keysOffset = termTableOffset + entryBytes * sizes.termCount;
  const postingsOffset = keysOffset + keyBytes;
  return { ...sizes, termTableOffset, keysOffset, postingsOffset, fileBytes: postingsOffset + postingsBytes };
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
function safeU64(view: DataView, at: number): number | undefined {
  const value = view.getBigUint64(at, true);
  return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : undefined;
}

/** Decodes and checks the header of a file of `sizeBytes`: the header, or why it is refused. */
function decodeHeader(bytes: Uint8Array, sizeBytes: number): SegmentHeader | string {
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
function putVarint(bytes: Uint8Array, at: number, value: number): number {
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
function encodePostings(docs: ArrayLike<number>, counts: ArrayLike<number>, lengths: ArrayLike<number>, previous: number): Uint8Array {
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
 * Writes bytes at increasing positions through a buffer, so a section streamed a term at a time
 * costs one system call per 64 KiB.
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
 * Lays out one segment file as its terms are fed in key order, each with its postings (in one
 * or more pieces, already encoded). The key bytes are known up front, so the term table, keys
 * and postings are written at their final offsets in one pass; the header, which needs the
 * postings' total size, is written last.
 */
class SegmentFileWriter {
  private readonly termTable: PositionalWriter;
  private readonly keys: PositionalWriter;
  private readonly postings: PositionalWriter;
  private readonly layout: SegmentHeader;
  private termsWritten = 0;
  private keyCursor = 0;
  private postingsCursor = 0;
  private termKey: Uint8Array | undefined;
  private termPostingsStart = 0;
  private termDocumentFrequency = 0;
  private termPostingsCrc = 0;

  constructor(
    private readonly fd: number,
    private readonly sizes: { docBase: number; docCount: number; termCount: number; totalLength: number; averageLengthFloor: number },
    private readonly keyBytes: number,
  ) {
    this.layout = headerFor(sizes, keyBytes, 0);
    this.termTable = new PositionalWriter(fd, this.layout.termTableOffset);
    this.keys = new PositionalWriter(fd, this.layout.keysOffset);
    this.postings = new PositionalWriter(fd, this.layout.postingsOffset);
  }

  beginTerm(key: Uint8Array): void {
    this.termKey = key;
    this.termPostingsStart = this.postingsCursor;
    this.termDocumentFrequency = 0;
    this.termPostingsCrc = 0;
  }

  /** `count` encoded postings of the current term, continuing the documents of earlier pieces. */
  addPostings(bytes: Uint8Array, count: number): void {
    this.postings.write(bytes);
    this.termPostingsCrc = crc32(bytes, this.termPostingsCrc);
    this.termDocumentFrequency += count;
    this.postingsCursor += bytes.length;
  }

  endTerm(): void {
    const key = this.termKey as Uint8Array;
    const postingsBytes = this.postingsCursor - this.termPostingsStart;
    if (postingsBytes > postingListBytesMax) throw new RangeError(`a BM25 posting list of ${postingsBytes} bytes passes the format's ${postingListBytesMax}`);
    const entry = new Uint8Array(entryBytes);
    const view = new DataView(entry.buffer);
    view.setBigUint64(0, BigInt(this.keyCursor), true);
    view.setBigUint64(8, BigInt(this.termPostingsStart), true);
    view.setUint32(16, key.length, true);
    view.setUint32(20, this.termDocumentFrequency, true);
    view.setUint32(24, postingsBytes, true);
    view.setUint32(28, this.termPostingsCrc, true);
    view.setUint32(32, entryChecksum(entry, this.termsWritten, key), true);
    this.termTable.write(entry);
    this.keys.write(key);
    this.keyCursor += key.length;
    this.termsWritten++;
    this.termKey = undefined;
  }

  /** Flushes the sections and writes the header; returns it. */
  finish(): SegmentHeader {
    if (this.termsWritten !== this.sizes.termCount || this.keyCursor !== this.keyBytes) {
      throw new Error(`BM25 segment writer was fed ${this.termsWritten} terms in ${this.keyCursor} key bytes, expected ${this.sizes.termCount} in ${this.keyBytes}`);
    }
    for (const writer of [this.termTable, this.keys, this.postings]) writer.flush();
    const header = headerFor(this.sizes, this.keyBytes, this.postingsCursor);
    writeFully(this.fd, encodeHeader(header), 0);
    return header;
  }
}

/** CRC-32 of an entry's first 32 bytes, its index (u32) and its key: a moved or edited entry fails. */
function entryChecksum(entry: Uint8Array, index: number, key: Uint8Array): number {
  // One buffer, one call: the native CRC costs more per call than per byte at these sizes.
  const checked = new Uint8Array(entryCheckedBytes + 4 + key.length);
  checked.set(entry.subarray(0, entryCheckedBytes));
  new DataView(checked.buffer).setUint32(entryCheckedBytes, index, true);
  checked.set(key, entryCheckedBytes + 4);
  return crc32(checked);
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

function checkDocRange(docBase: number, docCount: number): void {
  if (!Number.isInteger(docBase) || docBase < 0 || docBase + docCount > docIdMax + 1) {
    throw new RangeError(`BM25 segment documents [${docBase}, ${docBase + docCount}) must lie in [0, ${docIdMax + 1})`);
  }
}

/** Writes through the atomic helper and reports the file; I/O failures become `read_model_write_failed`. */
function writeSegmentFile(file: string, create: (fd: number) => SegmentHeader): WrittenBm25Segment {
  let written: WrittenBm25Segment | undefined;
  try {
    writeFileAtomically(file, (fd) => {
      const header = create(fd);
      written = { bytes: header.fileBytes, sha256: fileSha256(fd, header.fileBytes) };
    });
  } catch (error) {
    if (isZaxyError(error) || error instanceof RangeError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw ioError("read_model_write_failed", `Cannot write BM25 segment "${file}": ${reason}`);
  }
  return written as WrittenBm25Segment;
}

/**
 * Writes the segment of `source`'s documents to `file` atomically (temp file in the same
 * directory, fsync, rename, directory fsync) and returns its size and SHA-256. Tokenisation is
 * `Bm25Index`'s own: the documents are added to an index and its postings written out.
 * Throws `read_model_write_failed` (exit 3) when the file cannot be written.
 *
 * @example
 * writeBm25Segment(".eventloom/projections/s/verbatim.000000.bm25", {
 *   docBase: 0, averageLengthFloor: 1, texts: ["Decision: use Postgres", "Task: migrate"],
 * }); // { bytes: 239, sha256: "…" }
 */
export function writeBm25Segment(file: string, source: Bm25SegmentSource): WrittenBm25Segment {
  let index: Bm25Index;
  if ("index" in source) index = source.index;
  else {
    index = new Bm25Index({ averageLengthFloor: source.averageLengthFloor });
    if ("texts" in source) for (const text of source.texts) index.add(text);
    else for (const terms of source.termsPerDoc) index.addTerms(terms);
  }
  checkDocRange(source.docBase, index.size);
  return writePostings(file, source.docBase, index.exportPostings());
}

function writePostings(file: string, docBase: number, postings: Bm25Postings): WrittenBm25Segment {
  const { terms, termStart, docs, counts, docLengths } = postings;
  // UTF-8 cannot spell a lone surrogate (it would become U+FFFD and find another term). The
  // keyword tokenizer only yields [a-z0-9] runs, so such a term is a caller's mistake.
  const unspellable = terms.find((term) => loneSurrogate.test(term));
  if (unspellable !== undefined) throw new RangeError(`BM25 term ${JSON.stringify(unspellable)} holds a lone surrogate, which UTF-8 cannot store`);
  const keys = terms.map((term) => utf8.encode(term));
  const order = terms.map((_, id) => id).sort((a, b) => compareBytes(keys[a], keys[b]));
  let keyBytes = 0;
  for (const key of keys) keyBytes += key.length;
  const sizes = { docBase, docCount: docLengths.length, termCount: terms.length, totalLength: postings.totalLength, averageLengthFloor: postings.averageLengthFloor };
  return writeSegmentFile(file, (fd) => {
    const writer = new SegmentFileWriter(fd, sizes, keyBytes);
    for (const id of order) {
      const termDocs = docs.subarray(termStart[id], termStart[id + 1]);
      const lengths = new Uint32Array(termDocs.length);
      for (let k = 0; k < termDocs.length; k++) lengths[k] = docLengths[termDocs[k]];
      writer.beginTerm(keys[id]);
      writer.addPostings(encodePostings(termDocs, counts.subarray(termStart[id], termStart[id + 1]), lengths, -1), termDocs.length);
      writer.endTerm();
    }
    return writer.finish();
  });
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

/** One open, checked segment file: positional reads, each piece checked against its CRC. */
class SegmentFile {
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
    const df = entry.documentFrequency;
    const docs = new Uint32Array(df);
    const counts = new Uint32Array(df);
    const lengths = new Uint32Array(df);
    let at = 0;
    let doc = -1;
    const end = bytes.length;
    // Most varints are one byte; those take the inline path, the rest `varintAt`. A CLI query
    // runs this loop once, before any JIT tier, so it is kept short.
    for (let k = 0; k < df; k++) {
      if (at + 3 > end) throw this.corrupt(`the postings of term entry ${entry.index} are malformed`);
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
      if (gap < 0 || count < 1 || length < count || doc >= this.header.docCount) {
        throw this.corrupt(`the postings of term entry ${entry.index} are out of range`);
      }
      docs[k] = doc;
      counts[k] = count;
      lengths[k] = length;
    }
    if (at !== bytes.length) throw this.corrupt(`the postings of term entry ${entry.index} do not fill their bytes`);
    return { docs, counts, lengths };
  }
}

/**
 * Positional reads of a region read front to back (a merge reads every posting list in file
 * order), served from one 64 KiB window so that a small list costs no system call.
 */
function windowedReader(segment: SegmentFile): (position: number, length: number) => Uint8Array {
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
 * from the first segment's `docBase` (0 for a whole index). Descriptors stay open until
 * `close()`; nothing read is cached, so memory does not grow with queries.
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
          const { docs, counts, lengths } = segment.postings(entry);
          const offset = segment.header.docBase - this.firstDocId;
          for (let k = 0; k < docs.length; k++) {
            const norm = bm25Norm(lengths[k], average);
            // As Bm25Index.search: a document whose norm is not positive scores 0.
            if (norm <= 0) continue;
            const tf = counts[k];
            const doc = offset + docs[k];
            if (scores[doc] === 0) touched.push(doc);
            // Grouped as Bm25Index.search, so the doubles are the same.
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

/** Walks one segment's dictionary in key order, a chunk of entries at a time. */
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
    // The writer lays the dictionary out strictly ascending by key.
    if (previous !== undefined && compareBytes(previous.key, entry.key) >= 0) {
      throw segment.corrupt(`term entry ${entry.index} is not after the one before it`);
    }
    this.current = entry;
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

/**
 * Merges consecutive segments into one file covering all their documents, atomically; a set
 * over the merged file searches exactly as a set over the inputs, and the file is byte for
 * byte the one `writeBm25Segment` writes for all their documents at once. Streams: a k-way
 * merge over the sorted dictionaries, twice (the first pass sizes the keys, the second writes),
 * holding one chunk of each dictionary and one term's postings of one input at a time, so
 * memory does not grow with the number of terms. Every input piece is checked on the way
 * (`ReadModelCorruptError`, nothing written).
 *
 * @example
 * mergeBm25Segments(["v.0.bm25", "v.1.bm25"], "v.0-1.bm25"); // { bytes, sha256 }
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
    const sizes = {
      docBase: first.docBase,
      docCount: segments.reduce((sum, segment) => sum + segment.header.docCount, 0),
      termCount,
      totalLength: segments.reduce((sum, segment) => sum + segment.header.totalLength, 0),
      averageLengthFloor: first.averageLengthFloor,
    };
    checkDocRange(sizes.docBase, sizes.docCount);
    const readers = new Map(segments.map((segment) => [segment, windowedReader(segment)]));
    return writeSegmentFile(outFile, (fd) => {
      const writer = new SegmentFileWriter(fd, sizes, keyBytes);
      mergeDictionaries(segments, (key, holders) => {
        writer.beginTerm(key);
        // Gaps continue across inputs: an input's first document is encoded relative to the
        // previous input's last one, as if all documents had been in one segment.
        let previous = -1;
        for (const { segment, entry } of holders) {
          const { docs, counts, lengths } = segment.postings(entry, readers.get(segment));
          const shift = segment.header.docBase - first.docBase;
          for (let k = 0; k < docs.length; k++) docs[k] += shift;
          writer.addPostings(encodePostings(docs, counts, lengths, previous), docs.length);
          previous = docs[docs.length - 1];
        }
        writer.endTerm();
      });
      return writer.finish();
    });
  } finally {
    for (const segment of segments) segment.close();
  }
}
