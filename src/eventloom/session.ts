/**
 * Session ids and log paths. A session is one JSONL file directly under the Eventloom root;
 * ids are `^[A-Za-z0-9_.-]{1,128}$` and may not be `.` or `..`, so a path can never escape it.
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
    throw inputError("unreadable_root", `Cannot list logs: the Eventloom root ${root} does not exist`, { field: "--eventloom-path" });
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
