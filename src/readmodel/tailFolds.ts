/**
 * The whole-session folds at a log head past the read model's: the manifest's folds (stored at
 * the base head) continued over the tail of events after it, equal to the folds of the whole log
 * at the new head: same sets, map entries and their order, same causal edges in the same order.
 * Nothing beyond the stored state is needed (each fold in folds/ says why); the tail's events,
 * its graph changes and two lookups are.
 *
 * @example
 * const folds = continueSessionFolds(manifest.folds, {
 *   sessionId, events: tail, changes: fold.diff() ?? noGraphChanges,
 *   lookups: { baseEntity: (key) => ..., event: (seq) => ... },
 * });
 * folds.withheldRuleSeqs().has(seq)
 */
import { type FoldTail, noGraphChanges, type TailFoldLookups, type TailGraphChanges } from "../folds/sessionFold.ts";
import { continuedSessionFolds, type SessionFolds, type StoredFoldState, storedFoldState } from "../folds/sessionFolds.ts";

export { noGraphChanges, storedFoldState };
export type { FoldTail, StoredFoldState, TailFoldLookups, TailGraphChanges };

/**
 * The folds at the new head, from the folds stored at the base head and the tail. `base` is
 * never modified, so one manifest can serve several tails.
 */
export function continueSessionFolds(base: StoredFoldState, tail: FoldTail): SessionFolds {
  return continuedSessionFolds(base, tail);
}
