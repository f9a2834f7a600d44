/**
 * Replacing a file so that a reader or a crash sees the old file or the whole new one, never a
 * part: the bytes go to a new sibling temp file (created exclusively, so a planted symlink is
 * never followed; the name starts with "." and ends in ".tmp"), which is fsynced, renamed over
 * the target, and the directory fsynced so the rename itself survives a power cut.
 */
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";

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
