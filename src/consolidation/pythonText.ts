/**
 * Python's view of text, for the rules consolidation shares with `zaxy-memory`: what
 * `str.strip()` removes, `" ".join(s.split())`, and slicing by code points (`s[:n]`), not by
 * UTF-16 units. Titles and summaries feed candidate ids, so these must agree with Python exactly.
 */
import { pythonSplit } from "../vector/pythonSplit.ts";

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
