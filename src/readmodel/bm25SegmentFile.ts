/**
 * One open BM25 segment file, checked as it is read: the header on open, each dictionary entry
 * (with its key) and each posting list against its CRC when read, by positional reads into small
 * buffers. A piece that fails is a `ReadModelCorruptError` naming the file.
 */
import * as fs from "node:fs";
import { ioError } from "../errors.ts";
import { openRegularFile } from "../platform/regularFile.ts";
import { crc32 } from "../platform/crc32.ts";
import {
  compareBytes,
  type DecodedPostings,
  decodeHeader,
  decodePostings,
  entryBytes,
  entryChecksum,
  headerBytes,
  ioChunkBytes,
  safeU64,
  type SegmentHeader,
  type TermEntry,
} from "./bm25SegmentFormat.ts";
import { ReadModelCorruptError } from "../platform/readModelError.ts";

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
