/**
 * The semantic lane: the current facts whose sentence embeddings (the bundled model,
 * src/semantic/) are nearest the query's, so a question that shares no word with a fact still
 * finds it ("how are we upgrading the db?" → "Migrated the database to PostgreSQL 16").
 *
 * - Pool: the newest `semanticPoolEntitiesMax` current entity versions that are not hubs (an
 *   actor, a session: hubEntities.ts). Each is embedded as `name: summary` (a decision's name is
 *   what was decided, its summary why), or its name; vectors are kept per text in a cache the
 *   read front owns (`SemanticVectorCache`), so the same fact is embedded once per process.
 * - Query: its abbreviations spelled out first (`expandAbbreviations`: "db" → "database"), because
 *   the model's 8,000-piece vocabulary knows the words better than the jargon.
 * - Hits: similarity at least `semanticSimilarityMin`, best first, ties by lower position. A hit
 *   counts as evidence that memory answers the question only from `semanticEvidenceSimilarityMin`.
 *
 * Computing the lane is asynchronous (the model runs in WASM); `retrieve` (engine.ts) takes the
 * hits it produced and fuses them with the other lanes.
 *
 * @example
 * const lane = await semanticLane(index, "how are we upgrading the db?", embedder, cache, 50);
 * retrieve(index, query, { limit: 10, semantic: lane });
 */
import { semanticCachedVectorsMax, semanticPoolEntitiesMax } from "../limits.ts";
import type { SemanticEmbedder, SemanticModelReceipt } from "../semantic/semanticEmbedder.ts";
import { hubEntityTypes } from "./hubEntities.ts";
import type { SessionIndex } from "./sessionIndex.ts";

/**
 * The similarity a fact needs to enter the semantic lane (to be ranked at all). Calibrated on the
 * paraphrase set (src/bench/paraphraseSet.ts) and its unrelated questions, whose best match runs
 * up to ~0.35: below this a best match is noise; `zaxy bench retrieval --paraphrase` reports both
 * distributions.
 */
export const semanticSimilarityMin = 0.3;

/**
 * The similarity at which a semantic hit scores as the best keyword hit (engine.ts
 * `semanticLaneScore`): about the median similarity of a paraphrased question to its fact.
 */
export const semanticScoreAnchorSimilarity = 0.4;

/**
 * The similarity a fact the semantic lane found needs to count as match evidence in a checkout
 * (checkout/queryMatch.ts), so a question memory cannot answer stays `ask_user`. Calibrated on the
 * unrelated questions of both committed sets: the paraphrase set's best match reaches 0.32, the
 * checkout-quality set's near-domain ones ("How do I write a Rust macro?" against a session of
 * build facts) 0.54; about a third of paraphrased questions reach it.
 */
export const semanticEvidenceSimilarityMin = 0.55;

/** What the lane found, and the model that found it (a receipt). */
export interface SemanticLaneResult {
  model: SemanticModelReceipt;
  hits: Array<{ position: number; similarity: number }>;
  /** Entity versions compared with the query. */
  poolSize: number;
  /** Of those, how many were embedded for this query (not cached). */
  embedded: number;
}

/**
 * Abbreviations the model reads poorly, spelled out. Whole words only; the query keeps them too.
 */
export const queryAbbreviations: ReadonlyMap<string, string> = new Map([
  ["db", "database"],
  ["dbs", "databases"],
  ["pg", "postgresql"],
  ["postgres", "postgresql"],
  ["k8s", "kubernetes"],
  ["ci", "continuous integration"],
  ["cd", "continuous deployment"],
  ["repo", "repository"],
  ["repos", "repositories"],
  ["auth", "authentication"],
  ["config", "configuration"],
  ["env", "environment"],
  ["prod", "production"],
  ["infra", "infrastructure"],
  ["deps", "dependencies"],
  ["perf", "performance"],
  ["ui", "user interface"],
  ["api", "application programming interface"],
  ["iac", "infrastructure as code"],
  ["pr", "pull request"],
  ["prs", "pull requests"],
  ["msg", "message"],
  ["docs", "documentation"],
]);

/**
 * The query with each known abbreviation followed by its spelled-out form.
 *
 * @example
 * expandAbbreviations("how are we upgrading the db?") // "how are we upgrading the db (database)?"
 */
export function expandAbbreviations(query: string): string {
  return query.replace(/[A-Za-z0-9]+/g, (word) => {
    const long = queryAbbreviations.get(word.toLowerCase());
    return long === undefined ? word : `${word} (${long})`;
  });
}

/**
 * Sentence vectors by text for one model, the oldest dropped past `semanticCachedVectorsMax`, and
 * the pool of each session index it served with that pool's vectors (an index is immutable at its
 * head, so its pool is too; a pool goes when its index is dropped, so at most the read front's
 * warm sessions hold one, `semanticPoolEntitiesMax` vectors each). One per read front
 * (MemoryService), dropped with its warm sessions.
 */
export class SemanticVectorCache {
  private readonly vectors = new Map<string, Float32Array>();
  private readonly pools = new WeakMap<SessionIndex, { pool: Array<{ position: number; text: string }>; vectors: Float32Array[] }>();

  constructor(readonly modelId: string, private readonly capacity = semanticCachedVectorsMax) {}

  /** Vectors for `texts`, embedding those not cached; returns how many were embedded. */
  async vectorsFor(texts: readonly string[], embedder: SemanticEmbedder): Promise<{ vectors: Float32Array[]; embedded: number }> {
    const missing = [...new Set(texts.filter((text) => !this.vectors.has(text)))];
    if (missing.length > 0) {
      const fresh = await embedder.embed(missing);
      for (const [i, text] of missing.entries()) this.vectors.set(text, fresh[i]);
      for (const oldest of this.vectors.keys()) {
        if (this.vectors.size <= this.capacity) break;
        this.vectors.delete(oldest);
      }
    }
    let embedded = missing.length;
    const vectors = texts.map((text) => {
      const vector = this.vectors.get(text);
      if (vector !== undefined) return vector;
      // Dropped above because this call needs more than the capacity: embedded again, not kept.
      embedded++;
      return undefined;
    });
    const again = texts.filter((_, i) => vectors[i] === undefined);
    const redone = again.length === 0 ? [] : await embedder.embed(again);
    let next = 0;
    return { vectors: vectors.map((vector) => vector ?? redone[next++]), embedded };
  }

  /** The pool of `index` (`semanticPool`) with its vectors, embedded on first use. */
  async poolOf(index: SessionIndex, embedder: SemanticEmbedder): Promise<{ pool: Array<{ position: number; text: string }>; vectors: Float32Array[]; embedded: number }> {
    const cached = this.pools.get(index);
    if (cached !== undefined) return { ...cached, embedded: 0 };
    const pool = semanticPool(index);
    const { vectors, embedded } = await this.vectorsFor(pool.map((entry) => entry.text), embedder);
    this.pools.set(index, { pool, vectors });
    return { pool, vectors, embedded };
  }
}

/** The entity versions the lane compares, newest first, with the text each is embedded as. */
export function semanticPool(index: SessionIndex, max = semanticPoolEntitiesMax): Array<{ position: number; text: string }> {
  const pool: Array<{ position: number; text: string }> = [];
  for (let position = index.entityCount - 1; position >= 0 && pool.length < max; position--) {
    const entity = index.entity(position);
    if (entity.validTo !== null || hubEntityTypes.has(entity.entityType)) continue;
    const summary = entity.summary?.trim() ?? "";
    pool.push({ position, text: summary === "" ? entity.name : `${entity.name}: ${summary}` });
  }
  return pool;
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum;
}

/**
 * The semantic lane's hits for `query` (see the module comment), at most `limit`; `similarityMin`
 * replaces the threshold (the paraphrase benchmark ranks without one).
 */
export async function semanticLane(
  index: SessionIndex,
  query: string,
  embedder: SemanticEmbedder,
  cache: SemanticVectorCache,
  limit: number,
  similarityMin = semanticSimilarityMin,
): Promise<SemanticLaneResult> {
  const [queryVector] = await embedder.embed([expandAbbreviations(query)]);
  const { pool, vectors, embedded } = await cache.poolOf(index, embedder);
  const hits: Array<{ position: number; similarity: number }> = [];
  for (const [i, entry] of pool.entries()) {
    const similarity = dot(queryVector, vectors[i]);
    if (similarity >= similarityMin) hits.push({ position: entry.position, similarity });
  }
  hits.sort((a, b) => b.similarity - a.similarity || a.position - b.position);
  return { model: embedder.receipt, hits: hits.slice(0, limit), poolSize: pool.length, embedded };
}
