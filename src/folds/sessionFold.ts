/**
 * A whole-session fold: a state computed over a session's entire log that retrieval and the
 * checkout features read (which rule events are withheld, net feedback, causal edges,
 * consolidation candidates). Every fold is written once, as a continuation: `apply` takes the
 * state at some head and what the log added after it, and gives the state at the new head. The
 * state of a whole log is the continuation from `empty()` over all of it (`wholeLogTail`); the
 * read model stores the state at its head (in the form the registry, folds/sessionFolds.ts,
 * gives each fold), and a later read decodes it and continues over the tail. Both paths must give
 * the same state: same sets, map entries and their order, same edges in the same order
 * (tests/folds/session_fold_registry_test.ts).
 *
 * @example
 * const state = fold.apply(fold.empty(), wholeLogTail(sessionId, rows, events));
 * const later = fold.apply(decodeFoldState(fold, JSON.parse(JSON.stringify(encodeFoldState(fold, state)))), tail);
 */
import type { EventRecord } from "../eventloom/envelope.ts";
import type { EntityRow, GraphDiff, RelationRow, SessionGraphRows } from "../projection/types.ts";

/** What a tail changed in the graph (a `GraphDiff` of the tail folded on the base rows). */
export interface TailGraphChanges extends Pick<GraphDiff, "newEntities" | "closedEntities" | "closedRelations"> {
  /** Read in one pass per fold: a whole reproject's are built from its relation store as they pass. */
  newRelations: Iterable<RelationRow>;
}

/** Rows and events of the log at the new head that a continuation may need, read on demand. */
export interface TailFoldLookups {
  /** The base version with this node key as stored at the base head (its base `validTo`), or undefined. */
  baseEntity(nodeKey: string): EntityRow | undefined;
  /** The event with this seq in the log at the new head, base or tail, or undefined. */
  event(seq: number): EventRecord | undefined;
}

/** What happened after the base head. */
export interface FoldTail {
  sessionId: string;
  /** The events after the base head, in seq order. */
  events: readonly EventRecord[];
  /** What those events changed in the graph folded on the base rows. */
  changes: TailGraphChanges;
  lookups: TailFoldLookups;
}

/** One whole-session fold. `apply` never modifies `state` (a stored state can serve several tails). */
export interface SessionFold<State> {
  /** The key the read-model manifest stores this fold under (`folds.<name>`). */
  readonly name: string;
  empty(): State;
  apply(state: State, tail: FoldTail): State;
  /**
   * False for an event `apply` passes over without effect, wherever it stands in a tail (a fold
   * that iterates no events reads none): a whole log can then be folded from the events some
   * fold reads, with `lookups` reaching the others, without holding every event.
   */
  readsEvent(event: EventRecord): boolean;
}

/** The graph changes of a tail that changed nothing (`GraphFold.diff()` is null for no events). */
export const noGraphChanges: TailGraphChanges = { newEntities: [], closedEntities: [], newRelations: [], closedRelations: [] };

/**
 * `events[seq - 1]` when the events are numbered from 1 without gaps (a verified log), else the
 * event with that seq.
 */
function eventBySeq(events: readonly EventRecord[]): (seq: number) => EventRecord | undefined {
  let bySeq: Map<number, EventRecord> | undefined;
  return (seq) => {
    const at = events[seq - 1];
    if (at?.seq === seq) return at;
    bySeq ??= new Map(events.map((event) => [event.seq, event]));
    return bySeq.get(seq);
  };
}

/**
 * A whole log as the tail of an empty base: every event, and every row (`rows` at the log's
 * head, null for a session with no projection) new. What a fold continues from `empty()` over.
 */
export function wholeLogTail(sessionId: string, rows: SessionGraphRows | null, events: readonly EventRecord[]): FoldTail {
  return {
    sessionId,
    events,
    changes: { newEntities: rows?.entities ?? [], closedEntities: [], newRelations: rows?.relations ?? [], closedRelations: [] },
    lookups: { baseEntity: () => undefined, event: eventBySeq(events) },
  };
}
