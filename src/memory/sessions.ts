/**
 * `memory_sessions` / `zaxy memory sessions`: the sessions (and fleet threads) of a root, each
 * with its size and its last event as the log's tail states it. A listing, not a verification:
 * it reads only each log's last line (`zaxy verify --all` checks the chains), so it stays cheap
 * with many large logs.
 *
 * @example
 * (await listSessions(".eventloom")).sessions[0] // { session_id: "default", kind: "session", events: 12, ... }
 */
import * as fs from "node:fs";
import { isJsonObject, parseJsonBytes } from "../canonical/mod.ts";
import { isV1Line, recordFromLine, seqFromEventId } from "../eventloom/envelope.ts";
import { countLogEvents } from "../eventloom/lines.ts";
import { sessionIdOfPath, sessionLogsUnderRoot } from "../eventloom/root.ts";
import { readTailLine } from "../eventloom/tail.ts";

export interface SessionListing {
  session_id: string;
  /** `fleet` for a fleet thread (`fleet.<id>`), else `session`. */
  kind: "session" | "fleet";
  bytes: number;
  /** The last event's seq as its line states it (null when the log is empty or its tail is not an event). */
  events: number | null;
  last_event_type: string | null;
  last_event_at: string | null;
  last_hash: string | null;
}

export interface SessionsResult {
  [key: string]: unknown;
  root: string;
  session_count: number;
  sessions: SessionListing[];
}

function tailOf(logPath: string): Pick<SessionListing, "events" | "last_event_type" | "last_event_at" | "last_hash"> {
  const none = { events: null, last_event_type: null, last_event_at: null, last_hash: null };
  let fd: number;
  try {
    fd = fs.openSync(logPath, "r");
  } catch {
    return none;
  }
  try {
    const tail = readTailLine(fd, fs.fstatSync(fd).size);
    if (tail === undefined) return none;
    const parsed = parseJsonBytes(tail.bytes);
    if (!isJsonObject(parsed)) return none;
    const record = recordFromLine(parsed, 0);
    // A legacy line states its seq; a v1 line's generated id carries it; else count the events.
    const seq = isV1Line(parsed) ? (record.id === null ? undefined : seqFromEventId(record.id)) ?? countLogEvents(logPath) : record.seq > 0 ? record.seq : null;
    return { events: seq, last_event_type: record.type, last_event_at: record.timestamp, last_hash: record.hash };
  } catch {
    return none;
  } finally {
    fs.closeSync(fd);
  }
}

export function listSessions(root: string): SessionsResult {
  const sessions = sessionLogsUnderRoot(root).map((logPath): SessionListing => {
    const sessionId = sessionIdOfPath(logPath);
    const stat = fs.statSync(logPath, { throwIfNoEntry: false });
    return {
      session_id: sessionId,
      kind: sessionId.startsWith("fleet.") ? "fleet" : "session",
      bytes: stat?.size ?? 0,
      ...tailOf(logPath),
    };
  });
  return { root, session_count: sessions.length, sessions };
}
