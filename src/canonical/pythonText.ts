/**
 * Python's view of text, in one place, for the output and ids that must agree byte for byte with
 * the Python implementation (`zaxy-memory`): `str.split()`, `str.strip()`, `" ".join(s.split())`,
 * slicing by code points (`s[:n]`) rather than UTF-16 units, `f"{x:.3f}"`, `repr` and `str` of the values
 * `json.loads` returns, and `json.dumps(value, sort_keys=True)` with its default separators.
 * Titles and summaries feed consolidation candidate ids, the hash embedding tokenises with
 * `str.split()`, governance prints confidences as `f"{x:.3f}"`, the checkout prompt quotes suggested queries as Python's `f"{tool}({query!r})"`
 * does, compaction embeds events as Python's `event_context` prints them, and `zaxy verify` names
 * a wrong seq as ref_verify.py's f-string does. Float digits come from canonical JSON's
 * `pythonFloatRepr` (json.ts); `casefold` lives in vector/textAnalysis.ts with its
 * generated table.
 * tests/canonical/python_text_differential_test.ts compares all of it with python3.
 */
import { compareCodePoints, JsonNumber, type JsonValue, pythonFloatRepr, writeJsonNumber, writeJsonString } from "./json.ts";

// \t \n \v \f \r, U+001C..U+001F, space, NEL, NBSP, U+1680, U+2000..U+200A, U+2028, U+2029,
// U+202F, U+205F, U+3000. (Not U+200B, U+180E or U+FEFF: Python does not split on those.)
const pythonWhitespaceRun = /[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;

/**
 * Python's `str.split()` with no separator: split on runs of characters for which
 * `str.isspace()` is true, dropping empty strings.
 *
 * @example
 * pythonSplit("  a\u3000b  ") // ["a", "b"]
 */
export function pythonSplit(text: string): string[] {
  return text.split(pythonWhitespaceRun).filter((part) => part !== "");
}

// The characters for which Python's `str.isspace()` is true (the same set `pythonSplit` uses).
const pythonSpaceClass = "\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const blankPattern = new RegExp(`^[${pythonSpaceClass}]*$`);
const leadingSpace = new RegExp(`^[${pythonSpaceClass}]+`);
const trailingSpace = new RegExp(`[${pythonSpaceClass}]+$`);

/** Whether `value` is empty after Python's `str.strip()`. */
export function isPythonBlank(value: string): boolean {
  return blankPattern.test(value);
}

/** Python's `str.strip()`. */
export function pythonStrip(value: string): string {
  return value.replace(leadingSpace, "").replace(trailingSpace, "");
}

/** Python's `str.rstrip()`. */
export function pythonRstrip(value: string): string {
  return value.replace(trailingSpace, "");
}

/**
 * Python's `" ".join(value.split())`: whitespace runs become one space, ends trimmed.
 *
 * @example
 * collapseWhitespace("  npm \n test ") // "npm test"
 */
export function collapseWhitespace(value: string): string {
  return pythonSplit(value).join(" ");
}

/** Number of code points (Python's `len`). */
export function codePointLength(value: string): number {
  let count = 0;
  for (const _ of value) count++;
  return count;
}

/**
 * Python's `value[:count]`: the first `count` code points (an astral character is one).
 *
 * @example
 * codePointPrefix("a😀b", 2) // "a😀"
 */
export function codePointPrefix(value: string, count: number): string {
  if (value.length <= count) return value;
  let out = "";
  let taken = 0;
  for (const char of value) {
    if (taken === count) break;
    out += char;
    taken++;
  }
  return out;
}

// Python's str.isprintable() is false for these categories; the ASCII space is the one exception.
const nonPrintable = /^[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]$/u;

function hex(codePoint: number, width: number): string {
  return codePoint.toString(16).padStart(width, "0");
}

/**
 * Python's `repr(str)`: single quotes unless the text holds ' and no ", escapes for what
 * `str.isprintable()` rejects.
 *
 * @example
 * pythonStrRepr("it's") // `"it's"`
 * pythonStrRepr("a\nb") // `'a\\nb'`
 */
export function pythonStrRepr(value: string): string {
  const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
  let out = quote;
  for (const char of value) {
    const codePoint = char.codePointAt(0) as number;
    if (char === quote || char === "\\") out += "\\" + char;
    else if (char === "\n") out += "\\n";
    else if (char === "\r") out += "\\r";
    else if (char === "\t") out += "\\t";
    else if (char !== " " && nonPrintable.test(char)) {
      if (codePoint <= 0xff) out += "\\x" + hex(codePoint, 2);
      else if (codePoint <= 0xffff) out += "\\u" + hex(codePoint, 4);
      else out += "\\U" + hex(codePoint, 8);
    } else out += char;
  }
  return out + quote;
}

// Printable ASCII without quotes or backslashes: Python's repr just adds single quotes.
const plainReprText = /^[\x20\x21\x23-\x26\x28-\x5b\x5d-\x7e]*$/;

function stringRepr(value: string): string {
  return plainReprText.test(value) ? `'${value}'` : pythonStrRepr(value);
}

/**
 * Python's `repr` (and `str`) of the number `json.loads` makes of a JSON number: an int as
 * written (`-0` is 0), a float as `repr(float)`, `nan`, `inf` and `-inf` included (a lexeme too
 * large for a double, such as `1e400`, is `inf`).
 *
 * @example
 * pythonNumberRepr(new JsonNumber("1e-7", true)) // "1e-07"
 * pythonNumberRepr(new JsonNumber("-1e400", true)) // "-inf"
 */
export function pythonNumberRepr(value: JsonNumber): string {
  if (!value.isFloat) return writeJsonNumber(value);
  const x = Number(value.lexeme);
  if (Number.isNaN(x)) return "nan";
  if (x === Infinity) return "inf";
  if (x === -Infinity) return "-inf";
  return pythonFloatRepr(value.lexeme);
}

/**
 * Python's `repr` of a value `json.loads` returned: `None`, `True`, `'text'`, `1e-07`,
 * `[1, 'a']`, `{'k': None}` (dict items in the JSON's order).
 *
 * @example
 * pythonRepr(parseJson('{"a":[true,null,"é\\u0085"]}')) // "{'a': [True, None, 'é\\x85']}"
 */
export function pythonRepr(value: JsonValue): string {
  if (value === null) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "string") return stringRepr(value);
  if (value instanceof JsonNumber) return pythonNumberRepr(value);
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(", ")}]`;
  const items: string[] = [];
  for (const [key, item] of value) items.push(`${stringRepr(key)}: ${pythonRepr(item)}`);
  return `{${items.join(", ")}}`;
}

/** Python's `str` of a value `json.loads` returned (what an f-string prints): a string as it is, anything else as `repr`. */
export function pythonStr(value: JsonValue): string {
  return typeof value === "string" ? value : pythonRepr(value);
}

/**
 * Python's `json.dumps(value, sort_keys=True)` with the default separators (`", "`, `": "`) and
 * `ensure_ascii`.
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

/**
 * Python's `f"{x:.3f}"`: exact decimal value of the double, rounded half-to-even. JS `toFixed`
 * rounds exact ties up (0.0625 → "0.063" where Python writes "0.062"), so round by hand.
 */
export function pythonFixed3(value: number): string {
  const negative = value < 0 || Object.is(value, -0);
  // toFixed(100) is the exact expansion of every double in 0..1 (confidences and thresholds) to
  // the digits that can decide the rounding.
  const exact = Math.abs(value).toFixed(100);
  const [whole, fraction] = exact.split(".");
  const kept = BigInt(whole + fraction.slice(0, 3));
  const rest = fraction.slice(3);
  const firstDropped = rest.charCodeAt(0) - 48;
  const beyondHalf = /[1-9]/.test(rest.slice(1));
  let rounded = kept;
  if (firstDropped > 5 || (firstDropped === 5 && (beyondHalf || kept % 2n === 1n))) rounded += 1n;
  const digits = rounded.toString().padStart(4, "0");
  return `${negative ? "-" : ""}${digits.slice(0, -3)}.${digits.slice(-3)}`;
}
