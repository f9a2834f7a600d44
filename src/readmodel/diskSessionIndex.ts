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
 *
 * The table readers are below the index: one reader class per table file, each over a checked
 * `BinaryFile`, reading on demand what a query touches. Each table's writer and byte layout stay
 * in the table's own module (entityTable.ts, eventSpans.ts, relationTable.ts, sortedTable.ts,
 * adjacencyTable.ts).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { type SessionFolds, storedSessionFolds } from "../folds/sessionFolds.ts";
import { verifiedCheckpointPath, verifyWithCheckpoint } from "../eventloom/verifiedCheckpoint.ts";
import { fileStamp, sha256OfFd } from "../platform/mod.ts";
import { writeChunksAtomically } from "../platform/atomicFile.ts";
import type { SessionVectorIndex } from "../projection/vectorIndex.ts";
import type { EntityRow, RelationRow } from "../projection/types.ts";
import type { Bm25Corpus, Bm25Hit } from "../retrieval/bm25.ts";
import type { Neighbour, SessionIndex } from "../retrieval/sessionIndex.ts";
import { adjacencyMagic } from "./adjacencyTable.ts";
import { BinaryFile, byteSection, f64Section, type FileSection, headerBytes, u32Section } from "../platform/binaryFile.ts";
import { Bm25SegmentSet } from "./bm25Segment.ts";
import { entityTableMagic } from "./entityTable.ts";
import { eventSpansMagic } from "./eventSpans.ts";
import { manifestBytes, manifestPath, type ReadModelFile, type ReadModelManifest, readManifest, readModelDir } from "./manifest.ts";
import { type ReadModelFoldBase, readModelFoldBase } from "./readModelFoldBase.ts";
import { ReadModelCorruptError } from "../platform/readModelError.ts";
import { relationTableMagic, countsBytes, type RelationTuple, type StoredRelation } from "./relationTable.ts";
import { sortedTableMagic } from "./sortedTable.ts";
import type { EntityTuple } from "./entityTable.ts";
import { type EventRecord, recordFromLine } from "../eventloom/envelope.ts";
import { isJsonObject, parseJsonBytes } from "../canonical/mod.ts";

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

// ---------------------------------------------------------------------------
// The table readers
/*
 * Reading the read model's tables: one reader class per table file, each over a checked
 * `BinaryFile` (platform/binaryFile.ts), reading on demand what a query touches. The writers and
 * each table's byte layout stay in the table's own module (entityTable.ts, eventSpans.ts,
 * relationTable.ts, sortedTable.ts, adjacencyTable.ts); this module only reads.
 */
// The table of entityTable.ts (layout in its header).
/** Versions read on demand; the most recently read are kept, up to a bound. */
export class EntityTable {
  readonly count: number;
  private readonly heapStart: number;
  private readonly cache = new Map<number, EntityRow>();
  /** Rows kept after reading (a few hundred bytes each): a server's repeated queries touch the same ones. */
  private static readonly cachedRowsMax = 32_768;
  /** The offsets table (8 bytes per version), read pair by pair, and whole once many were (binaryFile.ts). */
  private readonly offsets: FileSection<Float64Array>;

  constructor(private readonly file: BinaryFile, private readonly sessionId: string) {
    this.count = file.u32(headerBytes);
    this.heapStart = headerBytes + 8 + 8 * (this.count + 1);
    file.check(this.heapStart <= file.size, `holds ${this.count} versions but is only ${file.size} bytes`);
    const heapBytes = file.f64Array(headerBytes + 8 + 8 * this.count, 1)[0];
    file.check(this.heapStart + heapBytes === file.size, "has a heap that does not end at the end of the file");
    this.offsets = f64Section(file, headerBytes + 8, this.count + 1);
  }

  row(position: number): EntityRow {
    const cached = this.cache.get(position);
    if (cached !== undefined) return cached;
    this.file.check(Number.isInteger(position) && position >= 0 && position < this.count, `has no version at position ${position}`);
    const [start, end] = this.offsets.range(position, position + 2);
    this.file.check(end >= start, `has a negative-length version at position ${position}`);
    let tuple: EntityTuple;
    try {
      tuple = JSON.parse(this.file.bytes(this.heapStart + start, end - start).toString("utf8")) as EntityTuple;
    } catch {
      return this.file.check(false, `has an unreadable version at position ${position}`) as never;
    }
    const [nodeKey, name, entityType, summary, propertiesJson, validFrom, validTo, sourceEventSeq, sourceEventHash, vectorKey] = tuple;
    const row: EntityRow = { nodeKey, sessionId: this.sessionId, name, entityType, summary, propertiesJson, validFrom, validTo, sourceEventSeq, sourceEventHash, vectorKey };
    if (this.cache.size >= EntityTable.cachedRowsMax) this.cache.clear();
    this.cache.set(position, row);
    return row;
  }
}

// The table of eventSpans.ts (layout in its header).
/** Events read from the log by position through their spans. */
export class EventSpans {
  readonly count: number;
  private readonly cache = new Map<number, EventRecord>();
  private static readonly cachedEventsMax = 4096;
  /** The spans table (16 bytes per event), read span by span, and whole once many were (binaryFile.ts). */
  private readonly spans: FileSection<Float64Array>;

  constructor(private readonly file: BinaryFile, private readonly logFd: number, private readonly logBytes: number) {
    this.count = file.u32(headerBytes);
    file.check(headerBytes + 8 + 16 * this.count === file.size, "has sections that do not add up to its size");
    this.spans = f64Section(file, headerBytes + 8, 2 * this.count);
  }

  event(position: number): EventRecord {
    const cached = this.cache.get(position);
    if (cached !== undefined) return cached;
    this.file.check(Number.isInteger(position) && position >= 0 && position < this.count, `has no event at position ${position}`);
    const [start, end] = this.spans.range(2 * position, 2 * position + 2);
    this.file.check(start <= end && end <= this.logBytes, `has a span outside the verified log at position ${position}`);
    const bytes = Buffer.allocUnsafe(end - start);
    let done = 0;
    while (done < bytes.length) {
      const read = fs.readSync(this.logFd, bytes, done, bytes.length - done, start + done);
      this.file.check(read > 0, `points past the end of the log at position ${position}`);
      done += read;
    }
    let parsed;
    try {
      parsed = parseJsonBytes(bytes);
    } catch {
      parsed = undefined;
    }
    this.file.check(parsed !== undefined && isJsonObject(parsed), `points at a line that is not an event at position ${position}`);
    const event = recordFromLine(parsed as Parameters<typeof recordFromLine>[0], position + 1);
    if (this.cache.size >= EventSpans.cachedEventsMax) this.cache.clear();
    this.cache.set(position, event);
    return event;
  }

  range(from: number, to: number): EventRecord[] {
    const out: EventRecord[] = [];
    for (let position = Math.max(0, from); position < Math.min(to, this.count); position++) out.push(this.event(position));
    return out;
  }
}

// The table of relationTable.ts (layout in its header).
/**
 * Relations read on demand. The endpoint positions and the current table (16 bytes per relation
 * and 4 per entity) are read whole on first use, the offsets table on the first row read; rows
 * are parsed per read and never cached, so a caller may change what it is given.
 */
export class RelationTable {
  readonly count: number;
  readonly entityCount: number;
  private readonly currentIdCount: number;
  private readonly startAt: number;
  private readonly idsAt: number;
  private readonly offsetsAt: number;
  private readonly heapAt: number;
  private loaded?: { sources: Int32Array; targets: Int32Array; start: Uint32Array; ids: Uint32Array };
  private offsets?: Float64Array;

  constructor(private readonly file: BinaryFile, private readonly sessionId: string) {
    this.count = file.u32(headerBytes);
    this.entityCount = file.u32(headerBytes + 4);
    this.currentIdCount = file.u32(headerBytes + 8);
    const positionsAt = headerBytes + countsBytes;
    this.startAt = positionsAt + 8 * this.count;
    this.idsAt = this.startAt + 4 * (this.entityCount + 2);
    this.offsetsAt = this.idsAt + 4 * this.currentIdCount;
    this.heapAt = this.offsetsAt + 8 * (this.count + 1);
    file.check(this.heapAt <= file.size, `holds ${this.count} relations and ${this.entityCount} entities but is only ${file.size} bytes`);
    const heapBytes = file.f64Array(this.offsetsAt + 8 * this.count, 1)[0];
    file.check(this.heapAt + heapBytes === file.size, "has a heap that does not end at the end of the file");
  }

  private tables() {
    if (this.loaded !== undefined) return this.loaded;
    const positionsAt = headerBytes + countsBytes;
    const positions = this.file.u32Array(positionsAt, 2 * this.count);
    const start = this.file.u32Array(this.startAt, this.entityCount + 2);
    this.file.check(start[0] === 0 && start[this.entityCount + 1] === this.currentIdCount, "has a current-relation table that does not cover its ids");
    return this.loaded = {
      sources: new Int32Array(positions.buffer, positions.byteOffset, this.count),
      targets: new Int32Array(positions.buffer, positions.byteOffset + 4 * this.count, this.count),
      start,
      ids: this.file.u32Array(this.idsAt, this.currentIdCount),
    };
  }

  /** Relation `id` (its ordinal in relation order) with its endpoints' positions. */
  relation(id: number): StoredRelation {
    this.file.check(Number.isInteger(id) && id >= 0 && id < this.count, `has no relation ${id}`);
    const { sources, targets } = this.tables();
    this.offsets ??= this.file.f64Array(this.offsetsAt, this.count + 1);
    const from = this.offsets[id];
    const to = this.offsets[id + 1];
    this.file.check(to >= from, `has a negative-length relation ${id}`);
    let tuple: RelationTuple;
    try {
      tuple = JSON.parse(this.file.bytes(this.heapAt + from, to - from).toString("utf8")) as RelationTuple;
    } catch {
      return this.file.check(false, `has an unreadable relation ${id}`) as never;
    }
    this.file.check(Array.isArray(tuple) && tuple.length === 12, `has a relation ${id} that is not a 12-field row`);
    const [relKey, sourceKey, targetKey, relationType, validFrom, validTo, inferred, confidence, inferenceMethod, sourceEventSeq, sourceEventHash, evidenceJson] = tuple;
    const sourcePosition = sources[id];
    const targetPosition = targets[id];
    this.file.check(sourcePosition >= -1 && sourcePosition < this.entityCount && targetPosition >= -1 && targetPosition < this.entityCount, `has a bad endpoint position for relation ${id}`);
    const row: RelationRow = { relKey, sessionId: this.sessionId, sourceKey, targetKey, relationType, validFrom, validTo, inferred, confidence, inferenceMethod, sourceEventSeq, sourceEventHash, evidenceJson };
    return { row, sourcePosition, targetPosition };
  }

  /**
   * Ids of the current relations with an endpoint at `position`, in relation order;
   * `position === entityCount` names those with an endpoint that is no stored version.
   */
  currentIdsAt(position: number): Uint32Array {
    if (!(Number.isInteger(position) && position >= 0 && position <= this.entityCount)) return new Uint32Array(0);
    const { start, ids } = this.tables();
    const from = start[position];
    const to = start[position + 1];
    this.file.check(from <= to && to <= this.currentIdCount, `has a bad current-relation range at position ${position}`);
    // A copy: the caller may keep or change it without touching the table.
    const out = ids.slice(from, to);
    for (let i = 0; i < out.length; i++) {
      this.file.check(out[i] < this.count && (i === 0 || out[i] > out[i - 1]), `has a bad current relation id at position ${position}`);
    }
    return out;
  }

  /** `check` of the underlying file: a row that contradicts the table is corruption. */
  check(condition: boolean, reason: string): void {
    this.file.check(condition, reason);
  }
}

// The table of sortedTable.ts (layout in its header).
export class SortedTable {
  private readonly keys: number;
  private readonly valueCount: number;
  /** Read probe by probe, and whole once a server's lookups have touched enough (binaryFile.ts). */
  private readonly keyOffsets: FileSection<Uint32Array>;
  private readonly keyHeap: FileSection<Buffer>;
  private readonly valueOffsetsAt: number;
  private readonly valuesAt: number;
  private readonly heapAt: number;

  constructor(private readonly file: BinaryFile) {
    this.keys = file.u32(headerBytes);
    this.valueCount = file.u32(headerBytes + 4);
    const heapBytes = file.u32(headerBytes + 8);
    this.valueOffsetsAt = headerBytes + 16 + 4 * (this.keys + 1);
    this.valuesAt = this.valueOffsetsAt + 4 * (this.keys + 1);
    this.heapAt = this.valuesAt + 4 * this.valueCount;
    file.check(this.heapAt + heapBytes === file.size, "has sections that do not add up to its size");
    this.keyOffsets = u32Section(file, headerBytes + 16, this.keys + 1);
    this.keyHeap = byteSection(file, this.heapAt, heapBytes);
  }

  /** The values of `key`, or an empty list. */
  get(key: string): number[] {
    if (this.keys === 0) return [];
    const wanted = Buffer.from(key, "utf8");
    let low = 0;
    let high = this.keys - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const [keyStart, keyEnd] = this.keyOffsets.range(middle, middle + 2);
      this.file.check(keyStart <= keyEnd, `has a negative-length key ${middle}`);
      const order = Buffer.compare(this.keyHeap.range(keyStart, keyEnd), wanted);
      if (order === 0) {
        const [from, to] = this.file.u32Array(this.valueOffsetsAt + 4 * middle, 2);
        this.file.check(from <= to && to <= this.valueCount, `has a bad value range for key ${middle}`);
        return Array.from(this.file.u32Array(this.valuesAt + 4 * from, to - from));
      }
      if (order < 0) low = middle + 1;
      else high = middle - 1;
    }
    return [];
  }
}

// The table of adjacencyTable.ts (layout in its header).
export class AdjacencyTable {
  private readonly entities: number;
  private readonly neighbourCount: number;
  private readonly neighboursAt: number;
  private readonly typesAt: number;
  /** Read range by range, and whole once a traversal has touched enough of them (binaryFile.ts). */
  private readonly start: FileSection<Uint32Array>;
  private readonly neighbourEntities: FileSection<Uint32Array>;
  private readonly neighbourTypes: FileSection<Uint32Array>;

  constructor(private readonly file: BinaryFile, private readonly relationTypes: readonly string[]) {
    this.entities = file.u32(headerBytes);
    this.neighbourCount = file.u32(headerBytes + 4);
    this.neighboursAt = headerBytes + 8 + 4 * (this.entities + 1);
    this.typesAt = this.neighboursAt + 4 * this.neighbourCount;
    file.check(this.typesAt + 4 * this.neighbourCount === file.size, "has sections that do not add up to its size");
    this.start = u32Section(file, headerBytes + 8, this.entities + 1);
    this.neighbourEntities = u32Section(file, this.neighboursAt, this.neighbourCount);
    this.neighbourTypes = u32Section(file, this.typesAt, this.neighbourCount);
  }

  /** The first `limit` neighbours of `position` (a hub can have tens of thousands). */
  neighbours(position: number, limit: number): Neighbour[] {
    if (!(position >= 0 && position < this.entities)) return [];
    const [from, end] = this.start.range(position, position + 2);
    this.file.check(from <= end && end <= this.neighbourCount, `has a bad neighbour range at position ${position}`);
    const to = Math.min(end, from + Math.max(0, limit));
    if (from === to) return [];
    const entities = this.neighbourEntities.range(from, to);
    const types = this.neighbourTypes.range(from, to);
    const out: Neighbour[] = [];
    for (let i = 0; i < entities.length; i++) {
      const relationType = this.relationTypes[types[i]];
      this.file.check(relationType !== undefined && entities[i] < this.entities, `has a bad neighbour at position ${position}`);
      out.push({ entity: entities[i], relationType });
    }
    return out;
  }
}
