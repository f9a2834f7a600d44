/**
 * Python's `str.casefold()` (full Unicode case folding: "ß" → "ss", "ﬁ" → "fi", "Σ" → "σ"),
 * from a table generated with Python (src/vector/caseFoldTable.ts). JS's toLowerCase() is not
 * the same fold, and the hash embedding must tokenise exactly as Python does.
 */
import { caseFoldEntries } from "./caseFoldTable.ts";

let foldMap: Map<number, string> | undefined;

function table(): Map<number, string> {
  if (foldMap === undefined) {
    foldMap = new Map();
    for (const [cp, ...folded] of caseFoldEntries) foldMap.set(cp, String.fromCodePoint(...folded));
  }
  return foldMap;
}

const asciiNoUpper = /^[^A-Z\u0080-\u{10FFFF}]*$/u;
const asciiOnly = /^[\x00-\x7f]*$/;

/**
 * @example
 * pythonCaseFold("Straße ﬁle") // "strasse file"
 */
export function pythonCaseFold(text: string): string {
  if (asciiNoUpper.test(text)) return text;
  // On ASCII, casefold maps A-Z and nothing else, as toLowerCase does (and natively).
  if (asciiOnly.test(text)) return text.toLowerCase();
  const map = table();
  let out = "";
  for (const ch of text) {
    const code = ch.codePointAt(0) as number;
    if (code < 0x80) out += code >= 0x41 && code <= 0x5a ? String.fromCharCode(code + 32) : ch;
    else out += map.get(code) ?? ch;
  }
  return out;
}
