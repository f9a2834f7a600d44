/**
 * Checkout diagnostics for consolidation candidates (DESIGN §6, §8; reference §2.7). When the
 * checkout's current contexts include consolidation candidates, the checkout gains
 * `diagnostics.consolidation_candidates = {candidate_count, candidate_types, pending_count,
 * accepted_count, authority_status: "non_authoritative"}`, a trust and an ignore line, and the
 * prompt line `Consolidation candidates: candidates=N, pending=N, accepted=N,
 * authority=non_authoritative[, types=a, b]`. Statuses come from the replay (so a rolled-back
 * review no longer counts), not from the projection. Without candidates nothing is added and
 * the checkout stays byte-identical.
 */
import type { CheckoutFeature, CheckoutFeatureOutput } from "../memory/checkoutFeatures.ts";
import type { PlainJson } from "../projection/types.ts";
import type { RetrievedContext } from "../retrieval/types.ts";
import { nonAuthoritative } from "./candidate.ts";
import { effectiveReviewStatus, replayConsolidation } from "./status.ts";

export const consolidationTrustLine = "Use consolidation candidates as cited summaries that still require review.";
export const consolidationIgnoreLine = "Do not treat review-pending consolidation candidates as authoritative memory.";

function isCandidateContext(context: RetrievedContext): boolean {
  return context.validTo === null &&
    (context.entityType === "consolidation_candidate" || (context.entityName ?? "").startsWith("consolidation:"));
}

function metadataText(context: RetrievedContext, key: string): string | undefined {
  const value: PlainJson | undefined = context.metadata[key];
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

export const consolidationCheckoutFeature: CheckoutFeature = {
  key: "consolidation_candidates",
  contribute(input): CheckoutFeatureOutput | null {
    const seen = new Set<string>();
    const contexts = input.retrieval.contexts.filter((context) => {
      if (!isCandidateContext(context)) return false;
      const key = context.entityName ?? context.citation ?? context.content;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    if (contexts.length === 0) return null;
    const replay = replayConsolidation(input.events);
    const types: string[] = [];
    let pending = 0;
    let accepted = 0;
    for (const context of contexts) {
      const candidate = replay.candidates.get(context.entityName ?? "");
      const type = candidate?.candidateType ?? metadataText(context, "candidate_type") ??
        /^consolidation:([^:]+):/.exec(context.entityName ?? "")?.[1] ?? "unknown";
      if (!types.includes(type)) types.push(type);
      const status = candidate === undefined ? (metadataText(context, "review_status") ?? "").toLowerCase() : effectiveReviewStatus(candidate);
      if (status === "pending") pending++;
      if (status === "accepted") accepted++;
    }
    const diagnostics = {
      candidate_count: contexts.length,
      candidate_types: types,
      pending_count: pending,
      accepted_count: accepted,
      authority_status: nonAuthoritative,
    };
    const typesPart = types.length === 0 ? "" : `, types=${types.join(", ")}`;
    return {
      diagnostics,
      trust: [consolidationTrustLine],
      ignore: [consolidationIgnoreLine],
      promptLines: [
        `Consolidation candidates: candidates=${contexts.length}, pending=${pending}, accepted=${accepted}, authority=${nonAuthoritative}${typesPart}`,
      ],
    };
  },
};
