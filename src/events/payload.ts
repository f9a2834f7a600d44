/**
 * Lenient readers over an event payload. Extraction must never throw on a malformed payload, so
 * every reader answers `undefined` (or a caller-chosen default) for a missing or ill-typed field,
 * and reads values the way the Python extractors do (`str(value).strip()`, Python truthiness,
 * `int(str(value))`), so names and summaries match the ones the Python projection derives; and
 * the payload marker by which a log says a statement is no longer current (below).
 */
import {
  compareCodePoints,
  isJsonObject,
  JsonNumber,
  type JsonObject,
  type JsonValue,
  type PlainJson,
  pythonFloatRepr,
  toJs,
} from "../canonical/mod.ts";

export type Properties = { [key: string]: PlainJson };

/** Python's `str(value)` for scalars; containers have no useful text and read as absent. */
function scalarText(value: JsonValue | undefined): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? "True" : "False";
  if (value instanceof JsonNumber) return value.isFloat ? pythonFloatRepr(value.lexeme) : value.lexeme;
  return undefined;
}

/** Trimmed non-empty text of a scalar, else undefined (Python `_optional_text`). */
export function text(value: JsonValue | undefined): string | undefined {
  const raw = scalarText(value);
  if (raw === undefined) return undefined;
  const trimmed = raw.trim();
  return trimmed === "" ? undefined : trimmed;
}

/** Trimmed non-empty text only when the value is a string (no coercion of numbers or booleans). */
export function strictText(value: JsonValue | undefined): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

/** Python truthiness: null, false, "", 0, [] and {} are falsy. */
export function isTruthy(value: JsonValue | undefined): boolean {
  if (value === undefined || value === null || value === false) return false;
  if (typeof value === "string") return value !== "";
  if (value instanceof JsonNumber) return value.toNumber() !== 0;
  if (Array.isArray(value)) return value.length > 0;
  if (isJsonObject(value)) return value.size > 0;
  return true;
}

/** The first truthy value among `keys` (Python `a or b or c`), else undefined. */
export function firstTruthy(payload: JsonObject, ...keys: string[]): JsonValue | undefined {
  for (const key of keys) {
    const value = payload.get(key);
    if (isTruthy(value)) return value;
  }
  return undefined;
}

/** Text of the first truthy field among `keys`. */
export function firstText(payload: JsonObject, ...keys: string[]): string | undefined {
  return text(firstTruthy(payload, ...keys));
}

const integerTextPattern = /^\s*[+-]?\d+\s*$/;

/** An integer from an int or an integer string (Python `int(value)`), else undefined. */
export function integer(value: JsonValue | undefined): number | undefined {
  let n: number | undefined;
  if (value instanceof JsonNumber && !value.isFloat) n = Number(value.lexeme);
  else if (typeof value === "string" && integerTextPattern.test(value)) n = Number(value.trim());
  return n !== undefined && Number.isSafeInteger(n) ? n : undefined;
}

/** A positive integer, else `fallback` (Python `_positive_int(value, default)`). */
export function positiveInt(value: JsonValue | undefined, fallback: number): number {
  const n = integer(value);
  return n !== undefined && n > 0 ? n : fallback;
}

/** A positive integer, else undefined. */
export function optionalPositiveInt(value: JsonValue | undefined): number | undefined {
  const n = integer(value);
  return n !== undefined && n > 0 ? n : undefined;
}

/** A number from a number or a numeric string (Python `float(str(value))`); booleans are not numbers. */
export function numberValue(value: JsonValue | undefined): number | undefined {
  let n: number | undefined;
  if (value instanceof JsonNumber) n = value.toNumber();
  else if (typeof value === "string" && value.trim() !== "") n = Number(value.trim());
  return n !== undefined && Number.isFinite(n) ? n : undefined;
}

/** A number clamped into [0, 1] (Python `_bounded_float`). */
export function boundedFloat(value: JsonValue | undefined): number | undefined {
  const n = numberValue(value);
  return n === undefined ? undefined : Math.max(0, Math.min(1, n));
}

/** A JSON number (not a string) within [0, 1], else undefined. */
export function unitNumber(value: JsonValue | undefined): number | undefined {
  if (!(value instanceof JsonNumber)) return undefined;
  const n = value.toNumber();
  return Number.isFinite(n) && n >= 0 && n <= 1 ? n : undefined;
}

/** A number or numeric string within [0, 1], else undefined (edge confidences). */
export function confidence(value: JsonValue | undefined): number | undefined {
  const n = numberValue(value);
  return n !== undefined && n >= 0 && n <= 1 ? n : undefined;
}

const eventHashPattern = /^[0-9a-f]{64}$/;

/** A 64-lowercase-hex event hash (surrounding whitespace ignored), else undefined. */
export function eventHash(value: JsonValue | undefined): string | undefined {
  const t = text(value);
  return t !== undefined && eventHashPattern.test(t) ? t : undefined;
}

export function object(value: JsonValue | undefined): JsonObject | undefined {
  return isJsonObject(value) ? value : undefined;
}

/** The texts of a list's scalar items (Python `_string_list`). */
export function stringList(value: JsonValue | undefined): string[] {
  if (!Array.isArray(value)) return [];
  const out: string[] = [];
  for (const item of value) {
    const t = text(item);
    if (t !== undefined) out.push(t);
  }
  return out;
}

/** The object items of a list (Python `_dict_list`). */
export function objectList(value: JsonValue | undefined): JsonObject[] {
  return Array.isArray(value) ? value.filter(isJsonObject) : [];
}

/** A payload value as plain JSON for entity properties or edge evidence. */
export function plain(value: JsonValue): PlainJson {
  return toJs(value) as PlainJson;
}

/** A payload object as a plain JSON object. */
export function plainObject(value: JsonObject): Properties {
  return toJs(value) as Properties;
}

/**
 * Space-joined texts of the given values; lists contribute each scalar item. Null when nothing
 * is left (Python `_join_summary`).
 */
export function joinSummary(...values: Array<JsonValue | undefined>): string | null {
  const parts: string[] = [];
  for (const value of values) {
    if (Array.isArray(value)) parts.push(...stringList(value));
    else {
      const t = text(value);
      if (t !== undefined) parts.push(t);
    }
  }
  return parts.length > 0 ? parts.join(" ") : null;
}

/** Drops undefined, null and empty-list values (Python `_compact_properties`). */
export function compact(properties: { [key: string]: PlainJson | undefined }): Properties {
  const out: Properties = {};
  for (const [key, value] of Object.entries(properties)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value) && value.length === 0) continue;
    out[key] = value;
  }
  return out;
}

/** Keys of a payload sorted by code point, as Python's `sorted()` orders `str`. */
export function sortedKeys(payload: JsonObject): string[] {
  return [...payload.keys()].sort(compareCodePoints);
}

const retentionScalarKeys = [
  "authority",
  "authority_scope",
  "coordination_status",
  "finding_status",
  "promoted",
  "stale",
  "status",
  "superseded_by",
] as const;

/**
 * Retrieval-retention metadata an event may carry (authority, status, expiry, importance...),
 * copied into the extracted entity's properties (Python `_retention_properties`).
 */
export function retentionProperties(payload: JsonObject): Properties {
  const out: Properties = {};
  for (const key of retentionScalarKeys) {
    const value = payload.get(key);
    if (typeof value === "string" ? value !== "" : typeof value === "boolean" || value instanceof JsonNumber) {
      out[key] = plain(value as JsonValue);
    }
  }
  const expiresAt = text(payload.get("expires_at"));
  if (expiresAt !== undefined) out.expires_at = expiresAt;
  const lastReinforcedAt = text(payload.get("last_reinforced_at"));
  if (lastReinforcedAt !== undefined) out.last_reinforced_at = lastReinforcedAt;
  const importance = boundedFloat(payload.get("importance"));
  if (importance !== undefined) out.importance = importance;
  const reinforcementCount = optionalPositiveInt(payload.get("reinforcement_count"));
  if (reinforcementCount !== undefined) out.reinforcement_count = reinforcementCount;
  return out;
}

/** `[{seq, hash}]` citations of a payload list, keeping only well-formed ones. */
export function sourceEventRefs(value: JsonValue | undefined): Array<{ seq: number; hash: string }> {
  const out: Array<{ seq: number; hash: string }> = [];
  for (const item of objectList(value)) {
    const seq = integer(item.get("seq"));
    const hash = eventHash(item.get("hash"));
    if (seq !== undefined && seq > 0 && item.get("seq") instanceof JsonNumber && hash !== undefined) out.push({ seq, hash });
  }
  return out;
}

/** Citation properties for a list of source events: count, `seq:hash` refs, seqs, hashes. */
export function citationProperties(value: JsonValue | undefined): Properties {
  const refs = sourceEventRefs(value);
  return {
    source_event_count: refs.length,
    source_event_refs: refs.map((r) => `${r.seq}:${r.hash}`),
    source_event_seqs: refs.map((r) => r.seq),
    source_event_hashes: refs.map((r) => r.hash),
    source_events: refs.map((r) => ({ seq: r.seq, hash: r.hash })),
  };
}

// ---------------------------------------------------------------------------
/*
 * The payload marker by which a log says "this statement is no longer current": `stale: true`,
 * or a non-empty `superseded_by` string naming what replaced it. Python writes both (the
 * state-recovery logs in `../shared/interop/`, e.g. an earlier hypothesis with
 * `{"stale": true, "superseded_by": "state-auth-hidden-cause:2"}`).
 *
 * The graph fold records an entity version that carries the marker as closed at its own
 * `observed_at`, and the verbatim lane gives a marked event a closed validity, so neither is
 * ever served as a current fact (checkout counts them as superseded contexts) while both stay
 * in the graph and the log, auditable.
 */
function marks(stale: unknown, supersededBy: unknown): boolean {
  return stale === true || (typeof supersededBy === "string" && supersededBy.trim() !== "");
}

/**
 * Whether extracted entity properties carry the marker.
 *
 * @example
 * propertiesMarkStale({ stale: true }) // true
 * propertiesMarkStale({ superseded_by: "" }) // false
 */
export function propertiesMarkStale(properties: { [key: string]: PlainJson }): boolean {
  return marks(properties.stale, properties.superseded_by);
}

/** Whether an event payload carries the marker. */
export function payloadMarksStale(payload: JsonObject): boolean {
  return marks(payload.get("stale"), payload.get("superseded_by"));
}
