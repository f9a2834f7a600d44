/**
 * Python's view of text, in one place, for the output and ids that must agree byte for byte with
 * the Python implementation (`zaxy-memory`): `str.split()`, `str.strip()`, `" ".join(s.split())`,
 * slicing by code points (`s[:n]`) rather than UTF-16 units, and `repr(str)`. Titles and
 * summaries feed consolidation candidate ids, the hash embedding tokenises with `str.split()`,
 * and the checkout prompt quotes suggested queries as Python's `f"{tool}({query!r})"` does.
 * Python's `repr`/`str` of whole JSON values and `casefold` live beside their callers
 * (compaction/eventContext.ts, vector/caseFold.ts with its generated table).
 */

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
