/**
 * `zaxy repair --truncate-torn-tail`: the one explicit fix for a crash mid-write. First it
 * finishes an append a crash interrupted (intent.ts: a partial batch is rolled back whole, not
 * just its torn last line). Otherwise it removes only bytes after the last newline, and only
 * when they are not a complete JSON line. Removed bytes are saved to a backup file, written in
 * full and fsynced, before anything is truncated; if the backup cannot be written (a full disk)
 * nothing changes and no partial backup is left. Everything else is left to the user.
 */
import * as fs from "node:fs";
import * as nodePath from "node:path";
import { parseJsonBytes } from "../canonical/mod.ts";
import { checkError, inputError } from "../errors.ts";
import { lockWaitMs } from "../limits.ts";
import { lockFile, regularFileProblem } from "../platform/mod.ts";
import { saveBackup } from "./backup.ts";
import { type InterruptedAppend, recoverInterruptedAppend } from "./intent.ts";
import { countLogEvents } from "./lines.ts";
import { refuseLinkUnderRoot } from "./root.ts";
import { readTailLine } from "./tail.ts";

export interface RepairResult {
  repaired: boolean;
  path: string;
  /** Physical line number of the removed fragment. */
  removed_line: number | null;
  removed_bytes: number;
  /** Up to 200 characters of what was removed. */
  removed_preview: string | null;
  backup_path: string | null;
  events_kept: number;
  message: string;
  /** Set when an append a crash interrupted was found (and rolled back or completed). */
  interrupted_append?: InterruptedAppend;
}

const previewChars = 200;

/** Newlines in the first `end` bytes, read in 1 MiB steps. */
function countNewlines(fd: number, end: number): number {
  const buffer = new Uint8Array(1 << 20);
  let count = 0;
  for (let pos = 0; pos < end; ) {
    const read = fs.readSync(fd, buffer, 0, Math.min(buffer.length, end - pos), pos);
    if (read === 0) break;
    for (let i = 0; i < read; i++) if (buffer[i] === 0x0a) count++;
    pos += read;
  }
  return count;
}

export async function truncateTornTail(path: string, now: () => number = Date.now): Promise<RepairResult> {
  // Repair truncates in place: through a link it would cut a file the link points to.
  refuseLinkUnderRoot(nodePath.dirname(path), path, `repair ${path}`);
  const problem = regularFileProblem(path);
  if (problem !== undefined) throw inputError("unreadable_log", `Cannot repair ${path}: ${problem}`, { field: "LOG", expected: "a regular file" });
  const lock = await lockFile(path, "exclusive", lockWaitMs);
  try {
    const fd = fs.openSync(path, fs.constants.O_RDWR | (fs.constants.O_NOFOLLOW ?? 0));
    try {
      const action = `Cannot repair ${path}`;
      const recovered = recoverInterruptedAppend(fd, path, fs.fstatSync(fd).size, action, now);
      if (recovered.interrupted !== undefined && recovered.backupPath !== undefined) {
        return {
          repaired: true,
          path,
          removed_line: null,
          removed_bytes: recovered.interrupted.log_bytes_now - recovered.size,
          removed_preview: null,
          backup_path: recovered.backupPath,
          events_kept: countLogEvents(path),
          message: recovered.warnings.join(" "),
          interrupted_append: recovered.interrupted,
        };
      }
      // An intent that needed no rollback was dropped (said in the message); a torn tail from
      // before it, or from a crash that left no readable intent, is still repaired below.
      const found = recovered.interrupted === undefined ? {} : { interrupted_append: recovered.interrupted };
      const said = (message: string): string => [...recovered.warnings, message].join(" ");
      const size = recovered.size;
      const tail = readTailLine(fd, size);
      const base: RepairResult = {
        repaired: false,
        path,
        removed_line: null,
        removed_bytes: 0,
        removed_preview: null,
        backup_path: null,
        events_kept: 0,
        message: "",
      };
      if (tail === undefined || tail.terminated) {
        const nothing = recovered.interrupted === undefined ? "Nothing changed." : "Nothing else changed.";
        return { ...base, ...found, events_kept: countLogEvents(path), message: said(`No torn tail: the log ends with a complete line. ${nothing}`) };
      }
      let complete = true;
      try {
        parseJsonBytes(tail.bytes);
      } catch {
        complete = false;
      }
      if (complete) {
        throw checkError("not_torn", `Refusing to repair ${path}: the last line is complete JSON without a final newline, not a torn write`, {
          hint: "the next append adds the missing newline; nothing needs repair",
        });
      }
      const removed = new Uint8Array(size - tail.start);
      fs.readSync(fd, removed, 0, removed.length, tail.start);
      const backupPath = `${path}.torn-tail-${now()}.bak`;
      saveBackup(fd, tail.start, size, backupPath, action);
      fs.ftruncateSync(fd, tail.start);
      fs.fsyncSync(fd);
      const eventsKept = countLogEvents(path);
      const lineNumber = countNewlines(fd, tail.start) + 1;
      const text = new TextDecoder().decode(removed);
      return {
        repaired: true,
        path,
        removed_line: lineNumber,
        removed_bytes: removed.length,
        removed_preview: text.length > previewChars ? text.slice(0, previewChars) + "…" : text,
        backup_path: backupPath,
        events_kept: eventsKept,
        message: said(`Removed the torn last line (line ${lineNumber}, ${removed.length} bytes); saved it to ${backupPath}.`),
        ...found,
      };
    } finally {
      fs.closeSync(fd);
    }
  } finally {
    lock.release();
  }
}
