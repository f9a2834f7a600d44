/**
 * A lossless JSON value model.
 *
 * `JSON.parse` cannot be used for anything that is hashed: it turns `5.0` into `5`, loses
 * integers beyond 2^53, and reorders integer-like object keys. Here numbers keep their lexeme
 * and whether Python would see them as int or float, and objects are `Map`s, which keep
 * insertion order for every key (Python dicts do the same) and have no `__proto__` hazard.
 */

/** A JSON number kept as written. `isFloat` is Python's view: the lexeme has `.`, `e` or `E`. */
export class JsonNumber {
  readonly lexeme: string;
  readonly isFloat: boolean;

  constructor(lexeme: string, isFloat: boolean) {
    this.lexeme = lexeme;
    this.isFloat = isFloat;
  }

  /** An integer from a JS safe integer or bigint. */
  static int(value: number | bigint): JsonNumber {
    if (typeof value === "number" && !Number.isSafeInteger(value)) {
      throw new RangeError(`JsonNumber.int needs a safe integer, got ${value}`);
    }
    return new JsonNumber(BigInt(value).toString(), false);
  }

  /** A float from a JS number (written the way Python's repr writes it). */
  static float(value: number): JsonNumber {
    if (Number.isNaN(value)) return new JsonNumber("NaN", true);
    if (value === Infinity) return new JsonNumber("Infinity", true);
    if (value === -Infinity) return new JsonNumber("-Infinity", true);
    return new JsonNumber(Object.is(value, -0) ? "-0.0" : String(value), true);
  }

  toNumber(): number {
    return Number(this.lexeme);
  }
}

export type JsonObject = Map<string, JsonValue>;
export type JsonArray = JsonValue[];
export type JsonValue = null | boolean | string | JsonNumber | JsonArray | JsonObject;

export function isJsonObject(value: JsonValue | undefined): value is JsonObject {
  return value instanceof Map;
}

/** The value of `key` when it is a string, else undefined. */
export function stringField(object: JsonObject, key: string): string | undefined {
  const value = object.get(key);
  return typeof value === "string" ? value : undefined;
}

/** The value of `key` when it is an integer, else undefined. */
export function intField(object: JsonObject, key: string): number | undefined {
  const value = object.get(key);
  if (value instanceof JsonNumber && !value.isFloat) {
    const n = Number(value.lexeme);
    return Number.isSafeInteger(n) ? n : undefined;
  }
  return undefined;
}

/**
 * Converts plain JS data (e.g. from an MCP call, already parsed by `JSON.parse`) into the
 * lossless model. Integer-valued numbers become ints: `JSON.parse` has already erased `5.0`.
 */
export function fromJs(value: unknown, depth = 0): JsonValue {
  if (depth > 1000) throw new RangeError("value nests deeper than 1000 levels");
  if (value === null || value === undefined) return null;
  if (typeof value === "boolean" || typeof value === "string") return value;
  if (typeof value === "number") {
    return Number.isInteger(value) && Number.isSafeInteger(value) ? JsonNumber.int(value) : JsonNumber.float(value);
  }
  if (typeof value === "bigint") return JsonNumber.int(value);
  if (value instanceof JsonNumber) return value;
  if (Array.isArray(value)) return value.map((item) => fromJs(item, depth + 1));
  if (value instanceof Map) {
    const out: JsonObject = new Map();
    for (const [k, v] of value) out.set(String(k), fromJs(v, depth + 1));
    return out;
  }
  if (typeof value === "object") {
    const out: JsonObject = new Map();
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (v === undefined) continue;
      out.set(k, fromJs(v, depth + 1));
    }
    return out;
  }
  throw new TypeError(`cannot represent a ${typeof value} as JSON`);
}

/** Converts to plain JS data for display (numbers become JS numbers; precision may be lost). */
export function toJs(value: JsonValue): unknown {
  if (value === null || typeof value === "boolean" || typeof value === "string") return value;
  if (value instanceof JsonNumber) return value.toNumber();
  if (Array.isArray(value)) return value.map(toJs);
  const out: Record<string, unknown> = {};
  for (const [k, v] of value) {
    Object.defineProperty(out, k, { value: toJs(v), enumerable: true, writable: true, configurable: true });
  }
  return out;
}
