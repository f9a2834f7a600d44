/**
 * The consolidation candidate's event types and the standing every candidate starts with. Its own
 * module so that the replay in folds/ reads them without importing consolidation/'s write path.
 */
export const consolidationInitialReviewStatus = "pending";
export const nonAuthoritative = "non_authoritative";

export const candidateCreatedType = "consolidation.candidate.created";
export const candidateReviewedType = "consolidation.candidate.reviewed";
