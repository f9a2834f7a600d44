/**
 * A usearch index per session over the hash embeddings of its entity versions
 * (`<root>/projections/vectors/<session>.usearch`, key = the row's `vectorKey`), kept in step
 * with the projection: appended to when the projection catches up, rebuilt when the projection
 * was rebuilt. A side file (`.usearch.json`) records the head the index reflects, its vector
 * count, byte size and SHA-256. An index whose side file is unreadable, whose head is not an event
 * of the verified log, whose dimension differs, whose count exceeds the rows, whose file does not
 * match its recorded size and SHA-256 (usearch's native loader trusts the file; random bytes can
 * crash the process), or that loads with another vector count, is rebuilt from the rows, and the
 * rebuild is reported through `warn` (a first build is not).
 *
 * Appends and small builds are single-threaded, so that two rebuilds of the same rows give the
 * same file; large builds use every core (`addThreadsFor`).
 * Quantisation is i8 with connectivity 16: on this machine f16 took ~10x longer to build at
 * dimension 1536 (HNSW insertion cost is dominated by distance computations), and hash
 * embeddings are sparse +-1/sqrt(n) vectors, which i8 represents well.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileStamp, sha256OfFile, writeChunksAtomically, writeFileAtomic } from "../platform/atomicFile.ts";
import { entityEmbeddingText, hashEmbedManyInto, loadUsearch, type Matches, type UsearchIndex } from "../vector/mod.ts";
import { requestGarbageCollection } from "../platform/mod.ts";
import { projectionsDir } from "./snapshot.ts";
import type { EntityRow, SessionGraphRows } from "./types.ts";

export const vectorMetaSchema = "zaxy.projection.vectors.v2";
const indexConfig = { metric: "cos", quantization: "i8", connectivity: 16, expansionAdd: 32, expansionSearch: 128 } as const;
const embedBatchRows = 4096;
/**
 * Threads that insert. usearch gives each insertion thread its own level generator and lets
 * threads race for graph links, so a multi-threaded build of the same rows gives a different
 * graph (and different approximate neighbours) every time. Appends therefore use one thread:
 * a read's tail catch-up extends the index in memory exactly as the full catch-up extends the
 * file (`extendVectorIndex`), so both search the same graph. A build from scratch of at least
 * `parallelBuildRowsMin` versions (a reproject, a rebuild) uses every core: it was most of a
 * 100k-event reproject (~11 s of HNSW insertion on one core), and the answer does not depend on
 * the graph's shape as long as the exact top is among the candidates, which the vector lane
 * re-scores exactly (retrieval/vectorLane.ts). Smaller builds stay single-threaded, so their
 * files are byte-identical from one rebuild to the next.
 */
const parallelBuildRowsMin = 16_384;

function addThreadsFor(rowCount: number, fromScratch: boolean): number {
  return fromScratch && rowCount >= parallelBuildRowsMin ? Math.min(Math.max(1, os.availableParallelism?.() ?? os.cpus().length), 8) : 1;
}

interface VectorMeta {
  schema: string;
  session_id: string;
  head_seq: number;
  head_hash: string;
  count: number;
  dim: number;
  quantization: string;
  /** SHA-256 of the index file: usearch's loader trusts the file, and a damaged one can crash it. */
  sha256: string;
  /** Size of the index file in bytes: a cut file is refused before it is even hashed. */
  bytes: number;
  /** `fileStamp` of the index file when its SHA-256 was computed: the same stamp needs no new hash. */
  stamp?: string;
}

/**
 * What the vector lane asks of a session's index (retrieval/vectorLane.ts): the `k` nearest keys
 * of one query, closest first. A usearch index is one; a tail catch-up's overlay of one over a few
 * more versions (readmodel/tailVectorIndex.ts) is another.
 */
export interface VectorNeighbourSearch {
  search(query: Float32Array, k: number, threads: number): Matches;
  /** Number of vectors searched. */
  size(): number;
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
  return path.join(projectionsDir(root), "vectors", `${sessionId}.usearch`);
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

/** Why an index described by `meta` cannot be reused for `rows`, or null when it can. */
function metaProblem(meta: VectorMeta, sessionId: string, rows: SessionGraphRows, events: LogEvents, dim: number): string | null {
  const total = rows.entities.length;
  const headEvent = events[meta.head_seq - 1];
  if (meta.session_id !== sessionId) return `its metadata names session ${JSON.stringify(meta.session_id)}`;
  if (meta.dim !== dim || meta.quantization !== indexConfig.quantization) {
    return `it holds ${meta.dim}-dimensional ${meta.quantization} vectors, ${dim}-dimensional ${indexConfig.quantization} are wanted`;
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
  // Only a file whose checksum matches is handed to usearch (hashed in chunks: the file can be
  // hundreds of megabytes).
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

function embedRows(index: UsearchIndex, rows: readonly EntityRow[], dim: number, threads: number, onProgress?: (done: number, total: number) => void): void {
  // One buffer for every batch: per-text arrays left ~75 MB per batch behind, which the collector
  // does not count as heap pressure (building 95k vectors grew RSS by ~800 MB).
  const flat = new Float32Array(Math.min(rows.length, embedBatchRows) * dim);
  for (let start = 0; start < rows.length; start += embedBatchRows) {
    const batch = rows.slice(start, start + embedBatchRows);
    const vectors = flat.subarray(0, batch.length * dim);
    hashEmbedManyInto(batch.map((row) => entityEmbeddingText(row.name, row.entityType, row.summary)), dim, vectors);
    index.add(BigUint64Array.from(batch, (row) => BigInt(row.vectorKey)), vectors, threads);
    onProgress?.(start + batch.length, rows.length);
    // Each batch leaves its texts and token lists behind (a few MB), which the collector does
    // not count as pressure while the native index grows: without this, building 95k vectors
    // in a catch-up grew RSS by ~850 MB instead of ~250 MB.
    if (rows.length > embedBatchRows) requestGarbageCollection();
  }
}

/**
 * Writes the index atomically. With `viewSaved`, `index` then maps the saved file (usearch's
 * `view` resets the in-memory copy first) instead of holding its vectors and graph: the mapping
 * is made before the rename, so it is of this file whatever another writer renames over the path.
 */
function save(index: UsearchIndex, indexPath: string, meta: VectorMeta, viewSaved = false): void {
  fs.mkdirSync(path.dirname(indexPath), { recursive: true });
  const temp = `${indexPath}.tmp-${process.pid}`;
  try {
    index.save(temp);
    meta.bytes = fs.statSync(temp).size;
    meta.sha256 = sha256OfFile(temp)!;
    if (viewSaved) index.view(temp);
    fs.renameSync(temp, indexPath);
  } catch (error) {
    // A full disk must not leave a partial index behind to fill it further.
    fs.rmSync(temp, { force: true });
    throw error;
  }
  meta.stamp = fileStamp(indexPath);
  // Written after the index: a meta that fails to land describes the old index, which the next
  // open then refuses and rebuilds.
  writeFileAtomic(metaPath(indexPath), JSON.stringify(meta));
}

/**
 * The session's index exactly at `head` with `count` vectors, memory-mapped (usearch `view`: a
 * search reads only the pages it visits), for a read model at that head; throws with the reason
 * when the index on disk is not that one (the caller then brings it up to date from the rows).
 */
export async function viewVectorIndexAt(root: string, sessionId: string, head: { seq: number; hash: string }, count: number, dim: number): Promise<SessionVectorIndex> {
  const indexPath = vectorIndexPath(root, sessionId);
  const read = readMeta(indexPath);
  const problem = read === "missing" ? "there is none" : "problem" in read ? read.problem
    : read.session_id !== sessionId || read.head_seq !== head.seq || read.head_hash !== head.hash ? `it is at seq ${read.head_seq}, not at the read model's head ${head.seq}`
    : read.count !== count || read.dim !== dim || read.quantization !== indexConfig.quantization ? `it holds ${read.count} ${read.dim}-dimensional ${read.quantization} vectors, ${count} ${dim}-dimensional ${indexConfig.quantization} are wanted`
    : fileProblem(indexPath, read);
  if (problem !== null) throw new Error(`vector index "${indexPath}" is not at the read model's head: ${problem}`);
  const { Index } = await loadUsearch();
  const index = new Index({ dimensions: dim, ...indexConfig });
  index.view(indexPath);
  if (index.size() !== count) throw new Error(`vector index "${indexPath}" holds ${index.size()} vectors, its metadata records ${count}`);
  return { index, count, dim, path: indexPath, action: "loaded" };
}

/**
 * `base` (an index opened at an earlier head, e.g. the read model's memory-mapped view) loaded
 * into memory and extended by `rows`, the versions folded since (vector keys following the
 * base's), exactly as `syncVectorIndex` appends them when it catches up, but not saved: the
 * same graph, so the same answers, as the full catch-up would give at the same head (usearch's
 * HNSW search is approximate, and which nodes it visits depends on the graph).
 */
export async function extendVectorIndex(base: SessionVectorIndex, rows: readonly EntityRow[]): Promise<SessionVectorIndex> {
  if (rows.length === 0) return base;
  rows.forEach((row, i) => {
    if (row.vectorKey !== base.count + i) throw new RangeError(`vector index extension: version ${i} has vector key ${row.vectorKey}, expected ${base.count + i}`);
  });
  const { Index } = await loadUsearch();
  const index = new Index({ dimensions: base.dim, ...indexConfig });
  index.load(base.path);
  if (index.size() !== base.count) throw new Error(`vector index "${base.path}" holds ${index.size()} vectors, ${base.count} were opened`);
  embedRows(index, rows, base.dim, 1);
  return { index, count: base.count + rows.length, dim: base.dim, path: base.path, action: "appended" };
}

export interface SyncVectorOptions {
  /**
   * A built or extended index is returned as a memory-mapped view of the file just saved, not
   * as the in-memory copy it was built in (~3x the file's size: ~470 MB for 95k vectors), for
   * callers that only search it or drop it (a catch-up that answers from the read model, a
   * reproject). Appending to it again needs a fresh `syncVectorIndex`.
   */
  viewSaved?: boolean;
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
  const read = readMeta(vectorIndexPath(root, sessionId));
  const kept: { hash: string }[] = [];
  if (read !== "missing" && !("problem" in read) && Number.isSafeInteger(read.head_seq) && read.head_seq > 0 && read.head_seq <= events.length) {
    kept[read.head_seq - 1] = { hash: events[read.head_seq - 1].hash };
  }
  return kept;
}

/**
 * The session's index, brought up to `rows` (appending new versions or rebuilding). `events` is
 * the verified log (or `vectorHeadEvents` of it), used to check that the index's recorded head is
 * still part of it. A rebuild of an index that existed is reported through `warn` with the reason.
 */
export async function syncVectorIndex(
  root: string,
  sessionId: string,
  rows: SessionGraphRows,
  events: LogEvents,
  dim: number,
  onProgress?: (done: number, total: number) => void,
  warn?: (message: string) => void,
  options: SyncVectorOptions = {},
): Promise<SessionVectorIndex> {
  const { Index } = await loadUsearch();
  const indexPath = vectorIndexPath(root, sessionId);
  const total = rows.entities.length;
  const read = readMeta(indexPath);
  const meta = read === "missing" || "problem" in read ? null : read;
  let problem = read === "missing" ? null : "problem" in read ? read.problem : metaProblem(read, sessionId, rows, events, dim);
  if (meta !== null && problem === null) problem = fileProblem(indexPath, meta);
  let index = new Index({ dimensions: dim, ...indexConfig });
  let action: SessionVectorIndex["action"] = "built";
  let from = 0;
  if (meta !== null && problem === null) {
    try {
      if (meta.count === total) index.view(indexPath);
      else index.load(indexPath);
      if (index.size() !== meta.count) {
        problem = `the index file holds ${index.size()} vectors, its metadata records ${meta.count}`;
      } else if (meta.count === total) {
        return { index, count: total, dim, path: indexPath, action: "loaded" };
      } else {
        from = meta.count;
        action = "appended";
      }
    } catch (error) {
      problem = `usearch cannot load it (${error instanceof Error ? error.message : String(error)})`;
    }
    if (problem !== null) index = new Index({ dimensions: dim, ...indexConfig });
  }
  if (problem !== null) warn?.(`vector index "${indexPath}" is rebuilt from the projected rows: ${problem}`);
  embedRows(index, rows.entities.slice(from), dim, addThreadsFor(total - from, from === 0), onProgress);
  const head = rows.head;
  save(index, indexPath, {
    schema: vectorMetaSchema,
    session_id: sessionId,
    head_seq: head?.seq ?? 0,
    head_hash: head?.hash ?? "",
    count: total,
    dim,
    quantization: indexConfig.quantization,
    sha256: "",
    bytes: 0,
  }, options.viewSaved === true);
  return { index, count: total, dim, path: indexPath, action };
}
