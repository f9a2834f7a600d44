/**
 * Sentence vectors kept on disk, per session and model, keyed by the SHA-256 of the text they
 * embed: a later process, a rebuilt read model or a reprojected session never embeds a text
 * again. `<root>/projections/semantic/<session>/<model>.vec` (docs/retrieval.md "Vectors on
 * disk").
 *
 * - File: a 64-byte header (`zaxysvec` magic, format version, dimension, the model id padded with
 *   spaces), then fixed-size records: 32 bytes of SHA-256, a float32 scale, `dim` int8 components
 *   and a CRC-32 of the rest. Records are only ever appended (O_APPEND, one write per batch, so two
 *   processes adding at once do not overwrite each other); a record whose CRC does not match (a
 *   torn tail after a kill, a mixed write) is skipped and its text embedded again.
 * - Every vector is int8-quantised before it is used, fresh or read back, so an answer does not
 *   depend on whether a vector came from the model or from the file: the same log and model give
 *   the same bytes.
 * - The file is derived, like the BM25 segments: editing it changes ranking, never content
 *   (a vector cites nothing; retrieval serves the cited event). Forgetting an event deletes all of
 *   `<root>/projections/` (memory/forget.ts), vectors included, since a vector says something
 *   about its text.
 *
 * @example
 * const store = openVectorStore(root, "s1", "use-lite-512-uint8-v1", 512);
 * store.get(textKey("Migrated the database")) // Float32Array | undefined
 * store.add([[textKey("Migrated the database"), quantised(vector)]]);
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { writeFileAtomic } from "../platform/atomicFile.ts";
import { projectionsDir } from "../eventloom/root.ts";
import { crc32 } from "../platform/binaryFile.ts";

const magic = "zaxysvec";
const formatVersion = 1;
const headerBytes = 64;
const keyBytes = 32;
/** Model ids longer than the header holds are refused rather than truncated (two ids could collide). */
const modelIdBytesMax = headerBytes - 16;

/** The SHA-256 of `text` as the store's key (hex). */
export function textKey(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/**
 * `vector` rounded to what the store keeps: int8 components and one float32 scale, dequantised.
 * Applied to every vector, fresh or stored (see the module comment).
 */
export function quantised(vector: Float32Array): Float32Array {
  const { scale, components } = quantise(vector);
  return dequantise(scale, components);
}

function quantise(vector: Float32Array): { scale: number; components: Int8Array } {
  let max = 0;
  for (const value of vector) max = Math.max(max, Math.abs(value));
  const scale = Math.fround(max === 0 ? 1 : max / 127);
  const components = new Int8Array(vector.length);
  for (let i = 0; i < vector.length; i++) components[i] = Math.max(-127, Math.min(127, Math.round(vector[i] / scale)));
  return { scale, components };
}

function dequantise(scale: number, components: Int8Array): Float32Array {
  const out = new Float32Array(components.length);
  for (let i = 0; i < components.length; i++) out[i] = components[i] * scale;
  return out;
}

/** The directory of a session's vectors, for every model. */
export function sessionVectorDir(root: string, sessionId: string): string {
  return path.join(projectionsDir(root), "semantic", sessionId);
}

/** A file name for a model id: its characters outside [A-Za-z0-9._-] become `_`, plus a short hash. */
function modelFileName(modelId: string): string {
  const slug = modelId.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 80);
  return `${slug}-${createHash("sha256").update(modelId).digest("hex").slice(0, 12)}.vec`;
}

function headerOf(modelId: string, dim: number): Buffer {
  const header = Buffer.alloc(headerBytes, 0x20);
  header.write(magic, 0, "latin1");
  header.writeUInt32LE(formatVersion, 8);
  header.writeUInt32LE(dim, 12);
  header.write(modelId, 16, "utf8");
  return header;
}

export interface VectorStore {
  readonly file: string;
  /** Vectors the store holds. */
  readonly size: number;
  get(key: string): Float32Array | undefined;
  /** Appends vectors (already `quantised`) not yet held; a write that fails leaves them in memory only. */
  add(entries: ReadonlyArray<readonly [string, Float32Array]>): void;
}

/**
 * The store of `sessionId` for `modelId`: its records read once; a file of another model,
 * dimension or format (or unreadable) is replaced, since everything in it can be embedded again.
 * When the root cannot be written (read-only), the store lives in memory for this process.
 */
export function openVectorStore(root: string, sessionId: string, modelId: string, dim: number): VectorStore {
  if (Buffer.byteLength(modelId) > modelIdBytesMax) throw new Error(`semantic model id longer than ${modelIdBytesMax} bytes: ${modelId}`);
  const file = path.join(sessionVectorDir(root, sessionId), modelFileName(modelId));
  const header = headerOf(modelId, dim);
  const recordBytes = keyBytes + 4 + dim + 4;
  const vectors = new Map<string, Float32Array>();
  // Whole records in the file; the file is replaced on the next add when its header is not ours.
  let recordsEnd = 0;
  try {
    const bytes = fs.readFileSync(file);
    if (bytes.length >= headerBytes && bytes.subarray(0, headerBytes).equals(header)) {
      const records = Math.floor((bytes.length - headerBytes) / recordBytes);
      for (let r = 0; r < records; r++) {
        const at = headerBytes + r * recordBytes;
        const crcAt = at + recordBytes - 4;
        if (crc32(bytes, 0, at, crcAt) !== bytes.readUInt32LE(crcAt)) continue;
        const key = bytes.subarray(at, at + keyBytes).toString("hex");
        const scale = bytes.readFloatLE(at + keyBytes);
        const components = new Int8Array(bytes.buffer, bytes.byteOffset + at + keyBytes + 4, dim);
        vectors.set(key, dequantise(scale, components));
      }
      recordsEnd = headerBytes + records * recordBytes;
      // A torn tail would misalign every later record: cut it before appending again.
      if (recordsEnd !== bytes.length) fs.truncateSync(file, recordsEnd);
    }
  } catch {
    // Missing or unreadable: start empty.
  }
  let writable = true;
  const recordOf = (key: string, vector: Float32Array): Buffer => {
    const { scale, components } = quantise(vector);
    const record = Buffer.alloc(recordBytes);
    record.write(key, 0, "hex");
    record.writeFloatLE(scale, keyBytes);
    Buffer.from(components.buffer, components.byteOffset, dim).copy(record, keyBytes + 4);
    record.writeUInt32LE(crc32(record, 0, 0, recordBytes - 4), recordBytes - 4);
    return record;
  };
  return {
    file,
    get size() {
      return vectors.size;
    },
    get: (key) => vectors.get(key),
    add(entries) {
      const fresh = entries.filter(([key]) => !vectors.has(key));
      for (const [key, vector] of fresh) vectors.set(key, vector);
      if (fresh.length === 0 || !writable) return;
      const body = Buffer.concat(fresh.map(([key, vector]) => recordOf(key, vector)));
      try {
        if (recordsEnd === 0) {
          writeFileAtomic(file, Buffer.concat([header, body]));
        } else {
          fs.appendFileSync(file, body);
        }
        recordsEnd += (recordsEnd === 0 ? headerBytes : 0) + body.length;
      } catch {
        // A read-only root or a full disk: the vectors serve this process and are embedded again later.
        writable = false;
      }
    },
  };
}
