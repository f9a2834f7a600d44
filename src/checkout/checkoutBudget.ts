/**
 * Packs a Memory Checkout prompt into a token budget (`--max-tokens`, docs/checkout.md).
 *
 * A checkout exists to hand over facts, so under a budget the facts go first, best first, one
 * by one; then the assembly's context warnings, the evidence items, the full guidance, retrieved
 * context, recent events and, last, the diagnostics (which repeat what the JSON carries). The
 * header, the quality section and a condensed guidance (its mandatory lines and one trust line)
 * are always kept. Whenever something is cut, a `Budget:` line under the query says what, so a
 * reader of the text alone knows the prompt is partial.
 *
 * Items are admitted in that order while the whole rendered prompt fits; packing stops at the
 * first that does not, which keeps it monotone: a bigger budget never shows less. The estimate
 * is the checkout's usual `ceil(code points / 4)` (retrieval/tokenBudget.ts).
 *
 * What must never change: when nothing is cut the prompt is byte-identical to the unbudgeted one.
 */
import { estimateTokens } from "../retrieval/tokenBudget.ts";
import {
  checkMaxTokens,
  type CheckoutPromptParts,
  type ElidedSection,
  evidenceHeading,
  factsHeading,
  joinSections,
  noFactsLine,
  type PromptBudget,
  type PromptSection,
} from "./promptAssembly.ts";

/** What a budget keeps of each part. */
interface Kept {
  facts: number;
  evidence: number;
  warnings: boolean;
  fullGuidance: boolean;
  retrieved: boolean;
  recent: boolean;
  diagnostics: boolean;
}

/** The assembly's sections, by id, as a checkout appends them. */
interface AssemblyPieces {
  recent?: PromptSection;
  retrieved?: PromptSection;
  warnings?: PromptSection;
}

function pieces(sections: readonly PromptSection[]): AssemblyPieces {
  const byId = new Map(sections.map((section) => [section.id, section]));
  return { recent: byId.get("recent_events"), retrieved: byId.get("retrieved_context"), warnings: byId.get("context_warnings") };
}

/** A list section with its first `kept` items, or with its empty-list line (none: no section). */
function listSection(heading: string, items: readonly string[], emptyLine: string | null, kept: number): string[] | null {
  if (items.length === 0) return kept > 0 && emptyLine !== null ? [heading, emptyLine] : null;
  return kept > 0 ? [heading, ...items.slice(0, kept)] : null;
}

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** The `Budget:` line, or null when nothing is cut. */
function budgetNote(parts: CheckoutPromptParts, assembly: AssemblyPieces, kept: Kept, maxTokens: number): string | null {
  const shown: string[] = [];
  const cut: string[] = [];
  const list = (items: readonly string[], keptCount: number, one: string, many: string) => {
    if (items.length === 0) return;
    if (keptCount < items.length) shown.push(`${keptCount} of ${plural(items.length, one, many)}`);
  };
  list(parts.facts, kept.facts, "current fact", "current facts");
  list(parts.evidence, kept.evidence, "evidence item", "evidence items");
  if (assembly.warnings !== undefined && !kept.warnings) cut.push("context warnings");
  if (!kept.fullGuidance) cut.push("guidance (condensed)");
  if (assembly.retrieved !== undefined && !kept.retrieved) cut.push("retrieved context");
  if (assembly.recent !== undefined && !kept.recent) cut.push("recent events");
  if (!kept.diagnostics) cut.push("diagnostics");
  if (shown.length === 0 && cut.length === 0) return null;
  const clauses: string[] = [];
  if (shown.length > 0) clauses.push(`shown ${shown.join(" and ")}, best first`);
  if (cut.length > 0) clauses.push(`cut ${cut.join(", ")}`);
  return `Budget: ${maxTokens} tokens; ${clauses.join("; ")}. Full lists are in the JSON document.`;
}

function render(parts: CheckoutPromptParts, assembly: AssemblyPieces, kept: Kept, maxTokens: number): string {
  const note = budgetNote(parts, assembly, kept, maxTokens);
  const blocks: Array<string[] | null> = [
    note === null ? parts.header : [...parts.header, note],
    listSection(factsHeading, parts.facts, noFactsLine, kept.facts),
    listSection(evidenceHeading, parts.evidence, parts.evidenceEmptyLine, kept.evidence),
    parts.quality,
    kept.fullGuidance ? parts.guidance : parts.guidanceCondensed,
    kept.diagnostics ? parts.diagnostics : null,
  ];
  const sections = blocks.filter((block): block is string[] => block !== null).map((lines) => lines.join("\n"));
  if (assembly.recent !== undefined && kept.recent) sections.push(assembly.recent.text);
  if (assembly.retrieved !== undefined && kept.retrieved) sections.push(assembly.retrieved.text);
  if (assembly.warnings !== undefined && kept.warnings) sections.push(assembly.warnings.text);
  return joinSections(sections.map((text) => ({ id: "", text, mandatory: true, weight: 1 })));
}

/** The admission order: each step widens what is kept by one item or section. */
function steps(parts: CheckoutPromptParts, assembly: AssemblyPieces): Array<(kept: Kept) => void> {
  const out: Array<(kept: Kept) => void> = [];
  // An empty list still shows its "no facts" line: one step.
  for (let i = 0; i < Math.max(1, parts.facts.length); i++) out.push((kept) => void kept.facts++);
  if (assembly.warnings !== undefined) out.push((kept) => void (kept.warnings = true));
  const evidenceSteps = parts.evidenceEmptyLine === null ? parts.evidence.length : Math.max(1, parts.evidence.length);
  for (let i = 0; i < evidenceSteps; i++) out.push((kept) => void kept.evidence++);
  out.push((kept) => void (kept.fullGuidance = true));
  if (assembly.retrieved !== undefined) out.push((kept) => void (kept.retrieved = true));
  if (assembly.recent !== undefined) out.push((kept) => void (kept.recent = true));
  out.push((kept) => void (kept.diagnostics = true));
  return out;
}

function elided(parts: CheckoutPromptParts, assembly: AssemblyPieces, kept: Kept): ElidedSection[] {
  const out: ElidedSection[] = [];
  const list = (id: string, heading: string, items: readonly string[], emptyLine: string | null, keptCount: number) => {
    if (items.length === 0) {
      if (keptCount === 0 && emptyLine !== null) out.push({ section_id: id, estimated_tokens: estimateTokens(`${heading}\n${emptyLine}\n\n`) });
      return;
    }
    if (keptCount >= items.length) return;
    const cutLines = items.slice(keptCount).join("\n");
    const text = keptCount === 0 ? `${heading}\n${cutLines}\n\n` : `\n${cutLines}`;
    out.push({ section_id: id, estimated_tokens: estimateTokens(text), items_kept: keptCount, items_total: items.length });
  };
  list("current_facts", factsHeading, parts.facts, noFactsLine, kept.facts);
  list("evidence", evidenceHeading, parts.evidence, parts.evidenceEmptyLine, kept.evidence);
  if (!kept.fullGuidance) {
    const saved = estimateTokens(parts.guidance.join("\n")) - estimateTokens(parts.guidanceCondensed.join("\n"));
    out.push({ section_id: "guidance", estimated_tokens: Math.max(0, saved), condensed: true });
  }
  if (!kept.diagnostics) out.push({ section_id: "diagnostics", estimated_tokens: estimateTokens(`${parts.diagnostics.join("\n")}\n\n`) });
  for (const [section, isKept] of [[assembly.recent, kept.recent], [assembly.retrieved, kept.retrieved], [assembly.warnings, kept.warnings]] as const) {
    if (section !== undefined && !isKept) out.push({ section_id: section.id, estimated_tokens: estimateTokens(`${section.text}\n\n`) });
  }
  return out;
}

/**
 * @example
 * const { prompt, budget } = packCheckoutPrompt(parts, assemblySections, 400);
 * budget.elided; // [{ section_id: "current_facts", estimated_tokens: 96, items_kept: 3, items_total: 7 }, ...]
 */
export function packCheckoutPrompt(
  parts: CheckoutPromptParts,
  assemblySections: readonly PromptSection[],
  maxTokens: number,
): { prompt: string; budget: PromptBudget } {
  checkMaxTokens(maxTokens);
  const assembly = pieces(assemblySections);
  const kept: Kept = { facts: 0, evidence: 0, warnings: false, fullGuidance: false, retrieved: false, recent: false, diagnostics: false };
  let prompt = render(parts, assembly, kept, maxTokens);
  for (const widen of steps(parts, assembly)) {
    const trial = { ...kept };
    widen(trial);
    const text = render(parts, assembly, trial, maxTokens);
    if (estimateTokens(text) > maxTokens) break;
    Object.assign(kept, trial);
    prompt = text;
  }
  return { prompt, budget: { budget_requested: maxTokens, budget_used: estimateTokens(prompt), elided: elided(parts, assembly, kept) } };
}
