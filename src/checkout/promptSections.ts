/**
 * Prompts are built from named sections so a token budget can drop whole sections and say which.
 * Sections are separated by one blank line; the unbudgeted prompt is every section joined.
 */
import { inputError } from "../errors.ts";
import { estimateTokens, packSections } from "../retrieval/tokenBudget.ts";

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
