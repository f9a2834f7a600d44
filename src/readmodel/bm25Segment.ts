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
 * Modules: `bm25SegmentReader.ts` (layout and codecs, one checked file, search over a set),
 * `bm25SegmentWriter.ts`, `bm25SegmentMerge.ts`.
 * This entry module only re-exports their public surface.
 *
 * Sections follow one another with no gaps and the file ends with the postings, so every offset
 * is checked against the file size on open. Every piece a reader uses is checked against its
 * CRC when read, so a flipped or truncated byte is refused with `ReadModelCorruptError`, never
 * scored. What must never change without a new version: the header layout, the sort order of
 * the terms (UTF-8 bytes, i.e. code points), the posting encoding and what each CRC covers.
 *
 * @example
 * writeBm25Segment("v.0.bm25", { docBase: 0, averageLengthFloor: 1, texts: firstTexts });
 * writeBm25Segment("v.1.bm25", { docBase: firstTexts.length, averageLengthFloor: 1, texts: newTexts });
 * const set = Bm25SegmentSet.open(["v.0.bm25", "v.1.bm25"], { averageLengthFloor: 1 });
 * set.search(queryTerms("postgres decision"), 10); // as Bm25Index over firstTexts then newTexts
 * set.close();
 * mergeBm25Segments(["v.0.bm25", "v.1.bm25"], "v.0-1.bm25"); // one file, same answers
 */
export { mergeBm25Segments } from "./bm25SegmentMerge.ts";
export { Bm25SegmentSet, type Bm25SegmentSetOptions } from "./bm25SegmentReader.ts";
export { type Bm25SegmentSource, writeBm25Segment, type WrittenBm25Segment } from "./bm25SegmentWriter.ts";
export { bm25SegmentMagic, bm25SegmentVersion } from "./bm25SegmentReader.ts";
export { ReadModelCorruptError } from "../platform/readModelError.ts";
