/**
 * Writing BM25 segment files: from documents (tokenised by `Bm25Index` itself, so there is one
 * tokenizer) or, for the merge, term by term in key order. Every file is written atomically and
 * reported with its size and SHA-256.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import { ioError, isZaxyError } from "../errors.ts";
import { writeFileAtomically } from "../platform/atomicFile.ts";
import { collectGarbageNow } from "../platform/mod.ts";
import { Bm25Index, type Bm25Postings } from "../retrieval/bm25.ts";
import { crc32 } from "../platform/binaryFile.ts";
import {
  compareBytes,
  docIdMax,
  encodeHeader,
  encodePostingsInto,
  entryBytes,
  entryChecksum,
  headerFor,
  ioChunkBytes,
  loneSurrogate,
  postingBytesMax,
  postingListBytesMax,
  type SegmentHeader,
  utf8,
} from "./bm25SegmentReader.ts";
import { PositionalWriter, writeFully } from "./tableFileWriter.ts";

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


/**
 * Lays out one segment file as its terms are fed in key order, each with its postings (in one
 * or more pieces, already encoded). The key bytes are known up front, so the term table, keys
 * and postings are written at their final offsets in one pass; the header, which needs the
 * postings' total size, is written last.
 */
export class SegmentFileWriter {
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
  /** One term entry, reused: the term table's writer copies it. */
  private readonly entry = new Uint8Array(entryBytes);
  private readonly entryView = new DataView(this.entry.buffer);

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
    const entry = this.entry;
    const view = this.entryView;
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

export function checkDocRange(docBase: number, docCount: number): void {
  if (!Number.isInteger(docBase) || docBase < 0 || docBase + docCount > docIdMax + 1) {
    throw new RangeError(`BM25 segment documents [${docBase}, ${docBase + docCount}) must lie in [0, ${docIdMax + 1})`);
  }
}

/** Writes through the atomic helper and reports the file; I/O failures become `read_model_write_failed`. */
export function writeSegmentFile(file: string, create: (fd: number) => SegmentHeader): WrittenBm25Segment {
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
  const postings = index.exportPostings();
  // Laying the postings out dropped the index's entries, as large as the postings: a large
  // index's are freed before the file is written, not left under what writing it allocates
  // (1M long-payload events: ~0.15 GB more peak for each of the two indexes).
  if (postings.docs.length >= collectedPostingsMin) collectGarbageNow();
  return writePostings(file, source.docBase, postings);
}

/** Postings from which the dropped entries are collected before the file is written. */
const collectedPostingsMin = 30_000_000;

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
    // One buffer for every term's postings: a buffer per term was garbage as large as the
    // postings several times over (1M events: ~1 GB while the keyword segment was written).
    let documentFrequencyMax = 0;
    for (let id = 0; id < terms.length; id++) documentFrequencyMax = Math.max(documentFrequencyMax, termStart[id + 1] - termStart[id]);
    const encoded = new Uint8Array(postingBytesMax * documentFrequencyMax);
    for (const id of order) {
      const bytes = encodePostingsInto(encoded, docs, counts, docLengths, termStart[id], termStart[id + 1], -1);
      writer.beginTerm(keys[id]);
      writer.addPostings(encoded.subarray(0, bytes), termStart[id + 1] - termStart[id]);
      writer.endTerm();
    }
    return writer.finish();
  });
}
