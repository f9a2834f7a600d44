/**
 * What the read-model writer stores besides the tables it derives from the rows themselves
 * (writeReadModel.ts): the in-memory index's BM25 indexes and whole-session folds. A
 * `MemorySessionIndex` is one (tests write from the reference index). `RowsReadModelSource` is what reads and `zaxy reproject` write from:
 * it builds each BM25 index only when the writer asks for it and keeps none, so the keyword index is garbage before the verbatim one is built (over 100k events the
 * two held together added ~700 MB to a reproject's peak).
 */
import type { EventRecord } from "../eventloom/envelope.ts";
import type { EntityRow, SessionGraphRows } from "../projection/types.ts";
import { collectGarbageNow, requestGarbageCollection } from "../platform/mod.ts";
import { Bm25Index } from "../retrieval/bm25.ts";
import { MemorySessionFolds, type SessionFolds } from "../retrieval/sessionIndex.ts";
import { entitySearchText, rawEventText } from "../vector/textAnalysis.ts";

export interface ReadModelSource {
  readonly sessionId: string;
  readonly folds: SessionFolds;
  /** BM25 over entity text, by entity position. */
  readonly keyword: Bm25Index;
  /** BM25 over raw event text, by event position. */
  readonly verbatim: Bm25Index;
}

/** Entities indexed between two garbage-collection requests while the keyword index is built. */
const keywordEntitiesPerCollection = 100_000;

/**
 * From this many entity versions the collections are made, not requested: on a busy machine the
 * concurrent collector fell behind (1M events: ~0.8 GB of garbage over the rows while the index
 * was built).
 */
const keywordCollectNowEntitiesMin = 500_000;

/** Entities indexed between two collections made now. */
const keywordEntitiesPerCollectionNow = 250_000;

/**
 * Characters of entity text indexed between two collections made now, at most: long texts (1M
 * long-payload events: ~560 characters a version, read back from a scratch file) left ~0.7 GB of
 * garbage per 250k versions on top of the rows. The bench generator's (~150) stay at 250k.
 */
const keywordCharsPerCollectionNow = 60_000_000;

/**
 * The keyword index over the entity versions' text. Each version's text is garbage once indexed
 * (its properties parsed, its parts joined): requested collections keep it from piling up on top
 * of the rows (1M events: ~1 GB of it while the index was built).
 */
export function keywordIndexOf(entities: readonly EntityRow[]): Bm25Index {
  const keyword = new Bm25Index();
  // A collection made now marks the whole heap: fewer of them than of requests.
  const [perCollection, collect] = entities.length >= keywordCollectNowEntitiesMin
    ? [keywordEntitiesPerCollectionNow, collectGarbageNow]
    : [keywordEntitiesPerCollection, () => requestGarbageCollection()];
  const collectsNow = entities.length >= keywordCollectNowEntitiesMin;
  let chars = 0;
  entities.forEach((entity, position) => {
    const text = entitySearchText(entity);
    keyword.add(text);
    chars += text.length;
    if ((position + 1) % perCollection === 0 || (collectsNow && chars >= keywordCharsPerCollectionNow)) {
      collect();
      chars = 0;
    }
  });
  // Long texts' last garbage goes before the caller lays the postings out (which takes as much
  // again as the index).
  if (collectsNow && chars >= keywordCharsPerCollectionNow / 2) collectGarbageNow();
  return keyword;
}

/** Built from the rows and events at their head; each BM25 index is built anew on every read. */
export class RowsReadModelSource implements ReadModelSource {
  readonly folds: SessionFolds;

  constructor(readonly sessionId: string, private readonly rows: SessionGraphRows, private readonly events: readonly EventRecord[]) {
    this.folds = new MemorySessionFolds(sessionId, rows, events);
  }

  get keyword(): Bm25Index {
    return keywordIndexOf(this.rows.entities);
  }

  get verbatim(): Bm25Index {
    // The same options as buildSessionIndex's: the stored segment must score as the in-memory one.
    const verbatim = new Bm25Index({ averageLengthFloor: 1 });
    for (const event of this.events) verbatim.add(rawEventText(event));
    return verbatim;
  }
}
