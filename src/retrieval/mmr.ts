/**
 * Maximal marginal relevance: re-ranks fused retrieval hits so that near-duplicates of what is
 * already chosen sink (DESIGN §6, λ 0.7). Mirrors Python's `query._mmr_rank`:
 *
 * 1. candidates are ordered by relevance, best first; equal relevance keeps input order;
 * 2. the first pick is the most relevant candidate, ranked by its relevance alone;
 * 3. each later pick maximises  λ · relevance − (1 − λ) · max similarity to the picks so far
 *    + bonus  (the bonus is Python's per-lane `traversal_bonus`, 0.1 for traversal hits in the
 *    `balanced` profile); on equal ranking scores the earlier candidate of step 1 wins.
 *
 * Python re-computes the maximum similarity against every pick on every round; keeping a running
 * maximum per candidate gives the same numbers with one similarity call per candidate per round.
 */

export interface MmrPick<T> {
  item: T;
  /** The MMR score the item was picked with (its relevance for the first pick). */
  rankingScore: number;
}

/**
 * Picks up to `limit` candidates in MMR order, with the score each was picked with.
 *
 * @example
 * mmrRank(hits, (h) => h.score, (a, b) => tokenJaccard(a.tokens, b.tokens), 0.7, 10,
 *   (h) => (h.lane === "traversal" ? 0.1 : 0));
 */
export function mmrRank<T>(
  candidates: readonly T[],
  relevance: (candidate: T) => number,
  similarity: (a: T, b: T) => number,
  lambda: number,
  limit: number,
  bonus: (candidate: T) => number = () => 0,
): MmrPick<T>[] {
  const count = candidates.length;
  const relevances = candidates.map(relevance);
  const order = Array.from({ length: count }, (_, i) => i);
  // Array.prototype.sort is stable, so equal relevance keeps input order (Python's sorted()).
  order.sort((a, b) => (relevances[b] > relevances[a] ? 1 : relevances[b] < relevances[a] ? -1 : 0));
  const picks: MmrPick<T>[] = [];
  if (count === 0 || limit <= 0) return picks;

  const remaining = order; // candidate indexes not yet picked, in relevance order
  const first = remaining.shift() as number;
  picks.push({ item: candidates[first], rankingScore: relevances[first] });
  const maxSimilarity = new Float64Array(count).fill(-Infinity);
  const bonuses = candidates.map(bonus);
  let lastPicked = first;

  while (remaining.length > 0 && picks.length < limit) {
    let bestAt = 0;
    let bestScore = -Infinity;
    for (let at = 0; at < remaining.length; at++) {
      const index = remaining[at];
      const sim = similarity(candidates[index], candidates[lastPicked]);
      if (sim > maxSimilarity[index]) maxSimilarity[index] = sim;
      const score = lambda * relevances[index] - (1 - lambda) * maxSimilarity[index] + bonuses[index];
      if (score > bestScore) {
        bestScore = score;
        bestAt = at;
      }
    }
    lastPicked = remaining.splice(bestAt, 1)[0];
    picks.push({ item: candidates[lastPicked], rankingScore: bestScore });
  }
  return picks;
}

/**
 * `mmrRank` without the scores.
 *
 * @example
 * mmrSelect(hits, (h) => h.score, (a, b) => tokenJaccard(a.tokens, b.tokens), 0.7, 10);
 */
export function mmrSelect<T>(
  candidates: readonly T[],
  relevance: (candidate: T) => number,
  similarity: (a: T, b: T) => number,
  lambda: number,
  limit: number,
  bonus?: (candidate: T) => number,
): T[] {
  return mmrRank(candidates, relevance, similarity, lambda, limit, bonus).map((pick) => pick.item);
}

/**
 * Cosine of the angle between two vectors; 0 when either is all zeros. Vectors of different
 * lengths are a programmer error.
 *
 * @example
 * cosineSimilarity(new Float32Array([1, 0]), new Float32Array([1, 1])) // 0.7071…
 */
export function cosineSimilarity(a: Float32Array | Float64Array, b: Float32Array | Float64Array): number {
  if (a.length !== b.length) throw new RangeError(`cosineSimilarity: lengths differ (${a.length} vs ${b.length})`);
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    dot += x * y;
    normA += x * x;
    normB += y * y;
  }
  if (normA === 0 || normB === 0) return 0;
  return dot / (Math.sqrt(normA) * Math.sqrt(normB));
}

/**
 * |A ∩ B| / |A ∪ B|, 0 when either set is empty: Python's `_entity_similarity`, the MMR
 * similarity when hits carry no embedding. Python's token sets are `[A-Za-z0-9]+` of the lowercased
 * name, type and scalar property values, longer than one character (`keywordTerms` gives the same
 * tokens for all but a handful of non-ASCII characters).
 *
 * @example
 * tokenJaccard(new Set(["use", "postgres"]), new Set(["postgres", "audit"])) // 1 / 3
 */
export function tokenJaccard(aTokens: ReadonlySet<string>, bTokens: ReadonlySet<string>): number {
  if (aTokens.size === 0 || bTokens.size === 0) return 0;
  const [small, large] = aTokens.size <= bTokens.size ? [aTokens, bTokens] : [bTokens, aTokens];
  let shared = 0;
  for (const token of small) if (large.has(token)) shared++;
  return shared / (aTokens.size + bTokens.size - shared);
}
