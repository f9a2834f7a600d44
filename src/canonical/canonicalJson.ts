/**
 * Canonical JSON, byte-compatible with Python's
 * `json.dumps(obj, sort_keys=True, separators=(",", ":"))`. Every Eventloom hash and every
 * deterministic id depends on these bytes: if this output changes, we broke compatibility.
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
import { JsonNumber, type JsonValue } from "./jsonValue.ts";

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
