/**
 * Numbers JSON cannot carry. Python's `json` writes `float("nan")` and `float("inf")` as bare
 * `NaN`, `Infinity` and `-Infinity` and reads them back, so a log written by Python may hold them
 * and is verified as it is (the parser accepts them and the writer re-emits them for hashing).
 * But RFC 8259, jq and JavaScript's `JSON.parse` reject them, so zaxy never appends one. A float
 * lexeme beyond the range of a double (`1e999999`) is infinity to every reader and is written
 * back as `Infinity`, so it counts too. Integers are exact at any length and never count.
 */
import { JsonNumber, type JsonValue } from "./json.ts";

export interface NonFiniteNumber {
  /** Where it is: `payload.a.items[2]`. */
  path: string;
  /** The number as written, with what it means when that is not obvious. */
  lexeme: string;
}

/** Whether `number` is NaN or ±infinity as a double. */
export function isNonFiniteNumber(number: JsonNumber): boolean {
  return number.isFloat && !Number.isFinite(number.toNumber());
}

/**
 * The first `max` non-finite numbers in `value`, in document order, with their paths from
 * `rootPath`. Iterative: no recursion limit on deep input.
 *
 * @example
 * nonFiniteNumbers(parseJson('{"a":{"b":NaN},"c":[1e999]}'), "payload", 5)
 * // [{ path: "payload.a.b", lexeme: "NaN" }, { path: "payload.c[0]", lexeme: "1e999 (overflows to Infinity)" }]
 */
export function nonFiniteNumbers(value: JsonValue, rootPath: string, max: number): NonFiniteNumber[] {
  const found: NonFiniteNumber[] = [];
  const stack: Array<[JsonValue, string]> = [[value, rootPath]];
  while (stack.length > 0 && found.length < max) {
    const [current, path] = stack.pop() as [JsonValue, string];
    if (current instanceof JsonNumber) {
      if (isNonFiniteNumber(current)) found.push({ path, lexeme: describeLexeme(current) });
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push([current[i], `${path}[${i}]`]);
    } else if (current instanceof Map) {
      const entries = [...current];
      for (let i = entries.length - 1; i >= 0; i--) stack.push([entries[i][1], `${path}.${entries[i][0]}`]);
    }
  }
  return found;
}

function describeLexeme(number: JsonNumber): string {
  const lexeme = number.lexeme;
  if (lexeme === "NaN" || lexeme === "Infinity" || lexeme === "-Infinity") return lexeme;
  return `${lexeme} (overflows to ${number.toNumber() > 0 ? "Infinity" : "-Infinity"})`;
}
