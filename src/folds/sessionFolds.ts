/**
 * The whole-session folds retrieval and the checkout features read, one registered
 * `SessionFold` per feature, and the one `SessionFolds` that serves them from any of three
 * sources: a whole log (the fold from `empty()` over every event and row), the state the read
 * model stored at its head (decoded), or that state continued over a tail of events. Each fold is
 * computed on first use and then remembered, so a read pays only for the folds it touches.
 *
 * The registry also says how each fold's state is stored (`storedForms`), so what the manifest
 * keeps under `folds` is defined here, in one place, and a reader of the stored folds needs only
 * this module. What must never change without bumping the read-model
 * schema (readmodel/manifest.ts): the registry's names, their order (the manifest's `folds`
 * object lists them in this order) and each stored form, since a stored state is continued as it
 * was written.
 *
 * @example
 * const folds = sessionFoldsOfLog(sessionId, rows, events);
 * folds.withheldRuleSeqs().has(seq);
 * const stored = storedFoldState(folds); // what the manifest keeps under `folds`
 * continueSessionFolds(stored, tail).reinforcement();
 */
import type { EventRecord } from "../eventloom/envelope.ts";
import { type GraphRows, relationIterable } from "../projection/relationStore.ts";
import type { SessionGraphRows } from "../projection/types.ts";
import { type CausalEdge, causalEdgesFold } from "./causalEdges.ts";
import { type CandidateState, consolidationCandidatesFold } from "./consolidationStatus.ts";
import { reinforcementFold } from "./reinforcement.ts";
import { withheldRuleSeqsFold } from "./ruleStatus.ts";
import { type FoldTail, type SessionFold, wholeLogTail } from "./sessionFold.ts";

/**
 * Folds over a whole session that retrieval and the checkout features read: which rule events
 * are withheld, the net feedback per entity, the causal edges and the consolidation candidates.
 */
export interface SessionFolds {
  withheldRuleSeqs(): ReadonlySet<number>;
  reinforcement(): ReadonlyMap<string, number>;
  causalEdges(): readonly CausalEdge[];
  consolidationCandidates(): ReadonlyMap<string, CandidateState>;
}

/** What the read-model manifest stores under `folds`: each fold's `encode` under its name. */
export type StoredFoldState = {
  withheld_rule_seqs: number[];
  reinforcement: Array<[string, number]>;
  causal_edges: CausalEdge[];
  consolidation_candidates: Array<[string, CandidateState]>;
};

/** The fold behind each `SessionFolds` method, in the order the manifest stores them. */
export const sessionFoldRegistry = {
  withheldRuleSeqs: withheldRuleSeqsFold,
  reinforcement: reinforcementFold,
  causalEdges: causalEdgesFold,
  consolidationCandidates: consolidationCandidatesFold,
} satisfies { readonly [K in keyof SessionFolds]: SessionFold<ReturnType<SessionFolds[K]>> };

/**
 * How a fold's state is kept in the manifest: `decode` of `encode(state)` after a JSON round trip
 * continues exactly as `state` does (same members, entries and order).
 */
export interface StoredForm<State, Json> {
  encode(state: State): Json;
  decode(json: Json): State;
}

/** A set of seqs, stored as its members in set order (ascending, as the rule fold keeps them). */
const seqSet: StoredForm<ReadonlySet<number>, number[]> = { encode: (seqs) => [...seqs], decode: (seqs) => new Set(seqs) };

/** A map kept in insertion order, stored as its `[key, value]` entries in that order. */
function entryList<Value>(): StoredForm<ReadonlyMap<string, Value>, Array<[string, Value]>> {
  return { encode: (map) => [...map], decode: (entries) => new Map(entries) };
}

/** The causal edges, stored as themselves in order (a JSON round trip keeps their key order). */
const edgeList: StoredForm<readonly CausalEdge[], CausalEdge[]> = { encode: (edges) => [...edges], decode: (edges) => edges };

/** Each registered fold's stored form, under the same key as in `sessionFoldRegistry`. */
export const storedForms = {
  withheldRuleSeqs: seqSet,
  reinforcement: entryList<number>(),
  causalEdges: edgeList,
  consolidationCandidates: entryList<CandidateState>(),
} satisfies { readonly [K in keyof SessionFolds]: StoredForm<ReturnType<SessionFolds[K]>, StoredFoldState[keyof StoredFoldState]> };

/** The registered folds' stored forms, by fold. */
const storedFormByFold: ReadonlyMap<SessionFold<unknown>, StoredForm<unknown, unknown>> = new Map(
  (Object.keys(sessionFoldRegistry) as (keyof SessionFolds)[]).map((key) => [sessionFoldRegistry[key], storedForms[key]]),
);

function storedFormOf<State>(fold: SessionFold<State>): StoredForm<State, unknown> {
  const form = storedFormByFold.get(fold);
  if (form === undefined) throw new Error(`the fold ${fold.name} is not registered`);
  return form as StoredForm<State, unknown>;
}

/** `state` of a registered fold in the form the manifest stores it. */
export function encodeFoldState<State>(fold: SessionFold<State>, state: State): unknown {
  return storedFormOf(fold).encode(state);
}

/** The state of a registered fold from the form the manifest stores it in. */
export function decodeFoldState<State>(fold: SessionFold<State>, json: unknown): State {
  return storedFormOf(fold).decode(json);
}

/** Gives a registered fold's state at the head the folds are for. */
export type FoldSource = <State>(fold: SessionFold<State>) => State;

/** The manifest keeps under each fold's name what its stored form's `encode` gave. */
function storedState<State>(stored: StoredFoldState, fold: SessionFold<State>): State {
  return decodeFoldState(fold, stored[fold.name as keyof StoredFoldState]);
}

/** Each registered fold computed from `source` on first use, then remembered. */
export class RegistrySessionFolds implements SessionFolds {
  private readonly states = new Map<SessionFold<unknown>, unknown>();

  constructor(private readonly source: FoldSource) {}

  private state<State>(fold: SessionFold<State>): State {
    if (!this.states.has(fold)) this.states.set(fold, this.source(fold));
    return this.states.get(fold) as State;
  }

  withheldRuleSeqs(): ReadonlySet<number> {
    return this.state(sessionFoldRegistry.withheldRuleSeqs);
  }

  reinforcement(): ReadonlyMap<string, number> {
    return this.state(sessionFoldRegistry.reinforcement);
  }

  causalEdges(): readonly CausalEdge[] {
    return this.state(sessionFoldRegistry.causalEdges);
  }

  consolidationCandidates(): ReadonlyMap<string, CandidateState> {
    return this.state(sessionFoldRegistry.consolidationCandidates);
  }
}

/**
 * A whole log as a fold source: every fold from `empty()` over all `events` and `rows` (null: no
 * projection, so no graph changes).
 */
export function wholeLogFoldSource(sessionId: string, rows: SessionGraphRows | null, events: readonly EventRecord[]): FoldSource {
  let tail: FoldTail | undefined;
  return (fold) => fold.apply(fold.empty(), tail ??= wholeLogTail(sessionId, rows, events));
}

/** Whether some registered fold reads `event` (`SessionFold.readsEvent`). */
export function someSessionFoldReads(event: EventRecord): boolean {
  for (const fold of Object.values(sessionFoldRegistry)) if (fold.readsEvent(event)) return true;
  return false;
}

/** The registered folds in registry order: bit `i` of `sessionFoldsReading` is fold `i`. */
const registeredFolds: readonly SessionFold<unknown>[] = Object.values(sessionFoldRegistry);

/** Which registered folds read `event`: bit `i` set when the `i`-th of the registry does. */
export function sessionFoldsReading(event: EventRecord): number {
  let folds = 0;
  registeredFolds.forEach((fold, i) => {
    if (fold.readsEvent(event)) folds |= 1 << i;
  });
  return folds;
}

/**
 * A whole log as a fold source when only the seqs of the events some fold reads were kept, each
 * with `sessionFoldsReading`'s bits: a fold is given the events it reads, read again by seq when
 * it is computed and dropped after it, so that no parsed event is held while the log is folded.
 * Gives the same states as `keptEventsFoldSource` over the events themselves (a fold passes over
 * the events it does not read).
 */
export function keptSeqsFoldSource(
  sessionId: string,
  rows: GraphRows,
  kept: { readonly seqs: ArrayLike<number>; readonly folds: ArrayLike<number>; readonly count: number },
  eventAt: (seq: number) => EventRecord | undefined,
): FoldSource {
  return (fold) => {
    const bit = 1 << registeredFolds.indexOf(fold);
    const events: EventRecord[] = [];
    for (let i = 0; i < kept.count; i++) {
      if ((kept.folds[i] & bit) === 0) continue;
      const event = eventAt(kept.seqs[i]);
      if (event === undefined) throw new Error(`the log has no event ${kept.seqs[i]}, which a fold read as it was folded`);
      events.push(event);
    }
    return keptEventsFoldSource(sessionId, rows, events, eventAt)(fold);
  };
}

/**
 * A whole log as a fold source when only the events some fold reads were kept (in seq order):
 * every other event is reached by seq through `eventAt`, read again from the log. Gives the
 * same states as `wholeLogFoldSource` over every event.
 */
export function keptEventsFoldSource(sessionId: string, rows: GraphRows, keptEvents: readonly EventRecord[], eventAt: (seq: number) => EventRecord | undefined): FoldSource {
  const tail: FoldTail = {
    sessionId,
    events: keptEvents,
    changes: { newEntities: rows.entities, closedEntities: [], newRelations: relationIterable(rows.relations), closedRelations: [] },
    lookups: { baseEntity: () => undefined, event: eventAt },
  };
  return (fold) => fold.apply(fold.empty(), tail);
}

/** The folds of a whole log (see `wholeLogFoldSource`). */
export function sessionFoldsOfLog(sessionId: string, rows: SessionGraphRows | null, events: readonly EventRecord[]): SessionFolds {
  return new RegistrySessionFolds(wholeLogFoldSource(sessionId, rows, events));
}

/** The folds as the read model stored them at its head. */
export function storedSessionFolds(stored: StoredFoldState): SessionFolds {
  return new RegistrySessionFolds((fold) => storedState(stored, fold));
}

/**
 * The folds at the head of `tail`: the state stored at the base head continued over the tail.
 * `stored` is never modified, so one manifest can serve several tails.
 */
export function continueSessionFolds(stored: StoredFoldState, tail: FoldTail): SessionFolds {
  return new RegistrySessionFolds((fold) => fold.apply(storedState(stored, fold), tail));
}

/** The folds as the manifest stores them; what the read-model writer writes and a continuation reads. */
export function storedFoldState(folds: SessionFolds): StoredFoldState {
  return {
    withheld_rule_seqs: storedForms.withheldRuleSeqs.encode(folds.withheldRuleSeqs()),
    reinforcement: storedForms.reinforcement.encode(folds.reinforcement()),
    causal_edges: storedForms.causalEdges.encode(folds.causalEdges()),
    consolidation_candidates: storedForms.consolidationCandidates.encode(folds.consolidationCandidates()),
  };
}
