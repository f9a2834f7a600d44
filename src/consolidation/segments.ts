/**
 * Segment selection for `propose-from-log` (seed 000 task 2; reference §2.3): the session's
 * actionable events (tool calls, commands, file edits, tasks, coordination — not checkout,
 * query or feedback noise), cut into consecutive windows of `windowSize` events. A segment is
 * identified by its session and seq range, `segment:<session>:<min 6 digits>-<max 6 digits>`.
 *
 * Per event the segment keeps `{seq, hash, event_type, summary}` where the summary is the event
 * type followed by up to three of the payload's `status, tool_name, command, path, summary,
 * title, reason` strings (whitespace collapsed), joined by " | " and cut to 240 code points,
 * exactly as Python builds it (the summary reaches candidate payloads, not ids).
 */
import { compareCodePoints } from "../canonical/mod.ts";
import { inputError } from "../errors.ts";
import type { EventRecord } from "../eventloom/envelope.ts";
import { consolidationWindowSizeMax } from "../limits.ts";
import { codePointPrefix, collapseWhitespace, isPythonBlank, pythonStrip } from "../canonical/pythonText.ts";

/** Longest event or segment summary, in code points (Python's `_SUMMARY_MAX_CHARS`). */
export const summaryCharsMax = 240;

/** `propose-from-log` windows: at least one event, at most 50 (seed 000; the CLI and MCP bound). */
export const windowSizeMin = 1;
export const windowSizeMax = consolidationWindowSizeMax;
/**
 * The default window, in CLI and MCP alike: the design's `select_consolidation_segments(...,
 * window_size=8)` (seed 000). Later Python front ends defaulted to 5; the design wins.
 */
export const windowSizeDefault = 8;

const actionableEventTypes = new Set([
  "tool.call.completed",
  "command.completed",
  "command.result",
  "file.edit.applied",
  "file.edit.completed",
  "task.completed",
  "task.started",
  "task.proposed",
  "coordination.handoff.created",
  "coordination.finding.reported",
  "coordination.assignment.created",
  "coordination.review.completed",
  "subagent.completed",
]);
const actionableEventPrefixes = ["tool.call.", "command.", "file.edit.", "task.", "coordination."];
/** Reads of memory are not work: they would turn every checkout into an "episode". */
const passiveEventTypes = new Set([
  "memory.checkout.completed",
  "memory.query.completed",
  "memory.feedback.recorded",
  "memory.bootstrap.completed",
]);
const summaryPayloadKeys = ["status", "tool_name", "command", "path", "summary", "title", "reason"];
/** The event type plus at most three payload strings. */
const summaryPartsMax = 4;

export interface SegmentSourceEvent {
  seq: number;
  hash: string;
  event_type: string;
  summary: string;
}

export interface ConsolidationSegment {
  sessionId: string;
  segmentId: string;
  /** Sorted by event type (code point order), zero counts absent. */
  eventTypeCounts: Map<string, number>;
  sourceEvents: SegmentSourceEvent[];
}

export function isActionableEventType(eventType: string): boolean {
  if (passiveEventTypes.has(eventType)) return false;
  return actionableEventTypes.has(eventType) || actionableEventPrefixes.some((prefix) => eventType.startsWith(prefix));
}

/**
 * @example
 * buildSegmentId("agent-1", [3, 4, 9]) // "segment:agent-1:000003-000009"
 */
export function buildSegmentId(sessionId: string, seqs: readonly number[]): string {
  if (seqs.length === 0) throw new RangeError("a segment needs at least one event");
  const min = Math.min(...seqs);
  const max = Math.max(...seqs);
  return `segment:${sessionId}:${String(min).padStart(6, "0")}-${String(max).padStart(6, "0")}`;
}

/**
 * @example
 * eventSummary("tool.call.completed", payloadOf({ status: "failed", tool_name: "pytest" }))
 * // "tool.call.completed | failed | pytest"
 */
export function eventSummary(eventType: string, payload: EventRecord["payload"]): string {
  const parts = [eventType];
  for (const key of summaryPayloadKeys) {
    const value = payload.get(key);
    if (typeof value === "string" && !isPythonBlank(value)) parts.push(collapseWhitespace(value));
  }
  return codePointPrefix(parts.slice(0, summaryPartsMax).join(" | "), summaryCharsMax);
}

export function eventTypeCounts(sourceEvents: readonly SegmentSourceEvent[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const event of sourceEvents) counts.set(event.event_type, (counts.get(event.event_type) ?? 0) + 1);
  return new Map([...counts].sort(([a], [b]) => compareCodePoints(a, b)));
}

/** Validates a window size (1..50); `field` names the flag or argument in the message. */
export function requireWindowSize(value: unknown, field = "window_size"): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < windowSizeMin || value > windowSizeMax) {
    throw inputError("invalid_window_size", `${field} must be an integer from ${windowSizeMin} to ${windowSizeMax} (got ${typeof value === "string" ? JSON.stringify(value) : String(value)})`, {
      field,
      expected: `an integer in ${windowSizeMin}..${windowSizeMax}`,
    });
  }
  return value;
}

/**
 * The session's actionable events in consecutive windows. The session log (the file) is the
 * unit, as in the design's `propose_consolidation_candidates` (seed 000: it reads the session's
 * whole log): every event in it counts, whatever `thread` it carries. Python logs often carry a
 * thread other than their file name (`legacy-worker-release.jsonl` holds thread
 * `worker-release`); filtering by thread, as later Python did, found nothing in them.
 */
export function selectConsolidationSegments(events: readonly EventRecord[], sessionId: string, windowSize: number): ConsolidationSegment[] {
  requireWindowSize(windowSize);
  const kept: SegmentSourceEvent[] = [];
  for (const event of events) {
    const eventType = pythonStrip(event.type);
    if (!isActionableEventType(eventType)) continue;
    kept.push({ seq: event.seq, hash: event.hash, event_type: eventType, summary: eventSummary(eventType, event.payload) });
  }
  const segments: ConsolidationSegment[] = [];
  for (let start = 0; start < kept.length; start += windowSize) {
    const window = kept.slice(start, start + windowSize);
    segments.push({
      sessionId,
      segmentId: buildSegmentId(sessionId, window.map((event) => event.seq)),
      eventTypeCounts: eventTypeCounts(window),
      sourceEvents: window,
    });
  }
  return segments;
}

/**
 * The distinct threads the events carry (an empty thread reads as "default"), sorted: what
 * `propose-from-log` reports as `threads_seen`, so a log whose events name another thread than
 * its session says so.
 */
export function threadsSeen(events: readonly EventRecord[]): string[] {
  const threads = new Set<string>();
  for (const event of events) threads.add(event.thread === "" ? "default" : event.thread);
  return [...threads].sort(compareCodePoints);
}
