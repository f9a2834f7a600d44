/**
 * The whole-session folds at a log head past the read model's: the manifest's folds (stored at
 * the base head) continued over the tail of events after it, equal to the folds of the whole log
 * at the new head: same sets, map entries and their order, same causal edges in the same order.
 * Nothing beyond the stored state is needed (each fold in folds/ says why); the tail's events,
 * its graph changes and two lookups are. The folds and their continuation live in
 * folds/sessionFolds.ts; this module is the read model's door to them.
 *
 * @example
 * const folds = continueSessionFolds(manifest.folds, {
 *   sessionId, events: tail, changes: fold.diff() ?? noGraphChanges,
 *   lookups: { baseEntity: (key) => ..., event: (seq) => ... },
 * });
 * folds.withheldRuleSeqs().has(seq)
 */
export { noGraphChanges } from "../folds/sessionFold.ts";
export type { FoldTail, TailFoldLookups, TailGraphChanges } from "../folds/sessionFold.ts";
export { continueSessionFolds, storedFoldState } from "../folds/sessionFolds.ts";
export type { StoredFoldState } from "../folds/sessionFolds.ts";
