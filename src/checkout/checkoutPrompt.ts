/**
 * The checkout's own prompt sections (Python `format_memory_checkout_prompt`), in order:
 *   # Memory Checkout / Query: …   (header, mandatory)
 *   ## Current Facts               - {content}[ ({standing})] ({citation})
 *   ## Evidence                    - {citation}: {content}[ ({standing})]
 *     (standing: "pending review", or "{review_status}, {authority_status}" like "accepted,
 *     non-authoritative", for an item whose metadata carries a review status)
 *   ## Checkout Quality            (mandatory)
 *   ## Checkout Guidance           (mandatory)
 *   ## Checkout Diagnostics
 * The assembly's sections (recent events, retrieved context, warnings) follow.
 */
import { compareCodePoints, formatPythonFloat } from "../canonical/mod.ts";
import type { CheckoutGuidance } from "./checkoutGuidance.ts";
import type { CurrentFact, EvidenceItem } from "./checkoutItems.ts";
import type { CheckoutQuality } from "./checkoutQuality.ts";
import { type PromptSection, sectionWeights } from "./promptSections.ts";
import type { QueryMatchReport } from "./queryMatch.ts";
import { pythonStrRepr } from "./pythonStrRepr.ts";

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
}

/**
 * The checkout's own prompt as lines, before it is cut into sections: what a token budget packs
 * item by item (checkoutBudget.ts). Headings are not part of the item lists.
 */
export interface CheckoutPromptParts {
  header: string[];
  /** One line per current fact, best first; empty when there are none. */
  facts: string[];
  /** One line per evidence item. */
  evidence: string[];
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
    facts: currentFacts.map((fact) => `- ${fact.content}${standingLabel(fact)} (${fact.citation})`),
    evidence: evidence.map((item) => `- ${item.citation}: ${item.content}${standingLabel(item)}${item.matches_query === false ? lowRelevanceLabelOf(item) : ""}`),
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
    section("evidence", [evidenceHeading, ...(parts.evidence.length > 0 ? parts.evidence : [noEvidenceLine])], false, sectionWeights.evidence),
    section("quality", parts.quality, true, 1),
    section("guidance", parts.guidance, true, 1),
    section("diagnostics", parts.diagnostics, false, sectionWeights.diagnostics),
  ];
}
