/**
 * Python's `round(x, ndigits)` for floats, exactly: the double's exact binary value is rounded
 * to `ndigits` decimal places, an exact half going to the even digit, and that decimal is read
 * back as the nearest double (CPython rounds with `_Py_dg_dtoa` mode 3, then `_Py_dg_strtod`).
 *
 * Scaling by 10^n in floating point is not enough: `1/160` is just above 0.00625 as a double,
 * so Python gives 0.0063, while `1/160 * 10000` rounds to exactly 62.5 and a half-even rule on
 * it gives 0.0062.
 *
 * @example
 * pythonRound(1 / 160, 4);   // 0.0063 (the double is above the half)
 * pythonRound(0.03125, 4);   // 0.0312 (an exact half: to the even digit)
 * pythonRound(0.0078125, 6); // 0.007812
 */

const scratch = new DataView(new ArrayBuffer(8));

/** Above this, every double is already a whole number of 10^-places (it has ≤ 1074 fraction digits). */
const maxUsefulPlaces = 1100;
/** Below this, every finite double rounds to zero (|x| < 1.8e308 < 0.5 * 10^309). */
const minUsefulPlaces = -330;

/**
 * @param places an integer (negative rounds to tens, hundreds, …, as in Python)
 * @throws RangeError when `places` is not an integer, or the result overflows (Python's OverflowError)
 */
export function pythonRound(value: number, places: number): number {
  if (!Number.isInteger(places)) throw new RangeError(`pythonRound: places must be an integer, got ${places}`);
  if (!Number.isFinite(value) || value === 0) return value;
  if (places > maxUsefulPlaces) return value;
  const negative = value < 0;
  const magnitude = Math.abs(value);
  if (places < minUsefulPlaces) return negative ? -0 : 0;
  const rounded = places >= 0 && places <= 22 ? fastRound(magnitude, places) : undefined;
  const result = rounded ?? exactRound(magnitude, places);
  return negative ? -result : result;
}

/** Python's `round(value, 4)` (see `pythonRound`): `round(0.96875, 4) == 0.9688`, `round(0.03125, 4) == 0.0312`. */
export function pythonRound4(value: number): number {
  return pythonRound(value, 4);
}

/**
 * Scaling in floating point, used only when the scaled value's fraction is far enough from one
 * half that the scaling error (≤ s·2^-53) cannot change the rounding direction; else undefined.
 * `10^places` (places ≤ 22) and the digits (< 2^49) are exact, so `digits / scale` is the double
 * nearest to the decimal, as reading `"<digits>e-<places>"` gives.
 */
function fastRound(magnitude: number, places: number): number | undefined {
  const scale = 10 ** places;
  const scaled = magnitude * scale;
  if (!(scaled < 2 ** 49)) return undefined;
  const floor = Math.floor(scaled);
  const fraction = scaled - floor;
  if (Math.abs(fraction - 0.5) <= scaled * 2 ** -50 + 2 ** -60) return undefined;
  return (fraction > 0.5 ? floor + 1 : floor) / scale;
}

/** Rounds `magnitude * 10^places` half-even in exact integer arithmetic, then reads the decimal back. */
function exactRound(magnitude: number, places: number): number {
  scratch.setFloat64(0, magnitude);
  const bits = scratch.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & 0xfffffffffffffn;
  // magnitude = mantissa * 2^exponent exactly.
  const mantissa = biased === 0 ? fraction : fraction | (1n << 52n);
  const exponent = (biased === 0 ? 1 : biased) - 1075;
  let numerator = places >= 0 ? mantissa * 10n ** BigInt(places) : mantissa;
  let denominator = places >= 0 ? 1n : 10n ** BigInt(-places);
  if (exponent >= 0) numerator <<= BigInt(exponent);
  else denominator <<= BigInt(-exponent);
  let digits = numerator / denominator;
  const twiceRemainder = (numerator % denominator) * 2n;
  if (twiceRemainder > denominator || (twiceRemainder === denominator && (digits & 1n) === 1n)) digits += 1n;
  // JavaScript's number parsing is correctly rounded, as _Py_dg_strtod is.
  const result = Number(`${digits}e${-places}`);
  if (!Number.isFinite(result)) throw new RangeError("pythonRound: rounded value too large to represent");
  return result;
}
