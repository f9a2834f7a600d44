/**
 * The `session_id` argument most tools take: optional, defaulting to the server's session
 * (`--session-id`, env `EVENTLOOM_THREAD`, or `default`). The id itself is validated by the
 * library (`sessionLogPath`), so MCP and the CLI reject the same ids with the same message.
 * On a pinned connection the default is the pinned session, and the router refuses any other
 * (sessionPin.ts) before a tool resolves it here.
 */
import * as fs from "node:fs";
import * as z from "zod";
import { inputError } from "../errors.ts";
import { sessionLogPath, sessionIdRule } from "../eventloom/mod.ts";
import type { ToolContext } from "./tool.ts";

/** Schema of a `session_id` field (wrap in `.optional()` where the session may default). */
export const sessionIdSchema = z.string().describe(`Session (thread) id; ${sessionIdRule}`);

/**
 * The session a call targets. `thread` is the legacy name of `session_id`; naming two different
 * sessions is refused rather than guessed.
 */
export function resolveSessionId(ctx: ToolContext, sessionId?: string, thread?: string): string {
  if (sessionId !== undefined && thread !== undefined && sessionId !== thread) {
    throw inputError(
      "conflicting_session",
      `session_id ${JSON.stringify(sessionId)} and thread ${JSON.stringify(thread)} name different sessions`,
      { field: "thread", hint: "Pass only session_id (thread is its legacy alias)." },
    );
  }
  return sessionId ?? thread ?? ctx.sessionId;
}

/**
 * The log file of an existing session; a session with no log yet is bad input, not an I/O error.
 *
 * @example
 * existingSessionLog(ctx, "default", "replay") // "/abs/.eventloom/default.jsonl"
 */
export function existingSessionLog(ctx: ToolContext, sessionId: string, action: string): string {
  const logPath = sessionLogPath(ctx.eventloomPath, sessionId, action);
  if (!fs.existsSync(logPath)) {
    throw inputError("unknown_session", `Cannot ${action} session ${JSON.stringify(sessionId)}: it has no log (${logPath} does not exist)`, {
      field: "session_id",
      hint: "Check session_id (and the server's --eventloom-path); a session's log is created by its first append.",
    });
  }
  return logPath;
}
