/**
 * Pairs of memories whose exact cosine is at least `minCosine`, found through a usearch index
 * instead of comparing all pairs (DESIGN §8 `trigger_consolidation`).
 *
 * 1. Index build: an in-memory HNSW index (cosine) over the memories being analysed, navigating
 *    by a 32-d projection of their embeddings (see similarityProjection.ts for why not the 1536-d
 *    vectors). The session's persisted index (src/projection/vectorIndex.ts) is not used: it also
 *    holds superseded versions and memories outside the `max_memories` window, which would crowd
 *    the neighbour lists.
 * 2. kNN search: every memory is a query, `neighboursInitial` neighbours each, in batches. A
 *    memory whose farthest returned neighbour still has exact cosine >= `minCosine` may have more
 *    such neighbours, so it is asked again with twice as many, up to `neighboursMax`: a cluster of
 *    many near-duplicates is found whole, not cut at a fixed k.
 * 3. Exact re-scoring: the index only proposes; every proposed pair's exact cosine (from the
 *    float embeddings, `SparseEmbeddings.cosine`) decides, so nothing below `minCosine` is
 *    reported and no pair is judged by an approximate distance.
 */
import { requestGarbageCollection } from "../platform/mod.ts";
import type { ProgressSink } from "../progress.ts";
import { isZaxyError } from "../errors.ts";
import { loadUsearch, type UsearchIndex } from "../vector/mod.ts";
import { ExactNeighbourIndex } from "./exactNeighbourIndex.ts";
import type { SparseEmbeddings } from "./similarityEmbeddings.ts";
import { PairKeySet } from "./pairKeySet.ts";
import { projectionDim, projectRows } from "./similarityProjection.ts";

/** Neighbours first asked for per memory. */
export const neighboursInitial = 16;
/** At most this many neighbours are asked for per memory (the cap of the doubling). */
export const neighboursMax = 1024;
/** Memories added to or searched in the index per call. */
const indexBatchRows = 4096;

/**
 * Connectivity 16, expansions 48 (add) / 64 (search), f32 (the projected vectors are small; no
 * quantisation error to allow for). On 100 000 memories (`zaxy bench trigger`, two cores) this
 * found all planted near-duplicates in ~38 s; the bench measures the recall on every run.
 */
export const similarityIndexConfig = { metric: "cos", quantization: "f32", connectivity: 16, expansionAdd: 48, expansionSearch: 64 } as const;

/**
 * The pairs found, ordered by `a`, then `b` (row numbers in the embeddings, `a < b`), each with
 * its exact cosine. Held as one sorted `Float64Array` of pair keys and one of cosines (16 bytes a
 * pair): a large session has millions of pairs above the pre-filter.
 */
export class SimilarPairList {
  constructor(
    /** `a * rowCount + b`, ascending. */
    private readonly keys: Float64Array,
    private readonly cosines: Float64Array,
    private readonly rowCount: number,
  ) {}

  get length(): number {
    return this.keys.length;
  }

  /** The older row of pair `i`. */
  a(i: number): number {
    return Math.floor(this.keys[i] / this.rowCount);
  }

  /** The newer row of pair `i`. */
  b(i: number): number {
    return this.keys[i] % this.rowCount;
  }

  /** The exact cosine of the float embeddings of pair `i`. */
  cosine(i: number): number {
    return this.cosines[i];
  }
}

export interface SimilarPairsResult {
  pairs: SimilarPairList;
  /** Distinct pairs the index proposed (each re-scored exactly once). */
  candidatesRescored: number;
  /** Neighbour lists asked for, re-asks with a larger k included. */
  neighbourQueries: number;
  timingsMs: { index_build: number; knn_search: number; exact_rescoring: number };
}

/** A growable `Float64Array` (doubling). */
class KeyColumn {
  data = new Float64Array(1 << 12);
  length = 0;

  push(value: number): void {
    if (this.length === this.data.length) {
      const bigger = new Float64Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = value;
  }
}

/** A 64-bit key's low word comes first in memory (x64, arm64: every platform zaxy is built for). */
const littleEndian = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

type IndexClass = new (config: { dimensions: number } & typeof similarityIndexConfig) => UsearchIndex;

/**
 * `rows` in a fixed pseudo-random order: near-duplicates are often recorded one after the other,
 * and spread apart, the later one's insertion finds the earlier one through a graph that already
 * holds more of its neighbourhood.
 */
function insertionOrder(rows: Uint32Array): Uint32Array {
  const order = rows.slice();
  let state = 0x9e3779b9;
  for (let i = order.length - 1; i > 0; i--) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    const j = Math.floor((state / 4294967296) * (i + 1));
    const swap = order[i];
    order[i] = order[j];
    order[j] = swap;
  }
  return order;
}

/** What the search needs of an index: usearch's, or the exact stand-in. */
type NeighbourIndex = Pick<UsearchIndex, "add" | "searchBatch">;

function buildIndex(Index: IndexClass | null, embeddings: SparseEmbeddings, rows: Uint32Array): NeighbourIndex {
  const index: NeighbourIndex = Index === null ? new ExactNeighbourIndex(projectionDim) : new Index({ dimensions: projectionDim, ...similarityIndexConfig });
  const order = insertionOrder(rows);
  for (let start = 0; start < order.length; start += indexBatchRows) {
    const batch = order.subarray(start, start + indexBatchRows);
    // One vector per call: usearch inserts a call's vectors on parallel threads that race for
    // graph links, so a batched build is a different graph every run and the index proposes
    // different pairs; the same log must give the same answer. A call still reserves contexts
    // for every core (threads 0), which the parallel search below needs.
    const keys = BigUint64Array.from(batch, (row) => BigInt(row));
    const vectors = projectRows(embeddings, batch);
    for (let i = 0; i < batch.length; i++) index.add(keys.subarray(i, i + 1), vectors.subarray(i * projectionDim, (i + 1) * projectionDim), 0);
  }
  return index;
}

/**
 * usearch's index class, or null where its addon cannot load on this system (then the exact
 * search stands in, and `warn` says so once per call).
 */
async function usearchIndexClass(warn?: (message: string) => void): Promise<IndexClass | null> {
  try {
    return (await loadUsearch()).Index;
  } catch (error) {
    if (!isZaxyError(error) || error.code !== "usearch_unavailable") throw error;
    // The message is "... cannot be loaded on this system (REASON). It needs ...".
    const reason = error.message.split(". It needs")[0].replace(/^[^(]*\(/, "").replace(/\)$/, "");
    warn?.(`the usearch addon cannot be loaded here (${reason}); the similarity search compares every pair exactly instead (same candidates, slower on thousands of memories)`);
    return null;
  }
}

/**
 * Every pair of non-zero embeddings with exact cosine >= `minCosine` that the index proposes
 * (see the module comment for how far that reaches).
 *
 * @example
 * const { pairs } = await similarPairs(SparseEmbeddings.embed(texts, 1536), 0.765);
 * pairs.length; pairs.a(0); pairs.b(0); pairs.cosine(0);
 */
export async function similarPairs(
  embeddings: SparseEmbeddings,
  minCosine: number,
  progress?: ProgressSink,
  warn?: (message: string) => void,
  /** `exact`: the exact search even where usearch loads (tests compare the two). */
  search: "auto" | "exact" = "auto",
): Promise<SimilarPairsResult> {
  const Index = search === "exact" ? null : await usearchIndexClass(warn);
  const rows = Uint32Array.from({ length: embeddings.count }, (_, row) => row).filter((row) => !embeddings.isZero(row));
  const timingsMs = { index_build: 0, knn_search: 0, exact_rescoring: 0 };
  if (rows.length < 2) return { pairs: new SimilarPairList(new Float64Array(0), new Float64Array(0), embeddings.count), candidatesRescored: 0, neighbourQueries: 0, timingsMs };
  let mark = performance.now();
  progress?.phase("building the similarity index", undefined, "vectors");
  const index = buildIndex(Index, embeddings, rows);
  timingsMs.index_build = performance.now() - mark;

  // A pair is `a * count + b` (a < b): below 2^53 for any count this process can hold. Its exact
  // cosine is computed when first proposed (timed apart from the search); a pair proposed again
  // is recomputed rather than remembered, so only the keys are kept, not a cosine per pair.
  const count = embeddings.count;
  const proposed = new PairKeySet();
  const qualifying = new KeyColumn();
  let rescoringMs = 0;
  const exact = (row: number, other: number): number => {
    const a = Math.min(row, other);
    const b = Math.max(row, other);
    if (!proposed.add(a * count + b)) return embeddings.cosine(a, b);
    const started = performance.now();
    const cosine = embeddings.cosine(a, b);
    if (cosine >= minCosine) qualifying.push(a * count + b);
    rescoringMs += performance.now() - started;
    return cosine;
  };

  mark = performance.now();
  const kMax = Math.min(neighboursMax, rows.length);
  let neighbourQueries = 0;
  let pending = rows;
  let k = Math.min(neighboursInitial, kMax);
  while (pending.length > 0) {
    progress?.phase(`searching neighbours (k ${k})`, pending.length, "memories");
    const again: number[] = [];
    for (let start = 0; start < pending.length; start += indexBatchRows) {
      const batch = pending.subarray(start, start + indexBatchRows);
      const matches = index.searchBatch(projectRows(embeddings, batch), k, 0);
      // Keys are row numbers (< 2^32): read as their low 32-bit words, not as one BigInt each.
      const keyWords = new Uint32Array(matches.keys.buffer, matches.keys.byteOffset, matches.keys.length * 2);
      neighbourQueries += batch.length;
      for (let q = 0; q < batch.length; q++) {
        const row = batch[q];
        const found = Number(matches.counts[q]);
        let farthest = -Infinity;
        for (let r = 0; r < found; r++) {
          const other = littleEndian ? keyWords[2 * (q * k + r)] : Number(matches.keys[q * k + r]);
          if (other !== row) farthest = exact(row, other);
        }
        if (found === k && k < kMax && farthest >= minCosine) again.push(row);
      }
      // A batch's results (up to 4096 × 1024 keys and distances) are typed arrays the collector
      // counts little: without a collection per batch (~1 s of search each) they pile up to
      // ~0.7 GB over a 75 000-memory search.
      requestGarbageCollection({ now: true });
      progress?.update(Math.min(pending.length, start + indexBatchRows));
    }
    pending = Uint32Array.from(again);
    k = Math.min(k * 2, kMax);
  }
  timingsMs.knn_search = performance.now() - mark - rescoringMs;
  mark = performance.now();
  const keys = qualifying.data.subarray(0, qualifying.length).sort();
  const cosines = new Float64Array(keys.length);
  for (let i = 0; i < keys.length; i++) cosines[i] = embeddings.cosine(Math.floor(keys[i] / count), keys[i] % count);
  timingsMs.exact_rescoring = rescoringMs + (performance.now() - mark);
  return { pairs: new SimilarPairList(keys, cosines, count), candidatesRescored: proposed.size, neighbourQueries, timingsMs };
}
