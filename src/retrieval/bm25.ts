/**
 * Okapi BM25, in memory and over several corpora scored as one (`Bm25CorpusScorer`, below),
 * scoring exactly as Python's embedded graph store does
 * (`embedded_graph_store._keyword_index_from_entities` and `_bm25_score_from_precomputed`):
 *
 *   idf(t)    = ln(1 + (N − df + 0.5) / (df + 0.5))
 *   norm(d)   = k1 · (1 − b + b · len(d) / avgLen)          k1 = 1.5, b = 0.75
 *   score(d)  = Σ over distinct query terms t in d of  idf(t) · (tf · (k1 + 1)) / (tf + norm(d))
 *
 * Query terms are de-duplicated first (Python's `dict.fromkeys`), so a repeated query word counts
 * once. Scores are raw, not normalised: Python feeds them to fusion as `min(score, 1) · weight`
 * (see `cappedBm25Score`). The operations are grouped as in Python so that the same corpus gives
 * the same doubles.
 *
 * Two deliberate differences from Python. Ties are broken by lower document id (Python keeps the
 * order in which it first met the candidates). And Python's candidate narrowing is not done:
 * when more than 1000 documents match, Python drops the commonest query terms (keeping at least
 * four) before scoring, a workaround for its per-candidate cost; here every query term scores, so
 * on such broad queries the scores are the full BM25 that Python approximates.
 *
 * Layout: terms get dense ids from an open-addressing table; each addition appends one
 * (term, count) entry per distinct term after the entries of the documents before it; the first
 * search after additions turns the entries into compressed-row postings (typed arrays, documents
 * ascending per term) and recomputes the length norms, in O(entries). A search walks the postings of its terms into a
 * reused score array and keeps the best `limit` in a bounded heap.
 */
import { detachedString } from "../canonical/detachedString.ts";
import { pythonCaseFold } from "../vector/textAnalysis.ts";

/** Term-frequency saturation. */
export const bm25K1 = 1.5;
/** Document-length normalisation strength. */
export const bm25B = 0.75;

/**
 * idf(t) = ln(1 + (N − df + 0.5) / (df + 0.5)), grouped as Python. Shared with the on-disk
 * segments (src/readmodel/bm25Segment.ts) so both give the same doubles.
 */
export function bm25Idf(documentCount: number, documentFrequency: number): number {
  return Math.log(1 + (documentCount - documentFrequency + 0.5) / (documentFrequency + 0.5));
}

/** k1 · (1 − b + b · len / avg), grouped as Python; 0 when the average is not positive. */
export function bm25Norm(length: number, average: number): number {
  return average <= 0 ? 0 : bm25K1 * (1 - bm25B + (bm25B * length) / average);
}

/**
 * One term's contribution to a document's score, grouped as Python groups it: every scorer uses
 * this, so an index in memory and the same documents on disk give the same doubles.
 */
export function bm25TermScore(idf: number, termCount: number, norm: number): number {
  return (idf * (termCount * (bm25K1 + 1))) / (termCount + norm);
}

/** The average document length used in the norms: `max(total / N, floor)`. */
export function bm25AverageLength(totalLength: number, documentCount: number, averageLengthFloor: number): number {
  return Math.max(totalLength / documentCount, averageLengthFloor);
}

/**
 * An index's postings in compressed-row form, terms in id order (the order of first use):
 * term t's documents are `docs[termStart[t] .. termStart[t + 1])`, ascending, with their term
 * counts in `counts`. The arrays are the index's own; read them, do not change them.
 */
export interface Bm25Postings {
  terms: readonly string[];
  termStart: Int32Array;
  docs: Int32Array;
  counts: Int32Array;
  /** Terms per document (its length), `documentCount` entries. */
  docLengths: Int32Array;
  totalLength: number;
  averageLengthFloor: number;
}

/**
 * One run of a term's postings: document ids `docBase + docs[k]`, ascending, with the term's count
 * in each and each document's length (its number of terms).
 */
export interface Bm25PostingsRun {
  docBase: number;
  docs: ArrayLike<number>;
  counts: ArrayLike<number>;
  lengths: ArrayLike<number>;
}

/**
 * Documents `[firstDocId, firstDocId + documentCount)` of one index, with what scoring needs; scored
 * together with the corpora that follow it by `Bm25CorpusScorer` (below).
 */
export interface Bm25Corpus {
  readonly firstDocId: number;
  readonly documentCount: number;
  /** Sum of the documents' lengths. */
  readonly totalLength: number;
  /** The index's floor on the average length (0 for the graph lane, 1 for the verbatim lane). */
  readonly averageLengthFloor: number;
  /** The term's postings in document order (possibly in several runs); none when no document holds it. */
  termPostings(term: string): readonly Bm25PostingsRun[];
}

export interface Bm25Hit {
  docId: number;
  score: number;
}

export interface Bm25Options {
  /** Splits a document into terms; default: `keywordTerms` of vector/textAnalysis.ts (inlined for speed). */
  tokenize?: (text: string) => string[];
  /**
   * The smallest average document length used in the norm. 0 (the default) is the graph lane:
   * an average of 0 makes every score 0. The verbatim lane uses 1 (`max(avg, 1.0)` in Python).
   */
  averageLengthFloor?: number;
}

/**
 * Appended slots grow by half; the arrays hold plain 32-bit integers. Not by doubling: a million
 * events' verbatim index holds ~22 M entries, which doubling left in arrays for ~33 M (~90 MB
 * unused, held through the whole fold).
 */
function grown(array: Int32Array<ArrayBuffer>, minLength: number): Int32Array<ArrayBuffer> {
  const next = new Int32Array(Math.max(minLength, Math.ceil(array.length * 1.5)));
  next.set(array);
  return next;
}

/** An entry count of this or more is kept whole outside the 16-bit counts. */
const countMarker = 0xffff;

/** FNV-1a over UTF-16 code units, the hash of the term table. */
const fnvOffset = 0x811c9dc5;
const fnvPrime = 0x01000193;

const nonAscii = /[^\x00-\x7f]/;

/**
 * Term strings to dense ids, in an open-addressing table that can also look up a range of a
 * text with ASCII uppercase folded on the fly, so that indexing a document allocates a string
 * only for a term never seen before (slicing and hashing every token costs several times more).
 */
class TermTable {
  private slots = new Int32Array(1024); // termId + 1; 0 is empty
  private hashes = new Int32Array(256);
  // The terms' UTF-16 code units back to back (term t is chars[charStart[t], charStart[t + 1])):
  // comparing against these instead of the term strings saves a pointer chase per lookup, which
  // was most of the cost of indexing 100k events.
  private charStart = new Int32Array(257);
  private chars = new Uint16Array(4096);
  readonly terms: string[] = [];

  get size(): number {
    return this.terms.length;
  }

  /** The id of `term`, or -1. */
  idOf(term: string): number {
    let hash = fnvOffset;
    for (let i = 0; i < term.length; i++) hash = Math.imul(hash ^ term.charCodeAt(i), fnvPrime);
    return this.find(hash, term, 0, term.length, false);
  }

  /** The id of `term`, added if new. */
  intern(term: string): number {
    let hash = fnvOffset;
    for (let i = 0; i < term.length; i++) hash = Math.imul(hash ^ term.charCodeAt(i), fnvPrime);
    const id = this.find(hash, term, 0, term.length, false);
    return id >= 0 ? id : this.insert(hash, detachedString(term));
  }

  /**
   * The id of `text[start, end)` with A-Z read as a-z, added if new; `hash` is that range's
   * hash, computed by the caller while it scanned the token.
   */
  internRange(hash: number, text: string, start: number, end: number): number {
    const id = this.find(hash, text, start, end, true);
    // Detached: a slice would keep the whole document's text alive for as long as the index.
    return id >= 0 ? id : this.insert(hash, detachedString(text.slice(start, end).toLowerCase()));
  }

  private find(hash: number, text: string, start: number, end: number, foldUpper: boolean): number {
    const mask = this.slots.length - 1;
    const length = end - start;
    const chars = this.chars;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const entry = this.slots[slot];
      if (entry === 0) return -1;
      const id = entry - 1;
      if (this.hashes[id] !== hash) continue;
      const at = this.charStart[id];
      if (this.charStart[id + 1] - at !== length) continue;
      let i = 0;
      for (; i < length; i++) {
        let code = text.charCodeAt(start + i);
        if (foldUpper && code >= 0x41 && code <= 0x5a) code += 32;
        if (code !== chars[at + i]) break;
      }
      if (i === length) return id;
    }
  }

  private insert(hash: number, term: string): number {
    const id = this.terms.length;
    this.terms.push(term);
    if (id === this.hashes.length) this.hashes = grown(this.hashes, id + 1);
    if (id + 1 >= this.charStart.length) this.charStart = grown(this.charStart, id + 2);
    const at = this.charStart[id];
    if (at + term.length > this.chars.length) {
      let size = this.chars.length * 2;
      while (size < at + term.length) size *= 2;
      const bigger = new Uint16Array(size);
      bigger.set(this.chars.subarray(0, at));
      this.chars = bigger;
    }
    for (let k = 0; k < term.length; k++) this.chars[at + k] = term.charCodeAt(k);
    this.charStart[id + 1] = at + term.length;
    this.hashes[id] = hash;
    // Keep the load factor at or below one half so probes stay short.
    if (2 * this.terms.length > this.slots.length) this.rehash();
    else this.place(id);
    return id;
  }

  private place(id: number): void {
    const mask = this.slots.length - 1;
    let slot = this.hashes[id] & mask;
    while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
    this.slots[slot] = id + 1;
  }

  private rehash(): void {
    this.slots = new Int32Array(this.slots.length * 2);
    for (let id = 0; id < this.terms.length; id++) this.place(id);
  }
}

/**
 * The raw BM25 score as the fusion step uses it: capped at 1 before the lane weight, as Python's
 * `min(hit.score, 1.0) * fusion_weights["keyword"]`. BM25 is not rescaled to 0..1 anywhere in
 * Python, so any hit with a raw score of 1 or more gets the full keyword weight.
 *
 * @example
 * cappedBm25Score(2.7) * 0.8 // 0.8
 */
export function cappedBm25Score(raw: number): number {
  return Math.min(raw, 1);
}

/**
 * @example
 * const index = new Bm25Index();
 * index.add("Decision: use Postgres for audit logs"); // 0
 * index.add("Task: write the migration");             // 1
 * index.search(queryTerms("postgres decision"), 10);  // [{ docId: 0, score: 1.2718… }]
 */
export class Bm25Index {
  private readonly tokenize: ((text: string) => string[]) | undefined;
  private readonly averageLengthFloor: number;
  private readonly termTable = new TermTable();
  private docLengths = new Int32Array(256);
  private docCount = 0;
  private totalLength = 0;

  // Additions append one entry per (document, distinct term), in document order: document d's
  // entries are [docEntryStart[d], docEntryStart[d + 1]) (no document id per entry: a third of
  // the entries' memory, ~130 MB for the verbatim index of a million events).
  private entryTerms = new Int32Array(1024);
  /**
   * A term's count in a document is nearly always small: 16 bits each (a million events' verbatim
   * index holds ~22 M entries), the rare count past `countMarker` kept whole in `countOverflow`.
   */
  private entryCounts = new Uint16Array(1024);
  private readonly countOverflow = new Map<number, number>();
  private entryCount = 0;
  private docEntryStart = new Int32Array(257);
  /**
   * Whether `build` moved the entries into the postings and dropped them: the entries are as
   * large as the postings, and an index that is written out and dropped (the read model's) would
   * hold both. They are taken back from the postings before the next addition.
   */
  private entriesInPostings = false;
  /** Per term: the last document that used it and that document's entry, to count repeats. */
  private lastDocOfTerm = new Int32Array(256).fill(-1);
  private lastEntryOfTerm = new Int32Array(256);

  // Searches read postings in compressed-row form: term t's documents are
  // postingDocs[postingStart[t] .. postingStart[t + 1]), ascending. Rebuilt lazily (O(entries))
  // on the first search after an addition, together with the length norms.
  private postingStart = new Int32Array(1);
  private postingDocs = new Int32Array(0);
  private postingCounts = new Int32Array(0);
  /** k1 · (1 − b + b · len / avg) per document. */
  private norms = new Float64Array(0);
  private builtFor = 0;
  /** Per-search score accumulator, indexed by document id; all zero between searches. */
  private scratch = new Float64Array(0);

  constructor(options: Bm25Options = {}) {
    this.tokenize = options.tokenize;
    this.averageLengthFloor = options.averageLengthFloor ?? 0;
  }

  /** Number of documents added. */
  get size(): number {
    return this.docCount;
  }

  /** Tokenises and adds a document; returns its id (0, 1, 2, … in order of addition). */
  add(text: string): number {
    if (this.tokenize !== undefined) return this.addTerms(this.tokenize(text));
    // The default tokenizer is `keywordTerms`, inlined: scan [a-z0-9] runs of the casefolded
    // text (ASCII text is folded on the fly) and intern each run longer than one character.
    const folded = nonAscii.test(text) ? pythonCaseFold(text) : text;
    const docId = this.startDocument();
    const table = this.termTable;
    let length = 0;
    let start = -1;
    let hash = fnvOffset;
    const n = folded.length;
    for (let i = 0; i <= n; i++) {
      let code = i < n ? folded.charCodeAt(i) : 0;
      if (code >= 0x41 && code <= 0x5a) code += 32;
      if ((code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39)) {
        if (start < 0) {
          start = i;
          hash = fnvOffset;
        }
        hash = Math.imul(hash ^ code, fnvPrime);
      } else if (start >= 0) {
        if (i - start > 1) {
          this.count(table.internRange(hash, folded, start, i), docId);
          length++;
        }
        start = -1;
      }
    }
    this.finishDocument(docId, length);
    return docId;
  }

  /** Adds a document given as terms (already tokenised); returns its id. */
  addTerms(terms: readonly string[]): number {
    const docId = this.startDocument();
    for (const term of terms) this.count(this.termTable.intern(term), docId);
    this.finishDocument(docId, terms.length);
    return docId;
  }

  /** How many documents contain `term`. */
  documentFrequency(term: string): number {
    const id = this.termTable.idOf(term);
    if (id < 0) return 0;
    this.build();
    return this.postingStart[id + 1] - this.postingStart[id];
  }

  /**
   * The `limit` best documents for the query terms, best first, ties by lower document id.
   * Documents with a score of 0 are not returned. Duplicate terms count once.
   */
  search(terms: readonly string[], limit: number): Bm25Hit[] {
    if (limit <= 0 || this.docCount === 0) return [];
    this.build();
    if (this.scratch.length < this.docCount) this.scratch = new Float64Array(this.docLengths.length);
    const scores = this.scratch;
    const norms = this.norms;
    const { postingStart, postingDocs, postingCounts } = this;
    const touched: number[] = [];
    const n = this.docCount;
    const seen = new Set<number>();
    for (const term of terms) {
      const id = this.termTable.idOf(term);
      if (id < 0 || seen.has(id)) continue;
      seen.add(id);
      const from = postingStart[id];
      const to = postingStart[id + 1];
      const idf = bm25Idf(n, to - from);
      for (let at = from; at < to; at++) {
        const doc = postingDocs[at];
        const norm = norms[doc];
        // Python returns 0 for the whole document when its norm is not positive.
        if (norm <= 0) continue;
        const tf = postingCounts[at];
        if (scores[doc] === 0) touched.push(doc);
        scores[doc] += bm25TermScore(idf, tf, norm);
      }
    }
    const hits = topHits(scores, touched, limit);
    for (const doc of touched) scores[doc] = 0;
    return hits;
  }

  /**
   * The postings as they are, for writing them elsewhere (src/readmodel/bm25Segment.ts): the
   * same terms, documents and counts `search` reads.
   *
   * @example
   * const index = new Bm25Index();
   * index.add("postgres postgres audit");
   * index.exportPostings().terms; // ["postgres", "audit"]
   */
  exportPostings(): Bm25Postings {
    this.build();
    return {
      terms: this.termTable.terms,
      termStart: this.postingStart,
      docs: this.postingDocs,
      counts: this.postingCounts,
      docLengths: this.docLengths.subarray(0, this.docCount),
      totalLength: this.totalLength,
      averageLengthFloor: this.averageLengthFloor,
    };
  }

  /**
   * The index as a corpus whose documents are numbered from `firstDocId`, for scoring it together
   * with other corpora (`Bm25CorpusScorer`): a tail's few documents after a base's. A view of the
   * index as it is when called; add no documents while it is used.
   *
   * @example
   * const tail = new Bm25Index();
   * tail.add("postgres for the ledger");
   * new Bm25CorpusScorer().search([base.corpus(), tail.corpus(base.size)], ["postgres"], 10);
   */
  corpus(firstDocId = 0): Bm25Corpus {
    this.build();
    const { postingStart, postingDocs, postingCounts, docLengths, termTable } = this;
    return {
      firstDocId,
      documentCount: this.docCount,
      totalLength: this.totalLength,
      averageLengthFloor: this.averageLengthFloor,
      termPostings(term: string): Bm25PostingsRun[] {
        const id = termTable.idOf(term);
        if (id < 0) return [];
        const docs = postingDocs.subarray(postingStart[id], postingStart[id + 1]);
        const lengths = new Int32Array(docs.length);
        for (let k = 0; k < docs.length; k++) lengths[k] = docLengths[docs[k]];
        return [{ docBase: firstDocId, docs, counts: postingCounts.subarray(postingStart[id], postingStart[id + 1]), lengths }];
      },
    };
  }

  private startDocument(): number {
    const docId = this.docCount;
    if (docId === this.docLengths.length) this.docLengths = grown(this.docLengths, docId + 1);
    if (docId + 1 >= this.docEntryStart.length) this.docEntryStart = grown(this.docEntryStart, docId + 2);
    if (this.entriesInPostings) this.entriesFromPostings();
    return docId;
  }

  private finishDocument(docId: number, length: number): void {
    this.docEntryStart[docId + 1] = this.entryCount;
    this.docLengths[docId] = length;
    this.totalLength += length;
    this.docCount = docId + 1;
  }

  /** Counts one occurrence of a term in the document being added. */
  private count(termId: number, docId: number): void {
    if (termId >= this.lastDocOfTerm.length) {
      const size = Math.max(termId + 1, this.lastDocOfTerm.length * 2);
      const lastDoc = new Int32Array(size).fill(-1);
      lastDoc.set(this.lastDocOfTerm);
      this.lastDocOfTerm = lastDoc;
      this.lastEntryOfTerm = grown(this.lastEntryOfTerm, size);
    }
    if (this.lastDocOfTerm[termId] === docId) {
      const repeated = this.lastEntryOfTerm[termId];
      this.setEntryCount(repeated, this.countOfEntry(repeated) + 1);
      return;
    }
    const entry = this.entryCount;
    if (entry === this.entryTerms.length) {
      this.entryTerms = grown(this.entryTerms, entry + 1);
      const counts = new Uint16Array(this.entryTerms.length);
      counts.set(this.entryCounts);
      this.entryCounts = counts;
    }
    this.entryTerms[entry] = termId;
    this.entryCounts[entry] = 1;
    this.entryCount = entry + 1;
    this.lastDocOfTerm[termId] = docId;
    this.lastEntryOfTerm[termId] = entry;
  }

  /** The count of `entry`'s term in its document. */
  private countOfEntry(entry: number): number {
    const count = this.entryCounts[entry];
    return count === countMarker ? this.countOverflow.get(entry) ?? countMarker : count;
  }

  private setEntryCount(entry: number, count: number): void {
    if (count < countMarker) {
      this.entryCounts[entry] = count;
      return;
    }
    this.entryCounts[entry] = countMarker;
    this.countOverflow.set(entry, count);
  }

  /**
   * The entries back from the postings, document by document (a counting sort by document).
   * Within a document they come in term order instead of the order the terms were first met, but
   * `build` sorts the entries by term, stably in document order, so the postings it builds next
   * are the same.
   */
  private entriesFromPostings(): void {
    const entries = this.postingDocs.length;
    const capacity = Math.max(1024, 2 * entries);
    const entryTerms = new Int32Array(capacity);
    this.entryCounts = new Uint16Array(capacity);
    this.countOverflow.clear();
    const next = this.docEntryStart.slice(0, this.docCount);
    for (let t = 0; t + 1 < this.postingStart.length; t++) {
      for (let at = this.postingStart[t]; at < this.postingStart[t + 1]; at++) {
        const entry = next[this.postingDocs[at]]++;
        entryTerms[entry] = t;
        this.setEntryCount(entry, this.postingCounts[at]);
      }
    }
    this.entryTerms = entryTerms;
    this.entriesInPostings = false;
  }

  /** Postings (a counting sort of the entries by term, stable in document order) and norms. */
  private build(): void {
    if (this.builtFor === this.docCount) return;
    const termCount = this.termTable.size;
    const entries = this.entryCount;
    const start = new Int32Array(termCount + 1);
    for (let e = 0; e < entries; e++) start[this.entryTerms[e] + 1]++;
    for (let t = 0; t < termCount; t++) start[t + 1] += start[t];
    const cursor = start.slice(0, termCount);
    const docs = new Int32Array(entries);
    const counts = new Int32Array(entries);
    for (let doc = 0; doc < this.docCount; doc++) {
      for (let e = this.docEntryStart[doc]; e < this.docEntryStart[doc + 1]; e++) {
        const at = cursor[this.entryTerms[e]]++;
        docs[at] = doc;
        counts[at] = this.countOfEntry(e);
      }
    }
    this.postingStart = start;
    this.postingDocs = docs;
    this.postingCounts = counts;
    this.entryTerms = new Int32Array(0);
    this.entryCounts = new Uint16Array(0);
    this.countOverflow.clear();
    this.entriesInPostings = true;

    const n = this.docCount;
    const average = bm25AverageLength(this.totalLength, n, this.averageLengthFloor);
    const norms = new Float64Array(n);
    for (let doc = 0; doc < n; doc++) norms[doc] = bm25Norm(this.docLengths[doc], average);
    this.norms = norms;
    this.builtFor = n;
  }
}

/** `a` ranks before `b`: higher score, then lower document id. */
function before(scores: Float64Array, a: number, b: number): boolean {
  const sa = scores[a];
  const sb = scores[b];
  return sa > sb || (sa === sb && a < b);
}

/**
 * The best `limit` of `candidates` without sorting them all: a bounded heap whose root is the
 * worst kept document, so most candidates cost one comparison.
 */
export function topHits(scores: Float64Array, candidates: readonly number[], limit: number): Bm25Hit[] {
  const heap: number[] = [];
  for (const doc of candidates) {
    if (heap.length < limit) {
      heap.push(doc);
      let i = heap.length - 1;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!before(scores, heap[parent], heap[i])) break;
        [heap[parent], heap[i]] = [heap[i], heap[parent]];
        i = parent;
      }
    } else if (before(scores, doc, heap[0])) {
      heap[0] = doc;
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        const right = left + 1;
        let worst = i;
        if (left < heap.length && before(scores, heap[worst], heap[left])) worst = left;
        if (right < heap.length && before(scores, heap[worst], heap[right])) worst = right;
        if (worst === i) break;
        [heap[worst], heap[i]] = [heap[i], heap[worst]];
        i = worst;
      }
    }
  }
  heap.sort((a, b) => (before(scores, a, b) ? -1 : 1));
  return heap.map((docId) => ({ docId, score: scores[docId] }));
}

// ---------------------------------------------------------------------------
/*
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
