/**
 * The checkout feature interface (causal context, consolidation candidates, ...): a feature looks
 * at the session and the retrieved contexts and may add one diagnostics section, trust and
 * ignore guidance lines, and prompt lines under "Checkout Diagnostics" (DESIGN §6: a section
 * appears only when it has content, so a checkout without the feature is byte-identical to one
 * from a build without it).
 *
 * The interface lives in checkout/ so that the features (causal/, consolidation/) implement it
 * without importing the checkout orchestrator in memory/, which lists them
 * (memory/checkoutFeatures.ts): layers only point down.
 *
 * @example
 * const contributions = checkoutFeatureContributions({ sessionId, folds, retrieval }, [causalCheckoutFeature]);
 * contributions.extraDiagnostics.causal_context; // present only when the feature had something to say
 */
import type { PlainJson } from "../projection/types.ts";
import type { SessionFolds } from "../retrieval/sessionIndex.ts";
import type { RetrievalResult } from "../retrieval/types.ts";
import type { ExtraGuidance } from "./checkoutPrompt.ts";

export interface CheckoutFeatureInput {
  sessionId: string;
  /**
   * The session's whole-history folds at the log head (causal edges, consolidation candidates);
   * from the log folded in memory when the projection is degraded, so a feature sees the same
   * folds either way.
   */
  folds: SessionFolds;
  /** What retrieval returned for the checkout's query (current and superseded contexts). */
  retrieval: RetrievalResult;
}

export interface CheckoutFeatureOutput {
  /** The diagnostics section's value; omitted from the checkout when empty. */
  diagnostics: PlainJson;
  trust: readonly string[];
  ignore: readonly string[];
  /** Prompt lines without the leading "- ", e.g. `Causal context: contexts=1, edges=2, ...`. */
  promptLines: readonly string[];
}

export interface CheckoutFeature {
  /** The `diagnostics` key the feature owns, e.g. `causal_context`. */
  key: string;
  /** Null when the feature has nothing to say about this checkout. */
  contribute(input: CheckoutFeatureInput): CheckoutFeatureOutput | null;
}

export interface CheckoutFeatureContributions {
  extraDiagnostics: { [key: string]: PlainJson };
  extraGuidance: ExtraGuidance;
  extraDiagnosticLines: string[];
}

/** What `features` add to a checkout, in the order given (the order their sections appear). */
export function checkoutFeatureContributions(input: CheckoutFeatureInput, features: readonly CheckoutFeature[]): CheckoutFeatureContributions {
  const extraDiagnostics: { [key: string]: PlainJson } = {};
  const trust: string[] = [];
  const ignore: string[] = [];
  const extraDiagnosticLines: string[] = [];
  for (const feature of features) {
    const output = feature.contribute(input);
    if (output === null) continue;
    extraDiagnostics[feature.key] = output.diagnostics;
    trust.push(...output.trust);
    ignore.push(...output.ignore);
    extraDiagnosticLines.push(...output.promptLines);
  }
  return { extraDiagnostics, extraGuidance: { trust, ignore }, extraDiagnosticLines };
}
