/**
 * Memory Checkout: the current, cited memory state an agent should condition on (DESIGN §6,
 * reference §4.3). The JSON document is a public contract (docs/checkout.md); its top-level keys,
 * in order:
 *
 *   session_id, query, prompt, [ref], current_facts, evidence, provenance, retention, warnings,
 *   guidance, quality, diagnostics, context_counts, replay_event_count, compacted, assembly_policy
 *
 * What must never change: current facts are only cited contexts with an open validity window
 * that match the query (the query match, below: a context sharing nothing with the question is
 * dropped); superseded contexts are counted in `retention`, never shown as facts; every fact and
 * evidence item carries a citation; optional feature diagnostics appear only when they have
 * content, so a checkout without a feature is byte-identical to one from a build without it; the
 * same input gives byte-identical JSON. The order contexts are presented in is below
 * (`rankForCheckout`).
 */
import { compareCodePoints } from "../canonical/mod.ts";
import type { EventRecord } from "../eventloom/envelope.ts";
import type { PlainJson } from "../projection/types.ts";
import {
  type AssembleInput,
  assemblyParts,
  type AssemblyPolicy,
  checkoutAssemblySections,
  type CheckoutGuidance,
  checkoutGuidance,
  checkoutPromptParts,
  type CheckoutQuality,
  checkoutQuality,
  checkoutSections,
  type ContextCounts,
  currentFact,
  type CurrentFact,
  type ElidedSection,
  type EvidenceItem,
  evidenceItem,
  type ExtraGuidance,
  isCited,
  isCurrentFact,
  joinSections,
  listedCitations,
  promptLabels,
  type PromptSection,
  type ProvenanceItem,
  provenanceItem,
  type QueryMatchReport,
  selectContexts,
} from "./promptAssembly.ts";
import { packCheckoutPrompt } from "./checkoutBudget.ts";
import { authoritativeScope } from "../retrieval/projectionArtifact.ts";
import type { RetrievedContext } from "../retrieval/types.ts";
import { hubEntityTypes } from "../retrieval/hubEntities.ts";
import { queryContentTerms, stemTerm, textStems } from "../vector/textAnalysis.ts";
import { semanticEvidenceSimilarityMin } from "../retrieval/semanticLane.ts";

export interface CheckoutInput extends AssembleInput {
  /** A memory ref name; only `HEAD` can be resolved here (to the last replayed event). */
  ref?: string | null;
  /**
   * Diagnostics from optional features (`causal_context`, `consolidation_candidates`,
   * `long_horizon`, `fleet`, ...). A key is merged only when its value has content (not null,
   * "", [] or {}); it may not replace a key checkout computes itself.
   */
  extraDiagnostics?: { [key: string]: PlainJson | undefined };
  /** Trust and ignore lines from optional features, appended after checkout's own. */
  extraGuidance?: ExtraGuidance;
  /** Prompt lines from optional features, listed under "Checkout Diagnostics" (without "- "). */
  extraDiagnosticLines?: readonly string[];
  /**
   * What a lane the caller asked for left out (a fleet the agent may not read): appended to
   * `warnings` and printed under `# Context Warnings`, so a reader of the prompt alone sees it,
   * but not counted in `warning_count` or quality, which judge what the checkout holds.
   */
  laneWarnings?: readonly string[];
}

export interface CheckoutRetention {
  policy: "current_only";
  superseded_contexts_excluded: number;
}

export interface CheckoutDiagnostics {
  source_lanes: { [lane: string]: number };
  citation_count: number;
  current_citation_count: number;
  current_fact_count: number;
  superseded_contexts_excluded: number;
  warning_count: number;
  feedback_recommended: boolean;
  feedback_tool: "memory_feedback";
  feedback_reason: string;
  /** How the served contexts match the query's content terms (the query match, below). */
  query_match: QueryMatchReport;
  projection_degraded?: true;
  degraded_reason?: string;
  budget_requested?: number;
  budget_used?: number;
  elided?: ElidedSection[];
  [feature: string]: PlainJson | ElidedSection[] | QueryMatchReport | undefined;
}

/** The ref a checkout was computed against (Python `MemoryRef.to_dict()`). */
export interface CheckoutRef {
  name: string;
  session_id: string;
  target_seq: number;
  target_hash: string;
  ref_type: string;
  updated_at: string;
}

export interface MemoryCheckout {
  session_id: string;
  query: string;
  prompt: string;
  ref?: CheckoutRef;
  current_facts: CurrentFact[];
  evidence: EvidenceItem[];
  provenance: ProvenanceItem[];
  retention: CheckoutRetention;
  warnings: string[];
  guidance: CheckoutGuidance;
  quality: CheckoutQuality;
  diagnostics: CheckoutDiagnostics;
  context_counts: ContextCounts;
  replay_event_count: number;
  compacted: boolean;
  assembly_policy: AssemblyPolicy;
}

/** Keys checkout computes; a feature may not overwrite them. */
const ownDiagnosticKeys = new Set([
  "source_lanes",
  "citation_count",
  "current_citation_count",
  "current_fact_count",
  "superseded_contexts_excluded",
  "warning_count",
  "feedback_recommended",
  "feedback_tool",
  "feedback_reason",
  "query_match",
  "projection_degraded",
  "degraded_reason",
  "budget_requested",
  "budget_used",
  "elided",
]);

function hasContent(value: PlainJson | undefined): value is PlainJson {
  if (value === undefined || value === null || value === "") return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return Object.keys(value).length > 0;
  return true;
}

/** Lane counts with keys in code-point order, so output does not depend on insertion order. */
function sortedLaneCounts(laneCounts: { [lane: string]: number }): { [lane: string]: number } {
  const sorted: { [lane: string]: number } = {};
  for (const lane of Object.keys(laneCounts).sort(compareCodePoints)) sorted[lane] = laneCounts[lane];
  return sorted;
}

/**
 * `HEAD` resolves to the newest replayed event, as Python's checkout resolves it; named refs
 * need the ref store and are left to the caller.
 */
function resolvedRef(
  ref: string | null | undefined,
  sessionId: string,
  events: readonly EventRecord[],
): CheckoutRef | undefined {
  if (ref !== "HEAD" || events.length === 0) return undefined;
  const head = events[events.length - 1];
  return {
    name: "HEAD",
    session_id: sessionId,
    target_seq: head.seq,
    target_hash: head.hash,
    ref_type: "head",
    updated_at: head.timestamp,
  };
}

/**
 * Builds a Memory Checkout from retrieval and the replay window.
 *
 * @example
 * const checkout = buildCheckout({
 *   sessionId: "default", query: "release plan", retrieval, recentEvents, replayEventCount: recentEvents.length,
 *   compacted: false, limit: 10, maxTokens: 800,
 * });
 * checkout.quality.answerability; // "answer_from_memory" when cited current facts exist and nothing warns
 * JSON.stringify(checkout);       // the `memory checkout --json` document
 */
export function buildCheckout(input: CheckoutInput): MemoryCheckout {
  // Only what shares something with the question may be served as memory for it.
  const match = matchQuery(input.retrieval.contexts, input.query);
  const parts = assemblyParts({ ...input, retrieval: { ...input.retrieval, contexts: match.served } });
  const ranked = rankForCheckout(parts.selected, input.query);
  // What retrieval found that shares nothing with the question fills the slots the matches left,
  // as low-relevance evidence only: it may hold what the question meant in other words, so an
  // agent can look, but it is never a current fact and never raises confidence.
  const lowRelevance = selectContexts(match.unmatched.filter((context) => context.validTo === null), input.limit - parts.selected.length)
    .filter(isCited);
  const matchedEvidence = ranked.filter(isCited);
  const currentFacts = ranked.filter(isCurrentFact).map(currentFact);
  const evidence = [...matchedEvidence.map((context) => evidenceItem(context)), ...lowRelevance.map((context) => evidenceItem(context, false))];
  const provenance = [...matchedEvidence.map((context) => provenanceItem(context)), ...lowRelevance.map((context) => provenanceItem(context, false))];
  const supersededExcluded = parts.selected.filter((context) => context.validTo !== null).length;

  // A cut replay window warns only when no retrieved context is cited (assembly's rule). Python
  // also warns when retrieval is cited, which keeps any session longer than the replay window
  // from ever answering from memory.
  const warnings = [...parts.warnings];

  const retention: CheckoutRetention = { policy: "current_only", superseded_contexts_excluded: supersededExcluded };
  const diagnostics: CheckoutDiagnostics = {
    source_lanes: sortedLaneCounts(input.retrieval.laneCounts),
    citation_count: evidence.length,
    current_citation_count: currentFacts.length,
    current_fact_count: currentFacts.length,
    superseded_contexts_excluded: supersededExcluded,
    warning_count: warnings.length,
    feedback_recommended: matchedEvidence.length > 0,
    feedback_tool: "memory_feedback",
    feedback_reason: "Reinforce cited context if it materially informed the next response.",
    query_match: match.report,
  };
  if (input.retrieval.degraded) {
    diagnostics.projection_degraded = true;
    if (input.retrieval.degradedReason) diagnostics.degraded_reason = input.retrieval.degradedReason;
  }
  for (const [key, value] of Object.entries(input.extraDiagnostics ?? {})) {
    if (ownDiagnosticKeys.has(key) || key === "__proto__") {
      throw new TypeError(`extraDiagnostics may not set "${key}": checkout computes it or it is not a plain key`);
    }
    if (hasContent(value)) diagnostics[key] = value;
  }

  const guidance = checkoutGuidance({
    query: input.query,
    currentFacts,
    evidenceCount: matchedEvidence.length,
    supersededExcluded,
    extra: input.extraGuidance,
  });
  const quality = checkoutQuality({
    queryTerms: match.report.query_terms,
    matchedTerms: match.report.matched_terms,
    coverage: match.report.coverage,
    currentFactCount: currentFacts.length,
    currentCitationCount: currentFacts.length,
    supersededExcluded,
    warningCount: warnings.length,
    recommendedNextCall: guidance.recommended_next_call,
  });

  // Inside a checkout, assembly warnings compete for budget like any optional section; the
  // mandatory quality section already says the checkout carries warnings.
  // Each cited item is shown once: the assembly's sections leave out what facts and evidence show.
  const listed = listedCitations(currentFacts, evidence);
  const laneWarnings = (input.laneWarnings ?? []).filter((warning, i, all) => !warnings.includes(warning) && all.indexOf(warning) === i);
  const assemblySections: PromptSection[] = checkoutAssemblySections(parts.sections, parts.shownEvents, parts.selected, listed, laneWarnings)
    .map((section) => ({ ...section, mandatory: false }));
  const promptOptions = {
    ...promptLabels([...ranked, ...lowRelevance]),
    query: input.query,
    currentFacts,
    evidence,
    quality,
    guidance,
    diagnostics,
    extraDiagnosticLines: input.extraDiagnosticLines,
  };
  let prompt: string;
  if (input.maxTokens === undefined) {
    prompt = joinSections([...checkoutSections(promptOptions), ...assemblySections]);
  } else {
    const packed = packCheckoutPrompt(checkoutPromptParts(promptOptions), assemblySections, input.maxTokens);
    prompt = packed.prompt;
    diagnostics.budget_requested = packed.budget.budget_requested;
    diagnostics.budget_used = packed.budget.budget_used;
    diagnostics.elided = packed.budget.elided;
  }

  const ref = resolvedRef(input.ref, input.sessionId, input.recentEvents);
  return {
    session_id: input.sessionId,
    query: input.query,
    prompt,
    ...(ref === undefined ? {} : { ref }),
    current_facts: currentFacts,
    evidence,
    provenance,
    retention,
    warnings: [...warnings, ...laneWarnings],
    guidance,
    quality,
    diagnostics,
    context_counts: parts.contextCounts,
    replay_event_count: input.replayEventCount,
    compacted: input.compacted,
    assembly_policy: parts.assemblyPolicy,
  };
}

// ---------------------------------------------------------------------------
/*
 * The order Memory Checkout presents contexts in (Python `_checkout_rank`), best first:
 * query-token overlap, then cited before uncited, then source-level lanes (verbatim, projection)
 * before projected entities, then working-memory entity types (task, decision, goal,
 * memory), then the later `valid_from`, then the higher score. Ties keep retrieval order.
 * Before all of these: a projection record that is not authoritative (its audit reported
 * `safe: false`) follows every other context — design 002, it only routes to its source.
 */
const sourceLevelLanes = new Set(["verbatim", "projection"]);
const workingMemoryTypes = new Set(["task", "decision", "goal", "memory"]);

/** Python `_checkout_tokens`: `[a-z0-9]+` runs of the casefolded text, longer than 2. */
export function checkoutTokens(text: string): Set<string> {
  const tokens = new Set<string>();
  for (const match of text.toLowerCase().matchAll(/[a-z0-9]+/g)) {
    if (match[0].length > 2) tokens.add(match[0]);
  }
  return tokens;
}

interface RankKey {
  authoritative: number;
  overlap: number;
  cited: number;
  sourceLevel: number;
  workingMemory: number;
  validFrom: string;
  score: number;
}

function rankKey(context: RetrievedContext, queryTokens: Set<string>): RankKey {
  let shared = 0;
  for (const token of checkoutTokens(context.content)) if (queryTokens.has(token)) shared += 1;
  return {
    authoritative: context.source === "projection" && context.metadata.authority_scope !== authoritativeScope ? 0 : 1,
    overlap: shared / Math.max(1, queryTokens.size),
    cited: context.citation ? 1 : 0,
    sourceLevel: sourceLevelLanes.has(context.sourceLane) || sourceLevelLanes.has(context.source) ? 1 : 0,
    workingMemory: context.entityType !== undefined && workingMemoryTypes.has(context.entityType) ? 1 : 0,
    validFrom: context.validFrom ?? "",
    score: context.score,
  };
}

/** Negative when `a` ranks before `b`. */
function compareDescending(a: RankKey, b: RankKey): number {
  return (
    b.authoritative - a.authoritative ||
    b.overlap - a.overlap ||
    b.cited - a.cited ||
    b.sourceLevel - a.sourceLevel ||
    b.workingMemory - a.workingMemory ||
    compareCodePoints(b.validFrom, a.validFrom) ||
    b.score - a.score
  );
}

/**
 * @example
 * rankForCheckout(contexts, "release blockers") // contexts mentioning "release" first
 */
export function rankForCheckout(contexts: readonly RetrievedContext[], query: string): RetrievedContext[] {
  const queryTokens = checkoutTokens(query);
  const keyed = contexts.map((context, index) => ({ context, index, key: rankKey(context, queryTokens) }));
  keyed.sort((a, b) => compareDescending(a.key, b.key) || a.index - b.index);
  return keyed.map((item) => item.context);
}

// ---------------------------------------------------------------------------
/*
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
