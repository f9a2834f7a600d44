/**
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
 * so instead of repeating the old statement), and retrieved context lists only what is uncited. `{display}` is the context's prompt text (retrieval/contextDisplay.ts), else its
 * content; the JSON arrays keep every item and its content as they are.
 */
import { compareCodePoints, formatPythonFloat, isJsonObject, JsonNumber } from "../canonical/mod.ts";
import { citationUri } from "../eventloom/citation.ts";
import type { EventRecord } from "../eventloom/envelope.ts";
import type { RetrievedContext } from "../retrieval/types.ts";
import { eventText } from "./assembleContext.ts";
import type { CheckoutGuidance } from "./checkoutGuidance.ts";
import type { CurrentFact, EvidenceItem } from "./checkoutItems.ts";
import type { CheckoutQuality } from "./checkoutQuality.ts";
import { type PromptSection, sectionWeights } from "./promptSections.ts";
import type { QueryMatchReport } from "./queryMatch.ts";
import { pythonStrRepr } from "../canonical/pythonText.ts";

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
