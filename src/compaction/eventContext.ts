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
 * `ensure_ascii` (both from canonical/pythonText.ts). The timestamp is the stored string (Python's
 * `Event.timestamp` is a `str`).
 */
import { compareCodePoints, type JsonValue } from "../canonical/mod.ts";
import { pythonJsonDumpsSorted, pythonStr } from "../canonical/pythonText.ts";
import type { EventRecord } from "../eventloom/mod.ts";
import { embeddingTokens } from "../vector/hashEmbedding.ts";

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
