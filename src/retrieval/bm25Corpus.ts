/**
 * BM25 over several consecutive corpora scored as one: an index on disk (its segment files), an
 * index in memory, and the few documents a tail catch-up adds on top of either. The statistics
 * are those of the union — document count, each term's document frequency summed over the
 * corpora, the average length of all documents — so the hits are exactly those of one
 * `Bm25Index` holding every document in order: the same document ids, the same doubles (the
 * arithmetic is `Bm25Index.search`'s, grouped the same way), ties by lower document id. Scoring
 * each corpus with its own statistics and merging the hits would not be: a term rare in the base
 * but common in the tail would keep the base's idf.
 *
 * @example
 * const scorer = new Bm25CorpusScorer();
 * const base = baseIndex.corpus();            // documents 0 .. 999
 * const tail = tailIndex.corpus(1000);        // documents 1000 .. 1009
 * scorer.search([base, tail], queryTerms("postgres decision"), 10); // as one index of 1010 documents
 */
import { bm25AverageLength, type Bm25Corpus, type Bm25Hit, bm25Idf, bm25Norm, type Bm25PostingsRun, bm25TermScore, topHits } from "./bm25.ts";

export type { Bm25Corpus, Bm25PostingsRun };

/** Scores queries over consecutive corpora; keeps one score array between searches. */
export class Bm25CorpusScorer {
  /** Per-search score accumulator by document − first document id; all zero between searches. */
  private scratch = new Float64Array(0);

  /**
   * The `limit` best documents of the corpora (consecutive, in document order, with one
   * `averageLengthFloor`), best first, ties by lower document id; duplicate terms count once and
   * unknown terms are ignored, as `Bm25Index.search`.
   */
  search(corpora: readonly Bm25Corpus[], terms: readonly string[], limit: number): Bm25Hit[] {
    let n = 0;
    let totalLength = 0;
    for (const corpus of corpora) {
      if (corpus.firstDocId !== (corpora[0]?.firstDocId ?? 0) + n) throw new RangeError(`BM25 corpora are not consecutive: one starts at document ${corpus.firstDocId}, expected ${corpora[0].firstDocId + n}`);
      if (corpus.averageLengthFloor !== corpora[0].averageLengthFloor) throw new RangeError("BM25 corpora with different average-length floors cannot be scored as one");
      n += corpus.documentCount;
      totalLength += corpus.totalLength;
    }
    if (limit <= 0 || n === 0) return [];
    const firstDocId = corpora[0].firstDocId;
    const average = bm25AverageLength(totalLength, n, corpora[0].averageLengthFloor);
    if (this.scratch.length < n) this.scratch = new Float64Array(n);
    const scores = this.scratch;
    const touched: number[] = [];
    const seen = new Set<string>();
    try {
      for (const term of terms) {
        if (seen.has(term)) continue;
        const runs: Bm25PostingsRun[] = [];
        for (const corpus of corpora) runs.push(...corpus.termPostings(term));
        if (runs.length === 0) continue;
        seen.add(term);
        let df = 0;
        for (const run of runs) df += run.docs.length;
        const idf = bm25Idf(n, df);
        for (const { docBase, docs, counts, lengths } of runs) {
          const offset = docBase - firstDocId;
          for (let k = 0; k < docs.length; k++) {
            const norm = bm25Norm(lengths[k], average);
            // As Bm25Index.search: a document whose norm is not positive scores 0.
            if (norm <= 0) continue;
            const tf = counts[k];
            const doc = offset + docs[k];
            if (scores[doc] === 0) touched.push(doc);
            scores[doc] += bm25TermScore(idf, tf, norm);
          }
        }
      }
      const hits = topHits(scores, touched, limit);
      if (firstDocId !== 0) for (const hit of hits) hit.docId += firstDocId;
      return hits;
    } finally {
      for (const doc of touched) scores[doc] = 0;
    }
  }
}

/**
 * Consecutive corpora presented as one (an overlay's corpus is its base's followed by its tail's,
 * so an overlay can itself be a base).
 */
export function chainedBm25Corpus(corpora: readonly Bm25Corpus[]): Bm25Corpus {
  if (corpora.length === 0) throw new RangeError("chainedBm25Corpus needs at least one corpus");
  return {
    firstDocId: corpora[0].firstDocId,
    documentCount: corpora.reduce((sum, corpus) => sum + corpus.documentCount, 0),
    totalLength: corpora.reduce((sum, corpus) => sum + corpus.totalLength, 0),
    averageLengthFloor: corpora[0].averageLengthFloor,
    termPostings: (term) => corpora.flatMap((corpus) => corpus.termPostings(term)),
  };
}
