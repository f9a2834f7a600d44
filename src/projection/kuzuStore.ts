/**
 * The graph projection's Kuzu store: one file-backed database (`<root>/projections/embedded.kuzu`)
 * holding every session's entities, relations, event spine and projection head (schema in
 * `kuzuSchema.ts`). It is derived from the log and can always be deleted and rebuilt.
 *
 * What kuzu-wasm 0.11.3 (Node sync build, NODERAWFS: it reads and writes the real file system)
 * was seen to do, which shaped this module:
 * - Files: `<db>` (the database, ~1.7 MB when nearly empty) and `<db>.wal` while open; a
 *   checkpoint may also write `<db>.shadow` (and the binary mentions `<db>.tmp`). Kuzu does not
 *   lock the file against other processes, so we hold our own flock on `<db>.lock`.
 * - Corruption: opening a file of random bytes, a truncated file or one with a damaged header
 *   throws a catchable `CppException` ("not a valid Kuzu database file", "Reading past the end
 *   of the file", "different version") and the module stays usable; no Emscripten abort was
 *   seen. An empty (0-byte) file opens as a fresh database; a garbage `.wal` is ignored. Damage
 *   to data pages can go unnoticed until a query reads them, so failing reads of our own fixed
 *   queries are classified as corruption too.
 * - Transactions: `COPY ... FROM` works inside `BEGIN TRANSACTION` ... `COMMIT`; a failing COPY
 *   rolls the whole transaction back. Committing COPYs inside a manual transaction is expensive
 *   (CPU-bound in the wasm threads, no fsync: 20k nodes + 20k relations took 3.8 s in a
 *   transaction and 0.9 s as auto-committed COPYs).
 * - Crash safety: a COPY is not covered by the WAL. Its rows go straight into the database
 *   file and become reachable at the checkpoint after COMMIT; the WAL holds the transaction's
 *   other statements. `kill -9` during that checkpoint (seconds into a 10k-event catch-up) came
 *   back with the head and closes replayed from the WAL and every copied row gone. So the head
 *   is written in its own small transaction after the rows' COMMIT and an explicit CHECKPOINT,
 *   and carries the row counts it covers; readers compare them with `counts()` and rebuild on a
 *   mismatch (`headCountMismatch`). A crash can leave rows beyond the head, never a head beyond
 *   its rows. Bulk loads write CSV files to `<db>.load-*` folders; one left by a killed process
 *   is removed on the next open under the lock.
 * - Bulk load (2-core machine under load, noisy): COPY from CSV ~17-20k entity rows/s and
 *   ~10k relation rows/s, plus the commit. Batched `UNWIND` of list parameters ran ~2.7k rows/s
 *   (every JS value crosses embind), and UNWIND + MATCH to create relations ~200 rows/s, so
 *   bulk writes use CSV. The CSV reader cannot say "empty string" (see `kuzuCsv.ts`); such rows
 *   take the per-row path inside the same transaction.
 * - Reads: `getAllRows()` converts each value through embind at ~3-7 µs per value, so 20k
 *   entities x 10 columns cost ~0.8 s. `readSession` therefore has Kuzu concatenate each row
 *   into one string and aggregate them into a single string (one value to convert, ~10x faster),
 *   then splits it here. A first query in a process also pays ~0.1-0.2 s compiling wasm code
 *   paths, and a cold first read of a table ~0.3 s of I/O.
 * - Values: INT64 comes back as boxed `Number` objects, sums as `bigint`; `CAST(double AS
 *   STRING)` prints six decimals (lossy), so doubles are fetched as a list, never as text.
 * - RELATES is stored forward only (`storage_direction = 'fwd'`): every query here walks it
 *   source to target, and keeping the backward copy of its ten property columns made its bulk
 *   load ~35 % slower (154k relations: 13.7 s both directions, 8.7 s forward only, back to
 *   back). The price: Kuzu cannot delete an Entity node once such a table exists ("Failed to get
 *   bwd data"), so the store never deletes rows; a session is dropped by starting a fresh
 *   database (see `projectSession`), which was also far faster than deleting (DETACH DELETE of
 *   350k rows took 67 s).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { type FileLock, lockFile, LockTimeoutError } from "../platform/mod.ts";
import { crashTestPause, crashTestPauseUntilStopped } from "./crashTestPause.ts";
import { csvCopyOptions, type CsvCell, cypherStringLiteral, rowHasEmptyString, writeCsvFile } from "./kuzuCsv.ts";
import { type Kuzu, type KuzuConnection, type KuzuDatabase, type KuzuPreparedStatement, loadKuzu } from "./kuzuRuntime.ts";
import { entityColumns, eventColumns, projectionSchemaVersion, relatesColumns, schemaStatements, storeMetaKey } from "./kuzuSchema.ts";
import { ProjectionBusyError, ProjectionCorruptError, ProjectionInterruptedError, ProjectionQueryError, ProjectionWriteError } from "./projectionErrors.ts";
import {
  type EntityRow,
  type EventRow,
  eventKey,
  type GraphDiff,
  keySeparator,
  type ProjectionHead,
  relationKey,
  type RelationRow,
  type SessionGraphRows,
} from "./types.ts";

/** How long `open` waits for another process to release the store before `ProjectionBusyError`. */
export const projectionLockWaitMs = 30_000;

/**
 * Diffs with fewer new rows than this use prepared statements; bigger ones bulk-load CSV.
 * Committing a COPY forces a checkpoint (seconds, mostly fixed), while per-row statements run
 * ~250-350 rows/s and commit in tens of ms, so they win below about a thousand rows.
 */
export const bulkLoadRowsMin = 1000;

/**
 * RELATES stores no key string: a relation is identified within its session by `rel_id` = the
 * seq of the event that created the row × this factor + its ordinal in that event (`relKey` =
 * session, seq, ordinal). Not the cited `source_event_seq`: a relation copied onto a new entity
 * version is created by a later event but keeps its original citation. Two string columns fewer
 * made a COPY of 150k relations ~30 % faster (15.9 s to 11.5 s): kuzu-wasm's COPY cost grows
 * with every string column.
 */
const relationIdFactor = 1_000_000;

/**
 * Rows per CSV file (one COPY each). Large, because every COPY into a table pays a cost that
 * grows with the rows already in it (a last COPY of 3.9k relations after 150k took 3.7 s):
 * 100k events (349k rows) took 39.8 s in 50k-row chunks and 29.6 s in one COPY per table.
 */
export const copyChunkRows = 500_000;

/** Relation keys closed per statement (one scan of the session's relations each). */
const closeRelationKeysPerStatement = 1000;

/**
 * Field separator of `readSession`'s packed strings. Rows are split on it too: every row has a
 * fixed field count, so a value containing it changes the piece count, which is checked.
 */
const packSeparator = "\x1e";

/** Nullable values are packed as "" for null and "=" + value otherwise. */
const packPresent = "=";

/** Files Kuzu 0.11 may create beside the database file. */
const databaseFileSuffixes = ["", ".wal", ".shadow", ".tmp"] as const;

export interface KuzuStoreOptions {
  lockWaitMs?: number;
}

export interface ApplyDiffOptions {
  onProgress?: (doneRows: number, totalRows: number) => void;
  /**
   * Asked between statements (after yielding to the event loop, so signal handlers run): true
   * stops the write with `ProjectionInterruptedError`, rolling back what is not committed.
   */
  shouldStop?: () => boolean;
}

export interface ProjectionCounts {
  entities: number;
  /** Entity versions with `valid_to` null. */
  currentEntities: number;
  relations: number;
  /** Relation versions with `valid_to` null. */
  currentRelations: number;
  events: number;
}

/** What the temporary folder a bulk load writes its CSV files to adds to the database path (`<db>.load-XXXXXX`). */
export const loadDirSuffix = ".load-";

/**
 * What the stored rows of a session say against its head's counts: null when they agree, else
 * a sentence naming each count that differs ("holds 1000 of 11000 events, ...").
 */
export function headCountMismatch(head: ProjectionHead, counts: ProjectionCounts): string | null {
  const checks: Array<[string, number, number]> = [
    ["events", counts.events, head.eventCount],
    ["entity versions", counts.entities, head.entityCount],
    ["current entities", counts.currentEntities, head.currentEntityCount],
    ["relation versions", counts.relations, head.relationCount],
    ["current relations", counts.currentRelations, head.currentRelationCount],
  ];
  const differing = checks.filter(([, stored, recorded]) => stored !== recorded);
  if (differing.length === 0) return null;
  return `holds ${differing.map(([name, stored, recorded]) => `${stored} of ${recorded} ${name}`).join(", ")}`;
}

/** Lets pending signal handlers run: a synchronous Kuzu call blocks them until it returns. */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

type Params = Record<string, unknown>;

/** Kuzu error kinds that mean the file, not the query, is at fault. */
const corruptionMessagePattern =
  /^(Runtime exception|Storage exception|IO exception|Overflow exception)|not a valid Kuzu database|Reading past the end|checksum|corrupt/i;

/**
 * Kuzu's words for a write the file system cut short (it reports a full disk as an "IO
 * exception" with fewer bytes written than asked, and no errno).
 */
const shortWriteMessagePattern = /Cannot write to file|No space left on device|ENOSPC|Disk quota exceeded/i;

/**
 * Free space below which an abort while opening the store is taken for a full disk: opening
 * writes the database header, its first pages and a write-ahead log (a few hundred KiB).
 */
const openFreeBytesMin = 4 * 1024 * 1024;

/**
 * Opening a database writes to it, and Kuzu reports a write the disk cut short as an IO
 * exception, or aborts its wasm runtime. On a nearly full file system either is a full disk, not
 * a damaged file, which would be deleted and rebuilt into the same wall (and a second open after
 * an abort aborts again): the error for it, or null when there is room. A database this open
 * created holds nothing, and its files are removed so as not to keep filling the disk.
 */
function fullDiskError(absolutePath: string, error: unknown, created: boolean): ProjectionWriteError | null {
  if (error instanceof ProjectionWriteError) return error;
  const free = freeBytesAt(path.dirname(absolutePath));
  if (free === null || free >= openFreeBytesMin) return null;
  if (created) deleteDatabaseFiles(absolutePath);
  return new ProjectionWriteError(`Cannot open the graph projection "${absolutePath}": no space left on device (${free} bytes free)`);
}

/** Bytes an unprivileged writer may still use on `dir`'s file system, or null when unknown. */
function freeBytesAt(dir: string): number | null {
  try {
    const stats = fs.statfsSync(dir);
    return Number(stats.bavail) * Number(stats.bsize);
  } catch {
    return null;
  }
}

function isCorruptionMessage(message: string): boolean {
  return corruptionMessagePattern.test(message);
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Kuzu INT64 values arrive as boxed Numbers, sums as bigints. */
function toNumber(value: unknown): number {
  return Number(value);
}

function packNullable(expression: string): string {
  return `CASE WHEN ${expression} IS NULL THEN '' ELSE concat('${packPresent}', ${expression}) END`;
}

function unpackNullable(piece: string): string | null {
  return piece === "" ? null : piece.slice(1);
}

function packed(expressions: string[]): string {
  return `concat(${expressions.join(`, '${packSeparator}', `)})`;
}

const entityPackedFields = 10;
const readEntitiesPacked = `MATCH (e:Entity) WHERE e.session_id = $session
RETURN count(*), list_to_string('${packSeparator}', collect(${packed([
  "e.node_key",
  "e.name",
  "e.entity_type",
  packNullable("e.summary"),
  "e.properties_json",
  "e.valid_from",
  packNullable("e.valid_to"),
  "cast(e.source_event_seq AS STRING)",
  "e.source_event_hash",
  "cast(e.vector_key AS STRING)",
])}))`;

const relationPackedFields = 11;
const readRelationsPacked = `MATCH (a:Entity)-[r:RELATES]->(b:Entity) WHERE a.session_id = $session
RETURN count(*), list_to_string('${packSeparator}', collect(${packed([
  "cast(r.rel_id AS STRING)",
  "a.node_key",
  "b.node_key",
  "r.relation_type",
  "r.valid_from",
  packNullable("r.valid_to"),
  "CASE WHEN r.inferred THEN '1' ELSE '0' END",
  packNullable("r.inference_method"),
  "cast(r.source_event_seq AS STRING)",
  "r.source_event_hash",
  "r.evidence_json",
])})), collect(r.confidence)`;

const readEntitiesColumns = `MATCH (e:Entity) WHERE e.session_id = $session
RETURN e.node_key, e.name, e.entity_type, e.summary, e.properties_json, e.valid_from, e.valid_to,
  e.source_event_seq, e.source_event_hash, e.vector_key`;

const readRelationsColumns = `MATCH (a:Entity)-[r:RELATES]->(b:Entity) WHERE a.session_id = $session
RETURN r.rel_id, a.node_key, b.node_key, r.relation_type, r.valid_from, r.valid_to, r.inferred,
  r.confidence, r.inference_method, r.source_event_seq, r.source_event_hash, r.evidence_json`;

const createEntity = `CREATE (:Entity {node_key: $node_key, session_id: $session_id, name: $name,
  entity_type: $entity_type, summary: $summary, properties_json: $properties_json,
  valid_from: $valid_from, valid_to: $valid_to, source_event_seq: $source_event_seq,
  source_event_hash: $source_event_hash, vector_key: $vector_key})`;

const createRelation = `MATCH (a:Entity {node_key: $from_key}), (b:Entity {node_key: $to_key})
CREATE (a)-[:RELATES {rel_id: $rel_id, relation_type: $relation_type,
  valid_from: $valid_from, valid_to: $valid_to, inferred: $inferred, confidence: $confidence,
  inference_method: $inference_method, source_event_seq: $source_event_seq,
  source_event_hash: $source_event_hash, evidence_json: $evidence_json}]->(b)`;

const createEvent = `CREATE (:Event {event_key: $event_key, session_id: $session_id, seq: $seq,
  hash: $hash, prev_hash: $prev_hash, event_type: $event_type, source_thread: $source_thread})`;

const createNextEvent = `MATCH (a:Event {event_key: $from_key}), (b:Event {event_key: $to_key})
CREATE (a)-[:NEXT_EVENT]->(b)`;

const closeEntity = `MATCH (e:Entity {node_key: $node_key}) SET e.valid_to = $valid_to`;

const closeRelations = `MATCH (a:Entity)-[r:RELATES]->(:Entity)
WHERE a.session_id = $session AND list_contains($keys, r.rel_id)
SET r.valid_to = list_extract($valid_tos, list_position($keys, r.rel_id))`;

const upsertHead = `MERGE (h:ProjectionHead {session_id: $session_id})
SET h.seq = $seq, h.hash = $hash, h.event_count = $event_count, h.entity_count = $entity_count,
  h.current_entity_count = $current_entity_count, h.relation_count = $relation_count,
  h.current_relation_count = $current_relation_count`;

function entityCells(row: EntityRow): CsvCell[] {
  return [
    row.nodeKey,
    row.sessionId,
    row.name,
    row.entityType,
    row.summary,
    row.propertiesJson,
    row.validFrom,
    row.validTo,
    row.sourceEventSeq,
    row.sourceEventHash,
    row.vectorKey,
  ];
}

function relationCells(row: RelationRow): CsvCell[] {
  return [
    row.sourceKey,
    row.targetKey,
    relationId(row.relKey),
    row.relationType,
    row.validFrom,
    row.validTo,
    row.inferred,
    row.confidence,
    row.inferenceMethod,
    row.sourceEventSeq,
    row.sourceEventHash,
    row.evidenceJson,
  ];
}

function eventCells(row: EventRow): CsvCell[] {
  return [
    row.eventKey,
    row.sessionId,
    row.seq,
    row.hash,
    row.prevHash,
    row.eventType,
    row.sourceThread,
  ];
}

/** Statement parameters named by the schema's columns, from the same cells the CSV load writes. */
function paramsOf(columns: readonly string[], cells: readonly CsvCell[]): Params {
  return Object.fromEntries(columns.map((column, i) => [column, cells[i]]));
}

const entityParams = (row: EntityRow): Params => paramsOf(entityColumns, entityCells(row));
const relationParams = (row: RelationRow): Params => paramsOf(["from_key", "to_key", ...relatesColumns], relationCells(row));
const eventParams = (row: EventRow): Params => paramsOf(eventColumns, eventCells(row));

interface NextEventLink {
  fromKey: string;
  toKey: string;
  sessionId: string;
}

/** NEXT_EVENT links of a diff: previous head → first new event, then between new events. */
function nextEventLinks(diff: GraphDiff): NextEventLink[] {
  const events = [...diff.newEvents].sort((a, b) => a.seq - b.seq);
  const links: NextEventLink[] = [];
  let previousKey = diff.previousHead === null ? null : eventKey(diff.sessionId, diff.previousHead.seq);
  for (const event of events) {
    if (previousKey !== null) links.push({ fromKey: previousKey, toKey: event.eventKey, sessionId: diff.sessionId });
    previousKey = event.eventKey;
  }
  return links;
}


function relationId(relKey: string): number {
  const parts = relKey.split(keySeparator);
  return Number(parts[parts.length - 2]) * relationIdFactor + Number(parts[parts.length - 1]);
}

function relationKeyOfId(sessionId: string, id: number): string {
  return relationKey(sessionId, Math.floor(id / relationIdFactor), id % relationIdFactor);
}

/**
 * Rows in creation order: by `rel_id` (the event that created the row, then the ordinal within
 * it), compared as the numbers read from the store. Not `sourceEventSeq`: a relation copied onto
 * a new entity version keeps the citation of the event that asserted it.
 */
function inIdOrder(rows: RelationRow[], ids: Float64Array): RelationRow[] {
  const order = Array.from(rows.keys()).sort((a, b) => ids[a] - ids[b]);
  return order.map((i) => rows[i]);
}

function isEmptyFile(file: string): boolean {
  try {
    const stat = fs.statSync(file);
    return stat.isFile() && stat.size === 0;
  } catch {
    return false;
  }
}

/**
 * Removes the bulk-load folders (`<db>.load-*`) beside the database and returns their names.
 * Call only while holding the store's lock: every write creates its folder under the lock and
 * removes it before releasing, so any folder seen then was left by a process that died writing.
 */
export function removeStaleLoadDirs(dbPath: string): string[] {
  const dir = path.dirname(dbPath);
  const prefix = path.basename(dbPath) + loadDirSuffix;
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((name) => name.startsWith(prefix));
  } catch {
    return [];
  }
  for (const name of names) fs.rmSync(path.join(dir, name), { recursive: true, force: true });
  return names;
}

/** Deletes the database file and whatever Kuzu keeps beside it (not our lock file). */
export function deleteDatabaseFiles(dbPath: string): void {
  for (const suffix of databaseFileSuffixes) fs.rmSync(dbPath + suffix, { force: true, recursive: true });
}

/**
 * A file-backed Kuzu database holding the graph projection, exclusively ours while open.
 *
 * @example
 * ```ts
 * const store = await KuzuStore.openOrRebuild(".eventloom/projections/embedded.kuzu", console.warn);
 * try {
 *   store.applyDiff(diff);
 *   const { entities, relations, head } = store.readSession("s1");
 * } finally {
 *   store.close();
 * }
 * ```
 */
export class KuzuStore {
  readonly dbPath: string;
  #kuzu: Kuzu;
  #database: KuzuDatabase;
  #connection: KuzuConnection;
  #lock: FileLock;
  #statements = new Map<string, KuzuPreparedStatement>();
  #closed = false;
  /** A write the file system cut short: see `close`. */
  #writeFailed = false;

  private constructor(dbPath: string, kuzu: Kuzu, database: KuzuDatabase, connection: KuzuConnection, lock: FileLock) {
    this.dbPath = dbPath;
    this.#kuzu = kuzu;
    this.#database = database;
    this.#connection = connection;
    this.#lock = lock;
  }

  /**
   * Opens (creating if missing) the database at `dbPath` and its schema.
   * Throws `ProjectionBusyError` when another process holds it past `lockWaitMs`, and
   * `ProjectionCorruptError` when the file is not a readable database of our schema version.
   */
  static async open(dbPath: string, options: KuzuStoreOptions = {}): Promise<KuzuStore> {
    const absolutePath = path.resolve(dbPath);
    const lock = await KuzuStore.#takeLock(absolutePath, options);
    try {
      removeStaleLoadDirs(absolutePath);
      return await KuzuStore.#openLocked(absolutePath, lock);
    } catch (error) {
      lock.release();
      throw error;
    }
  }

  /**
   * Like `open`, but a corrupt or outdated database is reported through `warn`, deleted and
   * replaced by an empty one (the projection is rebuilt from the log by the caller).
   */
  static async openOrRebuild(dbPath: string, warn: (message: string) => void, options: KuzuStoreOptions = {}): Promise<KuzuStore> {
    const absolutePath = path.resolve(dbPath);
    const lock = await KuzuStore.#takeLock(absolutePath, options);
    try {
      const staleLoadDirs = removeStaleLoadDirs(absolutePath);
      if (staleLoadDirs.length > 0) {
        warn(`Removed ${staleLoadDirs.length} bulk-load folder(s) left by an interrupted projection write: ${staleLoadDirs.join(", ")}`);
      }
      if (isEmptyFile(absolutePath)) {
        // Kuzu would open it as a fresh database without a word; say that the graph is rebuilt.
        warn(`The graph projection "${absolutePath}" is an empty (0-byte) file; rebuilding it from the logs`);
        deleteDatabaseFiles(absolutePath);
      }
      try {
        return await KuzuStore.#openLocked(absolutePath, lock);
      } catch (error) {
        if (!(error instanceof ProjectionCorruptError)) throw error;
        warn(`Rebuilding the graph projection at "${absolutePath}": ${error.message}`);
        deleteDatabaseFiles(absolutePath);
        return await KuzuStore.#openLocked(absolutePath, lock);
      }
    } catch (error) {
      lock.release();
      throw error;
    }
  }

  static async #takeLock(absolutePath: string, options: KuzuStoreOptions): Promise<FileLock> {
    fs.mkdirSync(path.dirname(absolutePath), { recursive: true });
    const waitMs = options.lockWaitMs ?? projectionLockWaitMs;
    try {
      return await lockFile(`${absolutePath}.lock`, "exclusive", waitMs, true);
    } catch (error) {
      if (error instanceof LockTimeoutError) {
        throw new ProjectionBusyError(
          `Cannot open the graph projection "${absolutePath}": another process has held its lock for ${waitMs} ms`,
        );
      }
      throw error;
    }
  }

  static async #openLocked(absolutePath: string, lock: FileLock): Promise<KuzuStore> {
    const kuzu = await loadKuzu();
    const created = !fs.existsSync(absolutePath);
    let database: KuzuDatabase;
    try {
      database = new kuzu.Database(absolutePath);
    } catch (error) {
      throw fullDiskError(absolutePath, error, created) ??
        new ProjectionCorruptError(`Cannot open the graph projection "${absolutePath}": ${errorMessage(error)}`);
    }
    let connection: KuzuConnection | undefined;
    try {
      connection = new kuzu.Connection(database);
      const store = new KuzuStore(absolutePath, kuzu, database, connection, lock);
      store.#ensureSchema();
      return store;
    } catch (error) {
      // An aborted runtime cannot close anything (it would abort again).
      const full = fullDiskError(absolutePath, error, created);
      if (full !== null) throw full;
      connection?.close();
      database.close();
      if (error instanceof ProjectionQueryError) {
        throw new ProjectionCorruptError(`Cannot open the graph projection "${absolutePath}": ${error.message}`);
      }
      throw error;
    }
  }

  #ensureSchema(): void {
    for (const statement of schemaStatements) this.#query(statement);
    const meta = this.#query(`MATCH (m:StoreMeta {key: '${storeMetaKey}'}) RETURN m.schema_version`);
    if (meta.length === 0) {
      // A database without our marker is ours only while it holds nothing else.
      const [[entityCount]] = this.#query("MATCH (e:Entity) RETURN count(*)");
      const [[eventCount]] = this.#query("MATCH (e:Event) RETURN count(*)");
      if (toNumber(entityCount) > 0 || toNumber(eventCount) > 0) {
        throw new ProjectionCorruptError(`The graph projection "${this.dbPath}" has data but no schema version`);
      }
      this.#query(`CREATE (:StoreMeta {key: '${storeMetaKey}', schema_version: ${projectionSchemaVersion}})`);
      return;
    }
    const version = toNumber(meta[0][0]);
    if (version !== projectionSchemaVersion) {
      throw new ProjectionCorruptError(
        `The graph projection "${this.dbPath}" has schema version ${version}; this zaxy writes version ${projectionSchemaVersion}`,
      );
    }
  }

  /** Runs a statement without parameters and returns its rows. */
  #query(statement: string): unknown[][] {
    this.#assertOpen();
    const result = this.#connection.query(statement);
    try {
      if (!result.isSuccess()) this.#fail(statement, result.getErrorMessage());
      return result.getAllRows();
    } finally {
      result.close();
    }
  }

  /** Runs a (cached) prepared statement and returns its rows. */
  #execute(statement: string, params: Params): unknown[][] {
    this.#assertOpen();
    let prepared = this.#statements.get(statement);
    if (prepared === undefined) {
      prepared = this.#connection.prepare(statement);
      if (!prepared.isSuccess()) {
        const message = prepared.getErrorMessage();
        prepared.close();
        this.#fail(statement, message);
      }
      this.#statements.set(statement, prepared);
    }
    const result = this.#connection.execute(prepared, params);
    try {
      if (!result.isSuccess()) this.#fail(statement, result.getErrorMessage());
      return result.getAllRows();
    } finally {
      result.close();
    }
  }

  #fail(statement: string, message: string): never {
    const firstLine = statement.trim().split("\n")[0].slice(0, 80);
    const text = `Kuzu query failed on "${this.dbPath}" (${firstLine}...): ${message}`;
    if (shortWriteMessagePattern.test(message)) {
      this.#writeFailed = true;
      throw new ProjectionWriteError(text);
    }
    if (isCorruptionMessage(message)) throw new ProjectionCorruptError(text);
    throw new ProjectionQueryError(text);
  }

  #assertOpen(): void {
    if (this.#closed) throw new Error(`KuzuStore for "${this.dbPath}" is closed`);
  }

  /** Runs `write` in one transaction: all of it is committed, or none. */
  async #transaction(write: () => Promise<void>): Promise<void> {
    this.#query("BEGIN TRANSACTION");
    try {
      await write();
    } catch (error) {
      // A failed statement may already have rolled the transaction back.
      const rollback = this.#connection.query("ROLLBACK");
      rollback.close();
      throw error;
    }
    this.#query("COMMIT");
  }

  /** The session's projection head, or null when it has never been projected. */
  head(sessionId: string): ProjectionHead | null {
    const rows = this.#execute(
      `MATCH (h:ProjectionHead {session_id: $session})
RETURN h.seq, h.hash, h.event_count, h.entity_count, h.current_entity_count, h.relation_count, h.current_relation_count`,
      { session: sessionId },
    );
    if (rows.length === 0) return null;
    const [seq, hash, eventCount, entityCount, currentEntityCount, relationCount, currentRelationCount] = rows[0];
    return {
      sessionId,
      seq: toNumber(seq),
      hash: String(hash),
      eventCount: toNumber(eventCount),
      entityCount: toNumber(entityCount),
      currentEntityCount: toNumber(currentEntityCount),
      relationCount: toNumber(relationCount),
      currentRelationCount: toNumber(currentRelationCount),
    };
  }

  /** Sessions that have a projection head, sorted. */
  sessions(): string[] {
    return this.#query("MATCH (h:ProjectionHead) RETURN h.session_id ORDER BY h.session_id").map((row) => String(row[0]));
  }

  /**
   * Writes a diff: entities, relations, events and their NEXT_EVENT links, then the closes and
   * the head. The head moves only after the rows it covers are durable (see "Crash safety" in
   * the module header), so whatever stops the write leaves either the previous head with its
   * rows, or rows that do not add up to the head's counts, which `headCountMismatch` reports.
   * Large diffs are bulk-loaded from CSV files in a temporary folder beside the database.
   * Throws `ProjectionInterruptedError` when `options.shouldStop` says so at a safe point.
   */
  async applyDiff(diff: GraphDiff, options: ApplyDiffOptions = {}): Promise<void> {
    const newRows = diff.newEvents.length + diff.newEntities.length + diff.newRelations.length;
    if (newRows < bulkLoadRowsMin) await this.#applyPerRow(diff, options);
    else await this.#applyBulk(diff, options);
  }

  /**
   * The naive write: one statement per row (prepared, in one transaction). Kept for the
   * benchmark that compares it with `applyDiff`'s bulk load; produces the same rows.
   */
  async insertPerRowBaseline(diff: GraphDiff, onProgress?: (doneRows: number, totalRows: number) => void): Promise<void> {
    await this.#applyPerRow(diff, { onProgress });
  }

  /** A safe point of a write: lets signal handlers run, then stops if asked to. */
  async #stopPoint(diff: GraphDiff, options: ApplyDiffOptions): Promise<void> {
    if (options.shouldStop === undefined) return;
    await yieldToEventLoop();
    if (options.shouldStop()) {
      throw new ProjectionInterruptedError(
        `Stopped writing session ${diff.sessionId}'s projection (seq ${diff.previousHead?.seq ?? 0} to ${diff.head.seq}) on request`,
      );
    }
  }

  /**
   * Small diffs: one transaction of prepared statements, head included. Kuzu logs each of these
   * statements to its WAL at commit, so a crash leaves all of the transaction or none of it.
   */
  async #applyPerRow(diff: GraphDiff, options: ApplyDiffOptions): Promise<void> {
    const links = nextEventLinks(diff);
    const totalRows = diff.newEvents.length + links.length + diff.newEntities.length + diff.newRelations.length +
      diff.closedEntities.length + diff.closedRelations.length + 1;
    let doneRows = 0;
    const step = () => {
      doneRows++;
      if (options.onProgress !== undefined && (doneRows % 1000 === 0 || doneRows === totalRows)) options.onProgress(doneRows, totalRows);
    };
    await this.#transaction(async () => {
      for (const event of diff.newEvents) {
        this.#execute(createEvent, eventParams(event));
        step();
      }
      for (const link of links) {
        this.#execute(createNextEvent, { from_key: link.fromKey, to_key: link.toKey });
        step();
      }
      await this.#stopPoint(diff, options);
      for (const entity of diff.newEntities) {
        this.#execute(createEntity, entityParams(entity));
        step();
      }
      for (const relation of diff.newRelations) {
        this.#execute(createRelation, relationParams(relation));
        step();
      }
      this.#closeRows(diff, step);
      await this.#stopPoint(diff, options);
      this.#writeHead(diff.head);
      step();
    });
  }

  /**
   * Large diffs, in two steps. First the new rows by COPY: onto an existing head in one
   * transaction (a stop before its COMMIT rolls it back), from nothing (a rebuild) as
   * auto-committed COPYs, which cost ~4x less in kuzu-wasm 0.11 (20k nodes + 20k relations:
   * 0.9 s against 3.8 s). Then a CHECKPOINT, and only then the closes and the head in one small
   * transaction. Why not all in one transaction: kuzu-wasm 0.11 writes a COPY's rows straight into
   * the database file and only their table's metadata at the checkpoint that follows COMMIT,
   * while the WAL holds the transaction's other statements; a process killed during that
   * checkpoint (seconds for 10k events) came back with the head and the closes replayed from the
   * WAL and the copied rows gone: a head that claimed rows the store did not have.
   */
  async #applyBulk(diff: GraphDiff, options: ApplyDiffOptions): Promise<void> {
    const links = nextEventLinks(diff);
    const totalRows = diff.newEvents.length + links.length + diff.newEntities.length + diff.newRelations.length +
      diff.closedEntities.length + diff.closedRelations.length + 1;
    let doneRows = 0;
    const advance = async (rows: number) => {
      doneRows += rows;
      options.onProgress?.(doneRows, totalRows);
      await this.#stopPoint(diff, options);
    };
    const loadDir = fs.mkdtempSync(`${this.dbPath}${loadDirSuffix}`);
    const copyAll = async () => {
      // Entities and relations first: a COPY into RELATES measured ~15 % faster before the event
      // spine's 200k rows were in the database (each COPY's cost grows with what is stored).
      await this.#copyRows(loadDir, "Entity", diff.newEntities, entityCells, (row) => this.#execute(createEntity, entityParams(row)), advance);
      await crashTestPauseUntilStopped("projection-copy", () => options.shouldStop?.() ?? false);
      await this.#copyRows(
        loadDir,
        "RELATES",
        diff.newRelations,
        relationCells,
        (row) => this.#execute(createRelation, relationParams(row)),
        advance,
      );
      await this.#copyRows(loadDir, "Event", diff.newEvents, eventCells, (row) => this.#execute(createEvent, eventParams(row)), advance);
      await this.#copyRows(
        loadDir,
        "NEXT_EVENT",
        links,
        (link) => [link.fromKey, link.toKey],
        (link) => this.#execute(createNextEvent, { from_key: link.fromKey, to_key: link.toKey }),
        advance,
      );
    };
    try {
      if (diff.previousHead === null) await copyAll();
      else await this.#transaction(copyAll);
      this.#query("CHECKPOINT");
      crashTestPause("projection-head");
      // No stop point from here on: the head follows its durable rows within milliseconds.
      await this.#transaction(async () => {
        this.#closeRows(diff, () => {});
        this.#writeHead(diff.head);
      });
      doneRows += diff.closedEntities.length + diff.closedRelations.length + 1;
      options.onProgress?.(doneRows, totalRows);
    } finally {
      fs.rmSync(loadDir, { recursive: true, force: true });
    }
  }

  /**
   * COPYs `rows` into `table` from CSV files of `copyChunkRows` rows each; rows the CSV format
   * cannot express (an empty string) go through `insertOne` instead.
   */
  async #copyRows<T>(
    loadDir: string,
    table: string,
    rows: readonly T[],
    cells: (row: T) => CsvCell[],
    insertOne: (row: T) => void,
    advance: (rows: number) => Promise<void>,
  ): Promise<void> {
    const csvPath = path.join(loadDir, `${table}.csv`);
    for (let start = 0; start < rows.length; start += copyChunkRows) {
      const end = Math.min(rows.length, start + copyChunkRows);
      const unexpressible: T[] = [];
      // Cells are made as the file is written, never held for the whole chunk: 150k relations'
      // cells were ~100 MB of short-lived arrays and strings.
      function* lines(): Generator<CsvCell[]> {
        for (let i = start; i < end; i++) {
          const rowCells = cells(rows[i]);
          if (rowHasEmptyString(rowCells)) unexpressible.push(rows[i]);
          else yield rowCells;
        }
      }
      if (writeCsvFile(csvPath, lines()) > 0) {
        this.#query(`COPY ${table} FROM ${cypherStringLiteral(csvPath)} ${csvCopyOptions()}`);
      }
      for (const row of unexpressible) insertOne(row);
      await advance(end - start);
    }
  }

  #closeRows(diff: GraphDiff, step: () => void): void {
    for (const closed of diff.closedEntities) {
      this.#execute(closeEntity, { node_key: closed.nodeKey, valid_to: closed.validTo });
      step();
    }
    for (let start = 0; start < diff.closedRelations.length; start += closeRelationKeysPerStatement) {
      const chunk = diff.closedRelations.slice(start, start + closeRelationKeysPerStatement);
      this.#execute(closeRelations, {
        session: diff.sessionId,
        keys: chunk.map((closed) => relationId(closed.relKey)),
        valid_tos: chunk.map((closed) => closed.validTo),
      });
      for (let i = 0; i < chunk.length; i++) step();
    }
  }

  #writeHead(head: ProjectionHead): void {
    this.#execute(upsertHead, {
      session_id: head.sessionId,
      seq: head.seq,
      hash: head.hash,
      event_count: head.eventCount,
      entity_count: head.entityCount,
      current_entity_count: head.currentEntityCount,
      relation_count: head.relationCount,
      current_relation_count: head.currentRelationCount,
    });
  }

  /**
   * Every entity version (by `vectorKey`) and relation version (by the event that created it,
   * then ordinal within it) of a session, and its head.
   */
  readSession(sessionId: string): SessionGraphRows {
    const entities = this.#readEntitiesPacked(sessionId) ?? this.#readEntitiesColumns(sessionId);
    const relations = this.#readRelationsPacked(sessionId) ?? this.#readRelationsColumns(sessionId);
    entities.sort((a, b) => a.vectorKey - b.vectorKey);
    return { entities, relations, head: this.head(sessionId) };
  }

  /** Null when a value holds the separator (the piece count is off): read column-wise then. */
  #readEntitiesPacked(sessionId: string): EntityRow[] | null {
    const [[countValue, text]] = this.#execute(readEntitiesPacked, { session: sessionId });
    const count = toNumber(countValue);
    if (count === 0) return [];
    const pieces = typeof text === "string" ? text.split(packSeparator) : [];
    if (pieces.length !== count * entityPackedFields) return null;
    const rows: EntityRow[] = new Array(count);
    for (let i = 0, p = 0; i < count; i++, p += entityPackedFields) {
      rows[i] = {
        nodeKey: pieces[p],
        sessionId,
        name: pieces[p + 1],
        entityType: pieces[p + 2],
        summary: unpackNullable(pieces[p + 3]),
        propertiesJson: pieces[p + 4],
        validFrom: pieces[p + 5],
        validTo: unpackNullable(pieces[p + 6]),
        sourceEventSeq: Number(pieces[p + 7]),
        sourceEventHash: pieces[p + 8],
        vectorKey: Number(pieces[p + 9]),
      };
    }
    return rows;
  }

  #readEntitiesColumns(sessionId: string): EntityRow[] {
    return this.#execute(readEntitiesColumns, { session: sessionId }).map((row) => ({
      nodeKey: row[0] as string,
      sessionId,
      name: row[1] as string,
      entityType: row[2] as string,
      summary: row[3] as string | null,
      propertiesJson: row[4] as string,
      validFrom: row[5] as string,
      validTo: row[6] as string | null,
      sourceEventSeq: toNumber(row[7]),
      sourceEventHash: row[8] as string,
      vectorKey: toNumber(row[9]),
    }));
  }

  #readRelationsPacked(sessionId: string): RelationRow[] | null {
    const [[countValue, text, confidences]] = this.#execute(readRelationsPacked, { session: sessionId });
    const count = toNumber(countValue);
    if (count === 0) return [];
    const pieces = typeof text === "string" ? text.split(packSeparator) : [];
    if (pieces.length !== count * relationPackedFields || !Array.isArray(confidences) || confidences.length !== count) return null;
    const rows: RelationRow[] = new Array(count);
    const ids = new Float64Array(count);
    for (let i = 0, p = 0; i < count; i++, p += relationPackedFields) {
      ids[i] = Number(pieces[p]);
      rows[i] = {
        relKey: relationKeyOfId(sessionId, ids[i]),
        sessionId,
        sourceKey: pieces[p + 1],
        targetKey: pieces[p + 2],
        relationType: pieces[p + 3],
        validFrom: pieces[p + 4],
        validTo: unpackNullable(pieces[p + 5]),
        inferred: pieces[p + 6] === "1",
        confidence: toNumber(confidences[i]),
        inferenceMethod: unpackNullable(pieces[p + 7]),
        sourceEventSeq: Number(pieces[p + 8]),
        sourceEventHash: pieces[p + 9],
        evidenceJson: pieces[p + 10],
      };
    }
    return inIdOrder(rows, ids);
  }

  #readRelationsColumns(sessionId: string): RelationRow[] {
    const result = this.#execute(readRelationsColumns, { session: sessionId });
    const ids = Float64Array.from(result, (row) => toNumber(row[0]));
    const rows = result.map((row, i) => ({
      relKey: relationKeyOfId(sessionId, ids[i]),
      sessionId,
      sourceKey: row[1] as string,
      targetKey: row[2] as string,
      relationType: row[3] as string,
      validFrom: row[4] as string,
      validTo: row[5] as string | null,
      inferred: Boolean(row[6]),
      confidence: toNumber(row[7]),
      inferenceMethod: row[8] as string | null,
      sourceEventSeq: toNumber(row[9]),
      sourceEventHash: row[10] as string,
      evidenceJson: row[11] as string,
    }));
    return inIdOrder(rows, ids);
  }

  /**
   * Whether any row of the session is stored (entities or events), with or without a head: a
   * rebuild that died before writing its head leaves such rows behind.
   */
  hasSessionRows(sessionId: string): boolean {
    const params = { session: sessionId };
    const [[entities]] = this.#execute("MATCH (e:Entity) WHERE e.session_id = $session RETURN count(*)", params);
    const [[events]] = this.#execute("MATCH (e:Event) WHERE e.session_id = $session RETURN count(*)", params);
    return toNumber(entities) > 0 || toNumber(events) > 0 || this.head(sessionId) !== null;
  }

  /** Row counts of one session, or of the whole store when `sessionId` is omitted. */
  counts(sessionId?: string): ProjectionCounts {
    const where = (variable: string) => (sessionId === undefined ? "" : `WHERE ${variable}.session_id = $session`);
    const params = sessionId === undefined ? {} : { session: sessionId };
    const [[entities, currentEntities]] = this.#execute(
      `MATCH (e:Entity) ${where("e")} RETURN count(*), count(CASE WHEN e.valid_to IS NULL THEN 1 END)`,
      params,
    );
    const [[relations, currentRelations]] = this.#execute(
      `MATCH (a:Entity)-[r:RELATES]->(:Entity) ${where("a")} RETURN count(*), count(CASE WHEN r.valid_to IS NULL THEN 1 END)`,
      params,
    );
    const [[events]] = this.#execute(`MATCH (e:Event) ${where("e")} RETURN count(*)`, params);
    return {
      entities: toNumber(entities),
      currentEntities: toNumber(currentEntities),
      relations: toNumber(relations),
      currentRelations: toNumber(currentRelations),
      events: toNumber(events),
    };
  }

  /** Runs a read-only Cypher statement; for tests and diagnostics. */
  queryRows(statement: string, params: Params = {}): unknown[][] {
    return this.#execute(statement, params);
  }

  /** Closes the connection and database and releases the lock. Safe to call twice. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#writeFailed) {
      // Closing a database whose write-ahead log could not be written makes Kuzu checkpoint it,
      // which fails again and aborts the whole wasm runtime: leave it open (its memory goes
      // with the process) and only give the lock back. The file keeps its last committed head.
      this.#lock.release();
      return;
    }
    try {
      for (const statement of this.#statements.values()) statement.close();
      this.#statements.clear();
      this.#connection.close();
      this.#database.close();
    } finally {
      this.#lock.release();
    }
  }

  /** The Kuzu runtime in use (version, whether it came from embedded assets). */
  get runtime(): Pick<Kuzu, "version" | "source"> {
    return { version: this.#kuzu.version, source: this.#kuzu.source };
  }
}
