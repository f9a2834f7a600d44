/**
 * `memory_feedback` (reference §6 row 5; Python `record_context_feedback`): an agent says whether
 * a memory it was given was used, helpful or irrelevant. History is never changed; one event is
 * appended to the session:
 *
 * - `used` / `helpful` → `memory.reinforced` `{entity_name, entity_type, source[, score]
 *   [, citation][, query][, reason][, purpose][, outcome][, importance]}` (Python drops the
 *   `feedback` key from a reinforcement, so `used` and `helpful` read the same in the log);
 * - `irrelevant` → `memory.feedback` `{entity_name, entity_type, feedback: "irrelevant", source
 *   [, score][, citation][, query][, reason][, purpose][, outcome]}`.
 *
 * Retrieval replays these events into a ranking nudge for the named entity
 * (folds/reinforcement.ts, retrieval/reinforcement.ts), so feedback changes the next `memory_query` and checkout.
 * The CLI (`zaxy memory feedback`) and MCP (`memory_feedback`) both call `recordFeedback`.
 *
 * @example
 * await recordFeedback(".eventloom", "default", { entityName: "Use Kuzu", entityType: "decision", feedback: "helpful" });
 * // { session_id: "default", feedback: "helpful", event_type: "memory.reinforced", seq: 7, … }
 */
import { fromJs, JsonNumber, type JsonObject } from "../canonical/mod.ts";
import { inputError } from "../errors.ts";
import type { PlainJson } from "../projection/types.ts";
import { feedbackEventType, normalizeFeedback, reinforcedEventType } from "../folds/reinforcement.ts";
import { recordEvents } from "../recording/record.ts";

export const feedbackValues = ["used", "helpful", "irrelevant"] as const;
export type FeedbackValue = (typeof feedbackValues)[number];

/** Python's MCP default actor. */
export const defaultFeedbackActor = "zaxy";

export interface FeedbackRequest {
  entityName: unknown;
  entityType: unknown;
  feedback: unknown;
  actor?: unknown;
  /** Where the feedback comes from (Python: `mcp` from the MCP tool); default given by the front door. */
  source?: unknown;
  query?: unknown;
  score?: unknown;
  citation?: unknown;
  reason?: unknown;
  /** A purpose profile name or object, recorded as given. */
  purpose?: unknown;
  outcome?: unknown;
  /** 0..1; recorded on `used`/`helpful` only (as Python does). */
  importance?: unknown;
  /** Field names for messages (the CLI passes its flags). */
  fieldNames?: { [field: string]: string };
}

export interface FeedbackResult {
  session_id: string;
  status: "recorded";
  entity_name: string;
  entity_type: string;
  feedback: FeedbackValue;
  event_type: string;
  seq: number;
  hash: string;
  citation: string;
  /** What recovering an interrupted earlier append did; present only when something was recovered. */
  warnings?: string[];
}

function describe(value: unknown): string {
  return value === undefined ? "nothing" : typeof value === "string" ? JSON.stringify(value) : String(JSON.stringify(value) ?? value);
}

function text(value: unknown, field: string): string {
  if (typeof value !== "string" || value.trim() === "") {
    throw inputError("invalid_feedback", `${field} must be a non-empty string (got ${describe(value)})`, { field, expected: "a non-empty string" });
  }
  return value;
}

function optionalText(value: unknown, field: string): string | undefined {
  return value === undefined ? undefined : text(value, field);
}

function finite(value: unknown, field: string, unit: boolean): number {
  if (typeof value !== "number" || !Number.isFinite(value) || (unit && (value < 0 || value > 1))) {
    const expected = unit ? "a number in 0..1" : "a finite number";
    throw inputError("invalid_feedback", `${field} must be ${expected} (got ${describe(value)})`, { field, expected });
  }
  return value;
}

/** Python `_normalize_context_feedback`: casefolded and stripped, one of used, helpful, irrelevant. */
export function parseFeedback(value: unknown, field = "feedback"): FeedbackValue {
  const normalized = typeof value === "string" ? normalizeFeedback(value) : undefined;
  if (normalized === undefined || !(feedbackValues as readonly string[]).includes(normalized)) {
    const valid = feedbackValues.join(", ");
    throw inputError("invalid_feedback", `${field} must be one of: ${valid} (got ${describe(value)})`, { field, expected: valid, actual: describe(value) });
  }
  return normalized as FeedbackValue;
}

/** The validated payload, keys in Python's order; floats stay floats (`1.0`). */
function feedbackPayload(request: FeedbackRequest, source: string): { feedback: FeedbackValue; entityName: string; entityType: string; payload: JsonObject } {
  const name = (field: string) => request.fieldNames?.[field] ?? field;
  const entityName = text(request.entityName, name("entity_name"));
  const entityType = text(request.entityType, name("entity_type"));
  const feedback = parseFeedback(request.feedback, name("feedback"));
  const score = request.score === undefined ? undefined : finite(request.score, name("score"), false);
  const citation = optionalText(request.citation, name("citation"));
  const query = optionalText(request.query, name("query"));
  const reason = optionalText(request.reason, name("reason"));
  const outcome = optionalText(request.outcome, name("outcome"));
  const importance = request.importance === undefined ? undefined : finite(request.importance, name("importance"), true);
  let purpose: PlainJson | undefined;
  if (request.purpose !== undefined) {
    const value = request.purpose;
    if (typeof value === "string" ? value.trim() === "" : value === null || typeof value !== "object" || Array.isArray(value)) {
      throw inputError("invalid_feedback", `${name("purpose")} must be a profile name or an object (got ${describe(value)})`, {
        field: name("purpose"),
        expected: "a non-empty string or a JSON object",
      });
    }
    purpose = value as PlainJson;
  }
  const reinforced = feedback !== "irrelevant";
  const plain: { [key: string]: PlainJson } = { entity_name: entityName, entity_type: entityType };
  if (!reinforced) plain.feedback = feedback;
  plain.source = source;
  if (score !== undefined) plain.score = score;
  if (citation !== undefined) plain.citation = citation;
  if (query !== undefined) plain.query = query;
  if (reason !== undefined) plain.reason = reason;
  if (purpose !== undefined) plain.purpose = purpose;
  if (outcome !== undefined) plain.outcome = outcome;
  if (reinforced && importance !== undefined) plain.importance = importance;
  const payload = fromJs(plain) as JsonObject;
  for (const key of ["score", "importance"]) {
    const value = plain[key];
    if (typeof value === "number") payload.set(key, JsonNumber.float(value));
  }
  return { feedback, entityName, entityType, payload };
}

/**
 * Validates the request (bad input: `invalid_feedback`, exit 2, nothing written) and appends one
 * `memory.reinforced` or `memory.feedback` event.
 */
export async function recordFeedback(root: string, sessionId: string, request: FeedbackRequest, defaults: { source: string }): Promise<FeedbackResult> {
  const name = (field: string) => request.fieldNames?.[field] ?? field;
  const source = request.source === undefined ? defaults.source : text(request.source, name("source"));
  const actor = request.actor === undefined ? defaultFeedbackActor : text(request.actor, name("actor"));
  const { feedback, entityName, entityType, payload } = feedbackPayload(request, source);
  const type = feedback === "irrelevant" ? feedbackEventType : reinforcedEventType;
  const { events, warnings } = await recordEvents(root, sessionId, [{ type, actor, payload }]);
  const event = events[0];
  return {
    session_id: sessionId,
    status: "recorded",
    entity_name: entityName,
    entity_type: entityType,
    feedback,
    event_type: type,
    seq: event.seq,
    hash: event.hash,
    citation: event.citation,
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}
