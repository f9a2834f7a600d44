/**
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
