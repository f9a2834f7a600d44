/**
 * Context assembly and Memory Checkout (DESIGN §6): turn a retrieval result and the recent
 * replay window into a prompt-ready, cited memory state. Pure functions of their input: the
 * same input gives byte-identical JSON. The output contract is documented in docs/checkout.md.
 *
 * @example
 * import { buildCheckout } from "./mod.ts";
 * const checkout = buildCheckout({
 *   sessionId: "default", query: "what blocks the release?", retrieval,
 *   recentEvents: events.slice(-20), replayEventCount: Math.min(20, events.length),
 *   compacted: events.length > 20, limit: 10, maxTokens: 1200,
 * });
 * console.log(JSON.stringify(checkout));
 */
export { type AssembledContext, assembleContext, type AssembleInput, type AssemblyPolicy, type ContextAssembly, type ContextCounts, verbatimSlots } from "./promptAssembly.ts";
export { eventText } from "./promptAssembly.ts";
export {
  buildCheckout,
  type CheckoutDiagnostics,
  type CheckoutInput,
  type CheckoutRef,
  type CheckoutRetention,
  type MemoryCheckout,
} from "./checkout.ts";
export {
  type CheckoutGuidance,
  type ExtraGuidance,
  type FeedbackPayload,
  feedbackPayloadsMax,
  type RecommendedCall,
  refreshQuery,
} from "./promptAssembly.ts";
export type { CurrentFact, EvidenceItem, ProvenanceItem } from "./promptAssembly.ts";
export { answerConfidenceMin, type Answerability, type AskUserAction, type CheckoutQuality } from "./promptAssembly.ts";
export { type ElidedSection, type PromptBudget, sectionWeights } from "./promptAssembly.ts";
export { checkoutTokens, rankForCheckout } from "./checkout.ts";
