/**
 * A session index read lazily from the on-disk read model (docs/read-model.md), for a fresh
 * process: opening it costs a manifest parse and native SHA-256 passes over the verified log
 * prefix and the model's files; a query then reads only the entity versions, postings,
 * neighbours and events it touches. Answers are those of the in-memory index over the same rows
 * and events (tests/scaling/read_model_equivalence_test.ts).
 *
 * `openReadModel` serves only a read model whose head is the log's head: the log must be exactly
 * the bytes the model was built from (same length, same SHA-256), every file must match its
 * recorded size and SHA-256, and the vector index must be at the same head. Anything else is
 * `stale` (the log grew: the caller catches up and writes a new generation) or a `problem` (the
 * caller rebuilds it from the log and says so); never a wrong answer.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { type SessionFolds, storedSessionFolds } from "../folds/sessionFolds.ts";
import type { EventRecord } from "../eventloom/envelope.ts";
import { verifiedCheckpointPath, verifyWithCheckpoint } from "../eventloom/verifiedCheckpoint.ts";
import { fileStamp, sha256OfFd, writeChunksAtomically } from "../platform/atomicFile.ts";
import type { SessionVectorIndex } from "../projection/vectorIndex.ts";
import type { EntityRow } from "../projection/types.ts";
import type { Bm25Corpus, Bm25Hit } from "../retrieval/bm25.ts";
import type { Neighbour, SessionIndex } from "../retrieval/sessionIndex.ts";
import { adjacencyMagic } from "./adjacencyTable.ts";
import { AdjacencyTable, EntityTable, EventSpans, RelationTable, SortedTable } from "./tableReaders.ts";
import { BinaryFile } from "../platform/binaryFile.ts";
import { Bm25SegmentSet } from "./bm25Segment.ts";
import { entityTableMagic } from "./entityTable.ts";
import { eventSpansMagic } from "./eventSpans.ts";
import { manifestBytes, manifestPath, type ReadModelFile, type ReadModelManifest, readManifest, readModelDir } from "./manifest.ts";
import { type ReadModelFoldBase, readModelFoldBase } from "./readModelFoldBase.ts";
import { ReadModelCorruptError } from "../platform/readModelError.ts";
import { relationTableMagic } from "./relationTable.ts";
import { sortedTableMagic } from "./sortedTable.ts";

/**
 * Closes the files of an index nobody holds any more: a server drops evicted indexes without
 * closing them (a call in flight may still be reading one), so their descriptors close on
 * collection.
 */
const unreferencedIndexes = new FinalizationRegistry<() => void>((release) => release());

class DiskSessionIndex implements SessionIndex {
  private storedFolds: SessionFolds | undefined;
  readonly eventCount: number;
  readonly entityCount: number;
  private readonly release: () => void;

  constructor(
    readonly sessionId: string,
    files: BinaryFile[],
    logFd: number,
    private readonly entities: EntityTable,
    private readonly names: SortedTable,
    private readonly adjacency: AdjacencyTable,
    private readonly events: EventSpans,
    private readonly keyword: Bm25SegmentSet,
    private readonly verbatim: Bm25SegmentSet,
    readonly vectors: SessionVectorIndex | null,
    private readonly relations: RelationTable,
    private readonly nodeKeys: SortedTable,
    private readonly manifest: ReadModelManifest,
  ) {
    this.eventCount = events.count;
    this.entityCount = entities.count;
    let released = false;
    this.release = () => {
      if (released) return;
      released = true;
      for (const file of files) file.close();
      keyword.close();
      verbatim.close();
      fs.closeSync(logFd);
    };
    unreferencedIndexes.register(this, this.release, this);
  }

  /** The folds the manifest stored at the head, set up when a read first asks for one. */
  get folds(): SessionFolds {
    return (this.storedFolds ??= storedSessionFolds(this.manifest.folds));
  }

  event(position: number): EventRecord {
    return this.events.event(position);
  }

  eventRange(from: number, to: number): EventRecord[] {
    return this.events.range(from, to);
  }

  entity(position: number): EntityRow {
    return this.entities.row(position);
  }

  namePositions(name: string): readonly number[] {
    return this.names.get(name);
  }

  positionOfVectorKey(key: number): number | undefined {
    // The writer refuses rows whose vector key is not their position (writeReadModel.ts).
    return Number.isInteger(key) && key >= 0 && key < this.entityCount ? key : undefined;
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
    return this.adjacency.neighbours(position, limit);
  }

  /**
   * The rows at this model's head, for a tail catch-up to fold from. It reads this index's files
   * and holds the index, so they stay open while it is in use; `close()` ends both.
   */
  foldBase(): ReadModelFoldBase {
    return readModelFoldBase({ head: this.manifest.head, entities: this.entities, names: this.names, nodeKeys: this.nodeKeys, relations: this.relations, owner: this });
  }

  close(): void {
    unreferencedIndexes.unregister(this);
    this.release();
  }
}

export type ReadModelOpening =
  /**
   * `foldBase` reads `index`'s files (and holds it): the rows at the model's head for a tail
   * catch-up, built when first read; `tail` the verified events after the model's head (empty at
   * the log head).
   */
  | { status: "opened"; index: SessionIndex; manifest: ReadModelManifest; foldBase: ReadModelFoldBase; tail: EventRecord[] }
  | { status: "missing" }
  | { status: "stale"; reason: string }
  | { status: "invalid"; reason: string };

/**
 * Opens a file of the manifest after checking its size and, unless it is provably the file whose
 * SHA-256 was checked when it was written (same `fileStamp`), its SHA-256. A file whose hash had
 * to be checked (a copied or restored root: new inodes and times) has its new stamp put in
 * `restamped`, so the manifest can record it and the next read skip the hash.
 */
function openChecked(dir: string, entry: ReadModelFile, magic: string, restamped: Map<ReadModelFile, string>): BinaryFile {
  const file = BinaryFile.open(path.join(dir, entry.name), magic, entry.bytes);
  try {
    const stamp = fileStamp(file.descriptor);
    if (stamp !== entry.stamp) {
      if (sha256OfFd(file.descriptor, entry.bytes) !== entry.sha256) throw new ReadModelCorruptError(file.file, "does not match the SHA-256 its manifest records");
      restamped.set(entry, stamp);
    }
    return file;
  } catch (error) {
    file.close();
    throw error;
  }
}

/**
 * Records the stamps of files whose SHA-256 was just checked, by swapping in the manifest with
 * them, only while the manifest on disk is still the one read (a writer may have swapped in a
 * newer generation meanwhile: that one stays). Best effort: a read-only root only keeps hashing.
 */
function restampManifest(root: string, sessionId: string, manifest: ReadModelManifest, restamped: ReadonlyMap<ReadModelFile, string>): void {
  const file = manifestPath(root, sessionId);
  try {
    const read = manifestBytes(root, manifest);
    if (!fs.readFileSync(file).equals(read)) return;
    const files = Object.fromEntries(Object.entries(manifest.files).map(([key, entry]) => [key, restamped.has(entry) ? { ...entry, stamp: restamped.get(entry)! } : entry]));
    writeChunksAtomically(file, [manifestBytes(root, { ...manifest, files: files as ReadModelManifest["files"] })]);
  } catch {
    // The stamps only save hashing on the next read.
  }
}

/** A BM25 segment's recorded size; its pieces are checked against their CRCs as they are read. */
function checkSize(dir: string, entry: ReadModelFile): void {
  const file = path.join(dir, entry.name);
  let size: number;
  try {
    size = fs.statSync(file).size;
  } catch (error) {
    throw new ReadModelCorruptError(file, `cannot be opened (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  if (size !== entry.bytes) throw new ReadModelCorruptError(file, `has ${size} bytes, its manifest records ${entry.bytes}`);
}

/**
 * The session's read model if it is at the head of the log at `logPath`. `openVectors` opens the
 * session's vector index at the manifest's head (null when there is none to open; throwing makes
 * the model unusable).
 */
export async function openReadModel(
  root: string,
  sessionId: string,
  logPath: string,
  openVectors: (manifest: ReadModelManifest) => Promise<SessionVectorIndex | null>,
  tailBounds: { eventsMax: number; bytesMax: number } = { eventsMax: 0, bytesMax: 0 },
): Promise<ReadModelOpening> {
  const read = readManifest(root, sessionId);
  if (read === "missing") return { status: "missing" };
  if ("problem" in read) return { status: "invalid", reason: read.problem };
  const manifest = read;
  let logFd: number;
  try {
    logFd = fs.openSync(logPath, "r");
  } catch (error) {
    return { status: "stale", reason: `the log cannot be opened (${(error as NodeJS.ErrnoException).code})` };
  }
  const opened: BinaryFile[] = [];
  const closeAll = () => {
    for (const file of opened) file.close();
    fs.closeSync(logFd);
  };
  try {
    // The log is verified through its checkpoint (one native hash of the verified prefix, the
    // tail verified event by event). The read model is the log's head only if the verified log
    // ends exactly at the event and byte it was built from: a longer log has events to catch up
    // on; a refused or interrupted log goes through the projection, which reports it.
    const verified = await verifyWithCheckpoint(logPath, verifiedCheckpointPath(root, sessionId), {
      events: { afterBytes: manifest.log_bytes, afterSeq: manifest.head.seq, ...tailBounds },
    });
    const head = verified.head;
    // A forged checkpoint means someone wrote under projections/ without the root's key: the
    // log verified in full, but nothing else there is taken on trust either (rebuilt from the log).
    if (verified.checkpointRefused !== null) {
      closeAll();
      return { status: "invalid", reason: `its log's verified checkpoint was refused: ${verified.checkpointRefused}` };
    }
    if (!verified.integrity.ok || verified.integrity.interrupted_append !== undefined || head === null) {
      closeAll();
      return { status: "stale", reason: "the log does not verify as it stands" };
    }
    const tail = verified.tailEvents;
    const atHead = head.seq === manifest.head.seq && head.hash === manifest.head.hash && head.bytes === manifest.log_bytes;
    // A tail continues the model only if it is every event after the model's head, numbered
    // from it, and its first event links to the model's head event: the verified chain then
    // pins the prefix the model was built from (a rewritten prefix cannot keep that hash).
    const continues = !atHead && head.seq > manifest.head.seq && tail.length === head.seq - manifest.head.seq &&
      tail[0].seq === manifest.head.seq + 1 && tail[0].prevHash === manifest.head.hash && tail[tail.length - 1].hash === head.hash;
    if ((!atHead && !continues) || fs.fstatSync(logFd).size !== head.bytes) {
      closeAll();
      return { status: "stale", reason: `the log's head is seq ${head.seq}, the read model's ${manifest.head.seq}` };
    }
    const dir = readModelDir(root, sessionId);
    const restamped = new Map<ReadModelFile, string>();
    const entitiesFile = openChecked(dir, manifest.files.entities, entityTableMagic, restamped);
    opened.push(entitiesFile);
    const namesFile = openChecked(dir, manifest.files.names, sortedTableMagic, restamped);
    opened.push(namesFile);
    const adjacencyFile = openChecked(dir, manifest.files.adjacency, adjacencyMagic, restamped);
    opened.push(adjacencyFile);
    const eventsFile = openChecked(dir, manifest.files.events, eventSpansMagic, restamped);
    opened.push(eventsFile);
    const relationsFile = openChecked(dir, manifest.files.relations, relationTableMagic, restamped);
    opened.push(relationsFile);
    const nodeKeysFile = openChecked(dir, manifest.files.node_keys, sortedTableMagic, restamped);
    opened.push(nodeKeysFile);
    checkSize(dir, manifest.files.keyword);
    checkSize(dir, manifest.files.verbatim);
    const entities = new EntityTable(entitiesFile, sessionId);
    const events = new EventSpans(eventsFile, logFd, manifest.log_bytes);
    if (entities.count !== manifest.head.entityCount || events.count !== manifest.head.seq) {
      throw new ReadModelCorruptError(path.join(dir, manifest.files.entities.name), `holds ${entities.count} versions and ${events.count} events, its head records ${manifest.head.entityCount} and ${manifest.head.seq}`);
    }
    const relations = new RelationTable(relationsFile, sessionId);
    if (relations.count !== manifest.head.relationCount || relations.entityCount !== manifest.head.entityCount) {
      throw new ReadModelCorruptError(relationsFile.file, `holds ${relations.count} relations over ${relations.entityCount} entity versions, its head records ${manifest.head.relationCount} and ${manifest.head.entityCount}`);
    }
    const nodeKeys = new SortedTable(nodeKeysFile);
    const keyword = Bm25SegmentSet.open([path.join(dir, manifest.files.keyword.name)], { averageLengthFloor: 0 });
    const verbatim = Bm25SegmentSet.open([path.join(dir, manifest.files.verbatim.name)], { averageLengthFloor: 1 });
    if (keyword.size !== entities.count || verbatim.size !== events.count) {
      keyword.close();
      verbatim.close();
      throw new ReadModelCorruptError(path.join(dir, manifest.files.keyword.name), "does not hold one document per entity version and event");
    }
    let vectors: SessionVectorIndex | null;
    try {
      vectors = await openVectors(manifest);
    } catch (error) {
      keyword.close();
      verbatim.close();
      throw new ReadModelCorruptError(path.join(dir, "manifest.json"), `has no usable vector index: ${error instanceof Error ? error.message : String(error)}`);
    }
    const index = new DiskSessionIndex(
      sessionId,
      opened,
      logFd,
      entities,
      new SortedTable(namesFile),
      new AdjacencyTable(adjacencyFile, manifest.relation_types),
      events,
      keyword,
      verbatim,
      vectors,
      relations,
      nodeKeys,
      manifest,
    );
    if (restamped.size > 0) restampManifest(root, sessionId, manifest, restamped);
    // The fold base is read only by a tail catch-up: a read at the log head never builds it.
    let foldBase: ReadModelFoldBase | undefined;
    return { status: "opened", index, manifest, get foldBase() { return foldBase ??= index.foldBase(); }, tail: atHead ? [] : tail };
  } catch (error) {
    closeAll();
    if (error instanceof ReadModelCorruptError) return { status: "invalid", reason: error.message };
    throw error;
  }
}
