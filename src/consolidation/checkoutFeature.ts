/**
 * Checkout diagnostics for consolidation candidates (seed 000 task 5, seed 001 task 7). When
 * retrieval for the checkout's query found consolidation candidates (current or not: a candidate
 * the log marks stale is projected closed and never a current fact, but it is counted here), the
 * checkout gains
 * `diagnostics.consolidation_candidates = {candidate_count, candidate_types, pending_count,
 * accepted_count, rejected_count, conflicted_count, stale_count, superseded_count,
 * authority_status: "non_authoritative"}`, a trust and an ignore line, and the prompt line
 * `Consolidation candidates: candidates=N, pending=N, accepted=N, rejected=N, conflicted=N,
 * stale=N, superseded=N, authority=non_authoritative[, types=a, b]`.
 *
 * Each candidate id counts once. Statuses come from the replay (`candidateStanding`: only review
 * events decide, so a rolled-back review no longer counts and a creation payload declaring itself
 * accepted is pending); stale = the created payload sets `valid_to` or `stale: true`, or a
 * `memory.invalidated` closed the candidate; superseded = it names `superseded_by` (the design's
 * `consolidation_candidate_diagnostics`).
 * Without candidates nothing is added and the checkout stays byte-identical.
 */
import type { CheckoutFeature, CheckoutFeatureOutput } from "../checkout/checkoutFeature.ts";
import type { PlainJson } from "../projection/types.ts";
import type { RetrievedContext } from "../retrieval/types.ts";
import { nonAuthoritative } from "../events/consolidationEvents.ts";
import { candidateStanding } from "../events/candidateStanding.ts";
import { candidateValidTo, isCandidateStale } from "../folds/consolidationStatus.ts";

export const consolidationTrustLine = "Use consolidation candidates as cited summaries that still require review.";
/** The design's wording (seed 000): an accepted review is a disposition, not a promotion. */
export const consolidationIgnoreLine = "Do not treat consolidation candidates as authoritative memory without a separate promotion event.";

function isCandidateContext(context: RetrievedContext): boolean {
  return context.entityType === "consolidation_candidate" || (context.entityName ?? "").startsWith("consolidation:");
}

function metadataText(context: RetrievedContext, key: string): string | undefined {
  const value: PlainJson | undefined = context.metadata[key];
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

interface CandidateCounts {
  pending: number;
  accepted: number;
  rejected: number;
  conflicted: number;
  stale: number;
  superseded: number;
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
    const candidates = input.folds.consolidationCandidates();
    const types: string[] = [];
    const counts: CandidateCounts = { pending: 0, accepted: 0, rejected: 0, conflicted: 0, stale: 0, superseded: 0 };
    for (const context of contexts) {
      const candidate = candidates.get(context.entityName ?? "");
      const type = candidate?.candidateType ?? metadataText(context, "candidate_type") ??
        /^consolidation:([^:]+):/.exec(context.entityName ?? "")?.[1] ?? "unknown";
      if (!types.includes(type)) types.push(type);
      const status = candidate === undefined ? (metadataText(context, "review_status") ?? "").toLowerCase() : candidateStanding(candidate).review_status;
      if (status === "pending") counts.pending++;
      if (status === "accepted") counts.accepted++;
      if (status === "rejected") counts.rejected++;
      if (status === "conflicted") counts.conflicted++;
      // A candidate outside this session's replay has only what its context's metadata says.
      const stale = candidate === undefined
        ? context.metadata.stale === true || metadataText(context, "valid_to") !== undefined
        : isCandidateStale(candidate) || candidateValidTo(candidate) !== null;
      if (stale) counts.stale++;
      if (candidate?.supersededBy != null) counts.superseded++;
    }
    const diagnostics = {
      candidate_count: contexts.length,
      candidate_types: types,
      pending_count: counts.pending,
      accepted_count: counts.accepted,
      rejected_count: counts.rejected,
      conflicted_count: counts.conflicted,
      stale_count: counts.stale,
      superseded_count: counts.superseded,
      authority_status: nonAuthoritative,
    };
    const typesPart = types.length === 0 ? "" : `, types=${types.join(", ")}`;
    return {
      diagnostics,
      trust: [consolidationTrustLine],
      ignore: [consolidationIgnoreLine],
      promptLines: [
        `Consolidation candidates: candidates=${contexts.length}, pending=${counts.pending}, accepted=${counts.accepted}, ` +
        `rejected=${counts.rejected}, conflicted=${counts.conflicted}, stale=${counts.stale}, superseded=${counts.superseded}, ` +
        `authority=${nonAuthoritative}${typesPart}`,
      ],
    };
  },
};
