/**
 * A session index at the log head N built from an index at an earlier head H (in production the
 * on-disk read model) and the tail of events H+1..N folded in memory: what a fresh read answers
 * from when the log is a short tail ahead of the read model, writing nothing.
 *
 * The rows at N are the rows at H, with the versions and relations the tail closed given their
 * `validTo`, followed by the tail's new versions and relations (GraphFold appends; it never
 * reorders or deletes). So every answer is the base's with the tail's appended:
 * - events, entity versions: positions below the base's counts are the base's (a version the
 *   tail closed shows the tail's `validTo`), the rest the tail's;
 * - names: the base's positions, then the tail's (all higher);
 * - BM25: the base's documents and the tail's scored as one corpus with the statistics of the
 *   whole (retrieval/bm25.ts `Bm25CorpusScorer`), so hits, doubles and tie order are those of one index;
 * - neighbours: the base's current relations at the position (with their identity, so that those
 *   the tail closed are dropped), then the tail's current relations, in relation order, both
 *   directions, a self-loop once — `currentAdjacency`'s semantics over the rows at N;
 * - vectors: the caller's index at the head: the base's loaded and extended by the tail's
 *   versions exactly as a full catch-up extends it (`extendVectorIndex`), so that the vector
 *   lane's approximate search visits the same graph and gives the same candidates.
 * Answers equal `buildSessionIndex` over the rows and events at N (tests/scaling/tail_overlay_test.ts).
 *
 * @example
 * const fold = GraphFold.onLazyBase(sessionId, lazyBase);
 * for (const event of tail) fold.apply(event, extractEvent(event));
 * const diff = fold.diff()!;
 * const vectors = await extendVectorIndex(diskIndex.vectors, diff.newEntities);
 * const index = new TailOverlayIndex(diskIndex, diff, tail, foldsAtHead, readModelLookups, vectors);
 * index.keywordSearch(queryTerms("postgres decision"), 10); // as buildSessionIndex at the head
 */
import type { EventRecord } from "../eventloom/envelope.ts";
import type { SessionVectorIndex } from "../projection/vectorIndex.ts";
import type { EntityRow, GraphDiff, SessionGraphRows } from "../projection/types.ts";
import { type Bm25Corpus, Bm25CorpusScorer, type Bm25Hit, Bm25Index, chainedBm25Corpus } from "../retrieval/bm25.ts";
import { type Neighbour, type SessionFolds, type SessionIndex } from "../retrieval/sessionIndex.ts";
import { entitySearchText, rawEventText } from "../vector/textAnalysis.ts";

/** A relation current at the base head, by the positions of its endpoints. */
export interface BaseRelation {
  relKey: string;
  sourcePosition: number;
  targetPosition: number;
  relationType: string;
}

/** What the overlay reads of the base beyond its `SessionIndex` answers (the read model provides them). */
export interface TailOverlayLookups {
  /** The position (= vector key) of a base version, or undefined when the base holds no such version. */
  basePositionOf(nodeKey: string): number | undefined;
  /**
   * The relations current at the base head with the version at `position` as source or target,
   * each once (a self-loop too), in relation order; only relations whose both endpoints are base
   * versions (as `currentAdjacency` keeps).
   */
  baseCurrentRelationsAt(position: number): readonly BaseRelation[];
}

/**
 * Lookups answered from the base's rows in memory: the reference the read model's are tested
 * against, and what an in-memory base uses.
 *
 * @example
 * new TailOverlayIndex(buildSessionIndex(id, rows, events, null), diff, tail, folds, rowsTailOverlayLookups(rows));
 */
export function rowsTailOverlayLookups(rows: SessionGraphRows): TailOverlayLookups {
  const positionByKey = new Map<string, number>();
  rows.entities.forEach((entity, i) => positionByKey.set(entity.nodeKey, i));
  const byPosition = new Map<number, BaseRelation[]>();
  const add = (position: number, relation: BaseRelation) => {
    const list = byPosition.get(position);
    if (list === undefined) byPosition.set(position, [relation]);
    else list.push(relation);
  };
  for (const row of rows.relations) {
    if (row.validTo !== null) continue;
    const sourcePosition = positionByKey.get(row.sourceKey);
    const targetPosition = positionByKey.get(row.targetKey);
    if (sourcePosition === undefined || targetPosition === undefined) continue;
    const relation = { relKey: row.relKey, sourcePosition, targetPosition, relationType: row.relationType };
    add(sourcePosition, relation);
    if (targetPosition !== sourcePosition) add(targetPosition, relation);
  }
  return {
    basePositionOf: (nodeKey) => positionByKey.get(nodeKey),
    baseCurrentRelationsAt: (position) => byPosition.get(position) ?? [],
  };
}

export class TailOverlayIndex implements SessionIndex {
  readonly sessionId: string;
  readonly eventCount: number;
  readonly entityCount: number;
  readonly vectors: SessionVectorIndex | null;
  private readonly baseEventCount: number;
  private readonly baseEntityCount: number;
  private readonly newEntities: readonly EntityRow[];
  /** `validTo` of the base versions the tail closed, by node key. */
  private readonly closedVersions: ReadonlyMap<string, string>;
  private readonly closedRelations: ReadonlySet<string>;
  private readonly tailNames = new Map<string, number[]>();
  private readonly tailAdjacency = new Map<number, Neighbour[]>();
  private readonly keywordCorpora: readonly Bm25Corpus[];
  private readonly verbatimCorpora: readonly Bm25Corpus[];
  private readonly keywordScorer = new Bm25CorpusScorer();
  private readonly verbatimScorer = new Bm25CorpusScorer();

  /**
   * `diff`: what folding `tailEvents` (seq H+1..N, H = `base.eventCount`) on top of the base's
   * rows changed; `folds`: the whole-session folds at N. The overlay owns the base: `close()`
   * closes it.
   */
  constructor(
    private readonly base: SessionIndex,
    diff: GraphDiff,
    private readonly tailEvents: readonly EventRecord[],
    readonly folds: SessionFolds,
    private readonly lookups: TailOverlayLookups,
    /** The vector index at the head (the base's extended by the tail's versions: `extendVectorIndex`), or null. */
    vectors: SessionVectorIndex | null,
  ) {
    this.sessionId = base.sessionId;
    this.baseEventCount = base.eventCount;
    this.baseEntityCount = base.entityCount;
    if (diff.sessionId !== base.sessionId) throw new RangeError(`tail overlay: the diff is of session ${JSON.stringify(diff.sessionId)}, the base of ${JSON.stringify(base.sessionId)}`);
    if ((diff.previousHead?.seq ?? 0) !== base.eventCount) throw new RangeError(`tail overlay: the diff starts after seq ${diff.previousHead?.seq ?? 0}, the base is at seq ${base.eventCount}`);
    if (diff.newEvents.length !== tailEvents.length) throw new RangeError(`tail overlay: the diff covers ${diff.newEvents.length} events, ${tailEvents.length} were given`);
    tailEvents.forEach((event, i) => {
      if (event.seq !== base.eventCount + i + 1) throw new RangeError(`tail overlay: tail event ${i} has seq ${event.seq}, expected ${base.eventCount + i + 1}`);
    });
    this.eventCount = base.eventCount + tailEvents.length;
    this.newEntities = diff.newEntities;
    this.entityCount = base.entityCount + diff.newEntities.length;
    this.closedVersions = new Map(diff.closedEntities.map(({ nodeKey, validTo }) => [nodeKey, validTo]));
    this.closedRelations = new Set(diff.closedRelations.map(({ relKey }) => relKey));

    const tailPositions = new Map<string, number>();
    const keyword = new Bm25Index();
    diff.newEntities.forEach((entity, i) => {
      const position = this.baseEntityCount + i;
      // Positions are vector keys (the fold numbers versions in order), which the vector lane relies on.
      if (entity.vectorKey !== position) throw new RangeError(`tail overlay: new version ${i} has vector key ${entity.vectorKey}, expected ${position}`);
      tailPositions.set(entity.nodeKey, position);
      const name = entity.name.toLowerCase();
      const list = this.tailNames.get(name);
      if (list === undefined) this.tailNames.set(name, [position]);
      else list.push(position);
      keyword.add(entitySearchText(entity));
    });
    const positionOf = (nodeKey: string) => tailPositions.get(nodeKey) ?? lookups.basePositionOf(nodeKey);
    const link = (from: number, to: number, relationType: string) => {
      const list = this.tailAdjacency.get(from);
      if (list === undefined) this.tailAdjacency.set(from, [{ entity: to, relationType }]);
      else list.push({ entity: to, relationType });
    };
    for (const relation of diff.newRelations) {
      if (relation.validTo !== null) continue;
      const source = positionOf(relation.sourceKey);
      const target = positionOf(relation.targetKey);
      if (source === undefined || target === undefined) continue;
      link(source, target, relation.relationType);
      if (source !== target) link(target, source, relation.relationType);
    }
    const verbatim = new Bm25Index({ averageLengthFloor: 1 });
    for (const event of tailEvents) verbatim.add(rawEventText(event));
    this.keywordCorpora = [base.keywordCorpus(), keyword.corpus(this.baseEntityCount)];
    this.verbatimCorpora = [base.verbatimCorpus(), verbatim.corpus(this.baseEventCount)];
    if (vectors !== null && vectors.count !== this.entityCount) throw new RangeError(`tail overlay: the vector index holds ${vectors.count} vectors, the head ${this.entityCount} versions`);
    this.vectors = vectors;
  }

  event(position: number): EventRecord {
    return position < this.baseEventCount ? this.base.event(position) : this.tailEvents[position - this.baseEventCount];
  }

  eventRange(from: number, to: number): EventRecord[] {
    const start = Math.max(0, from);
    const end = Math.min(to, this.eventCount);
    if (end <= start) return [];
    const head = start < this.baseEventCount ? this.base.eventRange(start, Math.min(end, this.baseEventCount)) : [];
    return end > this.baseEventCount ? head.concat(this.tailEvents.slice(Math.max(start, this.baseEventCount) - this.baseEventCount, end - this.baseEventCount)) : head;
  }

  entity(position: number): EntityRow {
    if (position >= this.baseEntityCount) return this.newEntities[position - this.baseEntityCount];
    const row = this.base.entity(position);
    const validTo = this.closedVersions.get(row.nodeKey);
    return validTo === undefined ? row : { ...row, validTo };
  }

  namePositions(name: string): readonly number[] {
    const tail = this.tailNames.get(name);
    const base = this.base.namePositions(name);
    return tail === undefined ? base : base.concat(tail);
  }

  positionOfVectorKey(key: number): number | undefined {
    if (Number.isInteger(key) && key >= this.baseEntityCount && key < this.entityCount) return key;
    return this.base.positionOfVectorKey(key);
  }

  keywordSearch(terms: readonly string[], limit: number): Bm25Hit[] {
    return this.keywordScorer.search(this.keywordCorpora, terms, limit);
  }

  verbatimSearch(terms: readonly string[], limit: number): Bm25Hit[] {
    return this.verbatimScorer.search(this.verbatimCorpora, terms, limit);
  }

  keywordCorpus(): Bm25Corpus {
    return chainedBm25Corpus(this.keywordCorpora);
  }

  verbatimCorpus(): Bm25Corpus {
    return chainedBm25Corpus(this.verbatimCorpora);
  }

  neighbours(position: number, limit: number): readonly Neighbour[] {
    if (this.closedRelations.size === 0) {
      // Nothing of the base's adjacency was closed (the usual tail): its first `limit` stand, and
      // a hub's thousands of relations are not read to find them.
      const base = this.base.neighbours(position, limit);
      const tail = this.tailAdjacency.get(position);
      return tail === undefined || base.length >= limit ? base : base.concat(tail.slice(0, limit - base.length));
    }
    const all: Neighbour[] = [];
    if (Number.isInteger(position) && position >= 0 && position < this.baseEntityCount) {
      for (const relation of this.lookups.baseCurrentRelationsAt(position)) {
        if (this.closedRelations.has(relation.relKey)) continue;
        all.push({ entity: relation.sourcePosition === position ? relation.targetPosition : relation.sourcePosition, relationType: relation.relationType });
      }
    }
    const tail = this.tailAdjacency.get(position);
    if (tail !== undefined) all.push(...tail);
    return all.slice(0, limit);
  }

  close(): void {
    this.base.close();
  }
}
