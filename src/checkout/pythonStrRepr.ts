/**
 * Python's `repr(str)`. The checkout prompt quotes suggested queries the way the Python
 * implementation does (`f"{tool}({query!r})"`), so agents reading either see the same line.
 */

// Python's str.isprintable() is false for these categories; the ASCII space is the one exception.
const nonPrintable = /^[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]$/u;

function hex(codePoint: number, width: number): string {
  return codePoint.toString(16).padStart(width, "0");
}

/**
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
