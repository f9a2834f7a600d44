/**
 * The whole-session folds at a log head past the read model's: the manifest's folds (stored at
 * the base head) continued over the tail of events after it, equal to the folds of the whole log
 * at the new head (`MemorySessionFolds` over all rows and events): same sets, map entries and
 * their order, same causal edges in the same order. Nothing beyond the stored results is needed
 * (each continuation says why); the tail's events, its graph changes and two lookups are.
 *
 * @example
 * const folds = continueSessionFolds(manifest.folds, {
 *   sessionId, events: tail, changes: fold.diff() ?? noGraphChanges,
 *   lookups: { baseEntity: (key) => ..., event: (seq) => ... },
 * });
 * folds.withheldRuleSeqs().has(seq)
 */
import { type CausalEdge } from "../folds/causalEdges.ts";
import { continueCausalEdges, type TailFoldLookups, type TailGraphChanges } from "../folds/continueCausalEdges.ts";
import { type CandidateState, continueConsolidationCandidates } from "../folds/consolidationStatus.ts";
import type { EventRecord } from "../eventloom/envelope.ts";
import { continueWithheldRuleEventSeqs } from "../folds/ruleStatus.ts";
import { continueReinforcement } from "../retrieval/reinforcement.ts";
import type { SessionFolds } from "../retrieval/sessionIndex.ts";
import type { ReadModelManifest } from "./manifest.ts";

export type { TailFoldLookups, TailGraphChanges };

/** The folds as the manifest stores them (JSON): the state a continuation starts from. */
export type StoredFoldState = ReadModelManifest["folds"];

/** What happened after the base head. */
export interface FoldTail {
  sessionId: string;
  /** The events after the base head, in seq order. */
  events: readonly EventRecord[];
  /** What those events changed in the graph folded on the base rows. */
  changes: TailGraphChanges;
  lookups: TailFoldLookups;
}

/** The graph changes of a tail that changed nothing (`GraphFold.diff()` is null for no events). */
export const noGraphChanges: TailGraphChanges = { newEntities: [], closedEntities: [], newRelations: [], closedRelations: [] };

/** The folds as the manifest stores them; what `writeReadModel` writes and a continuation reads. */
export function storedFoldState(folds: SessionFolds): StoredFoldState {
  return {
    withheld_rule_seqs: [...folds.withheldRuleSeqs()],
    reinforcement: [...folds.reinforcement()],
    causal_edges: [...folds.causalEdges()],
    consolidation_candidates: [...folds.consolidationCandidates()],
  };
}

/** Each fold is continued on first use, then remembered, as the in-memory folds are computed. */
class TailSessionFolds implements SessionFolds {
  private withheld?: ReadonlySet<number>;
  private net?: ReadonlyMap<string, number>;
  private edges?: readonly CausalEdge[];
  private candidates?: ReadonlyMap<string, CandidateState>;

  constructor(private readonly base: StoredFoldState, private readonly tail: FoldTail) {}

  withheldRuleSeqs(): ReadonlySet<number> {
    return this.withheld ??= continueWithheldRuleEventSeqs(this.base.withheld_rule_seqs, this.tail.events, (seq) => this.tail.lookups.event(seq));
  }

  reinforcement(): ReadonlyMap<string, number> {
    return this.net ??= continueReinforcement(this.base.reinforcement, this.tail.events);
  }

  causalEdges(): readonly CausalEdge[] {
    return this.edges ??= continueCausalEdges(this.tail.sessionId, this.base.causal_edges, this.tail.changes, this.tail.lookups);
  }

  consolidationCandidates(): ReadonlyMap<string, CandidateState> {
    return this.candidates ??= continueConsolidationCandidates(this.base.consolidation_candidates, this.tail.events);
  }
}

/**
 * The folds at the new head, from the folds stored at the base head and the tail. `base` is
 * never modified, so one manifest can serve several tails.
 */
export function continueSessionFolds(base: StoredFoldState, tail: FoldTail): SessionFolds {
  return new TailSessionFolds(base, tail);
}
