/**
 * `memory_get` / `zaxy memory get CITATION`: the event an Eventloom citation names
 * (`eventloom://<thread>/events/<seq>#<hash prefix>`), read from its session's verified log. The
 * thread is the session of that name, else the log whose events carry that thread (Python logs
 * name their thread apart from the file). The hash prefix must match the sealed event: a citation
 * that no longer matches is `stale_citation` (exit 2), never answered with another event.
 *
 * @example
 * await getByCitation(".eventloom", "eventloom://default/events/3#0ab1c2d3e4f5");
 * // { citation, session_id: "default", verified: true, event: { seq: 3, type: "goal.created", ... } }
 */
import { inputError } from "../errors.ts";
import { citationHashChars, parseCitationUri, sessionIdOfPath } from "../eventloom/root.ts";
import { type EventView, eventView } from "../eventloom/eventView.ts";
import { readVerifiedEvents } from "../eventloom/replay.ts";
import { ThreadLogs } from "../compaction/projectionLane.ts";

export interface CitedEvent {
  [key: string]: unknown;
  citation: string;
  session_id: string;
  /** The session's whole chain verified before the event was read. */
  verified: true;
  event: EventView;
}

export async function getByCitation(root: string, citation: unknown, field = "citation"): Promise<CitedEvent> {
  const parsed = typeof citation === "string" ? parseCitationUri(citation.trim()) : undefined;
  if (parsed === undefined) {
    throw inputError("invalid_citation", `${field} must be an Eventloom citation eventloom://<session>/events/<seq>#<hash prefix>, got ${JSON.stringify(citation)}`, {
      field,
      expected: "eventloom://<session>/events/<seq>#<12 hex>",
    });
  }
  if (parsed.hashPrefix.length < 8) {
    throw inputError("invalid_citation", `${field} ${JSON.stringify(citation)} has a hash prefix of ${parsed.hashPrefix.length} hex; at least 8 are needed to name one event`, { field });
  }
  const logs = new ThreadLogs(root).find(parsed.thread);
  if (logs.length === 0) {
    throw inputError("unknown_session", `No session under ${root} holds thread ${JSON.stringify(parsed.thread)} (from ${citation})`, { field });
  }
  for (const logPath of logs) {
    const sessionId = sessionIdOfPath(logPath);
    const verified = await readVerifiedEvents(logPath, { sessionId });
    const event = verified?.events[parsed.seq - 1];
    if (event === undefined || (logs.length > 1 && event.thread !== parsed.thread)) continue;
    if (!event.hash.startsWith(parsed.hashPrefix)) {
      throw inputError("stale_citation", `${citation} does not match event ${parsed.seq} of session ${JSON.stringify(sessionId)} (its hash starts ${event.hash.slice(0, citationHashChars)}): the citation is not of this log`, {
        field,
        hint: "a citation names one sealed event; take a fresh one from memory_checkout or memory log",
      });
    }
    return { citation: citation as string, session_id: sessionId, verified: true, event: eventView(event) };
  }
  throw inputError("unknown_event", `${citation}: the session holding thread ${JSON.stringify(parsed.thread)} has no event ${parsed.seq}`, { field });
}
