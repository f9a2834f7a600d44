/**
 * The vector lane's index per session (`<root>/projections/vectors/<session>.vectors`, key = the
 * row's `vectorKey`): the hash embeddings of its entity versions as postings by bucket
 * (projection/vectorPostings.ts), searched exactly. It is kept in step with the projection:
 * appended to when the projection catches up, rebuilt when the projection was rebuilt. A side
 * file (`.vectors.json`) records the head the index reflects, its vector count, byte size and
 * SHA-256. An index whose side file is unreadable, whose head is not an event of the verified
 * log, whose dimension differs, whose count exceeds the rows, whose file does not match its
 * recorded size and SHA-256, or that opens with another vector count, is rebuilt from the rows,
 * and the rebuild is reported through `warn` (a first build is not).
 *
 * Earlier releases kept a usearch HNSW index (`<session>.usearch`): approximate, ~30
 * core-seconds to build for 95k versions, and different from one multi-threaded build to the
 * next. The postings give the exact answer the lane used to re-score its way towards; a
 * leftover `.usearch` file is removed when the new index is written.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { projectionsDir, refuseLinkUnderRoot } from "../eventloom/session.ts";
import { fileStamp, sha256OfFile, writeChunksAtomically, writeFileAtomic } from "../platform/atomicFile.ts";
import type { EntityRow, ProjectionHead } from "./types.ts";
import {
  concatPostings,
  embedPostings,
  encodeVectorPostings,
  ExtendedVectorSearch,
  MemoryVectorPostings,
  type VectorNeighbourSearch,
  VectorPostingsFile,
  type VectorPostings,
} from "./vectorPostings.ts";

export type { VectorNeighbourSearch } from "./vectorPostings.ts";

export const vectorMetaSchema = "zaxy.projection.vectors.v3";
/** What the side file records as the vectors' kind: the kernel's f64 values, stored unrounded. */
const storedValues = "f64";

interface VectorMeta {
  schema: string;
  session_id: string;
  head_seq: number;
  head_hash: string;
  count: number;
  dim: number;
  quantization: string;
  /** SHA-256 of the index file, checked before the file is trusted. */
  sha256: string;
  /** Size of the index file in bytes: a cut file is refused before it is even hashed. */
  bytes: number;
  /** `fileStamp` of the index file when its SHA-256 was computed: the same stamp needs no new hash. */
  stamp?: string;
}

export interface SessionVectorIndex {
  index: VectorNeighbourSearch;
  count: number;
  dim: number;
  path: string;
  /** How the index was brought up to date: read as is, appended to, or built from scratch. */
  action: "loaded" | "appended" | "built";
}

export function vectorIndexPath(root: string, sessionId: string): string {
  return path.join(projectionsDir(root), "vectors", `${sessionId}.vectors`);
}

/** The HNSW index file earlier versions kept beside it (removed once the postings are written). */
function legacyUsearchPath(indexPath: string): string {
  return indexPath.replace(/\.vectors$/, ".usearch");
}

function metaPath(indexPath: string): string {
  return `${indexPath}.json`;
}

/** The side file, `missing` when neither it nor the index exists (a first build), or why it is unusable. */
function readMeta(indexPath: string): VectorMeta | "missing" | { problem: string } {
  let text: string;
  try {
    text = fs.readFileSync(metaPath(indexPath), "utf8");
  } catch {
    return fs.existsSync(indexPath) ? { problem: `its metadata file "${metaPath(indexPath)}" is missing` } : "missing";
  }
  let meta: VectorMeta;
  try {
    meta = JSON.parse(text) as VectorMeta;
  } catch {
    return { problem: `its metadata file "${metaPath(indexPath)}" is not JSON` };
  }
  if (meta?.schema !== vectorMetaSchema) return { problem: `its metadata file has schema ${JSON.stringify(meta?.schema ?? null)}, not ${vectorMetaSchema}` };
  if (!fs.existsSync(indexPath)) return { problem: "the index file is missing" };
  return meta;
}

/** What the vectors read of an entity version: its embedded text's fields and its seq. */
export type VectorEntity = Pick<EntityRow, "name" | "entityType" | "summary" | "sourceEventSeq">;

/** The rows the vectors are built from (a session's `SessionGraphRows` is one). */
export interface VectorRows {
  entities: readonly VectorEntity[];
  head: ProjectionHead | null;
}

/** Why an index described by `meta` cannot be reused for `rows`, or null when it can. */
function metaProblem(meta: VectorMeta, sessionId: string, rows: VectorRows, events: LogEvents, dim: number): string | null {
  const total = rows.entities.length;
  const headEvent = events[meta.head_seq - 1];
  if (meta.session_id !== sessionId) return `its metadata names session ${JSON.stringify(meta.session_id)}`;
  if (meta.dim !== dim || meta.quantization !== storedValues) {
    return `it holds ${meta.dim}-dimensional ${meta.quantization} vectors, ${dim}-dimensional ${storedValues} are wanted`;
  }
  if (!Number.isSafeInteger(meta.count) || meta.count < 0 || meta.count > total) return `it records ${meta.count} vectors for ${total} entity versions`;
  if (meta.head_seq > 0 && (headEvent === undefined || headEvent.hash !== meta.head_hash)) {
    return `its head (seq ${meta.head_seq}) is not an event of the verified log`;
  }
  if (meta.count > 0 && rows.entities[meta.count - 1].sourceEventSeq > meta.head_seq) return "its vectors do not match the projected rows";
  return null;
}

function fileProblem(indexPath: string, meta: VectorMeta): string | null {
  const bytes = fs.statSync(indexPath).size;
  if (bytes !== meta.bytes) return `the index file has ${bytes} bytes, its metadata records ${meta.bytes}`;
  if (meta.stamp !== undefined && fileStamp(indexPath) === meta.stamp) return null;
  // Hashed in chunks: the file can be hundreds of megabytes.
  if (sha256OfFile(indexPath, meta.bytes) !== meta.sha256) return "the index file does not match the SHA-256 its metadata records";
  restamp(indexPath, meta);
  return null;
}

/**
 * Records the index file's current stamp once its SHA-256 has been checked, so the next open
 * need not hash it again; best effort (a read-only root only loses the shortcut).
 */
function restamp(indexPath: string, meta: VectorMeta): void {
  try {
    writeChunksAtomically(metaPath(indexPath), [Buffer.from(JSON.stringify({ ...meta, stamp: fileStamp(indexPath) }), "utf8")]);
  } catch {
    // The stamp only saves a hash on the next open.
  }
}

/**
 * Writes the index atomically and opens what was written. The file is opened before the rename,
 * so the index returned reads this file whatever another writer renames over the path.
 */
function save(postings: VectorPostings, indexPath: string, meta: VectorMeta): VectorPostingsFile {
  // `<root>/projections/vectors/<session>.vectors`: never written through a link under the root.
  refuseLinkUnderRoot(path.dirname(path.dirname(path.dirname(path.resolve(indexPath)))), indexPath, `write the vector index ${indexPath}`);
  fs.mkdirSync(path.dirname(indexPath), { recursive: true });
  const temp = `${indexPath}.tmp-${process.pid}`;
  let opened: VectorPostingsFile;
  try {
    meta.bytes = writeChunksAtomically(temp, encodeVectorPostings(postings));
    meta.sha256 = sha256OfFile(temp)!;
    opened = VectorPostingsFile.open(temp, meta.bytes);
    fs.renameSync(temp, indexPath);
  } catch (error) {
    // A full disk must not leave a partial index behind to fill it further.
    fs.rmSync(temp, { force: true });
    throw error;
  }
  meta.stamp = fileStamp(indexPath);
  try {
    writeFileAtomic(metaPath(indexPath), JSON.stringify(meta));
  } catch (error) {
    // An index without its side file would be refused, with a warning, by every later read: a
    // side file that cannot land (a full disk) takes the index with it, so the next read finds
    // none and builds one, as a first read does. (The old side file goes too: it described the
    // index just replaced.)
    opened.close();
    for (const file of [indexPath, metaPath(indexPath)]) fs.rmSync(file, { force: true });
    throw error;
  }
  removeLegacyIndex(indexPath);
  return opened;
}

function removeLegacyIndex(indexPath: string): void {
  const legacy = legacyUsearchPath(indexPath);
  if (legacy === indexPath) return;
  for (const file of [legacy, `${legacy}.json`]) {
    try {
      fs.rmSync(file, { force: true });
    } catch {
      // A leftover only costs disk space; nothing reads it.
    }
  }
}

function openChecked(indexPath: string, meta: VectorMeta): VectorPostingsFile {
  const index = VectorPostingsFile.open(indexPath, meta.bytes);
  if (index.size() !== meta.count || index.dim !== meta.dim) {
    index.close();
    throw new Error(`the index file holds ${index.size()} ${index.dim}-dimensional vectors, its metadata records ${meta.count} ${meta.dim}-dimensional`);
  }
  return index;
}

/**
 * The session's index exactly at `head` with `count` vectors, for a read model at that head
 * (read lazily: a search reads only the buckets of its query); throws with the reason when the
 * index on disk is not that one (the caller then brings it up to date from the rows).
 */
export async function viewVectorIndexAt(root: string, sessionId: string, head: { seq: number; hash: string }, count: number, dim: number): Promise<SessionVectorIndex> {
  const indexPath = vectorIndexPath(root, sessionId);
  const read = readMeta(indexPath);
  const problem = read === "missing" ? "there is none" : "problem" in read ? read.problem
    : read.session_id !== sessionId || read.head_seq !== head.seq || read.head_hash !== head.hash ? `it is at seq ${read.head_seq}, not at the read model's head ${head.seq}`
    : read.count !== count || read.dim !== dim || read.quantization !== storedValues ? `it holds ${read.count} ${read.dim}-dimensional ${read.quantization} vectors, ${count} ${dim}-dimensional ${storedValues} are wanted`
    : fileProblem(indexPath, read);
  if (problem !== null) throw new Error(`vector index "${indexPath}" is not at the read model's head: ${problem}`);
  try {
    return { index: openChecked(indexPath, read as VectorMeta), count, dim, path: indexPath, action: "loaded" };
  } catch (error) {
    throw new Error(`vector index "${indexPath}": ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * `base` (an index opened at an earlier head) followed by `rows`, the versions folded since
 * (vector keys following the base's), held in memory and not saved: the same vectors, so the
 * same answers, as the full catch-up gives at the same head.
 */
export async function extendVectorIndex(base: SessionVectorIndex, rows: readonly EntityRow[]): Promise<SessionVectorIndex> {
  if (rows.length === 0) return base;
  rows.forEach((row, i) => {
    if (row.vectorKey !== base.count + i) throw new RangeError(`vector index extension: version ${i} has vector key ${row.vectorKey}, expected ${base.count + i}`);
  });
  if (base.index.size() !== base.count) throw new Error(`vector index "${base.path}" holds ${base.index.size()} vectors, ${base.count} were opened`);
  const tail = new MemoryVectorPostings(embedPostings(rows, base.dim, base.count));
  return { index: new ExtendedVectorSearch(base.index, tail), count: base.count + rows.length, dim: base.dim, path: base.path, action: "appended" };
}

/** What the vector index reads of the verified log: event `seq`'s hash at index `seq - 1`. */
export type LogEvents = readonly { readonly hash: string }[];

/**
 * The part of the verified log `syncVectorIndex` reads: the event at the session's saved index's
 * recorded head (a sparse array holding only it), for a caller that releases the parsed events
 * before building vectors (`zaxy reproject`: at 1M events they are ~3 GB of heap that the build
 * would otherwise sit on top of).
 */
export function vectorHeadEvents(root: string, sessionId: string, events: LogEvents): LogEvents {
  const headSeq = savedVectorHeadSeq(root, sessionId);
  const kept: { hash: string }[] = [];
  if (headSeq !== null && headSeq <= events.length) kept[headSeq - 1] = { hash: events[headSeq - 1].hash };
  return kept;
}

/**
 * The seq of the session's saved index's recorded head (null when there is no readable index,
 * or it records none): the one event whose hash `syncVectorIndex` checks, for a caller that
 * sees the events pass one at a time.
 */
export function savedVectorHeadSeq(root: string, sessionId: string): number | null {
  const read = readMeta(vectorIndexPath(root, sessionId));
  return read !== "missing" && !("problem" in read) && Number.isSafeInteger(read.head_seq) && read.head_seq > 0 ? read.head_seq : null;
}

/**
 * The session's index, brought up to `rows` (appending new versions or rebuilding), opened from
 * the file written. `events` is the verified log (or `vectorHeadEvents` of it), used to check
 * that the index's recorded head is still part of it. A rebuild of an index that existed is
 * reported through `warn` with the reason.
 */
export async function syncVectorIndex(
  root: string,
  sessionId: string,
  rows: VectorRows,
  events: LogEvents,
  dim: number,
  onProgress?: (done: number, total: number) => void,
  warn?: (message: string) => void,
): Promise<SessionVectorIndex> {
  const indexPath = vectorIndexPath(root, sessionId);
  const total = rows.entities.length;
  const read = readMeta(indexPath);
  const meta = read === "missing" || "problem" in read ? null : read;
  let problem = read === "missing" ? null : "problem" in read ? read.problem : metaProblem(read, sessionId, rows, events, dim);
  if (meta !== null && problem === null) problem = fileProblem(indexPath, meta);
  let kept: VectorPostings | null = null;
  if (meta !== null && problem === null) {
    try {
      const index = openChecked(indexPath, meta);
      if (meta.count === total) return { index, count: total, dim, path: indexPath, action: "loaded" };
      try {
        kept = index.readAll();
      } finally {
        index.close();
      }
    } catch (error) {
      problem = `it cannot be read (${error instanceof Error ? error.message : String(error)})`;
    }
  }
  if (problem !== null) warn?.(`vector index "${indexPath}" is rebuilt from the projected rows: ${problem}`);
  const from = kept?.count ?? 0;
  const added = embedPostings(rows.entities.slice(from), dim, from, onProgress);
  const postings = kept === null ? added : concatPostings(kept, added);
  const head = rows.head;
  const index = save(postings, indexPath, {
    schema: vectorMetaSchema,
    session_id: sessionId,
    head_seq: head?.seq ?? 0,
    head_hash: head?.hash ?? "",
    count: total,
    dim,
    quantization: storedValues,
    sha256: "",
    bytes: 0,
  });
  return { index, count: total, dim, path: indexPath, action: kept === null ? "built" : "appended" };
}
