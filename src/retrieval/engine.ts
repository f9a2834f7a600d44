/**
 * Retrieval over one session (DESIGN §6): six lanes, weighted fusion, de-duplication by
 * citation, and MMR (the vector lane's exact scoring, the MMR re-ranking and how a context
 * shows a projected entity in a prompt, `entityDisplay`, are below).
 *
 * - exact: entity names equal to the query or to one of its words/phrases (weight 1.0).
 * - vector: the exact cosine of the hash embeddings, from the session's vector postings
 *   (`vectorLaneHits`), so the answer does not depend on how the index was built (0.95 · cosine).
 * - keyword: BM25 over entity text, plus Python's expanded query at 0.92, the query with the
 *   other forms of its words the index holds ("spec" for "specs", vector/textAnalysis.ts) at 0.9 and the query
 *   with the other names of what it names ("postgresql" for "postgres", "database" for "db",
 *   vector/textAnalysis.ts) at 0.85 (0.8 · score).
 * - traversal: current relations from the best hits, depth 2 by default, 0.95 per hop (0.9). Only
 *   hits the query matched (exact, keyword, or a hash-embedding cosine of 0.25 or more) start
 *   one, and a hub entity (an actor, a session: hubEntities.ts) reached on the way is not
 *   expanded, so one keyword hit does not spread through its author to every fact of a session.
 * - verbatim: BM25 over raw event text (0.8), with the inflected and other-name passes of the
 *   keyword lane, so an event is findable even if extraction summarised it away; at least one
 *   verbatim context is kept when any matched.
 * - semantic: the current facts nearest the query in a sentence model's space, at least
 *   `semanticCentredSimilarityMin` (semanticLane.ts; scored by `semanticLaneScore`), when the caller computed
 *   them (`options.semantic`): they add candidates a paraphrase finds and seed no traversal.
 * - projection: records of compaction projection artifacts under the root are not a lane of
 *   this function: the read front merges them into its result as a checkout lane
 *   (compaction/projectionLane.ts), before a degraded result is marked (`markDegraded`).
 * - Pending and rolled-back preventive rules are dropped from every lane (`dropWithheldRules`).
 *
 * BM25 scores are divided by the best score of the query rather than capped at 1 as Python
 * does: capping makes every document that shares a couple of common terms score the same, so
 * near-duplicates that differ by one identifier could not be told apart (`zaxy bench retrieval`).
 * De-duplication is by citation (qualified by entity for graph contexts, see `rank`).
 * A context's fused score is its best weighted lane score plus 0.05 per further lane that found
 * it; bare entities (no summary) count half unless named exactly; an entity's score is then
 * scaled by its `memory_feedback` reinforcement (reinforcement.ts: 1 ± 0.1 per net feedback,
 * within 0.5..1.5). Superseded versions are returned too (closed `validTo`); checkout counts and drops them.
 */
import { compareCodePoints } from "../canonical/mod.ts";
import { citationUri } from "../eventloom/root.ts";
import type { EventRecord } from "../eventloom/envelope.ts";
import type { EntityRow, PlainJson } from "../projection/types.ts";
import { joinSummary, payloadMarksStale, stringList, text } from "../events/payload.ts";
import { candidateStanding } from "../events/candidateStanding.ts";
import { candidateEntityType } from "../folds/consolidationStatus.ts";
import { hubEntityTypes } from "./hubEntities.ts";
import { hashEmbedMany } from "../vector/mod.ts";
import { reinforcementKey } from "../folds/reinforcement.ts";
import { reinforcementFactor } from "./reinforcement.ts";
import type { SessionIndex } from "./sessionIndex.ts";
import { expandQuery, inflectionVariants, nameVariantTerms, queryTerms, rawEventText, stopWords } from "../vector/textAnalysis.ts";
import type { Bm25Corpus } from "./bm25.ts";
import type { LaneName, RetrievalResult, RetrievedContext } from "./types.ts";
import { type SemanticLaneResult, semanticScoreAnchorSimilarity } from "./semanticLane.ts";
import { exactCosineTop } from "../projection/vectorIndex.ts";
import { fallbackPayloadSummary } from "../projection/extract/fallback.ts";

export const laneWeights = { exact: 1.0, vector: 0.95, traversal: 0.9, keyword: 0.8, verbatim: 0.8, semantic: 0.8 } as const;
export const expansionWeight = 0.92;
/**
 * The weight of the inflected pass of a BM25 lane (the query's words plus the other forms of them
 * the corpus holds, vector/textAnalysis.ts) relative to the pass with the words as written: a memory that says
 * "spec" answers "specs", one level below a memory that says "specs".
 */
export const inflectionWeight = 0.9;
/** Most inflected forms one query adds to a BM25 lane: a bound on what one query scores. */
const inflectedTermsMax = 32;
/**
 * The weight of the name-variant pass of a BM25 lane (the query's words plus the other names of
 * what they name, vector/textAnalysis.ts) relative to the pass with the words as written. Below the
 * inflected pass: "specs" for "spec" is a spelling, "postgres" for "PostgreSQL" a reading, so a
 * memory in the query's own words ranks first.
 */
export const nameVariantWeight = 0.85;
/** Most name variants (and their inflections) one query adds to a BM25 lane. */
const nameVariantTermsMax = 32;
export const traversalDecay = 0.95;
export const mmrLambda = 0.7;
export const multiLaneBonus = 0.05;
export const bareEntityFactor = 0.5;
/**
 * When the semantic lane ran, the question's words leave it open (no fact holds them all), so a
 * word match is weaker evidence than usual: the keyword and hash-vector lanes count at 0.7 of their
 * score, and a fact both the model and a word lane found gains 0.1 more than the usual second-lane
 * bonus. Chosen on the paraphrase set and checked on a held-out one (recall@5 0.54 → 0.60 and
 * 0.43 → 0.46); questions in the memory's own words never run the lane and rank as before.
 */
export const wordLaneFactorWithSemantic = 0.7;
export const semanticAgreementBonus = 0.1;
export const laneHitsMax = 50;
const traversalSeeds = 3;
const traversalNeighboursMax = 25;
const contentCharsMax = 600;
/** Smallest hash-embedding cosine that lets a vector-only hit seed a traversal. */
const vectorSeedCosineMin = 0.25;

export interface RetrieveOptions {
  limit: number;
  /** Traversal depth, 1..5 (default 2). */
  depth?: number;
  /** The semantic lane's hits for this query (semanticLane.ts); absent, the lane does not run. */
  semantic?: SemanticLaneResult;
  /**
   * The vector lane's answer computed before (`vectorLaneAnswer`), used when it answers this
   * query with this lane's limit; otherwise (and when absent) the lane is scanned here.
   */
  vectorLane?: VectorLaneAnswer;
}

interface Candidate {
  kind: "entity" | "event";
  /** Entity position or event index. */
  position: number;
  lanes: Map<LaneName, number>;
  /** The semantic lane's raw similarity, when that lane found the candidate. */
  semanticSimilarity?: number;
  /** And its centred similarity, which ranked it. */
  semanticCentredSimilarity?: number;
}

function addLane(candidates: Map<string, Candidate>, kind: Candidate["kind"], position: number, lane: LaneName, score: number): void {
  if (!(score > 0)) return;
  const key = `${kind}:${position}`;
  let candidate = candidates.get(key);
  if (candidate === undefined) {
    candidate = { kind, position, lanes: new Map() };
    candidates.set(key, candidate);
  }
  candidate.lanes.set(lane, Math.max(candidate.lanes.get(lane) ?? 0, score));
}

function fusedScore(candidate: Candidate): { score: number; lane: LaneName } {
  let best = 0;
  let lane: LaneName = "keyword";
  for (const [name, score] of candidate.lanes) {
    if (score > best) {
      best = score;
      lane = name;
    }
  }
  const agreement = candidate.lanes.has("semantic") && (candidate.lanes.has("keyword") || candidate.lanes.has("vector")) ? semanticAgreementBonus : 0;
  return { score: best + agreement + multiLaneBonus * (candidate.lanes.size - 1), lane };
}

/**
 * A centred similarity as a lane score: 0.25 (`semanticScoreAnchorSimilarity`) scores as the best
 * keyword hit (0.8), linearly, up to the hash-vector lane's weight (0.95), so a fact the model
 * finds convincingly ranks with the best lexical hits, a weak one (0.1: 0.32) below them, and none
 * above an exact name.
 */
export function semanticLaneScore(centredSimilarity: number): number {
  return Math.min(laneWeights.vector, (laneWeights.semantic * centredSimilarity) / semanticScoreAnchorSimilarity);
}

/** Query words and phrases that could be an entity name: the query, its words, runs of 2-4 words. */
export function exactCandidates(query: string): string[] {
  const words = query.trim().split(/\s+/).map((word) => word.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "")).filter((word) => word.length > 0);
  const out = new Set<string>([query.trim().toLowerCase()]);
  for (let size = 1; size <= 4; size++) {
    for (let i = 0; i + size <= words.length; i++) out.add(words.slice(i, i + size).join(" ").toLowerCase());
  }
  out.delete("");
  return [...out];
}

function bm25Lane(
  candidates: Map<string, Candidate>,
  kind: Candidate["kind"],
  hits: Array<{ docId: number; score: number }>,
  lane: LaneName,
  weight: number,
): number {
  const top = hits[0]?.score ?? 0;
  if (!(top > 0)) return 0;
  for (const hit of hits) addLane(candidates, kind, hit.docId, lane, weight * (hit.score / top));
  return hits.length;
}

/**
 * What a context shows after the entity's name: its summary, except for a command run with an
 * exit code, which shows the command and how it ended (`npm test → exit 0`): the projected
 * summary stays Python's (`unknown npm test` without an outcome), and the consolidation trigger
 * compares those summaries, so the key facts are added here, where a reader sees them.
 */
function entityDetail(entity: EntityRow): string | null {
  if (entity.entityType === candidateEntityType) return candidateDetail(entity);
  if (entity.entityType !== "command_run") return entity.summary;
  try {
    const p = JSON.parse(entity.propertiesJson) as { command?: unknown; exit_code?: unknown; outcome?: unknown };
    if (typeof p.command !== "string" || (typeof p.exit_code !== "number" && typeof p.exit_code !== "string")) return entity.summary;
    const known = typeof p.outcome === "string" && p.outcome !== "" && p.outcome !== "unknown";
    return `${p.command} → ${known ? `${p.outcome} (exit ${p.exit_code})` : `exit ${p.exit_code}`}`;
  } catch {
    return entity.summary;
  }
}

/** A consolidation candidate shows its title before its summary, as the long-horizon tier does. */
function candidateDetail(entity: EntityRow): string | null {
  try {
    const title = (JSON.parse(entity.propertiesJson) as { title?: unknown }).title;
    if (typeof title !== "string" || title.trim() === "") return entity.summary;
    return entity.summary === null ? title : `${title}: ${entity.summary}`;
  } catch {
    return entity.summary;
  }
}

/**
 * A candidate's review and authority status, from the session's consolidation replay (only review
 * events decide it, never the creation payload), so checkout can say what the candidate is worth.
 */
function standingMetadata(index: SessionIndex, entity: EntityRow): { [key: string]: PlainJson } {
  if (entity.entityType !== candidateEntityType) return {};
  return { ...candidateStanding(index.folds.consolidationCandidates().get(entity.name) ?? null) };
}

function clipped(text: string): string {
  return text.length > contentCharsMax ? `${text.slice(0, contentCharsMax - 1)}…` : text;
}

function entityContent(entity: EntityRow): string {
  const head = `${entity.name} (${entity.entityType})`;
  const detail = entityDetail(entity);
  return clipped(detail ? `${head}: ${detail}` : head);
}

function eventContent(event: EventRecord): string {
  const text = rawEventText(event);
  return text.length > contentCharsMax ? `${text.slice(0, contentCharsMax - 1)}…` : text;
}

function explanation(candidate: Candidate, score: number): { [key: string]: PlainJson } {
  const lanes: { [lane: string]: number } = {};
  for (const [lane, value] of [...candidate.lanes].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) lanes[lane] = Math.round(value * 1e6) / 1e6;
  const out: { [key: string]: PlainJson } = { lanes, fused_score: Math.round(score * 1e6) / 1e6 };
  if (candidate.semanticSimilarity !== undefined) out.semantic_similarity = Math.round(candidate.semanticSimilarity * 1e6) / 1e6;
  if (candidate.semanticCentredSimilarity !== undefined) out.semantic_centred_similarity = Math.round(candidate.semanticCentredSimilarity * 1e6) / 1e6;
  return out;
}

function toContext(index: SessionIndex, candidate: Candidate, score: number, lane: LaneName): RetrievedContext {
  if (candidate.kind === "event") {
    const event = index.event(candidate.position);
    return {
      content: eventContent(event),
      source: "verbatim",
      sourceLane: lane,
      score,
      validFrom: event.timestamp,
      // An event that marks itself stale or superseded is never current, as its graph version.
      validTo: payloadMarksStale(event.payload) ? event.timestamp : null,
      citation: citationUri(event.thread, event.seq, event.hash),
      eventSeq: event.seq,
      eventHash: event.hash,
      scoreExplanation: explanation(candidate, score),
      metadata: { event_type: event.type, actor: event.actor },
    };
  }
  const entity = index.entity(candidate.position);
  const event = entity.sourceEventSeq >= 1 && entity.sourceEventSeq <= index.eventCount ? index.event(entity.sourceEventSeq - 1) : undefined;
  const display = entityDisplay(entity, event);
  return {
    content: entityContent(entity),
    ...(display === undefined ? {} : { display: clipped(display) }),
    source: "graph",
    sourceLane: lane,
    score,
    validFrom: entity.validFrom,
    validTo: entity.validTo,
    citation: citationUri(event?.thread ?? index.sessionId, entity.sourceEventSeq, entity.sourceEventHash),
    eventSeq: entity.sourceEventSeq,
    eventHash: entity.sourceEventHash,
    entityName: entity.name,
    entityType: entity.entityType,
    scoreExplanation: explanation(candidate, score),
    metadata: {
      entity_name: entity.name,
      entity_type: entity.entityType,
      node_key: entity.nodeKey,
      current: entity.validTo === null,
      ...standingMetadata(index, entity),
    },
  };
}

/**
 * Whether a candidate may start a traversal: the query named it, or its words or hash embedding
 * matched the query's beyond chance. Hash-embedding cosines of unrelated short texts run around
 * 0.1-0.15; a shared content word lifts them past 0.3.
 */
function isTraversalSeed(candidate: Candidate): boolean {
  return candidate.lanes.has("exact") || candidate.lanes.has("keyword") || (candidate.lanes.get("vector") ?? 0) >= laneWeights.vector * vectorSeedCosineMin;
}

function traverse(index: SessionIndex, candidates: Map<string, Candidate>, depth: number): number {
  const seeds = new Map<number, number>();
  const entityCandidates = [...candidates.values()].filter((c) => c.kind === "entity" && isTraversalSeed(c));
  const bestBy = (pick: (c: Candidate) => number) =>
    entityCandidates.map((c) => ({ c, s: pick(c) })).filter((x) => x.s > 0).sort((a, b) => b.s - a.s || a.c.position - b.c.position).slice(0, traversalSeeds);
  for (const pick of [(c: Candidate) => fusedScore(c).score, (c: Candidate) => c.lanes.get("vector") ?? 0, (c: Candidate) => c.lanes.get("keyword") ?? 0]) {
    for (const { c } of bestBy(pick)) seeds.set(c.position, Math.max(seeds.get(c.position) ?? 0, fusedScore(c).score));
  }
  let hits = 0;
  for (const [seed, seedScore] of seeds) {
    let frontier = [seed];
    const seen = new Set([seed]);
    for (let hop = 1; hop <= depth && frontier.length > 0; hop++) {
      const next: number[] = [];
      for (const node of frontier) {
        // A hub reached on the way (the actor of a matched decision) is a hit, not a way on.
        if (node !== seed && hubEntityTypes.has(index.entity(node).entityType)) continue;
        for (const neighbour of index.neighbours(node, traversalNeighboursMax)) {
          if (seen.has(neighbour.entity)) continue;
          seen.add(neighbour.entity);
          next.push(neighbour.entity);
          addLane(candidates, "entity", neighbour.entity, "traversal", seedScore * laneWeights.traversal * traversalDecay ** hop);
          hits++;
        }
      }
      frontier = next;
    }
  }
  return hits;
}

/**
 * The other forms of the query's terms (vector/textAnalysis.ts) that the corpus holds and the query does not
 * name, first-seen order, at most `inflectedTermsMax`: "spec" for "specs", "migrated" for
 * "migrations". Looked up in the index as written, so the index keeps Python's terms.
 */
export function inflectedTerms(terms: readonly string[], corpus: Bm25Corpus): string[] {
  const own = new Set(terms);
  const out: string[] = [];
  for (const term of own) {
    for (const form of inflectionVariants(term)) {
      if (out.length >= inflectedTermsMax) return out;
      if (own.has(form) || out.includes(form) || corpus.termPostings(form).length === 0) continue;
      out.push(form);
    }
  }
  return out;
}

/**
 * The other names of what the query's terms name (vector/textAnalysis.ts) and their other forms
 * (vector/textAnalysis.ts), those the corpus holds and the query does not name, first-seen order, at most
 * `nameVariantTermsMax`: "postgresql" for "postgres", "database" and "databases" for "db".
 */
export function nameVariantCorpusTerms(terms: readonly string[], corpus: Bm25Corpus): string[] {
  const own = new Set(terms);
  const out: string[] = [];
  for (const variant of nameVariantTerms(terms)) {
    // The small words of a long form ("to" in "end to end") are dropped, as from the query.
    if (stopWords.has(variant)) continue;
    for (const form of [variant, ...inflectionVariants(variant)]) {
      if (out.length >= nameVariantTermsMax) return out;
      if (own.has(form) || out.includes(form) || corpus.termPostings(form).length === 0) continue;
      out.push(form);
    }
  }
  return out;
}

/** The keyword and hash-vector lane scores scaled by `wordLaneFactorWithSemantic`. */
function weakenWordLanes(candidates: Map<string, Candidate>): void {
  for (const candidate of candidates.values()) {
    for (const lane of ["keyword", "vector"] as const) {
      const score = candidate.lanes.get(lane);
      if (score !== undefined) candidate.lanes.set(lane, score * wordLaneFactorWithSemantic);
    }
  }
}

/** Retrieval from the projected graph and the raw log. */
export function retrieve(index: SessionIndex, query: string, options: RetrieveOptions): RetrievalResult {
  const depth = options.depth ?? 2;
  const candidates = new Map<string, Candidate>();
  const laneCounts: { [lane: string]: number } = { exact: 0, vector: 0, keyword: 0, traversal: 0, verbatim: 0 };

  for (const name of exactCandidates(query)) {
    for (const position of index.namePositions(name)) {
      addLane(candidates, "entity", position, "exact", laneWeights.exact);
      laneCounts.exact++;
    }
  }
  const given = options.vectorLane;
  const vectorHits = given !== undefined && given.query === query && given.limit === laneHitsMax ? given.hits : vectorLaneHits(index, query, laneHitsMax);
  for (const hit of vectorHits) {
    addLane(candidates, "entity", hit.position, "vector", laneWeights.vector * hit.similarity);
    laneCounts.vector++;
  }
  const terms = queryTerms(query);
  laneCounts.keyword += bm25Lane(candidates, "entity", index.keywordSearch(terms, laneHitsMax), "keyword", laneWeights.keyword);
  const keywordInflections = inflectedTerms(terms, index.keywordCorpus());
  if (keywordInflections.length > 0) {
    const hits = index.keywordSearch([...terms, ...keywordInflections], laneHitsMax);
    laneCounts.keyword += bm25Lane(candidates, "entity", hits, "keyword", laneWeights.keyword * inflectionWeight);
  }
  const keywordNames = nameVariantCorpusTerms(terms, index.keywordCorpus());
  if (keywordNames.length > 0) {
    const hits = index.keywordSearch([...terms, ...keywordInflections, ...keywordNames], laneHitsMax);
    laneCounts.keyword += bm25Lane(candidates, "entity", hits, "keyword", laneWeights.keyword * nameVariantWeight);
  }
  const expanded = expandQuery(query);
  if (expanded !== null) {
    laneCounts.keyword += bm25Lane(candidates, "entity", index.keywordSearch(queryTerms(expanded), laneHitsMax), "keyword", laneWeights.keyword * expansionWeight);
  }
  if (options.semantic !== undefined) {
    laneCounts.semantic = 0;
    for (const hit of options.semantic.hits) {
      addLane(candidates, "entity", hit.position, "semantic", semanticLaneScore(hit.centredSimilarity));
      const candidate = candidates.get(`entity:${hit.position}`);
      if (candidate !== undefined) {
        candidate.semanticSimilarity = hit.similarity;
        candidate.semanticCentredSimilarity = hit.centredSimilarity;
      }
      laneCounts.semantic++;
    }
  }
  if (options.semantic !== undefined) weakenWordLanes(candidates);
  laneCounts.traversal = traverse(index, candidates, depth);
  const notSelfReport = (hit: { docId: number }) => !selfReportEventTypes.has(index.event(hit.docId).type);
  const verbatimHits = index.verbatimSearch(terms, laneHitsMax).filter(notSelfReport);
  laneCounts.verbatim = bm25Lane(candidates, "event", verbatimHits, "verbatim", laneWeights.verbatim);
  const verbatimInflections = inflectedTerms(terms, index.verbatimCorpus());
  if (verbatimInflections.length > 0) {
    const hits = index.verbatimSearch([...terms, ...verbatimInflections], laneHitsMax).filter(notSelfReport);
    laneCounts.verbatim += bm25Lane(candidates, "event", hits, "verbatim", laneWeights.verbatim * inflectionWeight);
  }
  const verbatimNames = nameVariantCorpusTerms(terms, index.verbatimCorpus());
  if (verbatimNames.length > 0) {
    const hits = index.verbatimSearch([...terms, ...verbatimInflections, ...verbatimNames], laneHitsMax).filter(notSelfReport);
    laneCounts.verbatim += bm25Lane(candidates, "event", hits, "verbatim", laneWeights.verbatim * nameVariantWeight);
  }
  dropWithheldRules(index, candidates);
  return rank(index, candidates, options.limit, laneCounts);
}

/**
 * Retrieval when the graph store cannot be opened. `index` is built over the log folded in memory
 * (projection/foldLog.ts), so every lane but the vector lane (no index is opened or written from
 * a degraded read) runs as in `retrieve`, with the same validity windows: a superseded version is
 * returned closed, never as current. The result and each context are marked degraded.
 */
export function retrieveDegraded(index: SessionIndex, query: string, options: RetrieveOptions, reason: string): RetrievalResult {
  return markDegraded(retrieve(index, query, options), reason);
}

/**
 * `result` marked degraded for `reason`, every context included: the read front marks the result
 * after merging its lanes (checkout/mergeLanes.ts), so a lane's contexts are marked too.
 */
export function markDegraded(result: RetrievalResult, reason: string): RetrievalResult {
  const contexts = result.contexts.map((context) => ({ ...context, metadata: { ...context.metadata, degraded: true } }));
  return { ...result, contexts, degraded: true, degradedReason: reason };
}

/**
 * Pending (gate-withheld) and rolled-back preventive rules never reach a result, in any lane:
 * their `memory_rule` entities and their raw events are dropped (folds/ruleStatus.ts).
 */
/**
 * Events in which zaxy reports on its own retrieval (a feeling-of-knowing prediction repeats the
 * query it was asked): as verbatim evidence they would answer the next query with itself.
 */
export const selfReportEventTypes: ReadonlySet<string> = new Set(["metacognition.fok.predicted"]);

function dropWithheldRules(index: SessionIndex, candidates: Map<string, Candidate>): void {
  const withheld = index.folds.withheldRuleSeqs();
  if (withheld.size === 0) return;
  for (const [key, candidate] of candidates) {
    const withheldHit = candidate.kind === "event"
      ? withheld.has(index.event(candidate.position).seq)
      : index.entity(candidate.position).entityType === "memory_rule" && withheld.has(index.entity(candidate.position).sourceEventSeq);
    if (withheldHit) candidates.delete(key);
  }
}

function rank(index: SessionIndex, candidates: Map<string, Candidate>, limit: number, laneCounts: { [lane: string]: number }): RetrievalResult {
  const ranked: Array<{ context: RetrievedContext; candidate: Candidate }> = [];
  const reinforcement = index.folds.reinforcement();
  for (const candidate of candidates.values()) {
    const fused = fusedScore(candidate);
    const lane = fused.lane;
    // A bare entity (an actor, a user, an edge endpoint: no summary) says only that it exists;
    // it ranks below entities that state something unless it was named exactly.
    const bare = candidate.kind === "entity" && !index.entity(candidate.position).summary && !candidate.lanes.has("exact");
    let score = bare ? fused.score * bareEntityFactor : fused.score;
    // memory_feedback nudges the entity it names (reinforcement.ts); raw events are not reinforced.
    const entity = candidate.kind === "entity" ? index.entity(candidate.position) : undefined;
    const net = entity === undefined ? 0 : reinforcement.get(reinforcementKey(entity.entityType, entity.name)) ?? 0;
    if (net !== 0) score *= reinforcementFactor(net);
    const context = toContext(index, candidate, score, lane);
    if (net !== 0) context.scoreExplanation.reinforcement = { net_feedback: net, factor: Math.round(reinforcementFactor(net) * 1e6) / 1e6 };
    ranked.push({ context, candidate });
  }
  // A total order: equal scores never fall back to the order in which lanes found candidates,
  // and at equal scores a current version ranks before a superseded one (two versions of one
  // preference found by the same lanes score the same).
  ranked.sort((x, y) => {
    const a = x.context;
    const b = y.context;
    return b.score - a.score || Number(a.validTo !== null) - Number(b.validTo !== null) || (a.eventSeq ?? 0) - (b.eventSeq ?? 0) ||
      compareCodePoints(a.content, b.content) || compareCodePoints(x.candidate.kind, y.candidate.kind) || x.candidate.position - y.candidate.position;
  });
  const contexts = ranked.map((entry) => entry.context);
  // One context per citation. Several entities can come from one event, so a graph context's
  // citation is qualified by its entity; a raw event is dropped when a graph context cites the
  // same event (the projection states it with structure).
  const graphCitations = new Set(contexts.filter((c) => c.entityName !== undefined && c.citation !== null).map((c) => c.citation));
  const seen = new Set<string>();
  const unique = contexts.filter((context) => {
    if (context.entityName === undefined && context.citation !== null && graphCitations.has(context.citation)) return false;
    const key = context.citation === null
      ? `content:${context.content}`
      : context.entityName === undefined ? context.citation : `${context.citation}|${context.entityType}|${context.entityName}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const pool = unique.slice(0, Math.max(limit * 3, limit + 5));
  const vectors = hashEmbedMany(pool.map((context) => context.content), 256);
  const positions = new Map(pool.map((context, i) => [context, i]));
  const selected = mmrSelect(pool, (c) => c.score, (a, b) => cosineSimilarity(vectors[positions.get(a)!], vectors[positions.get(b)!]), mmrLambda, limit);
  const bestVerbatim = pool.find((context) => context.source === "verbatim");
  if (bestVerbatim !== undefined && !selected.includes(bestVerbatim) && selected.length >= limit && limit > 1) {
    selected[selected.length - 1] = bestVerbatim;
  }
  return { contexts: selected, laneCounts, degraded: false };
}

// ---------------------------------------------------------------------------
/*
 * The vector lane (DESIGN §6): the entity versions whose hash embeddings have the highest cosine
 * with the query's, exactly, ordered by similarity descending then entity position ascending.
 *
 * The session's index holds the embeddings as postings by bucket (projection/vectorIndex.ts),
 * so only the versions that share a token bucket with the query are scored, and each score is
 * the dense dot product bit for bit: the same log gives the same answer however and whenever the
 * index was built, with no approximate candidate window to widen (the HNSW index this replaced
 * proposed 200 candidates and re-scored them, which could miss a version the graph stranded).
 *
 * @example
 * vectorLaneHits(index, "which editor does alice prefer", 50) // [{ position: 12, similarity: 0.61 }, ...]
 */
export interface VectorHit {
  /** Entity position in the session index. */
  position: number;
  /** Exact cosine of the query and entity hash embeddings, > 0. */
  similarity: number;
}

/** The best `limit` entities by exact cosine, best first. */
export function vectorLaneHits(index: SessionIndex, query: string, limit: number): VectorHit[] {
  const vectors = index.vectors;
  if (vectors === null || vectors.count === 0 || limit <= 0) return [];
  const [embedding] = hashEmbedMany([query], vectors.dim);
  // A version's position is its vector key (writeReadModel.ts checks it); a key without a
  // position is not an entity of this index and is never offered.
  return exactCosineTop(vectors.index, embedding, limit, (key) => index.positionOfVectorKey(key) !== undefined)
    .map(({ key, similarity }) => ({ position: index.positionOfVectorKey(key)!, similarity }));
}

/** The vector lane's answer to one query, as `retrieve` computes it: its hits and what they answer. */
export interface VectorLaneAnswer {
  query: string;
  limit: number;
  hits: readonly VectorHit[];
}

/**
 * The vector lane of `retrieve(index, query, …)`, for a caller that ranks the same query twice
 * (`RetrieveOptions.vectorLane`): the scan of a 1,000,000-event index allocates ~30 MB (a score
 * per vector).
 */
export function vectorLaneAnswer(index: SessionIndex, query: string): VectorLaneAnswer {
  return { query, limit: laneHitsMax, hits: vectorLaneHits(index, query, laneHitsMax) };
}

// ---------------------------------------------------------------------------
/*
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

// ---------------------------------------------------------------------------
/*
 * How a prompt shows a projected entity, where its projected text reads badly. A context's
 * `content` stays `<name> (<type>): <summary>`, the projected summary being Python's
 * (`_join_summary` joins a decision's rationale and alternatives with spaces), because JSON
 * documents, the vector index and consolidation compare it; only the prompt line is re-punctuated,
 * from the entity's source event:
 *
 *   decision.made      `Upgrade to PostgreSQL 16 (decision): <rationale>; alternatives: A, B`
 *   memory.corrected   `Upgrade to PostgreSQL 16.4 (decision; corrected, was: Upgrade to PostgreSQL 16)`
 *                      (`<name> (<type>; corrected): <new content>` when the name is an id)
 *   an unknown type    `error.occurred by claude-agent: <payload message, title, summary, text...>`
 *
 * Undefined when the content already reads well. What must never change: the display says what
 * the content says (the same words, other punctuation), so a prompt never claims more than the
 * projection does.
 */
/**
 * Payload fields that carry an unknown event's message, in the order they are looked for: its
 * `message`, then the text fields the recent-events line shows (checkout/promptAssembly.ts).
 */
const messageKeys = ["message", "title", "summary", "content", "text", "decision", "task"] as const;

function decisionDisplay(entity: EntityRow, event: EventRecord): string | undefined {
  const p = event.payload;
  const rationale = joinSummary(p.get("summary"), p.get("rationale"));
  const alternativesValue = p.get("alternatives_considered");
  const single = text(alternativesValue);
  const alternatives = Array.isArray(alternativesValue) ? stringList(alternativesValue) : single === undefined ? [] : [single];
  // Only a re-punctuation of the very summary the projection stored (a later fold may differ).
  if (joinSummary(p.get("summary"), p.get("rationale"), alternativesValue) !== entity.summary) return undefined;
  if (alternatives.length === 0) return undefined;
  const parts = [...(rationale === null ? [] : [rationale]), `alternatives: ${alternatives.join(", ")}`];
  return `${entity.name} (decision): ${parts.join("; ")}`;
}

/**
 * A corrected entity keeps its name, and a decision is named by its original text, so its
 * projected line reads `<old text> (decision): <new text>`; the new text leads here.
 */
function correctedDisplay(entity: EntityRow): string | undefined {
  if (entity.summary === null || entity.entityType === "memory_correction") return undefined;
  if (/\s/.test(entity.name)) return `${entity.summary} (${entity.entityType}; corrected, was: ${entity.name})`;
  return `${entity.name} (${entity.entityType}; corrected): ${entity.summary}`;
}

/** An event nobody registered (`extractFallback`): what happened, by whom, and its message. */
function fallbackDisplay(entity: EntityRow, event: EventRecord): string | undefined {
  if (entity.name !== `event:${event.type}:${event.seq}`) return undefined;
  const head = `${event.type} by ${event.actor === "" ? "unknown" : event.actor}`;
  let message: string | undefined;
  for (const key of messageKeys) message ??= text(event.payload.get(key));
  message ??= fallbackPayloadSummary(event) ?? undefined;
  return message === undefined ? head : `${head}: ${message}`;
}

/**
 * The prompt line of a projected entity whose source event is `event`, when it differs from
 * its content.
 *
 * @example
 * entityDisplay(decisionRow, decisionMadeEvent);
 * // "Upgrade to PostgreSQL 16 (decision): Zero-downtime upgrade; alternatives: Upgrade to MySQL 8.0, Move to Aurora"
 */
export function entityDisplay(entity: EntityRow, event: EventRecord | undefined): string | undefined {
  if (event === undefined || event.seq !== entity.sourceEventSeq) return undefined;
  if (event.type === "memory.corrected") return correctedDisplay(entity);
  if (entity.entityType === "decision" && event.type === "decision.made") return decisionDisplay(entity, event);
  if (entity.entityType === "event") return fallbackDisplay(entity, event);
  return undefined;
}
