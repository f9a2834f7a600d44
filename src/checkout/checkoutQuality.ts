/**
 * The answerability signal of a checkout (Python `build_checkout_quality`, plus the query match
 * of queryMatch.ts; docs/checkout.md). Confidence is computed in hundredths so it is exact:
 *   Python's base: 0.25 + 0.22·min(facts, 2) + 0.28·min(cited facts, 2) (+0.07 when superseded
 *   contexts were excluded and there are facts), capped at 0.95, minus min(0.35, 0.18·warnings);
 *   then capped by the match: 0.25 + 0.70·coverage of the query's content terms (0.50 when the
 *   query has none); floored at 0.
 * Answerability: no current fact, or current facts that cover less than a third of the query's
 * content terms, is `ask_user`; `answer_from_memory` needs cited facts, no warnings and a
 * confidence of 0.75 or more (so at least 5/7 of the content terms found); else
 * `refresh_recommended`.
 */
import type { RecommendedCall } from "./checkoutGuidance.ts";

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
  /** The query's content terms and those found in current facts (queryMatch.ts). */
  queryTerms: readonly string[];
  matchedTerms: readonly string[];
  /**
   * The query match's coverage (queryMatch.ts): matched / query terms, or more when the semantic
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
