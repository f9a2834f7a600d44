/**
 * The semantic lane: the current facts whose sentence embeddings (the bundled model,
 * src/semantic/) are nearest the query's, so a question that shares no word with a fact still
 * finds it ("how are we upgrading the db?" → "Migrated the database to PostgreSQL 16").
 *
 * - Pool: the newest `semanticPoolEntitiesMax` current entity versions that are not hubs (an
 *   actor, a session: hubEntities.ts). Each is embedded as `name: summary` (a decision's name is
 *   what was decided, its summary why), or its name. Vectors are kept on disk by text
 *   (semantic/vectorStore.ts), so a fact is embedded once; a read embeds at most
 *   `semanticEmbedPerReadMax` facts that have none yet and `semanticEmbedPerReadCharsMax`
 *   characters of their text (`readEmbedBudget`), newest first, and reports the rest.
 * - Query: its abbreviations spelled out first (`expandAbbreviations`: "db" → "database"), because
 *   the model's 8,000-piece vocabulary knows the words better than the jargon.
 * - Ranking: by centred similarity (`centringMean`: the pool's shared direction removed), at least
 *   `semanticCentredSimilarityMin`, best first, ties by lower position. A hit counts as evidence
 *   that memory answers the question only when its plain cosine reaches
 *   `semanticEvidenceSimilarityMin`: centring ranks well but says nothing absolute.
 *
 * Computing the lane is asynchronous (the model runs in WASM); `retrieve` (engine.ts) takes the
 * hits it produced and fuses them with the other lanes.
 *
 * @example
 * const cache = new SemanticVectorCache(embedder.receipt.id, root);
 * const lane = await semanticLane("s1", index, "how are we upgrading the db?", embedder, cache, { limit: 50 });
 * retrieve(index, query, { limit: 10, semantic: lane });
 */
import { semanticEmbedPerReadCharsMax, semanticEmbedPerReadMax, semanticPoolEntitiesMax } from "../limits.ts";
import type { SemanticEmbedder, SemanticModelReceipt } from "../semantic/semanticEmbedder.ts";
import { canonicalSemanticText } from "../semantic/semanticText.ts";
import { openVectorStore, quantised, textKey, type VectorStore } from "../semantic/vectorStore.ts";
import { hubEntityTypes } from "./hubEntities.ts";
import type { SessionIndex } from "./sessionIndex.ts";

/**
 * The centred similarity a fact needs to enter the semantic lane (to be ranked at all). Centred
 * similarities (see `centringMean`) run lower than plain cosines: on the paraphrase set
 * (src/bench/paraphraseSet.ts) a question's fact has a median of about 0.25; below 0.1 a fact is
 * noise. `zaxy bench retrieval --paraphrase` reports the distributions.
 */
export const semanticCentredSimilarityMin = 0.1;

/**
 * The centred similarity at which a semantic hit scores as the best keyword hit (engine.ts
 * `semanticLaneScore`): about the median centred similarity of a paraphrased question to its fact.
 */
export const semanticScoreAnchorSimilarity = 0.25;

/**
 * Phantom facts at the origin the centring mean is shrunk by: a pool of 50 facts is centred half
 * way, one of 500 almost fully. Tuned on the paraphrase set with and without its distractors.
 */
export const semanticCentringPriorWeight = 50;

/**
 * The similarity a fact the semantic lane found needs to count as match evidence in a checkout
 * (checkout/checkout.ts), so a question memory cannot answer stays `ask_user`. Calibrated on the
 * unrelated questions of both committed sets: the paraphrase set's best match reaches 0.32, the
 * checkout-quality set's near-domain ones ("How do I write a Rust macro?" against a session of
 * build facts) 0.54; about a third of paraphrased questions reach it.
 */
export const semanticEvidenceSimilarityMin = 0.55;

/** What the lane found, and the model that found it (a receipt). */
export interface SemanticLaneResult {
  model: SemanticModelReceipt;
  /** `similarity`: the plain cosine (evidence); `centredSimilarity`: after centring (ranking). */
  hits: Array<{ position: number; similarity: number; centredSimilarity: number }>;
  /** Current facts the lane considers (the newest `semanticPoolEntitiesMax`). */
  poolSize: number;
  /** Of those, how many this read embedded (no stored vector yet). */
  embedded: number;
  /** Of those, how many have no vector yet and were not compared (over this read's budget). */
  notEmbedded: number;
  /** Set when the configured model failed and the bundled one ranked instead: why. */
  fallbackReason?: string;
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

/** A session's pool with its vectors, and what centring needs (see `semanticLane`). */
interface PoolVectors {
  pool: Array<{ position: number; text: string }>;
  /** Per pool entry; undefined while not embedded yet (over a read's budget). */
  vectors: Array<Float32Array | undefined>;
}

/** How much one call may embed: at most `facts` texts and `chars` characters of text (at least one text). */
export interface EmbedBudget {
  facts: number;
  chars: number;
}

/** What a read embeds (limits.ts `semanticEmbedPerReadMax`, `semanticEmbedPerReadCharsMax`). */
export const readEmbedBudget: EmbedBudget = { facts: semanticEmbedPerReadMax, chars: semanticEmbedPerReadCharsMax };

/** Everything not embedded yet (`zaxy memory embed`, the benchmarks). */
export const unlimitedEmbedBudget: EmbedBudget = { facts: Number.POSITIVE_INFINITY, chars: Number.POSITIVE_INFINITY };

/**
 * The vectors of the facts the lane compares, for one model: the session's on-disk store
 * (semantic/vectorStore.ts) and, per session index it served, that index's pool with its vectors
 * (an index is immutable at its head, so its pool is too; a pool goes when its index is dropped,
 * so only the read front's warm sessions hold one). One per read front (MemoryService) and model.
 */
export class SemanticVectorCache {
  private readonly stores = new Map<string, VectorStore>();
  private readonly pools = new WeakMap<SessionIndex, PoolVectors>();
  /** Per pool, the embedding under way (see `poolOf`). */
  private readonly filling = new WeakMap<PoolVectors, Promise<unknown>>();
  /** Set by `close`: nothing more is stored. */
  private closed = false;

  constructor(readonly modelId: string, private readonly root: string | null = null) {}

  private storeOf(sessionId: string, dim: number): VectorStore | null {
    if (this.root === null) return null;
    let store = this.stores.get(sessionId);
    if (store === undefined) {
      store = openVectorStore(this.root, sessionId, this.modelId, dim);
      this.stores.set(sessionId, store);
    }
    return store;
  }

  /** Where the store of `sessionId` keeps its vectors. */
  storeFile(sessionId: string, dim: number): string {
    return this.storeOf(sessionId, dim)?.file ?? "";
  }

  /**
   * The pool of `index` (`semanticPool`) with the vectors the store holds, embedding as many of
   * those it does not as `budget` allows, newest first; returns how many it embedded. Calls on one pool
   * run one after another, so a read and `zaxy serve`'s idle embedding never embed a fact twice.
   * Fresh vectors are stored only if `storeWhile` still holds once the model has answered (the
   * session's log unchanged since `index` was read): a forget in between must not get a forgotten
   * text's vector written back.
   */
  async poolOf(sessionId: string, index: SessionIndex, embedder: SemanticEmbedder, dim: number, budget: EmbedBudget, storeWhile?: () => boolean): Promise<PoolVectors & { embedded: number }> {
    let entry = this.pools.get(index);
    if (entry === undefined) {
      const pool = semanticPool(index);
      entry = { pool, vectors: pool.map(() => undefined) };
      this.pools.set(index, entry);
    }
    const pool = entry;
    const run = (this.filling.get(pool) ?? Promise.resolve()).then(() => this.fill(sessionId, pool, embedder, dim, budget, storeWhile));
    this.filling.set(pool, run.catch(() => undefined));
    return { ...pool, embedded: await run };
  }

  /** How many facts of the pool of `index` have no vector yet after embedding what `budget` allows. */
  async embedPending(sessionId: string, index: SessionIndex, embedder: SemanticEmbedder, dim: number, budget: EmbedBudget, storeWhile?: () => boolean): Promise<number> {
    const { vectors } = await this.poolOf(sessionId, index, embedder, dim, budget, storeWhile);
    return vectors.reduce((count, vector) => count + (vector === undefined ? 1 : 0), 0);
  }

  /** Stores nothing more: the vectors' texts may have been forgotten (the owner drops this cache). */
  close(): void {
    this.closed = true;
  }

  private async fill(sessionId: string, entry: PoolVectors, embedder: SemanticEmbedder, dim: number, budget: EmbedBudget, storeWhile?: () => boolean): Promise<number> {
    const missing = entry.vectors.flatMap((vector, i) => (vector === undefined ? [i] : []));
    if (missing.length === 0) return 0;
    const store = this.storeOf(sessionId, dim);
    const toEmbed: number[] = [];
    let chars = 0;
    // Newest first, without gaps: once a text does not fit, older ones wait for a later call.
    let full = false;
    for (const i of missing) {
      const stored = store?.get(textKey(entry.pool[i].text));
      if (stored !== undefined) {
        entry.vectors[i] = stored;
        continue;
      }
      const length = entry.pool[i].text.length;
      full ||= toEmbed.length >= budget.facts || (toEmbed.length > 0 && chars + length > budget.chars);
      if (full) continue;
      toEmbed.push(i);
      chars += length;
    }
    if (toEmbed.length > 0) {
      const fresh = (await embedder.embed(toEmbed.map((i) => entry.pool[i].text))).map(quantised);
      for (const [n, i] of toEmbed.entries()) entry.vectors[i] = fresh[n];
      if (!this.closed && (storeWhile?.() ?? true)) store?.add(toEmbed.map((i, n) => [textKey(entry.pool[i].text), fresh[n]] as const));
    }
    return toEmbed.length;
  }
}

/**
 * Whether an entity says something a question could be about: not a hub, not a gate's record of
 * its own decision, not zaxy's own bookkeeping (`memory.forgotten`, `memory.rolled_back`: their
 * fallback entities restate the operation, and would rank for any question about the fact they
 * removed).
 */
function statesAFact(entity: { entityType: string; name: string }): boolean {
  if (hubEntityTypes.has(entity.entityType) || entity.entityType === "evolution_gate_decision") return false;
  return !(entity.entityType === "event" && entity.name.startsWith("event:memory."));
}

/** The entity versions the lane compares, newest first, with the text each is embedded as. */
export function semanticPool(index: SessionIndex, max = semanticPoolEntitiesMax): Array<{ position: number; text: string }> {
  const pool: Array<{ position: number; text: string }> = [];
  for (let position = index.entityCount - 1; position >= 0 && pool.length < max; position--) {
    const entity = index.entity(position);
    if (entity.validTo !== null || !statesAFact(entity)) continue;
    const summary = entity.summary?.trim() ?? "";
    pool.push({ position, text: canonicalSemanticText(summary === "" ? entity.name : `${entity.name}: ${summary}`) });
  }
  return pool;
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum;
}

/**
 * The pool's mean direction, shrunk toward zero by `semanticCentringPriorWeight` phantom facts:
 * the model gives every sentence of one kind (engineering notes) a large shared component, which
 * drowns the differences a question is about. Subtracting the session's own mean ranks by what
 * sets a fact apart; a small pool's mean says little, so it is mostly left as it is.
 */
function centringMean(vectors: ReadonlyArray<Float32Array | undefined>, dim: number): Float32Array {
  const mean = new Float32Array(dim);
  let count = 0;
  for (const vector of vectors) {
    if (vector === undefined) continue;
    for (let i = 0; i < dim; i++) mean[i] += vector[i];
    count++;
  }
  for (let i = 0; i < dim; i++) mean[i] /= count + semanticCentringPriorWeight;
  return mean;
}

/** `vector` minus `mean`, normalised, against `centredQuery`: the centred cosine. */
function centredCosine(vector: Float32Array, mean: Float32Array, centredQuery: Float32Array): number {
  let product = 0;
  let norm = 0;
  for (let i = 0; i < vector.length; i++) {
    const value = vector[i] - mean[i];
    product += value * centredQuery[i];
    norm += value * value;
  }
  return norm === 0 ? 0 : product / Math.sqrt(norm);
}

function centred(vector: Float32Array, mean: Float32Array): Float32Array {
  const out = new Float32Array(vector.length);
  let norm = 0;
  for (let i = 0; i < vector.length; i++) {
    out[i] = vector[i] - mean[i];
    norm += out[i] * out[i];
  }
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < out.length; i++) out[i] /= norm;
  return out;
}

/**
 * The semantic lane's hits for `query` (see the module comment), at most `limit`, ranked by centred
 * similarity; `centredMin` replaces the entry threshold (the paraphrase benchmark ranks without
 * one). Facts without a stored vector are embedded as far as `embedBudget` allows (by default what
 * one read may: `readEmbedBudget`); the rest are not compared, and the result says how many
 * (`notEmbedded`).
 */
export async function semanticLane(
  sessionId: string,
  index: SessionIndex,
  query: string,
  embedder: SemanticEmbedder,
  cache: SemanticVectorCache,
  options: { limit: number; embedBudget?: EmbedBudget; centredMin?: number; storeWhile?: () => boolean },
): Promise<SemanticLaneResult> {
  const [queryVector] = (await embedder.embed([expandAbbreviations(query)])).map(quantised);
  const { pool, vectors, embedded } = await cache.poolOf(sessionId, index, embedder, queryVector.length, options.embedBudget ?? readEmbedBudget, options.storeWhile);
  const mean = centringMean(vectors, queryVector.length);
  const centredQuery = centred(queryVector, mean);
  const centredMin = options.centredMin ?? semanticCentredSimilarityMin;
  const hits: SemanticLaneResult["hits"] = [];
  let notEmbedded = 0;
  for (const [i, entry] of pool.entries()) {
    const vector = vectors[i];
    if (vector === undefined) {
      notEmbedded++;
      continue;
    }
    const centredSimilarity = centredCosine(vector, mean, centredQuery);
    if (centredSimilarity >= centredMin) hits.push({ position: entry.position, similarity: dot(queryVector, vector), centredSimilarity });
  }
  hits.sort((a, b) => b.centredSimilarity - a.centredSimilarity || a.position - b.position);
  return { model: embedder.receipt, hits: hits.slice(0, options.limit), poolSize: pool.length, embedded, notEmbedded };
}
