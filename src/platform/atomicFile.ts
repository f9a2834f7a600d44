/**
 * Replacing a file so that a reader or a crash sees the old file or the whole new one, never a
 * part: the bytes go to a new sibling temp file (created exclusively, so a planted symlink is
 * never followed; the name starts with "." and ends in ".tmp"), which is fsynced, renamed over
 * the target, and the directory fsynced so the rename itself survives a power cut.
 */
import { createHash, type Hash, randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileHashChunkBytes } from "../limits.ts";

/**
 * Writes `file` through `write(fd)`, which gets a descriptor open for reading and writing on the
 * temp file (positional writes and read-backs are allowed). If `write` throws, the temp file is
 * removed, the target is untouched, and the error is rethrown.
 *
 * @example
 * writeFileAtomically("segments/000001.bm25", (fd) => fs.writeSync(fd, bytes));
 */
export function writeFileAtomically(file: string, write: (fd: number) => void, mode = 0o644): void {
  const dir = path.dirname(path.resolve(file));
  const temp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  const fd = fs.openSync(temp, "wx+", mode);
  try {
    try {
      write(fd);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, file);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
  fsyncDirectory(dir);
}

export interface AtomicWriteOptions {
  /** Create missing parent directories (default true). */
  createDirectories?: boolean;
  /** Mode of a newly created file (default 0o644). */
  mode?: number;
}

/**
 * Replaces `file` with `data` atomically (`writeFileAtomically`); throws the file system's error
 * with the temp file removed.
 *
 * @example
 * writeFileAtomic(".eventloom/projections/verified/default.json", JSON.stringify(checkpoint) + "\n");
 */
export function writeFileAtomic(file: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): void {
  if (options.createDirectories !== false) fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  writeFileAtomically(file, (fd) => fs.writeFileSync(fd, data), options.mode);
}

/** Makes a rename in `dir` durable; best effort where the platform cannot fsync a directory. */
export function fsyncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, "r");
    fs.fsyncSync(fd);
  } catch {
    // Some platforms cannot open or fsync a directory; the rename is still atomic.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}


/** `writeFileAtomically` of whole chunks; returns the bytes written. */
export function writeChunksAtomically(file: string, chunks: readonly Uint8Array[]): number {
  let bytes = 0;
  writeFileAtomically(file, (fd) => {
    for (const chunk of chunks) {
      let written = 0;
      while (written < chunk.length) written += fs.writeSync(fd, chunk, written, chunk.length - written);
      bytes += chunk.length;
    }
  });
  return bytes;
}

/**
 * Native SHA-256 (hex) of the first `bytes` bytes of an open file (all of it by default), read in
 * bounded chunks: a derived file can be hundreds of megabytes, and reading it whole to hash it
 * would put all of it in memory. Null when the file is shorter than `bytes`.
 */
export function sha256OfFd(fd: number, bytes?: number): string | null {
  const size = bytes ?? fs.fstatSync(fd).size;
  const hash = createHash("sha256");
  return hashFdRange(hash, fd, 0, size) === size ? hash.digest("hex") : null;
}

/**
 * Feeds bytes [start, end) of `fd` to `hash` in bounded chunks (each also to `onChunk`, e.g. to
 * count lines on the way) and returns how many were read: fewer than asked when the file ends.
 */
export function hashFdRange(hash: Hash, fd: number, start: number, end: number, onChunk?: (chunk: Uint8Array) => void): number {
  const buffer = new Uint8Array(Math.min(fileHashChunkBytes, Math.max(1, end - start)));
  let position = start;
  while (position < end) {
    const read = fs.readSync(fd, buffer, 0, Math.min(buffer.length, end - position), position);
    if (read === 0) break;
    const chunk = buffer.subarray(0, read);
    hash.update(chunk);
    onChunk?.(chunk);
    position += read;
  }
  return position - start;
}

/** `sha256OfFd` of a file by path. */
export function sha256OfFile(file: string, bytes?: number): string | null {
  const fd = fs.openSync(file, "r");
  try {
    return sha256OfFd(fd, bytes);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * What a file is on disk right now: device, inode, size, and modification and change times in
 * nanoseconds. Any write through the file system changes it (a change time cannot be set from
 * user space), so a derived file whose stamp is the one recorded when its SHA-256 was last checked
 * has not been modified since, and need not be hashed again.
 */
export function fileStamp(fdOrPath: number | string): string {
  const stat = typeof fdOrPath === "number" ? fs.fstatSync(fdOrPath, { bigint: true }) : fs.statSync(fdOrPath, { bigint: true });
  return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
}
