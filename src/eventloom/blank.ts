/**
 * Blank lines, as Python's `line.strip()` sees them: ASCII whitespace, the separators
 * U+001C..U+001F, and Unicode whitespace (NEL, NBSP, U+1680, U+2000..U+200A, U+2028, U+2029,
 * U+202F, U+205F, U+3000). Python's readers skip such lines without counting them as events,
 * so every reader here must agree (the verification kernel has the same rule).
 */

function unicodeSpaceLength(bytes: Uint8Array, i: number, end: number): number {
  const b0 = bytes[i];
  if (b0 === 0xc2 && i + 1 < end) return bytes[i + 1] === 0x85 || bytes[i + 1] === 0xa0 ? 2 : 0;
  if (i + 2 >= end) return 0;
  const b1 = bytes[i + 1];
  const b2 = bytes[i + 2];
  if (b0 === 0xe1) return b1 === 0x9a && b2 === 0x80 ? 3 : 0;
  if (b0 === 0xe2 && b1 === 0x80) return b2 <= 0x8a || b2 === 0xa8 || b2 === 0xa9 || b2 === 0xaf ? 3 : 0;
  if (b0 === 0xe2 && b1 === 0x81) return b2 === 0x9f ? 3 : 0;
  if (b0 === 0xe3) return b1 === 0x80 && b2 === 0x80 ? 3 : 0;
  return 0;
}

export function isAsciiBlankByte(b: number): boolean {
  return b === 0x20 || (b >= 0x09 && b <= 0x0d) || (b >= 0x1c && b <= 0x1f);
}

/** Whether bytes[start, end) is empty after Python's `str.strip()`. */
export function isBlankLine(bytes: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; ) {
    const b = bytes[i];
    if (isAsciiBlankByte(b)) {
      i++;
      continue;
    }
    if (b < 0x80) return false;
    const n = unicodeSpaceLength(bytes, i, end);
    if (n === 0) return false;
    i += n;
  }
  return true;
}
