/**
 * Python's `str.split()` with no separator: split on runs of characters for which
 * `str.isspace()` is true, dropping empty strings.
 */

// \t \n \v \f \r, U+001C..U+001F, space, NEL, NBSP, U+1680, U+2000..U+200A, U+2028, U+2029,
// U+202F, U+205F, U+3000. (Not U+200B, U+180E or U+FEFF: Python does not split on those.)
const pythonWhitespaceRun = /[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;

/**
 * @example
 * pythonSplit("  a\u3000b  ") // ["a", "b"]
 */
export function pythonSplit(text: string): string[] {
  return text.split(pythonWhitespaceRun).filter((part) => part !== "");
}
