/**
 * Writes a session's read model (docs/read-model.md) from the rows and events a projection holds
 * at its head: entity versions, names, current adjacency, event spans in the log, BM25 segments
 * over entity text and raw event text, relation versions with each position's current relations
 * and a node-key table (what a tail catch-up folds from), and the whole-session folds. Every file is written
 * atomically under a name that carries the head, then the manifest is swapped in, then files of
 * older generations are removed (a reader that opened them keeps its descriptors).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { refuseLinkUnderRoot } from "../eventloom/root.ts";
import { writeChunksAtomically } from "../platform/atomicFile.ts";
import { type GraphRows, relationRowsIn } from "../projection/relationStore.ts";
import { collectGarbageNow, requestGarbageCollection, fileStamp } from "../platform/mod.ts";
import type { ReadModelSource } from "./readModelSource.ts";
import { adjacencyChunks } from "./adjacencyTable.ts";
import { writeBm25Segment } from "./bm25Segment.ts";
import { writeEntityTable } from "./entityTable.ts";
import { eventSpansChunks, scanEventSpans } from "./eventSpans.ts";
import { KeyGroups } from "./keyGroups.ts";
import { manifestBytes, manifestPath, type ReadModelManifest, readModelDir, readModelSchema } from "./manifest.ts";
import { writeRelationTable } from "./relationTable.ts";
import { writeSortedTable } from "./sortedTable.ts";
import { writeChunks, writeTableFile } from "./tableFileWriter.ts";
import { storedFoldState } from "./tailFolds.ts";

/** Why these rows cannot be written as a read model, or null. */
function rowsProblem(rows: GraphRows, events: HeadOfLog): string | null {
  const head = rows.head;
  if (head === null || events.length === 0) return "the session has no events";
  if (head.seq !== events.length || events[events.length - 1].hash !== head.hash) return `the rows' head (seq ${head.seq}) is not the last of ${events.length} events`;
  // The reader checks the tables against the head's counts: rows that disagree would be refused forever.
  if (rows.entities.length !== head.entityCount || rows.relations.length !== head.relationCount) {
    return `the rows hold ${rows.entities.length} entity versions and ${rows.relations.length} relations, their head records ${head.entityCount} and ${head.relationCount}`;
  }
  // The vector lane maps a vector key to a position without a table: they must be the same.
  const bad = rows.entities.findIndex((entity, position) => entity.vectorKey !== position);
  return bad < 0 ? null : `entity version ${bad} has vector key ${rows.entities[bad].vectorKey}`;
}

/** A writer's temp file older than this is left over from a crash, not being written. */
const orphanTempAgeMs = 10 * 60_000;

/**
 * Removes the files no longer in the manifest, and temp files left by writers that died; a temp
 * file being written right now by another process is young and stays.
 */
function removeOtherGenerations(dir: string, manifest: ReadModelManifest): void {
  const kept = new Set(["manifest.json", ...Object.values(manifest.files).map((file) => file.name)]);
  for (const name of fs.readdirSync(dir)) {
    if (kept.has(name)) continue;
    const file = path.join(dir, name);
    if (name.startsWith(".") && name.endsWith(".tmp")) {
      const stat = fs.statSync(file, { throwIfNoEntry: false });
      if (stat === undefined || Date.now() - stat.mtimeMs < orphanTempAgeMs) continue;
    }
    fs.rmSync(file, { force: true });
  }
}

/**
 * The tables written from the rows alone, one after another; what each one builds over the rows
 * (key groups, endpoint positions) is garbage when this returns, before the keyword index grows.
 */
function writeRowTables(dir: string, generation: string, rows: GraphRows, collect: () => void) {
  const entities = writeTableFile(dir, `entities-${generation}.bin`, (fd) => writeEntityTable(fd, rows.entities, collect));
  const names = writeTableFile(dir, `names-${generation}.bin`, (fd) => writeSortedTable(fd, KeyGroups.of(rows.entities.length, (p) => rows.entities[p].name.toLowerCase())));
  collect();
  // Relation endpoints resolve to the entity version with their node key, the later one if two
  // shared it (as `currentAdjacency` resolves them), -1 if none.
  const byNodeKey = KeyGroups.of(rows.entities.length, (p) => rows.entities[p].nodeKey);
  const relationRows = relationRowsIn(rows.relations);
  const sources = new Int32Array(relationRows.length);
  const targets = new Int32Array(relationRows.length);
  for (let id = 0; id < relationRows.length; id++) {
    sources[id] = byNodeKey.lastPosition(relationRows.sourceKey(id));
    targets[id] = byNodeKey.lastPosition(relationRows.targetKey(id));
  }
  const { chunks, relationTypes } = adjacencyChunks(rows.entities.length, relationRows, sources, targets);
  const adjacency = writeTableFile(dir, `adjacency-${generation}.bin`, (fd) => writeChunks(fd, chunks));
  const nodeKeys = writeTableFile(dir, `nodekeys-${generation}.bin`, (fd) => writeSortedTable(fd, byNodeKey));
  const relations = writeTableFile(dir, `relations-${generation}.bin`, (fd) => writeRelationTable(fd, rows.entities.length, relationRows, sources, targets, collect));
  return { entities, names, adjacency, relationTypes, nodeKeys, relations };
}

/**
 * What the writer reads of the verified events: their number (`length`) and the last one's hash
 * (the events themselves, or a sparse array holding only the last, for a caller that folded the
 * log one event at a time).
 */
export type HeadOfLog = readonly { readonly hash: string }[];

/** Entity versions plus events from which a read-model write collects garbage between its tables. */
const largeWriteRowsMin = 20_000;

export interface WriteReadModelOptions {
  /**
   * Called once nothing more is read from `events` (nor from `index`'s folds and verbatim index),
   * before the tables built from the rows alone: a caller that keeps no other use for the events
   * can drop them here (100k parsed events are ~300 MB, and the collector let the garbage of the
   * remaining tables pile up on top of them: the peak of a 100k-event reproject).
   */
  releaseEvents?: () => void;
  /**
   * Called once the relation tables are written, before the keyword index grows: a caller that
   * keeps no other use for the relations can drop them here (1M events: ~130 MB of columns).
   */
  releaseRelations?: () => void;
}

/**
 * Writes the read model of an in-memory index built over `rows` at their head (its BM25 indexes
 * and folds are stored as they are, so answers cannot drift; the names and adjacency tables are
 * derived from the rows as `namePositionsOf` and `currentAdjacency` derive the index's); `events`
 * are the verified events through the head, `logPath` the log they were read from. Returns the
 * manifest, or null (with the reason through `warn`) when the rows cannot be written.
 */
export function writeReadModel(
  root: string,
  logPath: string,
  index: ReadModelSource,
  rows: GraphRows,
  events: HeadOfLog,
  warn?: (message: string) => void,
  options: WriteReadModelOptions = {},
): ReadModelManifest | null {
  const sessionId = index.sessionId;
  const problem = rowsProblem(rows, events);
  if (problem !== null) {
    warn?.(`read model of session ${JSON.stringify(sessionId)} not written: ${problem}`);
    return null;
  }
  const head = rows.head!;
  const dir = readModelDir(root, sessionId);
  refuseLinkUnderRoot(root, manifestPath(root, sessionId), `write the read model of session ${JSON.stringify(sessionId)}`);
  fs.mkdirSync(dir, { recursive: true });
  const generation = `${head.seq}-${head.hash.slice(0, 12)}`;

  const logSize = fs.statSync(logPath).size;
  const spans = scanEventSpans(logPath, logSize, events.length);
  const fd = fs.openSync(logPath, "r");
  let logBytes: number;
  try {
    const lastEnd = spans[spans.length - 1];
    const next = Buffer.alloc(1);
    logBytes = lastEnd < logSize && fs.readSync(fd, next, 0, 1, lastEnd) === 1 && next[0] === 0x0a ? lastEnd + 1 : lastEnd;
  } finally {
    fs.closeSync(fd);
  }

  // What needs the events first (the spans, the verbatim index, the folds), so that the caller
  // can release them before the tables built from the rows alone.
  const eventCount = events.length;
  const collect = rows.entities.length + eventCount >= largeWriteRowsMin ? collectGarbageNow : () => requestGarbageCollection();
  const eventsFile = writeTableFile(dir, `events-${generation}.bin`, (fd) => writeChunks(fd, eventSpansChunks(spans)));
  const verbatimName = `verbatim-${generation}.bin`;
  const verbatim = writeBm25Segment(path.join(dir, verbatimName), { docBase: 0, index: index.verbatim });
  // The verbatim index is garbage once stored (1M events: its entries and postings, ~450 MB):
  // freed before the folds read the relations and the log again.
  collect();
  const folds = storedFoldState(index.folds);
  options.releaseEvents?.();
  // Each table is written as it is encoded, from the rows and typed arrays over them, and each
  // BM25 index is read once and not kept (a `RowsReadModelSource` builds it on the read). A large
  // session collects between them, so that one's garbage is freed before the next grows: left to
  // the collector, they stacked up (100k events: ~1.42 GB peak in a catch-up, ~1.0 GB with the
  // collections, ~0.3 s more).
  collect();
  const { entities, names, adjacency, relationTypes, nodeKeys, relations } = writeRowTables(dir, generation, rows, collect);
  options.releaseRelations?.();
  collect();
  const keywordName = `keyword-${generation}.bin`;
  const keyword = writeBm25Segment(path.join(dir, keywordName), { docBase: 0, index: index.keyword });
  requestGarbageCollection();

  const manifest: ReadModelManifest = {
    schema: readModelSchema,
    session_id: sessionId,
    head,
    log_bytes: logBytes,
    files: {
      entities,
      names,
      adjacency,
      events: eventsFile,
      keyword: { name: keywordName, bytes: keyword.bytes, sha256: keyword.sha256, stamp: fileStamp(path.join(dir, keywordName)) },
      verbatim: { name: verbatimName, bytes: verbatim.bytes, sha256: verbatim.sha256, stamp: fileStamp(path.join(dir, verbatimName)) },
      relations,
      node_keys: nodeKeys,
    },
    relation_types: relationTypes,
    folds,
  };
  writeChunksAtomically(manifestPath(root, sessionId), [manifestBytes(root, manifest)]);
  removeOtherGenerations(dir, manifest);
  return manifest;
}
