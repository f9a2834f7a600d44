/**
 * Whole-file writes that readers see entirely or not at all, and checksums of files read in
 * bounded chunks (a derived file can be hundreds of megabytes; reading it whole to hash it would
 * put all of it in the process's memory).
 */
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";

/** Bytes read per call while hashing: large enough for native hashing speed, small in memory. */
const hashChunkBytes = 4 << 20;

/**
 * Writes `chunks` to `file` through a temp file in the same directory (fsynced, renamed over the
 * target, then the directory fsynced), so a crash leaves the old file or the new one.
 */
export function writeFileAtomic(file: string, chunks: readonly Uint8Array[]): number {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temp = `${file}.tmp-${process.pid}`;
  let bytes = 0;
  const fd = fs.openSync(temp, "w");
  try {
    for (const chunk of chunks) {
      let written = 0;
      while (written < chunk.length) written += fs.writeSync(fd, chunk, written, chunk.length - written);
      bytes += chunk.length;
    }
    fs.fsyncSync(fd);
  } catch (error) {
    fs.closeSync(fd);
    fs.rmSync(temp, { force: true });
    throw error;
  }
  fs.closeSync(fd);
  fs.renameSync(temp, file);
  syncDirectory(path.dirname(file));
  return bytes;
}

/** fsync of a directory, so a rename in it survives a crash; a no-op where directories cannot be opened. */
export function syncDirectory(dir: string): void {
  let fd: number;
  try {
    fd = fs.openSync(dir, "r");
  } catch {
    return;
  }
  try {
    fs.fsyncSync(fd);
  } catch {
    // Some file systems refuse fsync on a directory; the rename is then as durable as they allow.
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Native SHA-256 (hex) of the first `bytes` bytes of an open file (all of it by default), read in
 * bounded chunks. Returns null when the file is shorter than `bytes`.
 */
export function sha256OfFd(fd: number, bytes?: number): string | null {
  const size = bytes ?? fs.fstatSync(fd).size;
  const hash = crypto.createHash("sha256");
  const buffer = Buffer.allocUnsafe(Math.min(hashChunkBytes, Math.max(size, 1)));
  let offset = 0;
  while (offset < size) {
    const read = fs.readSync(fd, buffer, 0, Math.min(buffer.length, size - offset), offset);
    if (read === 0) return null;
    hash.update(buffer.subarray(0, read));
    offset += read;
  }
  return hash.digest("hex");
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
