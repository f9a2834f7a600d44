/**
 * The text an event is embedded and searched as: Python's `event_context(event.model_dump())`
 * (zaxy `src/zaxy/event_context.py`), byte for byte, because audit distances, medoids and the
 * identity haystack all depend on it:
 *
 *   " ".join(part for part in [str(timestamp), str(type), str(actor), payload_text,
 *                              json.dumps(payload, sort_keys=True)] if part)
 *   payload_text = " ".join(f"{k}={v}" for k, v in sorted(payload.items()))
 *                  (+ f"{payload['key']}={payload['value']}" when both keys exist)
 *
 * `str(v)` is Python's `str` of the parsed JSON value (`True`, `None`, `1e-07`, dict/list repr
 * with single-quoted strings); `json.dumps` uses Python's default separators `", "` / `": "` and
 * `ensure_ascii`. The timestamp is the stored string (Python's `Event.timestamp` is a `str`).
 */
import { compareCodePoints, JsonNumber, type JsonValue, writeJsonNumber, writeJsonString } from "../canonical/mod.ts";
import { pythonFloatRepr } from "../canonical/mod.ts";
import { pythonStrRepr } from "../canonical/pythonText.ts";
import type { EventRecord } from "../eventloom/mod.ts";
import { embeddingTokens } from "../vector/hashEmbedding.ts";

/** Python's `repr(float)` for a JSON float lexeme, including the non-finite spellings. */
function floatRepr(value: JsonNumber): string {
  if (value.lexeme === "NaN") return "nan";
  if (value.lexeme === "Infinity") return "inf";
  if (value.lexeme === "-Infinity") return "-inf";
  return pythonFloatRepr(value.lexeme);
}

// Printable ASCII without quotes or backslashes: Python's repr just adds single quotes.
const plainReprText = /^[\x20\x21\x23-\x26\x28-\x5b\x5d-\x7e]*$/;

/** Python's `repr` of a parsed JSON value (how it prints inside a dict or list). */
export function pythonRepr(value: JsonValue): string {
  if (value === null) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "string") return plainReprText.test(value) ? `'${value}'` : pythonStrRepr(value);
  if (value instanceof JsonNumber) return value.isFloat ? floatRepr(value) : writeJsonNumber(value);
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(", ")}]`;
  const items: string[] = [];
  for (const [key, item] of value) items.push(`${plainReprText.test(key) ? `'${key}'` : pythonStrRepr(key)}: ${pythonRepr(item)}`);
  return `{${items.join(", ")}}`;
}

/** Python's `str` of a parsed JSON value: strings as they are, everything else as `repr`. */
export function pythonStr(value: JsonValue): string {
  return typeof value === "string" ? value : pythonRepr(value);
}

/**
 * Python's `json.dumps(value, sort_keys=True)` with the default separators and `ensure_ascii`.
 *
 * @example
 * pythonJsonDumpsSorted(parseJson('{"b":"é","a":[1,2.50]}')) // '{"a": [1, 2.5], "b": "\\u00e9"}'
 */
export function pythonJsonDumpsSorted(value: JsonValue): string {
  if (value === null) return "null";
  if (value === true) return "true";
  if (value === false) return "false";
  if (typeof value === "string") return writeJsonString(value, true);
  if (value instanceof JsonNumber) return writeJsonNumber(value);
  if (Array.isArray(value)) return `[${value.map(pythonJsonDumpsSorted).join(", ")}]`;
  const keys = [...value.keys()].sort(compareCodePoints);
  return `{${keys.map((key) => `${writeJsonString(key, true)}: ${pythonJsonDumpsSorted(value.get(key) as JsonValue)}`).join(", ")}}`;
}

const asciiText = /^[\x00-\x7f]*$/;
const asciiSpaceRuns = /[\t\n\v\f\r\x1c-\x1f ]+/;

/**
 * The embedding tokens of a context text: `embeddingTokens` (Python's `text.casefold().split()`),
 * with a fast path for ASCII text, where casefold is `toLowerCase` and Python's whitespace is
 * `\t \n \v \f \r \x1c-\x1f` and space.
 */
export function contextTokens(text: string): string[] {
  if (!asciiText.test(text)) return embeddingTokens(text);
  const tokens = text.toLowerCase().split(asciiSpaceRuns);
  if (tokens.length > 0 && tokens[0] === "") tokens.shift();
  if (tokens.length > 0 && tokens[tokens.length - 1] === "") tokens.pop();
  return tokens.length > 0 ? tokens : [""];
}

/**
 * @example
 * eventContext(record) // "2024-06-15T12:00:00Z document.indexed agent path=docs/a.md {\"path\": \"docs/a.md\"}"
 */
export function eventContext(record: Pick<EventRecord, "timestamp" | "type" | "actor" | "payload">): string {
  const payload = record.payload;
  const keys = [...payload.keys()].sort(compareCodePoints);
  const parts = keys.map((key) => `${key}=${pythonStr(payload.get(key) as JsonValue)}`);
  if (payload.has("key") && payload.has("value")) {
    parts.push(`${pythonStr(payload.get("key") as JsonValue)}=${pythonStr(payload.get("value") as JsonValue)}`);
  }
  return [record.timestamp, record.type, record.actor, parts.join(" "), pythonJsonDumpsSorted(payload)]
    .filter((part) => part.length > 0)
    .join(" ");
}
