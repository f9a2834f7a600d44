/**
 * The in-memory search structures of one session at one projection head: entity versions with
 * their names and BM25 text, current relations as adjacency, the raw events for the verbatim
 * lane, and the session's vector postings. Built once per head; `zaxy serve` keeps it warm.
 */
import type { EventRecord } from "../eventloom/envelope.ts";
import type { SessionVectorIndex } from "../projection/vectorIndex.ts";
import type { EntityRow, RelationRow, SessionGraphRows } from "../projection/types.ts";
import { RegistrySessionFolds, type SessionFolds, wholeLogFoldSource } from "../folds/sessionFolds.ts";
import { type Bm25Corpus, type Bm25Hit, Bm25Index } from "./bm25.ts";
import { entitySearchText, rawEventText } from "../vector/textAnalysis.ts";

export type { SessionFolds };

export interface Neighbour {
  entity: number;
  relationType: string;
}

/**
 * What retrieval and checkout read from one session at one head. Every read answers from the
 * on-disk read model (`readmodel/diskSessionIndex.ts`, read lazily so a fresh process pays for
 * what a query touches; a degraded read builds one in a scratch directory), or from
 * `EmptySessionIndex` for a session with no events. `buildSessionIndex` builds the same index in
 * memory from rows and events: the reference the read model is tested against, and what a
 * benchmark over a dataset without a log searches. All must give the same answers: positions,
 * order and scores.
 */
export interface SessionIndex {
  readonly sessionId: string;
  /** Events at the head; event positions are seq - 1. */
  readonly eventCount: number;
  event(position: number): EventRecord;
  /** Events of positions [from, to), in order. */
  eventRange(from: number, to: number): EventRecord[];
  /** Entity versions in fold order; a version's position is its vector key. */
  readonly entityCount: number;
  entity(position: number): EntityRow;
  /** Positions of the versions whose lowercased name is `name`, ascending. */
  namePositions(name: string): readonly number[];
  positionOfVectorKey(key: number): number | undefined;
  /** BM25 over entity text (name, type, summary, string and number property values). */
  keywordSearch(terms: readonly string[], limit: number): Bm25Hit[];
  /** BM25 over each event's raw text; doc id = event position. */
  verbatimSearch(terms: readonly string[], limit: number): Bm25Hit[];
  /**
   * The BM25 corpora behind `keywordSearch` and `verbatimSearch` (doc id = entity position, event
   * position), so an index over a few more events (readmodel/tailOverlayIndex.ts) can score its
   * documents together with these under the statistics of the whole.
   */
  keywordCorpus(): Bm25Corpus;
  verbatimCorpus(): Bm25Corpus;
  /** The first `limit` current relations of the version at `position`, both directions, in relation order. */
  neighbours(position: number, limit: number): readonly Neighbour[];
  readonly vectors: SessionVectorIndex | null;
  readonly folds: SessionFolds;
  /** Releases open files (a server closes an index it evicts); the index is unusable after. */
  close(): void;
}

/** The folds of a whole log, constructed from its rows and events (folds/sessionFolds.ts). */
export class MemorySessionFolds extends RegistrySessionFolds {
  constructor(sessionId: string, rows: SessionGraphRows | null, events: readonly EventRecord[]) {
    super(wholeLogFoldSource(sessionId, rows, events));
  }
}

/**
 * The in-memory index: every structure built up front from the rows and events (the reference
 * implementation; reads go through the read model).
 */
export class MemorySessionIndex implements SessionIndex {
  readonly entityCount: number;
  readonly eventCount: number;
  readonly folds: SessionFolds;

  constructor(
    readonly sessionId: string,
    readonly events: readonly EventRecord[],
    readonly entities: readonly EntityRow[],
    /** Exposed to the read-model writer, which stores these as they are (readmodel/). */
    readonly byName: ReadonlyMap<string, readonly number[]>,
    private readonly byVectorKey: Map<number, number>,
    readonly keyword: Bm25Index,
    readonly verbatim: Bm25Index,
    readonly adjacency: ReadonlyMap<number, readonly Neighbour[]>,
    readonly vectors: SessionVectorIndex | null,
    readonly rows: SessionGraphRows | null,
  ) {
    this.entityCount = entities.length;
    this.eventCount = events.length;
    this.folds = new MemorySessionFolds(sessionId, rows, events);
  }

  event(position: number): EventRecord {
    return this.events[position];
  }

  eventRange(from: number, to: number): EventRecord[] {
    return this.events.slice(from, to);
  }

  entity(position: number): EntityRow {
    return this.entities[position];
  }

  namePositions(name: string): readonly number[] {
    return this.byName.get(name) ?? [];
  }

  positionOfVectorKey(key: number): number | undefined {
    return this.byVectorKey.get(key);
  }

  keywordSearch(terms: readonly string[], limit: number): Bm25Hit[] {
    return this.keyword.search(terms, limit);
  }

  verbatimSearch(terms: readonly string[], limit: number): Bm25Hit[] {
    return this.verbatim.search(terms, limit);
  }

  keywordCorpus(): Bm25Corpus {
    return this.keyword.corpus();
  }

  verbatimCorpus(): Bm25Corpus {
    return this.verbatim.corpus();
  }

  neighbours(position: number, limit: number): readonly Neighbour[] {
    return (this.adjacency.get(position) ?? []).slice(0, limit);
  }

  close(): void {
    // Nothing is open: the structures are garbage once the index is dropped.
  }
}

/** Entity positions by lowercased name (the exact lane), positions ascending. */
export function namePositionsOf(entities: readonly EntityRow[]): Map<string, number[]> {
  const byName = new Map<string, number[]>();
  entities.forEach((entity, i) => {
    const name = entity.name.toLowerCase();
    const list = byName.get(name);
    if (list === undefined) byName.set(name, [i]);
    else list.push(i);
  });
  return byName;
}

/**
 * Current relations as adjacency between entity positions, both directions, in relation order.
 * A node key names one version; if two rows share one (they cannot, see graphFold.ts) the later wins.
 */
export function currentAdjacency(entities: readonly EntityRow[], relations: readonly RelationRow[]): Map<number, Neighbour[]> {
  const byKey = new Map<string, number>();
  entities.forEach((entity, i) => byKey.set(entity.nodeKey, i));
  const adjacency = new Map<number, Neighbour[]>();
  const link = (from: number, to: number, relationType: string) => {
    const list = adjacency.get(from);
    if (list === undefined) adjacency.set(from, [{ entity: to, relationType }]);
    else list.push({ entity: to, relationType });
  };
  for (const relation of relations) {
    if (relation.validTo !== null) continue;
    const source = byKey.get(relation.sourceKey);
    const target = byKey.get(relation.targetKey);
    if (source === undefined || target === undefined) continue;
    link(source, target, relation.relationType);
    if (source !== target) link(target, source, relation.relationType);
  }
  return adjacency;
}

export function buildSessionIndex(
  sessionId: string,
  rows: SessionGraphRows | null,
  events: readonly EventRecord[],
  vectors: SessionVectorIndex | null,
): MemorySessionIndex {
  const entities = rows?.entities ?? [];
  const byVectorKey = new Map<number, number>();
  const keyword = new Bm25Index();
  entities.forEach((entity, i) => {
    byVectorKey.set(entity.vectorKey, i);
    keyword.add(entitySearchText(entity));
  });
  const adjacency = currentAdjacency(entities, rows?.relations ?? []);
  const verbatim = new Bm25Index({ averageLengthFloor: 1 });
  for (const event of events) verbatim.add(rawEventText(event));
  return new MemorySessionIndex(sessionId, events, entities, namePositionsOf(entities), byVectorKey, keyword, verbatim, adjacency, vectors, rows);
}

/**
 * The index of a session with no events: no event, no entity version, no vector index; its folds
 * are those of an empty log. What a read of a session without a log (or with an empty one)
 * answers from; there is nothing to write a read model of.
 */
export class EmptySessionIndex implements SessionIndex {
  readonly eventCount = 0;
  readonly entityCount = 0;
  readonly vectors = null;
  readonly folds: SessionFolds;

  constructor(readonly sessionId: string, rows: SessionGraphRows | null) {
    this.folds = new MemorySessionFolds(sessionId, rows, []);
  }

  event(position: number): EventRecord {
    throw new RangeError(`session ${JSON.stringify(this.sessionId)} has no event at position ${position}`);
  }

  eventRange(): EventRecord[] {
    return [];
  }

  entity(position: number): EntityRow {
    throw new RangeError(`session ${JSON.stringify(this.sessionId)} has no entity version at position ${position}`);
  }

  namePositions(): readonly number[] {
    return [];
  }

  positionOfVectorKey(): number | undefined {
    return undefined;
  }

  keywordSearch(): Bm25Hit[] {
    return [];
  }

  verbatimSearch(): Bm25Hit[] {
    return [];
  }

  keywordCorpus(): Bm25Corpus {
    return new Bm25Index().corpus();
  }

  verbatimCorpus(): Bm25Corpus {
    return new Bm25Index({ averageLengthFloor: 1 }).corpus();
  }

  neighbours(): readonly Neighbour[] {
    return [];
  }

  close(): void {
    // Nothing is open.
  }
}
