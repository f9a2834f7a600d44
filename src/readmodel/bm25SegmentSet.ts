/**
 * Searching consecutive BM25 segment files as one index, with exactly `Bm25Index.search`'s hits.
 */
import type { Bm25Hit } from "../retrieval/bm25.ts";
import { type Bm25Corpus, Bm25CorpusScorer } from "../retrieval/bm25Corpus.ts";
import { type DecodedPostings, loneSurrogate, type TermEntry, utf8 } from "./bm25SegmentFormat.ts";
import { checkSequence, openSegments, type SegmentFile } from "./bm25SegmentFile.ts";

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
   * The segments as one corpus (bm25Corpus.ts), to score together with documents added after
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
