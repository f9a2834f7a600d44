/**
 * Whole-file replacement that a crash cannot leave half done: the bytes go to a new sibling temp
 * file `.<name>.<pid>.tmp` (created exclusively, so a planted symlink is never followed), are
 * fsynced, then renamed over the target and the directory fsynced. A reader sees the old file or
 * the whole new one; scanners that skip dot files and `.tmp` names never see the temp file.
 * Renaming replaces the directory entry, so another hard link to the old file keeps its bytes.
 */
import * as fs from "node:fs";
import * as path from "node:path";

export interface AtomicWriteOptions {
  /** Create missing parent directories (default true). */
  createDirectories?: boolean;
  /** Mode of a newly created file (default 0o644). */
  mode?: number;
}

/**
 * Replaces `file` with `data` atomically; throws the file system's error (the temp file removed).
 *
 * @example
 * writeFileAtomic(".eventloom/projections/verified/default.json", JSON.stringify(checkpoint) + "\n");
 */
export function writeFileAtomic(file: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): void {
  const dir = path.dirname(path.resolve(file));
  const temp = path.join(dir, `.${path.basename(file)}.${process.pid}.tmp`);
  let created = false;
  try {
    if (options.createDirectories !== false) fs.mkdirSync(dir, { recursive: true });
    const fd = fs.openSync(temp, "wx", options.mode ?? 0o644);
    created = true;
    try {
      fs.writeFileSync(fd, data);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, file);
    created = false;
    syncDirectory(dir);
  } catch (error) {
    if (created) fs.rmSync(temp, { force: true });
    throw error;
  }
}

/** Makes a rename durable; some file systems refuse fsync on a directory, which changes nothing here. */
function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, "r");
    fs.fsyncSync(fd);
  } catch {
    // Durability of the rename is best effort where the platform cannot fsync a directory.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
