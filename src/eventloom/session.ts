/**
 * Session ids and the paths under an Eventloom root: a session's log, its append intent, and
 * where derived files live. A session is one JSONL file directly under the root; ids are
 * `^[A-Za-z0-9_.-]{1,128}$` and may not be `.` or `..`, so a path can never escape it.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { inputError } from "../errors.ts";
import { sessionIdCharsMax } from "../limits.ts";

const sessionIdPattern = /^[A-Za-z0-9_.-]{1,128}$/;

export const sessionIdRule = `session ids are 1-${sessionIdCharsMax} of A-Z a-z 0-9 . _ - (not "." or "..")`;

/** Throws `invalid_session_id` (exit 2) unless `sessionId` is a safe session id. */
export function validateSessionId(sessionId: string, action = "use"): void {
  if (!sessionIdPattern.test(sessionId) || sessionId === "." || sessionId === "..") {
    throw inputError("invalid_session_id", `Cannot ${action} session ${JSON.stringify(sessionId)}: ${sessionIdRule}`, {
      field: "session_id",
      expected: sessionIdPattern.source,
      actual: sessionId,
    });
  }
}

/** `<root>/<sessionId>.jsonl`, after validating the id and checking it stays inside the root. */
export function sessionLogPath(root: string, sessionId: string, action = "use"): string {
  validateSessionId(sessionId, action);
  const resolvedRoot = path.resolve(root);
  const file = path.resolve(resolvedRoot, `${sessionId}.jsonl`);
  if (path.dirname(file) !== resolvedRoot) {
    throw inputError("invalid_session_id", `Cannot ${action} session ${JSON.stringify(sessionId)}: it resolves outside the Eventloom root`, {
      field: "session_id",
    });
  }
  return file;
}

/**
 * `<log>.intent`: where an append records its intent before writing (`intent.ts`). A read checks
 * only that it exists, so the name lives here with the log's.
 */
export function intentPath(logPath: string): string {
  return `${logPath}.intent`;
}

/**
 * Refuses a write to `file` when any part of its path below `root` is a symbolic link (a
 * dangling one included): a link planted in the root would otherwise make a write create or
 * change a file elsewhere. `unsafe_path` (exit 2), naming the link and where it points; nothing
 * is created. Parts that do not exist yet are fine (the write creates them, without following
 * anything). A `file` outside `root` has only its last part checked.
 *
 * @example
 * refuseLinkUnderRoot(".eventloom", ".eventloom/s3.jsonl", "append to session \"s3\"");
 */
export function refuseLinkUnderRoot(root: string, file: string, action: string): void {
  const resolvedRoot = path.resolve(root);
  const target = path.resolve(file);
  const relative = path.relative(resolvedRoot, target);
  const inside = relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative);
  const parts = inside ? relative.split(path.sep) : [path.basename(target)];
  let current = inside ? resolvedRoot : path.dirname(target);
  for (const part of parts) {
    current = path.join(current, part);
    let stat: fs.Stats | undefined;
    try {
      stat = fs.lstatSync(current, { throwIfNoEntry: false });
    } catch {
      return; // ENOTDIR and the like: the write itself reports it.
    }
    if (stat === undefined) return;
    if (stat.isSymbolicLink()) {
      let points = "";
      try {
        points = fs.readlinkSync(current);
      } catch {
        // Unreadable link: named without its target.
      }
      throw inputError("unsafe_path", `Cannot ${action}: ${current} is a symbolic link${points === "" ? "" : ` to ${points}`}; zaxy does not write through links under the Eventloom root`, {
        field: "path",
        expected: "a regular file or directory, or nothing, at that path",
        actual: points === "" ? undefined : points,
        hint: `remove the link (rm ${JSON.stringify(current)}) or put the real file in its place`,
      });
    }
  }
}

/**
 * `sessionLogPath` for a write: also refuses a symbolic link at the log, its intent file, or
 * anywhere on the way to them (`refuseLinkUnderRoot`).
 */
export function writableSessionLogPath(root: string, sessionId: string, action = "append to"): string {
  const file = sessionLogPath(root, sessionId, action);
  const what = `${action} session ${JSON.stringify(sessionId)}`;
  refuseLinkUnderRoot(root, file, what);
  refuseLinkUnderRoot(root, `${file}.intent`, what);
  return file;
}

/** The session id of a log path (`<root>/<id>.jsonl` → `<id>`). */
export function sessionIdOfPath(logPath: string): string {
  return path.basename(logPath).replace(/\.jsonl$/, "");
}

/** Every session log (`*.jsonl`) directly under the root, sorted; a missing root is bad input. */
export function sessionLogsUnderRoot(root: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(root);
  } catch {
    throw inputError("unreadable_root", `Cannot list logs: the Eventloom root ${root} does not exist`, { field: "eventloom_path" });
  }
  return names.filter((name) => name.endsWith(".jsonl")).sort().map((name) => path.join(root, name));
}

/**
 * The error every read of a session without a log gives (exit 2): one rule for `memory log`,
 * query, status, checkout and the MCP tools (README conventions).
 */
export function unknownSessionError(sessionId: string, logPath: string): Error {
  return inputError("unknown_session", `Unknown session ${JSON.stringify(sessionId)}: no log at ${logPath}`, {
    field: "session_id",
    hint: "`zaxy memory sessions` lists the root's sessions; appending an event creates a session",
  });
}

/**
 * Where a root keeps what is derived from its logs (`<root>/projections`: read models, vector
 * indexes, the Kuzu store): everything there can be deleted and is rebuilt from the logs.
 */
export function projectionsDir(root: string): string {
  return path.join(root, "projections");
}
