/**
 * The answerability signal of a checkout (Python `build_checkout_quality`). Confidence is
 * computed in hundredths so it is exact and identical to Python's rounded float:
 *   0.25 + 0.22·min(facts, 2) + 0.28·min(cited facts, 2) (+0.07 when superseded contexts were
 *   excluded and there are facts), capped at 0.95, minus min(0.35, 0.18·warnings), floored at 0.
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
  currentFactCount: number;
  currentCitationCount: number;
  supersededExcluded: number;
  warningCount: number;
  recommendedNextCall: RecommendedCall;
}

/** Below this confidence a checkout never answers from memory. */
export const answerConfidenceMin = 0.75;

function confidenceHundredths(q: QualityInputs): number {
  let hundredths = 25 + 22 * Math.min(q.currentFactCount, 2) + 28 * Math.min(q.currentCitationCount, 2);
  if (q.supersededExcluded > 0 && q.currentFactCount > 0) hundredths += 7;
  hundredths = Math.min(95, hundredths);
  hundredths -= Math.min(35, 18 * q.warningCount);
  return Math.max(0, hundredths);
}

/**
 * @example
 * checkoutQuality({ currentFactCount: 1, currentCitationCount: 1, supersededExcluded: 0, warningCount: 0, recommendedNextCall })
 * // { answerability: "answer_from_memory", confidence: 0.75, reasons: [...], required_action: null }
 */
export function checkoutQuality(q: QualityInputs): CheckoutQuality {
  const reasons: string[] = [];
  if (q.currentFactCount > 0 && q.currentCitationCount > 0) reasons.push("Retrieved current facts with Eventloom citations.");
  else if (q.currentFactCount > 0) reasons.push("Retrieved current facts, but they lack Eventloom citations.");
  else reasons.push("No current facts were retrieved.");
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
        reason: "No current facts were retrieved; ask the user for the missing context before answering from memory.",
      },
    };
  }
  if (q.currentCitationCount > 0 && q.warningCount === 0 && confidence >= answerConfidenceMin) {
    return { answerability: "answer_from_memory", confidence, reasons, required_action: null };
  }
  return { answerability: "refresh_recommended", confidence, reasons, required_action: { ...q.recommendedNextCall } };
}
