/**
 * Three front-door calls of Python's MCP server (reference §6 rows 32, 38, 39), one library
 * function each behind the CLI and the MCP tool:
 *
 * - `verbatimChunks` (`memory_verbatim`): the session's events that match a query by BM25 over
 *   their raw text, exactly as sealed (type, actor, payload), each with its citation;
 * - `sessionBootstrap` (`memory_bootstrap`): the packet an agent reads at session start: the
 *   handoff (goals, open tasks, last actor), the latest events, and for a `current_task` a cited
 *   checkout; recorded as `memory.bootstrap.shown` (Python's activity marker);
 * - `contextAfterTurn` (`context_after_turn`): append a conversation turn as `transcript.turn`
 *   `{role, content, source}` and assemble context for it (or for `query`) in one call.
 */
import { fromJs } from "../canonical/mod.ts";
import type { ContextAssembly, MemoryCheckout } from "../checkout/mod.ts";
import { inputError, isZaxyError } from "../errors.ts";
import { appendedEventJson, type AppendedEventJson } from "../eventloom/append.ts";
import { citationUri, sessionLogPath } from "../eventloom/root.ts";
import { type EventView, eventView } from "../eventloom/eventView.ts";
import { handoffSummary, type HandoffSummary, readVerifiedEvents } from "../eventloom/replay.ts";
import type { PlainJson } from "../projection/types.ts";
import { selfReportEventTypes } from "../retrieval/engine.ts";
import { queryTerms, rawEventText } from "../vector/textAnalysis.ts";
import { recordEvents } from "../recording/record.ts";
import { type MemoryRequestInput, validateMemoryRequest } from "./request.ts";
import { type MemoryService, sharedMemoryService } from "./service.ts";

export const transcriptTurnType = "transcript.turn";
export const bootstrapShownType = "memory.bootstrap.shown";
export const verbatimLimitMax = 100;
/** Latest events a bootstrap packet carries. */
export const bootstrapRecentEvents = 10;

function nonEmpty(value: unknown, field: string): string {
  if (typeof value !== "string" || value.trim() === "") {
    throw inputError("invalid_request", `${field} must be a non-empty string`, { field, expected: "a non-empty string" });
  }
  return value;
}

export interface VerbatimChunk {
  [key: string]: PlainJson | EventView["payload"];
  citation: string;
  seq: number;
  hash: string;
  event_type: string;
  actor: string;
  timestamp: string;
  score: number;
  text: string;
  payload: EventView["payload"];
}

/** BM25 over the session's raw event text; exact sealed events back, best first, with citations. */
export async function verbatimChunks(
  root: string,
  sessionId: string,
  request: { query: unknown; limit?: unknown },
  service: MemoryService = sharedMemoryService(root),
): Promise<{ session_id: string; query: string; result_count: number; results: VerbatimChunk[] }> {
  const query = nonEmpty(request.query, "query");
  const limit = request.limit ?? 10;
  if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > verbatimLimitMax) {
    throw inputError("invalid_request", `limit must be an integer 1..${verbatimLimitMax}, got ${JSON.stringify(limit)}`, { field: "limit" });
  }
  validateMemoryRequest({ sessionId, query });
  const results = await service.withReadSession(sessionId, (session) =>
    session.index
      .verbatimSearch(queryTerms(query), limit + 16)
      .map((hit) => ({ hit, event: session.index.event(hit.docId) }))
      .filter(({ event }) => !selfReportEventTypes.has(event.type))
      .slice(0, limit)
      .map(({ hit, event }): VerbatimChunk => ({
        citation: citationUri(event.thread, event.seq, event.hash),
        seq: event.seq,
        hash: event.hash,
        event_type: event.type,
        actor: event.actor,
        timestamp: event.timestamp,
        score: Math.round(hit.score * 1e6) / 1e6,
        text: rawEventText(event),
        payload: event.payload,
      })));
  return { session_id: sessionId, query, result_count: results.length, results };
}

export interface BootstrapPacket {
  [key: string]: unknown;
  session_id: string;
  current_task: string | null;
  session_exists: boolean;
  total_events: number;
  handoff: HandoffSummary;
  recent_events: EventView[];
  /** A cited checkout for `current_task` (null without one). */
  checkout: MemoryCheckout | null;
  guidance: string[];
  event: AppendedEventJson;
}

/** The session-start packet; records that it was shown (`memory.bootstrap.shown`). */
export async function sessionBootstrap(root: string, sessionId: string, request: { currentTask?: unknown; source?: string }): Promise<BootstrapPacket> {
  const currentTask = request.currentTask === undefined ? null : nonEmpty(request.currentTask, "current_task");
  const verified = await readVerifiedEvents(sessionLogPath(root, sessionId, "read"), { sessionId });
  const events = verified?.events ?? [];
  let checkout: MemoryCheckout | null = null;
  if (currentTask !== null && events.length > 0) {
    try {
      checkout = await sharedMemoryService(root).checkout(validateMemoryRequest({ sessionId, query: currentTask, maxRecentEvents: 0 }));
    } catch (error) {
      if (!isZaxyError(error) || error.code !== "unknown_session") throw error;
    }
  }
  const handoff = handoffSummary(events);
  const guidance = [
    events.length === 0 ? "This session has no memory yet: record decisions, progress and outcomes with memory_append as they happen." : `Resume from the handoff: ${handoff.goals.length} goals, ${handoff.open_tasks.length} open tasks.`,
    "Before answering from memory, call memory_checkout and cite its eventloom:// citations.",
    "After using memory, send memory_feedback for the items you relied on or rejected.",
  ];
  const recorded = await recordEvents(root, sessionId, [{
    type: bootstrapShownType,
    actor: "zaxy",
    payload: fromJs({ activity: "bootstrap_shown", source: request.source ?? "mcp", ...(currentTask === null ? {} : { current_task: currentTask }) }),
  }]);
  return {
    session_id: sessionId,
    current_task: currentTask,
    session_exists: verified !== undefined,
    total_events: events.length,
    handoff,
    recent_events: events.slice(-bootstrapRecentEvents).map(eventView),
    checkout,
    guidance,
    event: appendedEventJson(recorded.events[0]),
  };
}

/** Appends the turn, then assembles context for `query` (default: the turn's content). */
export async function contextAfterTurn(
  root: string,
  sessionId: string,
  request: { role: unknown; content: unknown; query?: unknown; source?: unknown } & Omit<MemoryRequestInput, "sessionId" | "query">,
): Promise<{ session_id: string; turn: AppendedEventJson; context: ContextAssembly }> {
  const role = nonEmpty(request.role, "role");
  const content = nonEmpty(request.content, "content");
  const source = request.source === undefined ? "mcp" : nonEmpty(request.source, "source");
  const query = request.query === undefined ? content : nonEmpty(request.query, "query");
  const assembly = validateMemoryRequest({ sessionId, query: query.slice(0, 4096), limit: request.limit, maxRecentEvents: request.maxRecentEvents, maxTokens: request.maxTokens });
  const recorded = await recordEvents(root, sessionId, [{ type: transcriptTurnType, actor: role, payload: fromJs({ role, content, source }) }]);
  const context = await sharedMemoryService(root).assemble(assembly);
  return { session_id: sessionId, turn: appendedEventJson(recorded.events[0]), context };
}
