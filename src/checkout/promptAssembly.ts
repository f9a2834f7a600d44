/**
 * Prompt assembly: what a read presents to the model, as records and as prompt text. The prompt's
 * named sections (so a token budget can drop whole ones and say which); the checkout's
 * per-context records (current facts, evidence, provenance), its model-facing guidance, its
 * answerability signal and its own prompt sections rendered from them (Python
 * `format_memory_checkout_prompt`); and context assembly, the MCP `memory_context` payload of
 * recent replay plus retrieved context, whose sections the checkout re-renders (below). The
 * texts and shapes are part of the contract: agents and evaluations match on them.
 */
import { inputError } from "../errors.ts";
import { estimateTokens, packSections } from "../retrieval/tokenBudget.ts";
import { citationHashChars, citationUri } from "../eventloom/root.ts";
import type { PlainJson } from "../projection/types.ts";
import type { RetrievalResult, RetrievedContext } from "../retrieval/types.ts";
import { compareCodePoints, displayJson, formatPythonFloat, isJsonObject, JsonNumber, type JsonValue, pythonNumberRepr } from "../canonical/mod.ts";
import type { EventRecord } from "../eventloom/envelope.ts";
import { pythonStrRepr } from "../canonical/pythonText.ts";
import { eventKeyFacts } from "./eventKeyFacts.ts";

// ---------------------------------------------------------------------------
/*
 * Prompts are built from named sections so a token budget can drop whole sections and say which.
 * Sections are separated by one blank line; the unbudgeted prompt is every section joined.
 */
export interface PromptSection {
  /** Stable id reported when the section is elided, e.g. `current_facts`. */
  id: string;
  text: string;
  /** Kept under any budget. */
  mandatory: boolean;
  /** Salience for the packer; optional sections are admitted by weight per token. */
  weight: number;
}

/** One section a budget left out. */
export interface ElidedSection {
  section_id: string;
  /** Estimated tokens of what was left out, including its separator. */
  estimated_tokens: number;
  /** For a list cut part way (a checkout's current facts, evidence): how many items were shown. */
  items_kept?: number;
  items_total?: number;
  /** The section is shown in a condensed form (a checkout's guidance), not left out. */
  condensed?: true;
}

export interface PromptBudget {
  budget_requested: number;
  /** Estimated tokens of the returned prompt. */
  budget_used: number;
  elided: ElidedSection[];
}

/**
 * Packing weights of the optional sections. Facts matter most; warnings next (they say what not
 * to trust); the bulky replay and the diagnostics, which repeat what the JSON carries, least.
 */
export const sectionWeights = {
  current_facts: 1.0,
  context_warnings: 0.9,
  evidence: 0.8,
  retrieved_context: 0.6,
  recent_events: 0.5,
  diagnostics: 0.3,
} as const;

const sectionSeparator = "\n\n";

/** Every section, in order, as one prompt (Python joins lines and strips the result). */
export function joinSections(sections: readonly PromptSection[]): string {
  return sections.map((section) => section.text).join(sectionSeparator).trim();
}

/** Rejects a budget that is not a non-negative safe integer. */
export function checkMaxTokens(maxTokens: number): void {
  if (!Number.isSafeInteger(maxTokens) || maxTokens < 0) {
    throw inputError("invalid_max_tokens", `Cannot pack the prompt into max_tokens ${maxTokens}: it must be an integer >= 0`, {
      field: "max_tokens",
      expected: "integer >= 0",
      actual: String(maxTokens),
    });
  }
}

/**
 * Packs sections into `maxTokens`. Each section is costed together with the separator that
 * follows it, so the joined prompt never costs more than the packer counted: the prompt stays
 * within budget whenever the mandatory sections alone fit.
 *
 * @example
 * packPrompt([{ id: "header", text: "# Memory Checkout", mandatory: true, weight: 1 }], 0)
 * // { prompt: "# Memory Checkout", budget: { budget_requested: 0, budget_used: 5, elided: [] } }
 */
export function packPrompt(sections: readonly PromptSection[], maxTokens: number): { prompt: string; budget: PromptBudget } {
  checkMaxTokens(maxTokens);
  const packed = packSections(
    sections.map((section) => ({
      id: section.id,
      text: section.text + sectionSeparator,
      mandatory: section.mandatory,
      weight: section.weight,
    })),
    maxTokens,
  );
  const kept = new Set(packed.kept);
  const prompt = joinSections(sections.filter((section) => kept.has(section.id)));
  return {
    prompt,
    budget: {
      budget_requested: maxTokens,
      budget_used: estimateTokens(prompt),
      elided: packed.elided.map((item) => ({ section_id: item.id, estimated_tokens: item.tokens })),
    },
  };
}

// ---------------------------------------------------------------------------
/*
 * The per-context records of a checkout: current facts, evidence and provenance. Every one
 * carries a citation; `event_hash` is the citation's 12-hex fragment, not the full hash.
 */
export interface CurrentFact {
  content: string;
  source: string;
  score: number;
  citation: string;
  valid_from: string | null;
  /** Always null: a fact is current only while its validity window is open. */
  valid_to: null;
  source_lane: string;
  entity_name?: string;
  entity_type?: string;
  /** What a reviewed memory is worth (see `contextStanding`); absent for plain facts. */
  review_status?: string;
  authority_status?: string;
  score_explanation?: { [key: string]: PlainJson };
}

export interface EvidenceItem {
  citation: string;
  content: string;
  source: string;
  source_lane: string;
  score: number;
  event_seq: number | null;
  event_hash: string | null;
  review_status?: string;
  authority_status?: string;
  /**
   * `false` for low-relevance evidence: retrieved, but sharing no word with the query (absent
   * otherwise). It is never a current fact and never raises confidence.
   */
  matches_query?: false;
  score_explanation?: { [key: string]: PlainJson };
}

export interface ProvenanceItem {
  citation: string;
  event_seq: number | null;
  event_hash: string | null;
  source: string;
  source_lane: string;
  valid_from: string | null;
  valid_to: string | null;
  /** As in `EvidenceItem`. */
  matches_query?: false;
}

/** A context that can be shown as a current fact: open validity window and a citation. */
export function isCurrentFact(context: RetrievedContext): context is RetrievedContext & { citation: string; validTo: null } {
  return context.validTo === null && Boolean(context.citation);
}

export function isCited(context: RetrievedContext): context is RetrievedContext & { citation: string } {
  return Boolean(context.citation);
}

/**
 * Seq and hash fragment named by a citation (Python `_citation_event_identity`): the digits after
 * `/events/` and the text after the last `#`. Falls back to the context's own source event.
 */
function citedEvent(context: RetrievedContext & { citation: string }): { seq: number | null; hash: string | null } {
  const citation = context.citation;
  let seq: number | null = null;
  const eventsAt = citation.indexOf("/events/");
  if (eventsAt >= 0) {
    const seqText = citation.slice(eventsAt + "/events/".length).split("#")[0].split("/")[0];
    if (/^[0-9]+$/.test(seqText)) seq = Number(seqText);
  }
  const hashAt = citation.lastIndexOf("#");
  let hash = hashAt >= 0 && hashAt < citation.length - 1 ? citation.slice(hashAt + 1) : null;
  seq ??= context.eventSeq;
  hash ??= context.eventHash === null ? null : context.eventHash.slice(0, citationHashChars);
  return { seq, hash };
}

/**
 * The review and authority status a context's metadata carries (a consolidation candidate, a
 * fleet promotion), so a memory that is still under review, or never authoritative, says so
 * wherever it is served instead of reading like a plain fact.
 */
export function contextStanding(context: RetrievedContext): { review_status?: string; authority_status?: string } {
  const review = context.metadata.review_status;
  const authority = context.metadata.authority_status;
  return typeof review === "string" && typeof authority === "string" ? { review_status: review, authority_status: authority } : {};
}

function explanation(context: RetrievedContext): { score_explanation?: { [key: string]: PlainJson } } {
  return Object.keys(context.scoreExplanation).length > 0 ? { score_explanation: context.scoreExplanation } : {};
}

export function currentFact(context: RetrievedContext & { citation: string; validTo: null }): CurrentFact {
  const fact: CurrentFact = {
    content: context.content,
    source: context.source,
    score: context.score,
    citation: context.citation,
    valid_from: context.validFrom,
    valid_to: null,
    source_lane: context.sourceLane,
  };
  if (context.entityName) fact.entity_name = context.entityName;
  if (context.entityType) fact.entity_type = context.entityType;
  return { ...fact, ...contextStanding(context), ...explanation(context) };
}

/** `matches_query: false` for low-relevance items (see `EvidenceItem`), nothing otherwise. */
function relevance(matchesQuery: boolean): { matches_query?: false } {
  return matchesQuery ? {} : { matches_query: false };
}

export function evidenceItem(context: RetrievedContext & { citation: string }, matchesQuery = true): EvidenceItem {
  const event = citedEvent(context);
  return {
    citation: context.citation,
    content: context.content,
    source: context.source,
    source_lane: context.sourceLane,
    score: context.score,
    event_seq: event.seq,
    event_hash: event.hash,
    ...contextStanding(context),
    ...relevance(matchesQuery),
    ...explanation(context),
  };
}

export function provenanceItem(context: RetrievedContext & { citation: string }, matchesQuery = true): ProvenanceItem {
  const event = citedEvent(context);
  return {
    citation: context.citation,
    event_seq: event.seq,
    event_hash: event.hash,
    source: context.source,
    source_lane: context.sourceLane,
    valid_from: context.validFrom,
    valid_to: context.validTo,
    ...relevance(matchesQuery),
  };
}

// ---------------------------------------------------------------------------
/*
 * Model-facing trust, ignore, refresh and feedback guidance (Python `build_checkout_guidance`).
 * The texts are part of the contract: agents and evaluations match on them.
 */
/** A cited current fact as far as guidance needs it. */
export interface GuidanceFact {
  content: string;
  source: string;
  score: number;
  citation: string;
  entity_name?: string;
  entity_type?: string;
}

export interface RecommendedCall {
  tool: "memory_checkout";
  query: string;
  reason: string;
}

export interface FeedbackPayload {
  entity_name: string;
  entity_type: string;
  feedback: "used";
  actor: "assistant";
  query: string;
  source: string;
  score: number;
  citation: string;
  importance: number;
}

export interface CheckoutGuidance {
  trust: string[];
  ignore: string[];
  /**
   * Mandatory lines (active fleet keystones, docs/fleet.md): cited, non-authoritative and
   * reversible; present only when there are any, so other checkouts keep their bytes.
   */
  mandatory?: string[];
  recommended_next_call: RecommendedCall;
  feedback: { tool: "memory_feedback"; when: string; payloads: FeedbackPayload[] };
}

/** Extra trust and ignore lines contributed by optional features (causal, consolidation, ...). */
export interface ExtraGuidance {
  trust?: readonly string[];
  ignore?: readonly string[];
  mandatory?: readonly string[];
}

/** At most this many ready-made `memory_feedback` payloads, for the top-ranked facts. */
export const feedbackPayloadsMax = 3;

/** `importance` a checkout suggests for `used` feedback (Python's fixed 0.6). */
const feedbackImportance = 0.6;

/** The refresh query a checkout recommends for `query`. */
export function refreshQuery(query: string): string {
  return `current decisions, blockers, and next actions for: ${query}`;
}

function feedbackPayload(fact: GuidanceFact, query: string): FeedbackPayload {
  return {
    entity_name: fact.entity_name ? fact.entity_name : fact.content,
    entity_type: fact.entity_type ? fact.entity_type : "memory",
    feedback: "used",
    actor: "assistant",
    query,
    source: fact.source,
    score: fact.score,
    citation: fact.citation,
    importance: feedbackImportance,
  };
}

export function checkoutGuidance(options: {
  query: string;
  currentFacts: readonly GuidanceFact[];
  evidenceCount: number;
  supersededExcluded: number;
  extra?: ExtraGuidance;
}): CheckoutGuidance {
  const trust = [
    "Use current_facts as the primary working memory for this turn.",
    "Use cited evidence and provenance when making claims about remembered context.",
  ];
  const ignore = [
    "Do not treat superseded contexts as current facts.",
    "Do not rely on uncited facts without checking memory again or asking the user.",
  ];
  if (options.evidenceCount === 0) trust.push("Treat this checkout as low-confidence because it has no cited evidence.");
  if (options.supersededExcluded > 0) ignore.push("Superseded contexts were excluded from current_facts but remain auditable.");
  trust.push(...(options.extra?.trust ?? []));
  ignore.push(...(options.extra?.ignore ?? []));
  const mandatory = [...(options.extra?.mandatory ?? [])];
  return {
    trust,
    ignore,
    ...(mandatory.length > 0 ? { mandatory } : {}),
    recommended_next_call: {
      tool: "memory_checkout",
      query: refreshQuery(options.query),
      reason: "Refresh memory before major follow-up work, after compaction/resume, or when task scope changes.",
    },
    feedback: {
      tool: "memory_feedback",
      when: "After cited context materially informs a response.",
      payloads: options.currentFacts.slice(0, feedbackPayloadsMax).map((fact) => feedbackPayload(fact, options.query)),
    },
  };
}

// ---------------------------------------------------------------------------
/*
 * The answerability signal of a checkout (Python `build_checkout_quality`, plus the query match
 * of checkout.ts; docs/checkout.md). Confidence is computed in hundredths so it is exact:
 *   Python's base: 0.25 + 0.22·min(facts, 2) + 0.28·min(cited facts, 2) (+0.07 when superseded
 *   contexts were excluded and there are facts), capped at 0.95, minus min(0.35, 0.18·warnings);
 *   then capped by the match: 0.25 + 0.70·coverage of the query's content terms (0.50 when the
 *   query has none); floored at 0.
 * Answerability: no current fact, or current facts that cover less than a third of the query's
 * content terms, is `ask_user`; `answer_from_memory` needs cited facts, no warnings and a
 * confidence of 0.75 or more (so at least 5/7 of the content terms found); else
 * `refresh_recommended`.
 */
export type Answerability = "answer_from_memory" | "refresh_recommended" | "ask_user";

export interface AskUserAction {
  type: "ask_user";
  reason: string;
}

export interface CheckoutQuality {
  answerability: Answerability;
  /** 0..0.95, two decimals. */
  confidence: number;
  reasons: string[];
  /** What to do before answering; null when memory can be answered from. */
  required_action: RecommendedCall | AskUserAction | null;
}

export interface QualityInputs {
  /** The query's content terms and those found in current facts (checkout.ts). */
  queryTerms: readonly string[];
  matchedTerms: readonly string[];
  /**
   * The query match's coverage (checkout.ts): matched / query terms, or more when the semantic
   * lane matched a current fact; absent, matched / query terms.
   */
  coverage?: number | null;
  currentFactCount: number;
  currentCitationCount: number;
  supersededExcluded: number;
  warningCount: number;
  recommendedNextCall: RecommendedCall;
}

/** Below this confidence a checkout never answers from memory. */
export const answerConfidenceMin = 0.75;

/** Below this share of the query's content terms found, memory is not the place to answer from. */
export const askUserCoverageMax = 1 / 3;

/** The confidence cap a query without content terms gets: nothing can show that memory matches. */
const noTermsCapHundredths = 50;

/** The share of the query memory covers: the exact matched share, raised by a semantic match. */
function coverageOf(q: QualityInputs): number {
  return Math.max(q.matchedTerms.length / q.queryTerms.length, q.coverage ?? 0);
}

function matchCapHundredths(q: QualityInputs): number {
  if (q.queryTerms.length === 0) return noTermsCapHundredths;
  return 25 + Math.round(70 * coverageOf(q));
}

function confidenceHundredths(q: QualityInputs): number {
  let hundredths = 25 + 22 * Math.min(q.currentFactCount, 2) + 28 * Math.min(q.currentCitationCount, 2);
  if (q.supersededExcluded > 0 && q.currentFactCount > 0) hundredths += 7;
  hundredths = Math.min(95, hundredths, matchCapHundredths(q));
  hundredths -= Math.min(35, 18 * q.warningCount);
  return Math.max(0, hundredths);
}

function quoted(words: readonly string[]): string {
  return words.map((word) => `'${word}'`).join(", ");
}

/** The reason line that says how much of the query memory covers. */
function matchReason(q: QualityInputs): string {
  if (q.queryTerms.length === 0) return "The query has no content words to match memory against; confidence is capped at 0.5.";
  const missing = q.queryTerms.filter((term) => !q.matchedTerms.includes(term));
  const lexical = q.matchedTerms.length / q.queryTerms.length;
  if (coverageOf(q) > lexical) {
    return `A current fact matches the question in other words (semantic lane); query terms found as written: ${quoted(q.matchedTerms) || "none"}.`;
  }
  if (q.matchedTerms.length === 0) return `Nothing in memory matches the query: no current fact mentions ${quoted(q.queryTerms)}.`;
  const head = `Current facts match ${q.matchedTerms.length} of ${q.queryTerms.length} query terms (${quoted(q.matchedTerms)})`;
  return missing.length === 0 ? `${head}.` : `${head}; not found in memory: ${quoted(missing)}.`;
}

/**
 * @example
 * checkoutQuality({ queryTerms: ["redis"], matchedTerms: ["redis"], currentFactCount: 1, currentCitationCount: 1,
 *   supersededExcluded: 0, warningCount: 0, recommendedNextCall })
 * // { answerability: "answer_from_memory", confidence: 0.75, reasons: [...], required_action: null }
 */
export function checkoutQuality(q: QualityInputs): CheckoutQuality {
  const reasons: string[] = [];
  if (q.currentFactCount > 0 && q.currentCitationCount > 0) reasons.push("Retrieved current facts with Eventloom citations.");
  else if (q.currentFactCount > 0) reasons.push("Retrieved current facts, but they lack Eventloom citations.");
  else reasons.push("No current facts were retrieved.");
  reasons.push(matchReason(q));
  if (q.supersededExcluded > 0) reasons.push("Superseded contexts were excluded from current facts.");
  if (q.warningCount > 0) reasons.push("Checkout contains warnings that reduce confidence.");
  const confidence = confidenceHundredths(q) / 100;
  if (q.currentFactCount === 0) {
    return {
      answerability: "ask_user",
      confidence,
      reasons,
      required_action: {
        type: "ask_user",
        reason: q.queryTerms.length > 0 && q.matchedTerms.length === 0
          ? `Nothing in memory matches the query (${quoted(q.queryTerms)}); ask the user for the missing context before answering from memory.`
          : "No current facts were retrieved; ask the user for the missing context before answering from memory.",
      },
    };
  }
  if (q.queryTerms.length > 0 && coverageOf(q) < askUserCoverageMax) {
    const what = q.matchedTerms.length === 0 ? "nothing in memory matches the query" : "memory matches too little of the query";
    return {
      answerability: "ask_user",
      confidence,
      reasons,
      required_action: { type: "ask_user", reason: `Retrieved facts are unrelated to the question (${what}); ask the user instead of answering from memory.` },
    };
  }
  if (q.currentCitationCount > 0 && q.warningCount === 0 && confidence >= answerConfidenceMin) {
    return { answerability: "answer_from_memory", confidence, reasons, required_action: null };
  }
  return { answerability: "refresh_recommended", confidence, reasons, required_action: { ...q.recommendedNextCall } };
}

// ---------------------------------------------------------------------------
/*
 * The checkout's own prompt sections (Python `format_memory_checkout_prompt`, without its
 * repetition), in order:
 *   # Memory Checkout / Query: …   (header, mandatory)
 *   ## Current Facts               - {display}[ ({standing})] ({citation})
 *   ## Evidence                    - {citation}: {display}[ (superseded)][ ({standing})][ (low relevance…)]
 *     (standing: "pending review", or "{review_status}, {authority_status}" like "accepted,
 *     non-authoritative", for an item whose metadata carries a review status)
 *   ## Checkout Quality            (mandatory)
 *   ## Checkout Guidance           (mandatory)
 *   ## Checkout Diagnostics
 * The assembly's sections (recent events, retrieved context, warnings) follow, re-rendered by
 * `checkoutAssemblySections`.
 *
 * What must never change: every cited item appears once, with its citation. Evidence lists only
 * what Current Facts does not (superseded versions, low-relevance finds); a correction record is
 * folded into the fact it corrects, which carries the same citation and says "corrected"; recent
 * events already cited above are named by seq only (and one a shown correction replaced says
 * so instead of repeating the old statement), and retrieved context lists only what is uncited. `{display}` is the context's prompt text (retrieval/engine.ts `entityDisplay`), else its
 * content; the JSON arrays keep every item and its content as they are.
 */
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

/** The diagnostics the prompt prints. */
export interface PromptDiagnostics {
  source_lanes: { [lane: string]: number };
  citation_count: number;
  current_citation_count: number;
  current_fact_count: number;
  superseded_contexts_excluded: number;
  feedback_recommended: boolean;
  feedback_tool: string;
  query_match: QueryMatchReport;
}

function queryMatchText(match: QueryMatchReport): string {
  const terms = match.query_terms.length === 0
    ? "no content terms in the query"
    : `${match.matched_terms.length} of ${match.query_terms.length} terms${match.matched_terms.length > 0 ? ` (${match.matched_terms.join(", ")})` : ""}`;
  return `${terms}; unrelated contexts excluded: ${match.unmatched_contexts_excluded}`;
}

/** ` (pending review)`, ` (accepted, non-authoritative)`: an item's standing, when it has one. */
/** After an evidence line of a superseded version: auditable, not current. */
export const supersededLabel = " (superseded)";

/** After an evidence line that shares no word with the query. */
export const lowRelevanceLabel = " (low relevance: shares no word with the query)";

/**
 * After an evidence line only the semantic lane found, below the similarity that counts as an
 * answer (retrieval/semanticLane.ts `semanticEvidenceSimilarityMin`): close in meaning, not proof.
 */
function lowRelevanceLabelOf(item: EvidenceItem): string {
  const similarity = item.score_explanation?.semantic_similarity;
  return typeof similarity === "number"
    ? ` (low relevance: shares no word with the query; close in meaning, similarity ${similarity.toFixed(2)}, too weak to answer from)`
    : lowRelevanceLabel;
}

function standingLabel(item: { review_status?: string; authority_status?: string }): string {
  if (item.review_status === undefined) return "";
  if (item.review_status === "pending") return " (pending review)";
  return ` (${item.review_status}, ${(item.authority_status ?? "").replaceAll("_", "-")})`;
}

function section(id: string, lines: readonly string[], mandatory: boolean, weight: number): PromptSection {
  return { id, text: lines.join("\n"), mandatory, weight };
}

function sourceLanesText(lanes: { [lane: string]: number }): string {
  const names = Object.keys(lanes).sort(compareCodePoints);
  return names.length === 0 ? "none" : names.map((lane) => `${lane}=${lanes[lane]}`).join(", ");
}

function requiredActionLine(quality: CheckoutQuality): string {
  const action = quality.required_action;
  if (action === null) return "- Required action: none";
  if ("type" in action) return `- Required action: ask_user: ${action.reason}`;
  return `- Required action: ${action.tool}(${pythonStrRepr(action.query)})`;
}

export interface CheckoutPromptOptions {
  query: string;
  currentFacts: readonly CurrentFact[];
  evidence: readonly EvidenceItem[];
  quality: CheckoutQuality;
  guidance: CheckoutGuidance;
  diagnostics: PromptDiagnostics;
  /** Lines from optional features (e.g. `Causal context: ...`), listed after the standard ones. */
  extraDiagnosticLines?: readonly string[];
  /** Prompt text of items whose display differs from their content, by `promptItemKey`. */
  displays?: ReadonlyMap<string, string>;
  /** Evidence items of superseded versions (closed validity window), by `promptItemKey`. */
  superseded?: ReadonlySet<string>;
}

/** The key of a fact or evidence item in `CheckoutPromptOptions.displays`. */
export function promptItemKey(item: { citation: string; content: string }): string {
  return `${item.citation}\u0000${item.content}`;
}

/** The prompt texts of the contexts that have one, and the superseded ones, by `promptItemKey`. */
export function promptLabels(contexts: readonly RetrievedContext[]): { displays: Map<string, string>; superseded: Set<string> } {
  const displays = new Map<string, string>();
  const superseded = new Set<string>();
  for (const context of contexts) {
    if (!context.citation) continue;
    const key = promptItemKey({ citation: context.citation, content: context.content });
    if (context.display !== undefined) displays.set(key, context.display);
    if (context.validTo !== null) superseded.add(key);
  }
  return { displays, superseded };
}

/**
 * The facts and evidence the prompt lists: each cited item once. A correction record is left to
 * the fact it corrects when that fact is listed (same citation); evidence already listed as a
 * current fact is not listed again.
 */
function listedItems(currentFacts: readonly CurrentFact[], evidence: readonly EvidenceItem[]): { facts: CurrentFact[]; evidence: EvidenceItem[] } {
  const correctedCitations = new Set(currentFacts.filter((fact) => fact.entity_type !== "memory_correction").map((fact) => fact.citation));
  const facts = currentFacts.filter((fact) => !(fact.entity_type === "memory_correction" && correctedCitations.has(fact.citation)));
  const factKeys = new Set(currentFacts.map(promptItemKey));
  return { facts, evidence: evidence.filter((item) => !factKeys.has(promptItemKey(item))) };
}

/** The citations the checkout's own sections show, for `checkoutAssemblySections`. */
export function listedCitations(currentFacts: readonly CurrentFact[], evidence: readonly EvidenceItem[]): Set<string> {
  const listed = listedItems(currentFacts, evidence);
  return new Set([...listed.facts, ...listed.evidence].map((item) => item.citation));
}

/**
 * The checkout's own prompt as lines, before it is cut into sections: what a token budget packs
 * item by item (checkoutBudget.ts). Headings are not part of the item lists.
 */
export interface CheckoutPromptParts {
  header: string[];
  /** One line per current fact, best first; empty when there are none. */
  facts: string[];
  /** One line per evidence item not already listed as a current fact. */
  evidence: string[];
  /**
   * The line an evidence section without items shows: `noEvidenceLine` when there is no evidence
   * at all, null when every item is listed as a current fact (the section is then left out).
   */
  evidenceEmptyLine: string | null;
  quality: string[];
  guidance: string[];
  /** The guidance a tight budget keeps: the mandatory lines and one trust line. */
  guidanceCondensed: string[];
  diagnostics: string[];
}

export const factsHeading = "## Current Facts";
export const evidenceHeading = "## Evidence";
export const noFactsLine = "- No current facts were retrieved.";
export const noEvidenceLine = "- No cited evidence was retrieved.";

export function checkoutPromptParts(options: CheckoutPromptOptions): CheckoutPromptParts {
  const { query, currentFacts, evidence, quality, guidance, diagnostics } = options;
  const listed = listedItems(currentFacts, evidence);
  const display = (item: CurrentFact | EvidenceItem) => options.displays?.get(promptItemKey(item)) ?? item.content;
  const next = guidance.recommended_next_call;
  const mandatoryLines = (guidance.mandatory ?? []).map((line) => `- Mandatory: ${line}`);
  const guidanceLines = [
    "## Checkout Guidance",
    ...mandatoryLines,
    ...guidance.trust.map((line) => `- Trust: ${line}`),
    ...guidance.ignore.map((line) => `- Ignore: ${line}`),
    `- Suggested next call: ${next.tool}(${pythonStrRepr(next.query)})`,
  ];
  if (guidance.feedback.payloads.length > 0) {
    guidanceLines.push(`- Feedback: call ${guidance.feedback.tool} with a listed payload after use.`);
  }
  const diagnosticLines = [
    "## Checkout Diagnostics",
    `- Source lanes: ${sourceLanesText(diagnostics.source_lanes)}`,
    `- Query match: ${queryMatchText(diagnostics.query_match)}`,
    `- Citations: ${diagnostics.citation_count}`,
    `- Current citations: ${diagnostics.current_citation_count}`,
    `- Current facts: ${diagnostics.current_fact_count}`,
    `- Superseded contexts excluded: ${diagnostics.superseded_contexts_excluded}`,
    ...(options.extraDiagnosticLines ?? []).map((line) => `- ${line}`),
  ];
  if (diagnostics.feedback_recommended) diagnosticLines.push(`- Feedback: call ${diagnostics.feedback_tool} after using cited context.`);
  return {
    header: ["# Memory Checkout", `Query: ${query}`],
    facts: listed.facts.map((fact) => `- ${display(fact)}${standingLabel(fact)} (${fact.citation})`),
    evidence: listed.evidence.map((item) =>
      `- ${item.citation}: ${display(item)}${options.superseded?.has(promptItemKey(item)) ? supersededLabel : ""}${standingLabel(item)}${
        item.matches_query === false ? lowRelevanceLabelOf(item) : ""
      }`
    ),
    evidenceEmptyLine: evidence.length === 0 ? noEvidenceLine : null,
    quality: [
      "## Checkout Quality",
      `- Answerability: ${quality.answerability}`,
      `- Confidence: ${formatPythonFloat(quality.confidence)}`,
      ...quality.reasons.map((reason) => `- Reason: ${reason}`),
      requiredActionLine(quality),
    ],
    guidance: guidanceLines,
    guidanceCondensed: [
      "## Checkout Guidance",
      ...mandatoryLines,
      "- Trust: Use the cited current facts above; treat anything uncited, superseded or cut from this prompt as unverified.",
    ],
    diagnostics: diagnosticLines,
  };
}

/** The unbudgeted sections, in order. */
export function checkoutSections(options: CheckoutPromptOptions): PromptSection[] {
  const parts = checkoutPromptParts(options);
  return [
    section("header", parts.header, true, 1),
    section("current_facts", [factsHeading, ...(parts.facts.length > 0 ? parts.facts : [noFactsLine])], false, sectionWeights.current_facts),
    ...(parts.evidence.length === 0 && parts.evidenceEmptyLine === null
      ? []
      : [section("evidence", [evidenceHeading, ...(parts.evidence.length > 0 ? parts.evidence : [noEvidenceLine])], false, sectionWeights.evidence)]),
    section("quality", parts.quality, true, 1),
    section("guidance", parts.guidance, true, 1),
    section("diagnostics", parts.diagnostics, false, sectionWeights.diagnostics),
  ];
}

/** A payload's `target.seq`, when it names one. */
function targetSeq(event: EventRecord): number | undefined {
  const target = event.payload.get("target");
  if (!isJsonObject(target)) return undefined;
  const seq = target.get("seq");
  return seq instanceof JsonNumber && !seq.isFloat ? seq.toNumber() : undefined;
}

/**
 * Which shown events a later shown correction replaced (`memory.corrected`, not rolled back by a
 * later shown `memory.rolled_back`): target seq to the correction's seq.
 */
function correctedSeqs(events: readonly EventRecord[]): Map<number, number> {
  const rolledBack = new Set(events.filter((event) => event.type === "memory.rolled_back").map(targetSeq));
  const corrected = new Map<number, number>();
  for (const event of events) {
    const target = event.type === "memory.corrected" ? targetSeq(event) : undefined;
    if (target !== undefined && !rolledBack.has(event.seq)) corrected.set(target, event.seq);
  }
  return corrected;
}

/**
 * `[seq] type by actor: text`; `[seq] type by actor (cited above)` for an event already listed;
 * `[seq] type by actor (corrected by [n])` for one whose statement a shown correction replaced.
 */
function recentEventLine(event: EventRecord, listed: ReadonlySet<string>, corrected: ReadonlyMap<number, number>): string {
  const head = `[${event.seq}] ${event.type} by ${event.actor}`;
  if (listed.has(citationUri(event.thread, event.seq, event.hash))) return `${head} (cited above)`;
  const correction = corrected.get(event.seq);
  if (correction !== undefined) return `${head} (corrected by [${correction}])`;
  const text = eventText(event);
  return text === `${event.type} by ${event.actor}` ? head : `${head}: ${text}`;
}

/**
 * The assembly's sections as a checkout shows them, under the same ids: recent events one line
 * each (those already cited above by seq only), retrieved context only for what no fact or
 * evidence line shows (left out when that is nothing), warnings as they are, then `laneWarnings`.
 *
 * @example
 * checkoutAssemblySections(parts.sections, parts.shownEvents, parts.selected, listedCitations(facts, evidence));
 * // recent_events: "# Recent Events\n[1] decision.made by claude-agent (cited above)\n[2] note.added by bob: Staging is slow"
 */
export function checkoutAssemblySections(
  sections: readonly PromptSection[],
  events: readonly EventRecord[],
  selected: readonly RetrievedContext[],
  listed: ReadonlySet<string>,
  laneWarnings: readonly string[] = [],
): PromptSection[] {
  const out: PromptSection[] = [];
  const laneLines = laneWarnings.map((warning) => `- ${warning}`);
  for (const assembled of sections) {
    if (assembled.id === "recent_events") {
      const corrected = correctedSeqs(events);
      out.push({ ...assembled, text: ["# Recent Events", ...events.map((event) => recentEventLine(event, listed, corrected))].join("\n") });
    } else if (assembled.id === "retrieved_context") {
      const unlisted = selected.filter((context) => !context.citation || !listed.has(context.citation));
      if (unlisted.length === 0) continue;
      const lines = unlisted.map((context) => `- ${context.display ?? context.content}${context.citation ? ` (${context.citation})` : ""}`);
      out.push({ ...assembled, text: ["# Retrieved Context", ...lines].join("\n") });
    } else if (assembled.id === "context_warnings") {
      out.push(laneLines.length === 0 ? assembled : { ...assembled, text: [assembled.text, ...laneLines].join("\n") });
    } else {
      out.push(assembled);
    }
  }
  if (laneLines.length > 0 && !sections.some((section) => section.id === "context_warnings")) {
    out.push({ id: "context_warnings", text: ["# Context Warnings", ...laneLines].join("\n"), mandatory: true, weight: sectionWeights.context_warnings });
  }
  return out;
}

const eventTextKeys = ["title", "summary", "content", "text", "decision", "task"] as const;

/** Python's `str(value)` for a truthy payload value, else undefined. */
function payloadValueText(value: JsonValue | undefined): string | undefined {
  if (value === undefined || value === null || value === false) return undefined;
  if (value === true) return "True";
  if (typeof value === "string") return value === "" ? undefined : value;
  if (value instanceof JsonNumber) {
    if (value.toNumber() === 0) return undefined;
    return pythonNumberRepr(value);
  }
  if (Array.isArray(value) ? value.length === 0 : value.size === 0) return undefined;
  // Python would print its repr; JSON text is close enough for a container nobody should use here.
  return displayJson(value);
}

/** The text line shown under an event in `# Recent Events`. */
export function eventText(event: EventRecord): string {
  const parts: string[] = [];
  for (const key of eventTextKeys) {
    const text = payloadValueText(event.payload.get(key));
    if (text !== undefined) parts.push(text);
  }
  return parts.length > 0 ? parts.join(" ") : eventKeyFacts(event) ?? `${event.type} by ${event.actor}`;
}

// ---------------------------------------------------------------------------
/*
 * Context assembly: recent replay plus retrieved context as one prompt-ready, cited payload
 * (reference §4.2). The JSON shape is the MCP `memory_context` payload and must not change:
 *
 *   {session_id, prompt, contexts[{content, source, score, valid_from, valid_to, citation,
 *    score_explanation, metadata}], replay_event_count, compacted, warnings, assembly_policy,
 *    context_counts{graph, verbatim, replay}, budget?}
 *
 * Prompt line shapes (Python's, exactly):
 *   # Recent Events
 *   [{seq}] {type} by {actor}
 *   {payload title/summary/content/text/decision/task joined by " ", else "{type} by {actor}"}
 *
 *   # Retrieved Context
 *   - {content} ({citation})
 *
 *   # Context Warnings            (only when there are warnings)
 *   - {warning}
 */
export interface AssembleInput {
  sessionId: string;
  query: string;
  retrieval: RetrievalResult;
  /** The replay window to show, oldest first; already cut to the most recent events. */
  recentEvents: EventRecord[];
  /**
   * The session's withheld rule events (`SessionFolds.withheldRuleSeqs`: pending and rolled-back
   * rules), the same set retrieval drops them by: none of them is shown in Recent Events either.
   */
  withheldRuleSeqs: ReadonlySet<number>;
  replayEventCount: number;
  /** Whether the replay window was cut (older events exist that are not shown). */
  compacted: boolean;
  /** Most retrieved contexts to put in the prompt. */
  limit: number;
  /** Token budget for the prompt; absent means unbudgeted. */
  maxTokens?: number;
  /**
   * Rebuilds and repairs of the projection done for this answer (a damaged read model, vector
   * index or graph store, an interrupted write): each becomes a warning, so an answer given
   * right after a repair says so.
   */
  projectionRepairs?: readonly string[];
}

export interface AssembledContext {
  content: string;
  source: string;
  score: number;
  valid_from: string | null;
  valid_to: string | null;
  citation: string | null;
  score_explanation: { [key: string]: PlainJson } | null;
  metadata: { [key: string]: PlainJson };
}

export interface AssemblyPolicy {
  verbatim_enabled: boolean;
  verbatim_slots: number;
  packet_memory_enabled: boolean;
  packet_memory_slots: number;
}

export interface ContextCounts {
  graph: number;
  verbatim: number;
  replay: number;
}

export interface ContextAssembly {
  session_id: string;
  prompt: string;
  contexts: AssembledContext[];
  replay_event_count: number;
  compacted: boolean;
  warnings: string[];
  assembly_policy: AssemblyPolicy;
  context_counts: ContextCounts;
  budget?: PromptBudget;
}

/**
 * Retrieved-context slots reserved for the verbatim lane (Python `CONTEXT_VERBATIM_SLOTS`), so
 * raw source text survives even when projected entities outrank it.
 */
export const verbatimSlots = 1;

const assemblyPolicy: AssemblyPolicy = {
  verbatim_enabled: true,
  verbatim_slots: verbatimSlots,
  // There is no packet-memory lane in this implementation; said so rather than omitted, so
  // clients written against the Python payload read the same keys.
  packet_memory_enabled: false,
  packet_memory_slots: 0,
};

/** Longest context text quoted in a warning, in code points (Python `_warning_label`). */
const warningLabelChars = 80;

/** Everything assembly derives, for `assembleContext` and for Memory Checkout. */
export interface AssemblyParts {
  /** The contexts that made it into the prompt, in retrieval rank order. */
  selected: RetrievedContext[];
  warnings: string[];
  /** `recent_events`, `retrieved_context`, and `context_warnings` when there are warnings. */
  sections: PromptSection[];
  /** The recent events `recent_events` shows (withheld rules left out), oldest first. */
  shownEvents: readonly EventRecord[];
  contextCounts: ContextCounts;
  assemblyPolicy: AssemblyPolicy;
}

/** Citation, qualified by entity for graph contexts (one event can state several entities). */
function dedupeKey(context: RetrievedContext): string {
  if (context.citation && context.entityName !== undefined) return `citation:${context.citation}|${context.entityType}|${context.entityName}`;
  if (context.citation) return `citation:${context.citation}`;
  return `content:${context.content.split(/\s+/).filter((part) => part !== "").join(" ").toLowerCase()}`;
}

function isVerbatim(context: RetrievedContext): boolean {
  return context.source === "verbatim";
}

/**
 * The contexts for the prompt: de-duplicated by citation (else normalised content), at most
 * `limit`, in rank order, with `verbatimSlots` kept for the verbatim lane when it has hits.
 */
export function selectContexts(contexts: readonly RetrievedContext[], limit: number): RetrievedContext[] {
  if (limit <= 0) return [];
  const seen = new Set<string>();
  const unique = contexts.filter((context) => {
    const key = dedupeKey(context);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const reserved = Math.min(verbatimSlots, limit, unique.filter(isVerbatim).length);
  const otherCap = limit - reserved;
  const selected: RetrievedContext[] = [];
  let otherCount = 0;
  for (const context of unique) {
    if (selected.length >= limit) break;
    if (isVerbatim(context)) {
      selected.push(context);
    } else if (otherCount < otherCap) {
      selected.push(context);
      otherCount += 1;
    }
  }
  return selected;
}

function isCompactedContext(context: RetrievedContext): boolean {
  const source = (context.source as string).toLowerCase();
  if (source === "projection" || source === "compaction" || source === "compacted") return true;
  const metadata = context.metadata;
  return isTruthyPlain(metadata.compacted) || isTruthyPlain(metadata.projection_id) || isTruthyPlain(metadata.compaction_projection);
}

function isTruthyPlain(value: PlainJson | undefined): boolean {
  if (value === undefined || value === null || value === false || value === 0 || value === "") return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return Object.keys(value).length > 0;
  return true;
}

function hasSourceSupport(context: RetrievedContext): boolean {
  return Boolean(context.citation) || isTruthyPlain(context.metadata.citation) || isTruthyPlain(context.metadata.citations);
}

function warningLabel(content: string): string {
  const compact = content.split(/\s+/).filter((part) => part !== "").join(" ");
  const codePoints = Array.from(compact);
  return codePoints.length <= warningLabelChars ? compact : `${codePoints.slice(0, warningLabelChars - 3).join("")}...`;
}

function contextWarnings(selected: readonly RetrievedContext[], input: AssembleInput): string[] {
  const warnings: string[] = [];
  for (const context of selected) {
    if (isCompactedContext(context) && !hasSourceSupport(context)) {
      warnings.push(`${context.source} context '${warningLabel(context.content)}' lacks source-level citation`);
    }
  }
  if (input.compacted && !selected.some(hasSourceSupport)) {
    warnings.push("recent replay was truncated and no retrieved source context was available");
  }
  if (input.retrieval.degraded) {
    const reason = input.retrieval.degradedReason ?? "no reason reported";
    warnings.push(`retrieval was degraded (${reason}); retrieved context may be incomplete`);
  }
  for (const repair of input.projectionRepairs ?? []) warnings.push(`projection repaired: ${repair}`);
  warnings.push(...(input.retrieval.warnings ?? []));
  return warnings;
}

function promptSections(
  selected: readonly RetrievedContext[],
  events: readonly EventRecord[],
  warnings: readonly string[],
): PromptSection[] {
  const recent = ["# Recent Events"];
  for (const event of events) recent.push(`[${event.seq}] ${event.type} by ${event.actor}`, eventText(event));
  const retrieved = ["# Retrieved Context"];
  for (const context of selected) retrieved.push(`- ${context.content}${context.citation ? ` (${context.citation})` : ""}`);
  const sections: PromptSection[] = [
    { id: "recent_events", text: recent.join("\n"), mandatory: false, weight: sectionWeights.recent_events },
    { id: "retrieved_context", text: retrieved.join("\n"), mandatory: false, weight: sectionWeights.retrieved_context },
  ];
  if (warnings.length > 0) {
    // Warnings say which context not to trust; a budget must never strip them from the assembly.
    const text = ["# Context Warnings", ...warnings.map((warning) => `- ${warning}`)].join("\n");
    sections.push({ id: "context_warnings", text, mandatory: true, weight: sectionWeights.context_warnings });
  }
  return sections;
}

function withoutWithheldRules(events: readonly EventRecord[], withheld: ReadonlySet<number>): readonly EventRecord[] {
  return withheld.size === 0 ? events : events.filter((event) => !withheld.has(event.seq));
}

/** Selection, warnings, and prompt sections for an assembly input. */
export function assemblyParts(input: AssembleInput): AssemblyParts {
  const selected = selectContexts(input.retrieval.contexts, input.limit);
  const warnings = contextWarnings(selected, input);
  const verbatim = selected.filter(isVerbatim).length;
  // A pending or rolled-back rule must not reach the prompt through Recent Events either.
  const shownEvents = withoutWithheldRules(input.recentEvents, input.withheldRuleSeqs);
  return {
    selected,
    warnings,
    sections: promptSections(selected, shownEvents, warnings),
    shownEvents,
    contextCounts: { graph: selected.length - verbatim, verbatim, replay: input.replayEventCount },
    assemblyPolicy: { ...assemblyPolicy },
  };
}

function assembledContext(context: RetrievedContext): AssembledContext {
  const lane = isVerbatim(context) ? "verbatim" : "graph";
  return {
    content: context.content,
    source: context.source,
    score: context.score,
    valid_from: context.validFrom,
    valid_to: context.validTo,
    citation: context.citation,
    score_explanation: Object.keys(context.scoreExplanation).length > 0 ? context.scoreExplanation : null,
    metadata: { ...context.metadata, assembly_lane: lane },
  };
}

/**
 * Assembles recent events and retrieved context into a cited prompt.
 *
 * @example
 * const assembly = assembleContext({
 *   sessionId: "default", query: "release plan", retrieval, recentEvents: events.slice(-20),
 *   withheldRuleSeqs: index.folds.withheldRuleSeqs(),
 *   replayEventCount: Math.min(events.length, 20), compacted: events.length > 20, limit: 10,
 * });
 * assembly.prompt.startsWith("# Recent Events"); // true
 */
export function assembleContext(input: AssembleInput): ContextAssembly {
  const parts = assemblyParts(input);
  const packed = input.maxTokens === undefined ? undefined : packPrompt(parts.sections, input.maxTokens);
  const assembly: ContextAssembly = {
    session_id: input.sessionId,
    prompt: packed === undefined ? joinSections(parts.sections) : packed.prompt,
    contexts: parts.selected.map(assembledContext),
    replay_event_count: input.replayEventCount,
    compacted: input.compacted,
    warnings: parts.warnings,
    assembly_policy: parts.assemblyPolicy,
    context_counts: parts.contextCounts,
  };
  if (packed !== undefined) assembly.budget = packed.budget;
  return assembly;
}
