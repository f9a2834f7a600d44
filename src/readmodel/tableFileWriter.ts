/**
 * Writing a read-model file without holding it whole: sections go to the file at their final
 * offsets through a small buffer, and the file's SHA-256 is read back once it is complete. At a
 * million events the entity and relation tables are ~400 MB each; encoded in memory (a buffer
 * per row, then one buffer for the file) each had cost twice its size on top of the rows.
 *
 * @example
 * const file = writeTableFile(dir, "entities-12-ab.bin", (fd) => {
 *   const heap = new PositionalWriter(fd, heapAt);
 *   for (const row of rows) heap.writeText(JSON.stringify(row));
 *   heap.flush();
 *   writeFully(fd, header, 0);
 * }); // { name, bytes, sha256, stamp }
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { fileStamp, sha256OfFd } from "../platform/mod.ts";
import { writeFileAtomically } from "../platform/atomicFile.ts";
import type { ReadModelFile } from "./manifest.ts";

/**
 * Rows a table writer encodes between two calls of its `collect`: each row's JSON is garbage once
 * written, and left to the collector it piled up (1M events: the relation table's ~1.5 M rows
 * raised the peak RSS by ~1.3 GB while it was written).
 */
export const tableRowsPerCollection = 250_000;

/** What a writer buffers before one write call. */
export const writeBufferBytes = 1 << 16;

/** Writes all of `bytes` at `position`. */
export function writeFully(fd: number, bytes: Uint8Array, position: number): void {
  let done = 0;
  while (done < bytes.length) done += fs.writeSync(fd, bytes, done, bytes.length - done, position + done);
}

/**
 * Writes bytes at increasing positions through a buffer, so a section written a row or a term at
 * a time costs one system call per 64 KiB.
 */
export class PositionalWriter {
  private readonly buffer = Buffer.allocUnsafe(writeBufferBytes);
  private used = 0;

  constructor(
    private readonly fd: number,
    private position: number,
  ) {}

  write(bytes: Uint8Array): void {
    if (this.used + bytes.length > this.buffer.length) this.flush();
    if (bytes.length >= this.buffer.length) {
      writeFully(this.fd, bytes, this.position);
      this.position += bytes.length;
      return;
    }
    this.buffer.set(bytes, this.used);
    this.used += bytes.length;
  }

  /** Writes `text` as UTF-8 and returns its length in bytes. */
  writeText(text: string): number {
    // A UTF-16 code unit is at most 3 bytes of UTF-8 (a surrogate pair is 4 bytes for 2 units).
    if (3 * text.length > this.buffer.length) {
      const bytes = Buffer.from(text, "utf8");
      this.write(bytes);
      return bytes.length;
    }
    if (this.used + 3 * text.length > this.buffer.length) this.flush();
    const written = this.buffer.write(text, this.used, "utf8");
    this.used += written;
    return written;
  }

  flush(): void {
    if (this.used === 0) return;
    writeFully(this.fd, this.buffer.subarray(0, this.used), this.position);
    this.position += this.used;
    this.used = 0;
  }
}

/**
 * Writes `dir/name` atomically through `write` (which may write anywhere in the file, in any
 * order) and reports it with the size and SHA-256 of what was written.
 */
export function writeTableFile(dir: string, name: string, write: (fd: number) => void): ReadModelFile {
  const file = path.join(dir, name);
  let bytes = 0;
  let sha256: string | null = null;
  writeFileAtomically(file, (fd) => {
    write(fd);
    bytes = fs.fstatSync(fd).size;
    sha256 = sha256OfFd(fd, bytes);
  });
  if (sha256 === null) throw new Error(`the read-model file "${file}" was shorter than its ${bytes} bytes when it was hashed`);
  return { name, bytes, sha256, stamp: fileStamp(file) };
}

/** Writes chunks one after another from the start of the file. */
export function writeChunks(fd: number, chunks: Iterable<Uint8Array>): void {
  const out = new PositionalWriter(fd, 0);
  for (const chunk of chunks) out.write(chunk);
  out.flush();
}
