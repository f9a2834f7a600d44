/**
 * Context assembly and Memory Checkout (DESIGN §6): turn a retrieval result and the recent
 * replay window into a prompt-ready, cited memory state. Pure functions of their input: the
 * same input gives byte-identical JSON. The output contract is documented in docs/checkout.md.
 *
 * @example
 * import { buildCheckout } from "./mod.ts";
 * const checkout = buildCheckout({
 *   sessionId: "default", query: "what blocks the release?", retrieval,
 *   recentEvents: events.slice(-20), withheldRuleSeqs: index.folds.withheldRuleSeqs(),
 *   replayEventCount: Math.min(20, events.length),
 *   compacted: events.length > 20, limit: 10, maxTokens: 1200,
 * });
 * console.log(JSON.stringify(checkout));
 */
export {
  answerConfidenceMin,
  type Answerability,
  type AskUserAction,
  type AssembledContext,
  assembleContext,
  type AssembleInput,
  type AssemblyPolicy,
  type CheckoutGuidance,
  type CheckoutQuality,
  type ContextAssembly,
  type ContextCounts,
  type CurrentFact,
  type ElidedSection,
  eventText,
  type EvidenceItem,
  type ExtraGuidance,
  type FeedbackPayload,
  feedbackPayloadsMax,
  type PromptBudget,
  type ProvenanceItem,
  type RecommendedCall,
  refreshQuery,
  sectionWeights,
  verbatimSlots,
} from "./promptAssembly.ts";
export {
  buildCheckout,
  type CheckoutDiagnostics,
  type CheckoutInput,
  type CheckoutRef,
  type CheckoutRetention,
  checkoutTokens,
  type MemoryCheckout,
  rankForCheckout,
} from "./checkout.ts";
