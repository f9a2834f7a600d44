/**
 * The byte layout of a BM25 segment file (version 1) and its codecs: header, dictionary entry,
 * posting varints and the order of keys. See `bm25Segment.ts` and docs/read-model.md for the
 * format; everything that must not change without a new version is here.
 */
import { crc32 } from "../platform/crc32.ts";

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
