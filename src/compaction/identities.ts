/**
 * Durable identities of an event (Python `_event_identities`, zaxy `src/zaxy/compaction.py`), in
 * this order, de-duplicated: its event ref `eventloom://<thread>/events/<seq>#<hash12>`, then
 * `path:start-end` (or `path`), `source:turn-N` (or `source`), the string values of `taskId`,
 * `userId`, `goalTitle`, `title`, `mission_id`, `worker_id`, `finding_id`, `claim_key`,
 * `claim_value`, and every `(identity|doc|decision|task|user|goal)-code-NNNN` in
 * `content`, `summary`, `description`.
 *
 * The event ref is a backpointer: a compacted representative carries the refs of every member,
 * so recall is measured over the other ("content") identities only (DESIGN §9).
 */
import { JsonNumber, type JsonObject, type JsonValue, pythonStr } from "../canonical/mod.ts";
import { citationUri, type EventRecord } from "../eventloom/mod.ts";

const identityCodePattern = /\b(?:identity|doc|decision|task|user|goal)-code-\d{4}\b/g;
const identityCodeMarker = "-code-";
/** How every event ref (`citationUri`) starts. */
const eventRefPrefix = "eventloom://";
const namedIdentityKeys = ["taskId", "userId", "goalTitle", "title", "mission_id", "worker_id", "finding_id", "claim_key", "claim_value"];

export interface EventIdentities {
  /** The event's own ref (the backpointer). */
  eventRef: string;
  /** Every other identity, in Python's order, without duplicates (and without the event ref). */
  content: string[];
}

/** Python's `_string`: a non-empty string, else undefined. */
function nonEmptyString(value: JsonValue | undefined): string | undefined {
  return typeof value === "string" && value.length > 0 ? value : undefined;
}

/** Python's `isinstance(v, int)` text: ints as written, and bools (a Python int) as True/False. */
function pythonIntText(value: JsonValue | undefined): string | undefined {
  const isInt = typeof value === "boolean" || (value instanceof JsonNumber && !value.isFloat);
  return isInt ? pythonStr(value) : undefined;
}

/** Python's `isinstance(v, int)` (bools included, as in Python). */
export function isPythonInt(value: JsonValue | undefined): boolean {
  return pythonIntText(value) !== undefined;
}

/**
 * @example
 * eventIdentities(record) // { eventRef: "eventloom://default/events/1#ab12…", content: ["docs/a.md:1-5", "identity-code-0001"] }
 */
export function eventIdentities(record: Pick<EventRecord, "thread" | "seq" | "hash" | "payload">): EventIdentities {
  const eventRef = citationUri(record.thread, record.seq, record.hash);
  return { eventRef, content: contentIdentities(record, eventRef) };
}

/**
 * `eventIdentities(record).content`, building the event ref only when some identity could equal
 * it (starts with `eventloom://`, as every ref does): pass one of the audit reads a million
 * events' content identities and no ref.
 */
export function contentIdentities(record: Pick<EventRecord, "thread" | "seq" | "hash" | "payload">, eventRef?: string): string[] {
  return withoutEventRef(payloadIdentities(record.payload), record, eventRef);
}

/**
 * The identities an event's payload names, de-duplicated in order, its own event ref among them
 * if it names it: `contentIdentities` before `withoutEventRef`, for a reader that does not know
 * the event's seq yet (the audit's pass one, auditPassOne.ts).
 */
export function payloadIdentities(payload: JsonObject): string[] {
  const found: string[] = [];
  const path = nonEmptyString(payload.get("path"));
  if (path !== undefined) {
    const start = pythonIntText(payload.get("start_line"));
    const end = pythonIntText(payload.get("end_line"));
    found.push(start !== undefined && end !== undefined ? `${path}:${start}-${end}` : path);
  }
  const source = nonEmptyString(payload.get("source"));
  const turn = pythonIntText(payload.get("turn_index"));
  if (source !== undefined) found.push(turn !== undefined ? `${source}:turn-${turn}` : source);
  for (const key of namedIdentityKeys) {
    const value = nonEmptyString(payload.get(key));
    if (value !== undefined) found.push(value);
  }
  const text = ["content", "summary", "description"]
    .map((key) => nonEmptyString(payload.get(key)))
    .filter((value): value is string => value !== undefined)
    .join(" ");
  // Every code holds "-code-": a native substring search spares the pattern most long texts.
  if (text.includes(identityCodeMarker)) for (const match of text.matchAll(identityCodePattern)) found.push(match[0]);
  return [...new Set(found)];
}

/** `identities` without the event's own ref (`citationUri` of its thread, seq and hash, or `eventRef`). */
export function withoutEventRef(identities: string[], record: Pick<EventRecord, "thread" | "seq" | "hash">, eventRef?: string): string[] {
  if (!identities.some((identity) => identity.startsWith(eventRefPrefix))) return identities;
  const ref = eventRef ?? citationUri(record.thread, record.seq, record.hash);
  return identities.filter((identity) => identity !== ref);
}

/**
 * Whether an event can be cited back to its source (Python `_citation_coverage`): a
 * `document.indexed` needs a non-empty `path`; a `transcript.turn` a non-empty `source` and an
 * integer `turn_index`; every other event cites itself.
 */
export function hasSourceCitation(record: Pick<EventRecord, "type" | "payload">): boolean {
  if (record.type === "document.indexed") return nonEmptyString(record.payload.get("path")) !== undefined;
  if (record.type === "transcript.turn") {
    return nonEmptyString(record.payload.get("source")) !== undefined && isPythonInt(record.payload.get("turn_index"));
  }
  return true;
}
