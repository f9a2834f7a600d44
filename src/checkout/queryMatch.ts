/**
 * How well what retrieval found matches the question (docs/checkout.md, "Answerability and
 * confidence"). Retrieval ranks: it always returns its best candidates, however weak, and its
 * scores are relative to the best hit of the query. Checkout must say whether memory can answer,
 * so it measures the match in absolute terms: which of the query's content words the cited
 * contexts actually contain.
 *
 * - Content terms: `[a-z0-9]` runs of the casefolded query (two characters or more, so `db` and
 *   `pg` count), minus English function and question words, each reduced by a light stemmer so
 *   `billing` meets `bill` and `migrations` meets `migrate`.
 * - A context matches when its text contains one of them, or retrieval named it exactly, or the
 *   semantic lane found it at `semanticEvidenceSimilarityMin` or more (retrieval/semanticLane.ts).
 * - A context reached only by graph traversal is related, not matched: it is kept when the path
 *   did not run through a hub (an actor, session, user, workspace, tool: retrieval never expands
 *   those unless the query named them), but it adds nothing to coverage.
 * - Contexts a checkout lane supplies without a query (fleet promotions, the long-horizon remote
 *   tier) are kept as the lane serves them; they add to coverage only with the words they contain.
 * - Coverage is the share of content terms found in at least one matched context. A current, cited
 *   fact the semantic lane matched is evidence that memory covers the question in other words: the
 *   coverage is then at least `semanticMatchCoverage` (enough to serve the fact, not enough to
 *   answer from memory without a refresh, promptAssembly.ts).
 */
import type { RetrievedContext } from "../retrieval/types.ts";
import { hubEntityTypes } from "../retrieval/hubEntities.ts";
import { queryContentTerms, stemTerm, textStems } from "../vector/textAnalysis.ts";
import { semanticEvidenceSimilarityMin } from "../retrieval/semanticLane.ts";

export { queryContentTerms, stemTerm };

/** Sources retrieval matches against the query; any other source is supplied by a checkout lane. */
const queriedSources: ReadonlySet<string> = new Set(["graph", "verbatim", "projection"]);

export type MatchKind = "matched" | "related" | "lane" | "unmatched";

export interface ContextMatch {
  kind: MatchKind;
  /** Stems of the query's content terms the context contains. */
  stems: Set<string>;
}

function laneScores(context: RetrievedContext): Set<string> {
  const lanes = context.scoreExplanation.lanes;
  const names = new Set<string>([context.sourceLane]);
  if (lanes !== null && typeof lanes === "object" && !Array.isArray(lanes)) for (const lane of Object.keys(lanes)) names.add(lane);
  return names;
}

/** Whether the semantic lane found the context at or above the evidence threshold. */
function semanticEvidence(context: RetrievedContext): boolean {
  const similarity = context.scoreExplanation.semantic_similarity;
  return typeof similarity === "number" && similarity >= semanticEvidenceSimilarityMin;
}

/** How one context stands to the query's content stems (see the module comment). */
export function matchContext(context: RetrievedContext, queryStems: ReadonlySet<string>): ContextMatch {
  const own = textStems(`${context.entityName ?? ""} ${context.content}`);
  const stems = new Set([...queryStems].filter((stem) => own.has(stem)));
  const lanes = laneScores(context);
  if (!queriedSources.has(context.source)) return { kind: "lane", stems };
  if (stems.size > 0 || lanes.has("exact") || semanticEvidence(context)) return { kind: "matched", stems };
  const hub = context.entityType !== undefined && hubEntityTypes.has(context.entityType);
  if (lanes.has("traversal") && !hub) return { kind: "related", stems };
  return { kind: "unmatched", stems };
}

/** What checkout reports of the match (`diagnostics.query_match`). */
export interface QueryMatchReport {
  /** The query's content terms, as written (first-seen order). */
  query_terms: string[];
  /** Those found in at least one served context. */
  matched_terms: string[];
  /** matched / query terms, 6 decimals; null when the query has no content terms. */
  coverage: number | null;
  /** Retrieved contexts kept from current facts because they share nothing with the query. */
  unmatched_contexts_excluded: number;
  /** Current cited facts the semantic lane matched; present only when there are some. */
  semantic_matched_facts?: number;
}

/** The least coverage a semantic match gives (see the module comment). */
export const semanticMatchCoverage = 0.5;

export interface QueryMatch {
  /** The contexts a checkout may serve, in retrieval order. */
  served: RetrievedContext[];
  /**
   * What retrieval found that shares nothing with the query, in retrieval order: never a current
   * fact, at most low-relevance evidence (checkout.ts).
   */
  unmatched: RetrievedContext[];
  report: QueryMatchReport;
}

/**
 * Splits retrieved contexts into those a checkout may serve and those that do not match. When the
 * query has no content terms nothing can be judged, so everything retrieved is served and the
 * coverage is null.
 *
 * @example
 * matchQuery(contexts, "what is the weather in Paris?").report
 * // { query_terms: ["weather", "paris"], matched_terms: [], coverage: 0, unmatched_contexts_excluded: 4 }
 */
export function matchQuery(contexts: readonly RetrievedContext[], query: string): QueryMatch {
  const terms = queryContentTerms(query);
  if (terms.length === 0) {
    return { served: [...contexts], unmatched: [], report: { query_terms: [], matched_terms: [], coverage: null, unmatched_contexts_excluded: 0 } };
  }
  const queryStems = new Set(terms.map(([, stem]) => stem));
  const served: RetrievedContext[] = [];
  const unmatched: RetrievedContext[] = [];
  const found = new Set<string>();
  let semanticFacts = 0;
  for (const context of contexts) {
    const match = matchContext(context, queryStems);
    if (match.kind === "unmatched") {
      unmatched.push(context);
      continue;
    }
    served.push(context);
    // Superseded versions match too, but only what is current may answer.
    if (context.validTo === null && context.citation) {
      for (const stem of match.stems) found.add(stem);
      if (semanticEvidence(context)) semanticFacts++;
    }
  }
  const matched = terms.filter(([, stem]) => found.has(stem)).map(([word]) => word);
  const lexical = matched.length / terms.length;
  const report: QueryMatchReport = {
    query_terms: terms.map(([word]) => word),
    matched_terms: matched,
    coverage: Math.round((semanticFacts > 0 ? Math.max(lexical, semanticMatchCoverage) : lexical) * 1e6) / 1e6,
    unmatched_contexts_excluded: unmatched.length,
  };
  if (semanticFacts > 0) report.semantic_matched_facts = semanticFacts;
  return { served, unmatched, report };
}

/**
 * The largest share of the query's content terms that one current, cited fact among `contexts`
 * contains (1 for a fact retrieval named exactly); null when the query has no content terms.
 * The semantic lane runs when this is low: the question is not asked in the memory's own words
 * (memory/service.ts `wantsSemantic`).
 *
 * @example
 * bestFactQueryCover(contexts, "which database did we migrate to?") // 1: "Migrated the database to PostgreSQL 16"
 */
export function bestFactQueryCover(contexts: readonly RetrievedContext[], query: string): number | null {
  const terms = queryContentTerms(query);
  if (terms.length === 0) return null;
  const queryStems = new Set(terms.map(([, stem]) => stem));
  let best = 0;
  for (const context of contexts) {
    if (context.validTo !== null || !context.citation || !queriedSources.has(context.source)) continue;
    const cover = laneScores(context).has("exact") ? 1 : matchContext(context, queryStems).stems.size / queryStems.size;
    best = Math.max(best, cover);
  }
  return best;
}
