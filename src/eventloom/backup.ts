/**
 * Saving bytes a repair is about to remove from a log. The backup is written in full and fsynced
 * before the caller truncates anything, so a repair never removes bytes it could not save; a
 * partial backup (a full disk, an I/O error) is deleted rather than left behind looking valid.
 */
import * as fs from "node:fs";
import { ioError } from "../errors.ts";

const copyChunkBytes = 1 << 20;

/**
 * Copies bytes [start, end) of the open file `fd` to the new file `backupPath` (which must not
 * exist) and fsyncs it. On any failure the partial backup is removed and an I/O error (exit 3)
 * starting with `action` is thrown; the caller has changed nothing yet.
 *
 * @example
 * saveBackup(fd, tail.start, size, "/r/default.jsonl.torn-tail-1700000000000.bak", "Cannot repair /r/default.jsonl");
 */
export function saveBackup(fd: number, start: number, end: number, backupPath: string, action: string): void {
  let out: number | undefined;
  try {
    out = fs.openSync(backupPath, "wx");
    const buffer = new Uint8Array(Math.min(copyChunkBytes, Math.max(1, end - start)));
    for (let position = start; position < end; ) {
      const read = fs.readSync(fd, buffer, 0, Math.min(buffer.length, end - position), position);
      if (read === 0) throw new Error(`the file ended at byte ${position}, before byte ${end}`);
      for (let written = 0; written < read; ) written += fs.writeSync(out, buffer, written, read - written);
      position += read;
    }
    fs.fsyncSync(out);
    fs.closeSync(out);
    out = undefined;
  } catch (error) {
    if (out !== undefined) {
      try {
        fs.closeSync(out);
      } catch {
        // The copy already failed; a close error adds nothing.
      }
      try {
        fs.unlinkSync(backupPath);
      } catch {
        // Best effort: the message below names the file either way.
      }
    }
    throw ioError("backup_failed", `${action}: could not save the ${end - start} bytes to remove to ${backupPath} (${(error as Error).message}); nothing was changed`, {
      hint: "free some disk space and try again",
    });
  }
}
