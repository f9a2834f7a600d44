/**
 * Default actors of the consolidation events (design 001/000): candidates are proposed by
 * `zaxy-consolidation` and reviewed by `zaxy-reviewer` unless the caller names an actor. A module
 * of its own so command help can name them without loading the consolidation pipeline.
 */
export const proposeActorDefault = "zaxy-consolidation";
export const proposeFromLogActorDefault = "zaxy-consolidation";
export const reviewActorDefault = "zaxy-reviewer";
