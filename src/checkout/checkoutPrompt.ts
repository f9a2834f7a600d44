/**
 * The checkout's own prompt sections (Python `format_memory_checkout_prompt`), in order:
 *   # Memory Checkout / Query: …   (header, mandatory)
 *   ## Current Facts               - {content} ({citation})
 *   ## Evidence                    - {citation}: {content}
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

export function checkoutSections(options: {
  query: string;
  currentFacts: readonly CurrentFact[];
  evidence: readonly EvidenceItem[];
  quality: CheckoutQuality;
  guidance: CheckoutGuidance;
  diagnostics: PromptDiagnostics;
  /** Lines from optional features (e.g. `Causal context: ...`), listed after the standard ones. */
  extraDiagnosticLines?: readonly string[];
}): PromptSection[] {
  const { query, currentFacts, evidence, quality, guidance, diagnostics } = options;
  const facts = currentFacts.length > 0
    ? currentFacts.map((fact) => `- ${fact.content} (${fact.citation})`)
    : ["- No current facts were retrieved."];
  const cited = evidence.length > 0
    ? evidence.map((item) => `- ${item.citation}: ${item.content}`)
    : ["- No cited evidence was retrieved."];
  const next = guidance.recommended_next_call;
  const guidanceLines = [
    "## Checkout Guidance",
    ...(guidance.mandatory ?? []).map((line) => `- Mandatory: ${line}`),
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
    `- Citations: ${diagnostics.citation_count}`,
    `- Current citations: ${diagnostics.current_citation_count}`,
    `- Current facts: ${diagnostics.current_fact_count}`,
    `- Superseded contexts excluded: ${diagnostics.superseded_contexts_excluded}`,
    ...(options.extraDiagnosticLines ?? []).map((line) => `- ${line}`),
  ];
  if (diagnostics.feedback_recommended) diagnosticLines.push(`- Feedback: call ${diagnostics.feedback_tool} after using cited context.`);
  return [
    section("header", ["# Memory Checkout", `Query: ${query}`], true, 1),
    section("current_facts", ["## Current Facts", ...facts], false, sectionWeights.current_facts),
    section("evidence", ["## Evidence", ...cited], false, sectionWeights.evidence),
    section(
      "quality",
      [
        "## Checkout Quality",
        `- Answerability: ${quality.answerability}`,
        `- Confidence: ${formatPythonFloat(quality.confidence)}`,
        ...quality.reasons.map((reason) => `- Reason: ${reason}`),
        requiredActionLine(quality),
      ],
      true,
      1,
    ),
    section("guidance", guidanceLines, true, 1),
    section("diagnostics", diagnosticLines, false, sectionWeights.diagnostics),
  ];
}
