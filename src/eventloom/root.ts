/**
 * Checks on the Eventloom root and a session's log path that turn file-system faults into one
 * readable error each: a root that is a file or an empty path is bad input (exit 2), a root that
 * cannot be written (read-only file system, permission) is an I/O error (exit 3), and a log
 * path that is a directory is bad input. None of them creates or changes anything.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { inputError, ioError } from "../errors.ts";

const reasons: Record<string, string> = {
  EROFS: "read-only file system",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  ENOSPC: "no space left on device",
  EDQUOT: "disk quota exceeded",
  EISDIR: "it is a directory",
  ENOTDIR: "a part of the path is a file, not a directory",
  ENOENT: "no such file or directory",
  EEXIST: "a file is in the way",
  ELOOP: "too many symbolic links",
  ENAMETOOLONG: "the name is too long",
  EIO: "input/output error",
};

/** A system error's code (`EROFS`, ...), or undefined for anything else. */
export function fileSystemErrorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^E[A-Z]+$/.test(code) ? code : undefined;
}

/**
 * The readable reason of a file-system error, without the syscall dump:
 * `fileSystemReason(erofsError) // "read-only file system"`.
 */
export function fileSystemReason(error: unknown): string {
  const code = fileSystemErrorCode(error);
  if (code !== undefined && reasons[code] !== undefined) return reasons[code];
  const message = error instanceof Error ? error.message : String(error);
  // Node's messages read `EROFS: read-only file system, open '/x'`: keep the middle part.
  const match = /^E[A-Z]+: ([^,]+)/.exec(message);
  return match !== null ? match[1] : message;
}

/** The nearest existing ancestor of `dir` (itself when it exists). */
function nearestExisting(dir: string): { path: string; stat: fs.Stats } {
  let current = path.resolve(dir);
  for (;;) {
    let stat: fs.Stats | undefined;
    try {
      stat = fs.statSync(current, { throwIfNoEntry: false });
    } catch (error) {
      // ENOTDIR: a file sits on the way up; keep climbing to it.
      if ((error as { code?: unknown }).code !== "ENOTDIR") throw error;
    }
    if (stat !== undefined) return { path: current, stat };
    const parent = path.dirname(current);
    if (parent === current) return { path: current, stat: fs.statSync(current) };
    current = parent;
  }
}

/**
 * The root named by `label` (`--eventloom-path`, `EVENTLOOM_PATH`) must be a non-empty path
 * that is a directory or does not exist yet (below a directory). Bad input otherwise.
 *
 * @example
 * checkRootPath("/etc/hostname", "--eventloom-path"); // throws invalid_eventloom_path (exit 2)
 */
export function checkRootPath(root: string, label: string): void {
  if (root === "") {
    throw inputError("invalid_eventloom_path", `${label} is empty; give the Eventloom root directory (default .eventloom)`, {
      field: label,
      expected: "a directory path",
    });
  }
  const found = nearestExisting(root);
  if (!found.stat.isDirectory()) {
    const where = found.path === path.resolve(root) ? `${JSON.stringify(root)} is a file` : `${JSON.stringify(root)} is below the file ${found.path}`;
    throw inputError("invalid_eventloom_path", `${label} ${where}, not a directory; the Eventloom root is a directory holding the logs`, {
      field: label,
      expected: "a directory path",
    });
  }
}

/**
 * A command that writes must be able to: the root (or, when it does not exist yet, the
 * directory it would be created in) is writable. Checked before anything is read or written.
 *
 * @example
 * checkRootWritable(".eventloom"); // throws unwritable_root (exit 3) on a read-only mount
 */
export function checkRootWritable(root: string): void {
  const found = nearestExisting(root);
  try {
    fs.accessSync(found.path, fs.constants.W_OK);
  } catch (error) {
    const target = found.path === path.resolve(root) ? `the Eventloom root ${root}` : `${found.path} (to create the Eventloom root ${root})`;
    throw ioError("unwritable_root", `Cannot write to ${target}: ${fileSystemReason(error)}`, { field: "eventloom_path" });
  }
}

/**
 * A session's log, when it exists, is a regular file; a directory there is bad input.
 *
 * @example
 * checkLogNotDirectory(".eventloom/default.jsonl", "default");
 */
export function checkLogNotDirectory(logPath: string, sessionId: string): void {
  if (fs.statSync(logPath, { throwIfNoEntry: false })?.isDirectory()) {
    throw inputError("not_a_log_file", `The log of session ${JSON.stringify(sessionId)} (${logPath}) is a directory, not a log file`, {
      field: "session_id",
      expected: "a JSONL file",
      hint: "move the directory out of the Eventloom root",
    });
  }
}
