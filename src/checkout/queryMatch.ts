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
 *   answer from memory without a refresh, checkoutQuality.ts).
 */
import type { RetrievedContext } from "../retrieval/types.ts";
import { hubEntityTypes } from "../retrieval/hubEntities.ts";
import { keywordTerms } from "../retrieval/terms.ts";
import { stemTerm } from "../retrieval/stem.ts";
import { semanticEvidenceSimilarityMin } from "../retrieval/semanticLane.ts";

export { stemTerm };

/**
 * Words that carry no subject: articles, pronouns, auxiliaries, prepositions, question words and
 * request fillers. A question made only of them ("what did we do?") has nothing to match.
 */
const functionWords: ReadonlySet<string> = new Set(
  (
    "a about above after again against all also am an and any are as at be because been before being below between both but by " +
    "can could did do does doing don done down during each either else ever every few for from further get gets getting got had " +
    "has have having he her here hers him his how however if in into is it its itself just know let lets like may me might mine " +
    "more most much must my no nor not now of off on once one only or other our ours out over own per please re same shall she " +
    "should so some such tell than that the their theirs them then there these they thing things this those through thus to too " +
    "under until up upon us very via was we were what whats when where whether which while who whom whose why will with would " +
    "yet you your yours " +
    // Verbs a question needs to be a question: "how does X work", "where do logs go".
    "go goes going gone went happen happens happened make makes made making need needs needed take takes taken taking " +
    "took use used uses using want wants wanted work works worked working"
  ).split(" "),
);


/** Sources retrieval matches against the query; any other source is supplied by a checkout lane. */
const queriedSources: ReadonlySet<string> = new Set(["graph", "verbatim", "projection"]);

/**
 * The query's content terms, first-seen order, as `[word, stem]` pairs (one per stem).
 *
 * @example
 * queryContentTerms("What is the weather in Paris?") // [["weather", "weath"], ["paris", "paris"]]
 */
export function queryContentTerms(query: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const seen = new Set<string>();
  for (const word of keywordTerms(query)) {
    if (functionWords.has(word)) continue;
    const stem = stemTerm(word);
    if (seen.has(stem)) continue;
    seen.add(stem);
    out.push([word, stem]);
  }
  return out;
}

function textStems(text: string): Set<string> {
  return new Set(keywordTerms(text).map(stemTerm));
}

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
