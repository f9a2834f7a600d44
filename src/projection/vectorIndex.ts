/**
 * A usearch index per session over the hash embeddings of its entity versions
 * (`<root>/projections/vectors/<session>.usearch`, key = the row's `vectorKey`), kept in step
 * with the projection: appended to when the projection catches up, rebuilt when the projection
 * was rebuilt. A side file records the head the index reflects; an index whose head is not an
 * event of the verified log, whose dimension differs, or whose file does not match its recorded
 * SHA-256 (usearch's native loader trusts the file; random bytes can crash the process), is
 * rebuilt from the rows.
 *
 * The build is single-threaded so that two rebuilds of the same rows give the same file.
 * Quantisation is i8 with connectivity 16: on this machine f16 took ~10x longer to build at
 * dimension 1536 (HNSW insertion cost is dominated by distance computations), and hash
 * embeddings are sparse +-1/sqrt(n) vectors, which i8 represents well.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { EventRecord } from "../eventloom/envelope.ts";
import { sha256Hex } from "../platform/mod.ts";
import { entityEmbeddingText, hashEmbedMany, loadUsearch, type UsearchIndex } from "../vector/mod.ts";
import { projectionsDir } from "./snapshot.ts";
import type { EntityRow, SessionGraphRows } from "./types.ts";

export const vectorMetaSchema = "zaxy.projection.vectors.v1";
const indexConfig = { metric: "cos", quantization: "i8", connectivity: 16, expansionAdd: 32, expansionSearch: 128 } as const;
const embedBatchRows = 4096;
/**
 * One thread inserts: usearch gives each insertion thread its own level generator and lets
 * threads race for graph links, so a multi-threaded build of the same rows gives a different
 * graph (and different approximate neighbours) every time. One thread makes a rebuild
 * byte-identical; retrieval re-scores candidates exactly anyway (retrieval/vectorLane.ts).
 */
const addThreads = 1;

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
}

export interface SessionVectorIndex {
  index: UsearchIndex;
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

function readMeta(indexPath: string): VectorMeta | null {
  try {
    const meta = JSON.parse(fs.readFileSync(metaPath(indexPath), "utf8")) as VectorMeta;
    return meta?.schema === vectorMetaSchema && fs.existsSync(indexPath) ? meta : null;
  } catch {
    return null;
  }
}

function embedRows(index: UsearchIndex, rows: readonly EntityRow[], dim: number, onProgress?: (done: number, total: number) => void): void {
  for (let start = 0; start < rows.length; start += embedBatchRows) {
    const batch = rows.slice(start, start + embedBatchRows);
    const vectors = hashEmbedMany(batch.map((row) => entityEmbeddingText(row.name, row.entityType, row.summary)), dim);
    const flat = new Float32Array(batch.length * dim);
    vectors.forEach((vector, i) => flat.set(vector, i * dim));
    index.add(BigUint64Array.from(batch, (row) => BigInt(row.vectorKey)), flat, addThreads);
    onProgress?.(start + batch.length, rows.length);
  }
}

function save(index: UsearchIndex, indexPath: string, meta: VectorMeta): void {
  fs.mkdirSync(path.dirname(indexPath), { recursive: true });
  const temp = `${indexPath}.tmp-${process.pid}`;
  index.save(temp);
  meta.sha256 = sha256Hex(fs.readFileSync(temp));
  fs.renameSync(temp, indexPath);
  const metaTemp = `${metaPath(indexPath)}.tmp-${process.pid}`;
  fs.writeFileSync(metaTemp, JSON.stringify(meta));
  fs.renameSync(metaTemp, metaPath(indexPath));
}

/**
 * The session's index, brought up to `rows` (appending new versions or rebuilding). `events` is
 * the verified log, used to check that the index's recorded head is still part of it.
 */
export async function syncVectorIndex(
  root: string,
  sessionId: string,
  rows: SessionGraphRows,
  events: readonly EventRecord[],
  dim: number,
  onProgress?: (done: number, total: number) => void,
): Promise<SessionVectorIndex> {
  const { Index } = await loadUsearch();
  const indexPath = vectorIndexPath(root, sessionId);
  const total = rows.entities.length;
  const meta = readMeta(indexPath);
  const headEvent = meta === null ? undefined : events[meta.head_seq - 1];
  const usable = meta !== null && meta.session_id === sessionId && meta.dim === dim && meta.quantization === indexConfig.quantization &&
    meta.count <= total && headEvent !== undefined && headEvent.hash === meta.head_hash &&
    (meta.count === 0 || rows.entities[meta.count - 1].sourceEventSeq <= meta.head_seq);
  // Only a file whose checksum matches is handed to usearch; anything else is rebuilt.
  const intact = usable && sha256Hex(fs.readFileSync(indexPath)) === meta.sha256;
  let index = new Index({ dimensions: dim, ...indexConfig });
  let action: SessionVectorIndex["action"] = "built";
  let from = 0;
  try {
    if (intact && meta.count === total) {
      index.view(indexPath);
      return { index, count: total, dim, path: indexPath, action: "loaded" };
    }
    if (intact) {
      index.load(indexPath);
      from = meta.count;
      action = "appended";
    }
  } catch {
    index = new Index({ dimensions: dim, ...indexConfig });
    from = 0;
    action = "built";
  }
  embedRows(index, rows.entities.slice(from), dim, onProgress);
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
  });
  return { index, count: total, dim, path: indexPath, action };
}
