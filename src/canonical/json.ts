/**
 * JSON as Eventloom hashes it: a lossless value model, the parser that reads JSON text into it,
 * and the writer of canonical JSON, byte-compatible with Python's
 * `json.dumps(obj, sort_keys=True, separators=(",", ":"))`. One module, since the writer and the
 * parser are two directions of the same value model and every hash depends on both.
 *
 * The value model: `JSON.parse` cannot be used for anything that is hashed: it turns `5.0` into
 * `5`, loses integers beyond 2^53, and reorders integer-like object keys. Here numbers keep their
 * lexeme and whether Python would see them as int or float, and objects are `Map`s, which keep
 * insertion order for every key (Python dicts do the same) and have no `__proto__` hazard.
 *
 * The writer: every Eventloom hash and every deterministic id depends on these bytes: if this
 * output changes, we broke compatibility.
 *
 * - keys sorted by Unicode code point (not UTF-16 code unit), recursively;
 * - ASCII only: non-ASCII and DEL as lowercase `\uXXXX` (astral as surrogate pairs), controls
 *   as `\n \r \t \b \f` or `\u00XX`; `/` is not escaped. (DESIGN §3 says DEL stays raw;
 *   Python's encoder escapes everything outside 0x20..0x7e, and byte compatibility wins.)
 * - ints exactly as written (`-0` → `0`); floats as Python `repr` (`pythonFloatRepr`, below).
 *
 * The same writer, without sorting or without ASCII escaping, produces the on-disk line shapes
 * (eventloom.v1 lines are `json.dumps(envelope, separators=(",",":"))`, unsorted and ASCII;
 * legacy lines come from pydantic, unsorted with raw UTF-8).
 */
import { jsonDepthMax } from "../limits.ts";

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

// ---------------------------------------------------------------------------
/*
 * A strict, lossless JSON parser that accepts exactly what Python's `json.loads` accepts:
 * RFC 8259 plus `NaN`, `Infinity` and `-Infinity`; no raw control characters in strings;
 * duplicate keys keep the first position and the last value (as a Python dict does), unless
 * the caller asks for `duplicateKeys: "reject"` (input from users: a second value for one key
 * is almost always a mistake, and silently keeping the last one hides it; stored log lines
 * keep Python's reading). Recursion is bounded by `jsonDepthMax`.
 */
export class JsonSyntaxError extends Error {
  /** UTF-16 offset in the parsed text where the problem was found. */
  readonly offset: number;
  readonly code: "invalid_json" | "depth_limit" | "duplicate_key";
  /** The repeated key, for `duplicate_key`. */
  readonly key?: string;

  constructor(message: string, offset: number, code: "invalid_json" | "depth_limit" | "duplicate_key" = "invalid_json", key?: string) {
    super(message);
    this.name = "JsonSyntaxError";
    this.offset = offset;
    this.code = code;
    if (key !== undefined) this.key = key;
  }
}

export interface ParseJsonOptions {
  /** `"reject"` makes a key repeated within one object a `duplicate_key` error; default `"last"` (Python's dict). */
  duplicateKeys?: "last" | "reject";
}

/** `sys.int_info.str_digits_check_threshold` in Python 3.11+. */
const pythonIntDigitsMax = 4300;

const numberPattern = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/y;

class Parser {
  private pos = 0;
  private readonly text: string;
  private readonly depthMax: number;
  private readonly rejectDuplicates: boolean;

  constructor(text: string, depthMax: number, options: ParseJsonOptions = {}) {
    this.text = text;
    this.depthMax = depthMax;
    this.rejectDuplicates = options.duplicateKeys === "reject";
  }

  parseDocument(): JsonValue {
    this.skipWhitespace();
    const value = this.parseValue(0);
    this.skipWhitespace();
    if (this.pos !== this.text.length) this.fail("unexpected data after the JSON value");
    return value;
  }

  private fail(message: string): never {
    throw new JsonSyntaxError(`${message} at offset ${this.pos}`, this.pos);
  }

  private skipWhitespace(): void {
    const text = this.text;
    let pos = this.pos;
    while (pos < text.length) {
      const c = text.charCodeAt(pos);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) pos++;
      else break;
    }
    this.pos = pos;
  }

  private parseValue(depth: number): JsonValue {
    const c = this.text.charCodeAt(this.pos);
    switch (c) {
      case 0x7b: // {
        return this.parseObject(depth + 1);
      case 0x5b: // [
        return this.parseArray(depth + 1);
      case 0x22: // "
        return this.parseString();
      case 0x74: // t
        return this.literal("true", true);
      case 0x66: // f
        return this.literal("false", false);
      case 0x6e: // n
        return this.literal("null", null);
      case 0x4e: // N
        return this.literal("NaN", new JsonNumber("NaN", true));
      case 0x49: // I
        return this.literal("Infinity", new JsonNumber("Infinity", true));
      default:
        if (c === 0x2d && this.text.startsWith("-Infinity", this.pos)) {
          return this.literal("-Infinity", new JsonNumber("-Infinity", true));
        }
        if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.parseNumber();
        if (Number.isNaN(c)) this.fail("unexpected end of input");
        this.fail(`unexpected character ${JSON.stringify(this.text[this.pos])}`);
    }
  }

  private literal<T extends JsonValue>(word: string, value: T): T {
    if (!this.text.startsWith(word, this.pos)) this.fail("invalid literal");
    this.pos += word.length;
    return value;
  }

  private parseNumber(): JsonNumber {
    numberPattern.lastIndex = this.pos;
    const match = numberPattern.exec(this.text);
    if (match === null) this.fail("invalid number");
    const isFloat = match[1] !== undefined || match[2] !== undefined;
    // Python 3.11 refuses to convert integers longer than 4300 digits, so json.loads fails.
    if (!isFloat && match[0].replace("-", "").length > pythonIntDigitsMax) this.fail(`integer longer than ${pythonIntDigitsMax} digits`);
    this.pos += match[0].length;
    return new JsonNumber(match[0], isFloat);
  }

  private enter(depth: number): void {
    if (depth > this.depthMax) {
      throw new JsonSyntaxError(
        `JSON nests deeper than ${this.depthMax} levels at offset ${this.pos}`,
        this.pos,
        "depth_limit",
      );
    }
  }

  private parseObject(depth: number): JsonObject {
    this.enter(depth);
    this.pos++;
    const out: JsonObject = new Map();
    this.skipWhitespace();
    if (this.text.charCodeAt(this.pos) === 0x7d) {
      this.pos++;
      return out;
    }
    for (;;) {
      if (this.text.charCodeAt(this.pos) !== 0x22) this.fail("expected a string key");
      const keyOffset = this.pos;
      const key = this.parseString();
      if (this.rejectDuplicates && out.has(key)) {
        throw new JsonSyntaxError(`key ${JSON.stringify(key)} appears twice in one object at offset ${keyOffset}`, keyOffset, "duplicate_key", key);
      }
      this.skipWhitespace();
      if (this.text.charCodeAt(this.pos) !== 0x3a) this.fail("expected ':'");
      this.pos++;
      this.skipWhitespace();
      out.set(key, this.parseValue(depth));
      this.skipWhitespace();
      const c = this.text.charCodeAt(this.pos);
      if (c === 0x2c) {
        this.pos++;
        this.skipWhitespace();
        continue;
      }
      if (c === 0x7d) {
        this.pos++;
        return out;
      }
      this.fail("expected ',' or '}'");
    }
  }

  private parseArray(depth: number): JsonValue[] {
    this.enter(depth);
    this.pos++;
    const out: JsonValue[] = [];
    this.skipWhitespace();
    if (this.text.charCodeAt(this.pos) === 0x5d) {
      this.pos++;
      return out;
    }
    for (;;) {
      out.push(this.parseValue(depth));
      this.skipWhitespace();
      const c = this.text.charCodeAt(this.pos);
      if (c === 0x2c) {
        this.pos++;
        this.skipWhitespace();
        continue;
      }
      if (c === 0x5d) {
        this.pos++;
        return out;
      }
      this.fail("expected ',' or ']'");
    }
  }

  private parseString(): string {
    const text = this.text;
    const start = ++this.pos;
    let pos = start;
    // Fast path: no escapes.
    for (;;) {
      const c = text.charCodeAt(pos);
      if (c === 0x22) {
        this.pos = pos + 1;
        return text.slice(start, pos);
      }
      if (c === 0x5c) break;
      if (c < 0x20 || Number.isNaN(c)) {
        this.pos = pos;
        this.fail(Number.isNaN(c) ? "unterminated string" : "invalid control character in string");
      }
      pos++;
    }
    let out = text.slice(start, pos);
    for (;;) {
      const c = text.charCodeAt(pos);
      if (c === 0x22) {
        this.pos = pos + 1;
        return out;
      }
      if (Number.isNaN(c)) {
        this.pos = pos;
        this.fail("unterminated string");
      }
      if (c < 0x20) {
        this.pos = pos;
        this.fail("invalid control character in string");
      }
      if (c !== 0x5c) {
        out += text[pos];
        pos++;
        continue;
      }
      const e = text.charCodeAt(pos + 1);
      pos += 2;
      switch (e) {
        case 0x22: out += '"'; break;
        case 0x5c: out += "\\"; break;
        case 0x2f: out += "/"; break;
        case 0x62: out += "\b"; break;
        case 0x66: out += "\f"; break;
        case 0x6e: out += "\n"; break;
        case 0x72: out += "\r"; break;
        case 0x74: out += "\t"; break;
        case 0x75: {
          const hex = text.slice(pos, pos + 4);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) {
            this.pos = pos;
            this.fail("invalid \\u escape");
          }
          out += String.fromCharCode(parseInt(hex, 16));
          pos += 4;
          break;
        }
        default:
          this.pos = pos - 2;
          this.fail("invalid escape");
      }
    }
  }
}

/**
 * Parses one JSON document losslessly.
 *
 * @example
 * parseJson('{"b":1,"a":[5.0]}') // Map { "b" => 1, "a" => [JsonNumber("5.0", float)] }
 */
export function parseJson(text: string, depthMax: number = jsonDepthMax, options: ParseJsonOptions = {}): JsonValue {
  return new Parser(text, depthMax, options).parseDocument();
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Parses UTF-8 bytes; invalid UTF-8 is a syntax error naming its byte offset, as it is for
 * Python's strict decoder (never replaced by U+FFFD).
 */
export function parseJsonBytes(bytes: Uint8Array, depthMax: number = jsonDepthMax, options: ParseJsonOptions = {}): JsonValue {
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    const offset = invalidUtf8Offset(bytes);
    throw new JsonSyntaxError(`invalid UTF-8 at byte ${offset}`, offset);
  }
  return parseJson(text, depthMax, options);
}

/** Byte offset of the first sequence that is not well-formed UTF-8 (RFC 3629), or -1. */
export function invalidUtf8Offset(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i];
    if (b < 0x80) {
      i++;
      continue;
    }
    // The allowed range of the second byte rules out overlong forms, surrogates and > U+10FFFF.
    let length: number;
    let low = 0x80;
    let high = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) length = 2;
    else if (b >= 0xe0 && b <= 0xef) {
      length = 3;
      if (b === 0xe0) low = 0xa0;
      if (b === 0xed) high = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      length = 4;
      if (b === 0xf0) low = 0x90;
      if (b === 0xf4) high = 0x8f;
    } else return i;
    if (i + length > bytes.length || bytes[i + 1] < low || bytes[i + 1] > high) return i;
    for (let k = 2; k < length; k++) if (bytes[i + k] < 0x80 || bytes[i + k] > 0xbf) return i;
    i += length;
  }
  return -1;
}

// ---------------------------------------------------------------------------
// The canonical writer.

export interface JsonWriteOptions {
  /** Sort object keys by code point (canonical). */
  sortKeys: boolean;
  /** Escape every non-ASCII character as `\uXXXX` (canonical). */
  asciiOnly: boolean;
}

const canonicalOptions: JsonWriteOptions = { sortKeys: true, asciiOnly: true };

export class CanonicalDepthError extends RangeError {
  readonly code = "depth_limit";
}

/**
 * Compares two strings by Unicode code point, as Python compares `str`.
 * UTF-16 order differs only where a surrogate meets a unit in U+E000..U+FFFF.
 */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(i);
    if (ca === cb) continue;
    const aSurrogate = ca >= 0xd800 && ca <= 0xdfff;
    const bSurrogate = cb >= 0xd800 && cb <= 0xdfff;
    if (!aSurrogate && !bSurrogate) return ca - cb;
    // The shared unit before i may be a high surrogate. If either side has a low surrogate at i,
    // that side's code point starts at i - 1 (a pair); compare there. Otherwise the high surrogate
    // is lone on both sides and the first differing code point starts at i.
    const prev = i > 0 ? a.charCodeAt(i - 1) : 0;
    const pairsWithPrev = prev >= 0xd800 && prev <= 0xdbff && ((ca >= 0xdc00 && ca <= 0xdfff) || (cb >= 0xdc00 && cb <= 0xdfff));
    const start = pairsWithPrev ? i - 1 : i;
    return (a.codePointAt(start) as number) - (b.codePointAt(start) as number);
  }
  return a.length - b.length;
}

const shortEscapes: Record<number, string> = {
  0x22: '\\"',
  0x5c: "\\\\",
  0x0a: "\\n",
  0x0d: "\\r",
  0x09: "\\t",
  0x08: "\\b",
  0x0c: "\\f",
};

function hex4(code: number): string {
  return "\\u" + code.toString(16).padStart(4, "0");
}

// Characters that need no escaping in either mode.
const plainAscii = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** Writes a JSON string literal the way Python's encoder does (`ensure_ascii` per `asciiOnly`). */
export function writeJsonString(value: string, asciiOnly: boolean): string {
  if (plainAscii.test(value)) return `"${value}"`;
  let out = '"';
  let runStart = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    let escaped: string | undefined;
    if (c < 0x20 || c === 0x22 || c === 0x5c) {
      escaped = shortEscapes[c] ?? hex4(c);
    } else if (c >= 0x7f) {
      // Python's ensure_ascii escapes everything outside 0x20..0x7e, DEL included.
      if (asciiOnly) {
        escaped = hex4(c);
      } else if (c >= 0xd800 && c <= 0xdfff) {
        // Raw UTF-8 cannot carry a lone surrogate: keep it as an escape so it reads back equal.
        const next = value.charCodeAt(i + 1);
        if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
          i++;
          continue;
        }
        escaped = hex4(c);
      }
    }
    if (escaped !== undefined) {
      out += value.slice(runStart, i) + escaped;
      runStart = i + 1;
    }
  }
  return out + value.slice(runStart) + '"';
}

/** Writes a number: ints exactly (`-0` → `0`), floats as Python repr. */
export function writeJsonNumber(value: JsonNumber): string {
  if (value.isFloat) return pythonFloatRepr(value.lexeme);
  return value.lexeme === "-0" ? "0" : value.lexeme;
}

function write(value: JsonValue, options: JsonWriteOptions, depth: number, parts: string[]): void {
  if (value === null) {
    parts.push("null");
  } else if (value === true) {
    parts.push("true");
  } else if (value === false) {
    parts.push("false");
  } else if (typeof value === "string") {
    parts.push(writeJsonString(value, options.asciiOnly));
  } else if (value instanceof JsonNumber) {
    parts.push(writeJsonNumber(value));
  } else {
    if (depth >= jsonDepthMax) throw new CanonicalDepthError(`JSON nests deeper than ${jsonDepthMax} levels`);
    if (Array.isArray(value)) {
      parts.push("[");
      for (let i = 0; i < value.length; i++) {
        if (i > 0) parts.push(",");
        write(value[i], options, depth + 1, parts);
      }
      parts.push("]");
    } else {
      parts.push("{");
      const keys = [...value.keys()];
      if (options.sortKeys) keys.sort(compareCodePoints);
      for (let i = 0; i < keys.length; i++) {
        if (i > 0) parts.push(",");
        parts.push(writeJsonString(keys[i], options.asciiOnly), ":");
        write(value.get(keys[i]) as JsonValue, options, depth + 1, parts);
      }
      parts.push("}");
    }
  }
}

/** Serialises with explicit options; see `canonicalJson` for the hashed form. */
export function writeJson(value: JsonValue, options: JsonWriteOptions): string {
  const parts: string[] = [];
  write(value, options, 0, parts);
  return parts.join("");
}

/**
 * Canonical JSON text (pure ASCII, so its UTF-8 bytes equal its characters).
 *
 * @example
 * canonicalJson(parseJson('{"b":1,"a":[1,2.50]}')) // '{"a":[1,2.5],"b":1}'
 */
export function canonicalJson(value: JsonValue): string {
  return writeJson(value, canonicalOptions);
}

// ---------------------------------------------------------------------------
/*
 * Python `repr(float)` from a JSON float lexeme: shortest round-trip digits, fixed notation with
 * at least one fractional digit when 1e-4 <= |x| < 1e16, otherwise `d[.ddd]e±XX`.
 * JS and Python both pick the shortest digit string that round-trips, closest to the exact value.
 */
/**
 * @example
 * pythonFloatRepr("1e-7") // "1e-07"
 * pythonFloatRepr("5.00") // "5.0"
 */
export function pythonFloatRepr(lexeme: string): string {
  if (lexeme === "NaN" || lexeme === "Infinity" || lexeme === "-Infinity") return lexeme;
  return formatPythonFloat(Number(lexeme));
}

export function formatPythonFloat(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (x === Infinity) return "Infinity";
  if (x === -Infinity) return "-Infinity";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const sign = x < 0 ? "-" : "";
  // toExponential() with no argument yields the shortest round-trip digits.
  const exp = Math.abs(x).toExponential();
  const ePos = exp.indexOf("e");
  const digits = exp.slice(0, ePos).replace(".", "");
  const decimalPoint = Number(exp.slice(ePos + 1)) + 1; // x = 0.DIGITS * 10^decimalPoint
  if (decimalPoint <= -4 || decimalPoint > 16) {
    const exponent = decimalPoint - 1;
    const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const expDigits = String(Math.abs(exponent)).padStart(2, "0");
    return `${sign}${mantissa}e${exponent < 0 ? "-" : "+"}${expDigits}`;
  }
  if (decimalPoint <= 0) return `${sign}0.${"0".repeat(-decimalPoint)}${digits}`;
  if (decimalPoint >= digits.length) return `${sign}${digits}${"0".repeat(decimalPoint - digits.length)}.0`;
  return `${sign}${digits.slice(0, decimalPoint)}.${digits.slice(decimalPoint)}`;
}
