/**
 * A consolidation candidate's standing from its reviews: the one rule for its review status and
 * authority, which the projection applies to a candidate just created and the replay in
 * folds/consolidationStatus.ts to a candidate's reviews. Its own module so that the projection
 * reads it without importing the replay.
 */
import { consolidationInitialReviewStatus, nonAuthoritative } from "./consolidationEvents.ts";

/** One review of a candidate, as the replay records it. */
export interface CandidateReview {
  seq: number;
  hash: string;
  status: string | null;
  rolledBack: boolean;
}

/** The review that decides the candidate's status: its latest one not rolled back. */
export function survivingReview(candidate: { reviews: readonly CandidateReview[] }, beforeSeq = Infinity): CandidateReview | undefined {
  for (let i = candidate.reviews.length - 1; i >= 0; i--) {
    const review = candidate.reviews[i];
    if (review.seq < beforeSeq && !review.rolledBack && review.status !== null) return review;
  }
  return undefined;
}

/**
 * The status review events gave the candidate: its surviving review's (before `beforeSeq`, when
 * given), else `pending`. This is the only rule for a candidate's review status: the creation
 * event's own `review_status` is never consulted, so a candidate appended raw as "accepted" is
 * pending until a `consolidation.candidate.reviewed` says otherwise.
 *
 * @example
 * reviewedStatus(replayConsolidation(events).candidates.get(id)!) // "pending" before any review
 */
export function reviewedStatus(candidate: { reviews: readonly CandidateReview[] }, beforeSeq = Infinity): string {
  return survivingReview(candidate, beforeSeq)?.status ?? consolidationInitialReviewStatus;
}

/** What a candidate is worth: its review status and its authority, which is never granted. */
export interface CandidateStanding {
  review_status: string;
  authority_status: typeof nonAuthoritative;
}

/**
 * The candidate's standing, the one function every reader of a candidate's review or authority
 * status goes through (the projection, status, checkout, the long-horizon tier). `null` is a
 * candidate just created, before any review: what its creation payload declares does not count.
 *
 * @example
 * candidateStanding(null) // { review_status: "pending", authority_status: "non_authoritative" }
 */
export function candidateStanding(candidate: { reviews: readonly CandidateReview[] } | null): CandidateStanding {
  return { review_status: candidate === null ? consolidationInitialReviewStatus : reviewedStatus(candidate), authority_status: nonAuthoritative };
}
