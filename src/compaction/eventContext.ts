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

/** A payload string shorter than this keeps its run: cutting it out saves less than it costs. */
const repeatedRunCharsMin = 64;

/**
 * The context text of an event with the long middles of its string values cut out, and those
 * middles: `eventContext` writes each top-level string value twice (`key=value` and inside
 * `json.dumps`), and for long payloads scanning that text was most of the audit's first pass.
 *
 * A cut run is printable ASCII without `"` or `\` (so `json.dumps` writes it as it is) that
 * starts and ends with a space; in both copies it is replaced by one space. Tokens never cross
 * a space, so the context's tokens are `text`'s plus each run's twice (`AuditVectors.addContext`).
 * The values of `key` and `value` are written a third time when both are present: those stay.
 *
 * @example
 * auditContext(record) // { text: "… summary=a b {… \"summary\": \"a b\"}", repeated: [" long middle … "] }
 */
export function auditContext(record: Pick<EventRecord, "timestamp" | "type" | "actor" | "payload">): { text: string; repeated: string[] } {
  const payload = record.payload;
  const keyValuePart = payload.has("key") && payload.has("value");
  let cut: Map<string, JsonValue> | undefined;
  const repeated: string[] = [];
  for (const [key, value] of payload) {
    if (typeof value !== "string" || value.length < repeatedRunCharsMin) continue;
    if (keyValuePart && (key === "key" || key === "value")) continue;
    const run = sharedRun(value);
    if (run === undefined) continue;
    cut ??= new Map(payload);
    cut.set(key, value.slice(0, run.start) + " " + value.slice(run.end));
    repeated.push(value.slice(run.start, run.end));
  }
  const text = eventContext(cut === undefined ? record : { timestamp: record.timestamp, type: record.type, actor: record.actor, payload: cut });
  return { text, repeated };
}

/**
 * The longest run of `value` that `json.dumps` (`ensure_ascii`) leaves as it is (0x20..0x7e but
 * `"` and `\`), narrowed to start at its first space and end after its last, when that is at
 * least `repeatedRunCharsMin` long.
 */
function sharedRun(value: string): { start: number; end: number } | undefined {
  let bestStart = 0;
  let bestEnd = 0;
  let runStart = 0;
  for (let i = 0; i <= value.length; i++) {
    const c = i < value.length ? value.charCodeAt(i) : -1;
    if (c >= 0x20 && c <= 0x7e && c !== 0x22 && c !== 0x5c) continue;
    if (i - runStart > bestEnd - bestStart) {
      bestStart = runStart;
      bestEnd = i;
    }
    runStart = i + 1;
  }
  const start = value.indexOf(" ", bestStart);
  if (start < 0 || start >= bestEnd) return undefined;
  const end = value.lastIndexOf(" ", bestEnd - 1) + 1;
  return end - start >= repeatedRunCharsMin ? { start, end } : undefined;
}
