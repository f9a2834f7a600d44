/**
 * Merging consecutive BM25 segment files into one, streaming over their sorted dictionaries.
 */
import { checkDocRange, SegmentFileWriter, type WrittenBm25Segment, writeSegmentFile } from "./bm25SegmentWriter.ts";
import {
  checkSequence,
  compareBytes,
  cursorChunkEntries,
  encodePostings,
  openSegments,
  type SegmentFile,
  type TermEntry,
  windowedReader,
} from "./bm25SegmentReader.ts";

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
