/**
 * `pythonRound` against python3's `round(x, n)`: every fraction k/d (0 ≤ k ≤ d ≤ 400, the
 * scores of the audit, search and guardrail lanes) at 4 and 6 places, exact binary halves, and
 * seeded random doubles of every magnitude at several places (negative ones included). Results
 * are compared with Object.is, so a signed zero must match too.
 *
 * The seed is fixed and printed in the test name; `ZAXY_PROPERTY_SEED=<n>` overrides it.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { pythonRound } from "../../src/canonical/mod.ts";
import { python, skipWithoutPython } from "../eventloom/testkit.ts";
import { propertySeed, Rng } from "../testkit/rng.ts";

const seed = propertySeed(0x2026_0604);

/** python3's `round(x, n)` for each [x, n]; numbers travel as shortest round-trip reprs. */
function pythonRounds(cases: Array<[number, number]>): number[] {
  const program = "import json, sys\nprint(json.dumps([round(x, n) for x, n in json.load(sys.stdin)]))\n";
  return JSON.parse(python(program, JSON.stringify(cases))) as number[];
}

function assertSameAsPython(cases: Array<[number, number]>): void {
  const expected = pythonRounds(cases);
  assert.equal(expected.length, cases.length);
  const mismatches: string[] = [];
  cases.forEach(([value, places], i) => {
    const actual = pythonRound(value, places);
    if (!Object.is(actual, expected[i])) mismatches.push(`round(${value}, ${places}): python ${expected[i]}, ours ${actual}`);
  });
  assert.deepEqual(mismatches.slice(0, 20), [], `${mismatches.length} of ${cases.length} differ`);
}

/** A random finite double: its bits are random (any exponent), or it is a short decimal, or a dyadic half. */
function randomDouble(rng: Rng): number {
  const kind = rng.int(4);
  if (kind === 0) {
    const view = new DataView(new ArrayBuffer(8));
    view.setUint32(0, rng.u32());
    view.setUint32(4, rng.u32());
    const value = view.getFloat64(0);
    return Number.isFinite(value) ? value : rng.u32();
  }
  const sign = rng.chance(0.3) ? -1 : 1;
  if (kind === 1) return sign * (rng.u32() / 10 ** rng.range(0, 12));
  // (2j + 1) / 2^m: exact halves at some number of places.
  if (kind === 2) return sign * ((2 * rng.range(0, 1_000_000) + 1) / 2 ** rng.range(1, 40));
  return sign * rng.u32() * rng.u32() * 2 ** rng.range(-120, 40);
}

describe("pythonRound matches Python's round()", () => {
  test("the reviewed cases", () => {
    assert.equal(pythonRound(1 / 160, 4), 0.0063); // the double is above the half
    assert.equal(pythonRound(0.03125, 4), 0.0312); // an exact half goes to the even digit
    assert.equal(pythonRound(0.96875, 4), 0.9688);
    assert.equal(pythonRound(0.0078125, 6), 0.007812);
    assert.equal(pythonRound(2.5, 0), 2);
    assert.equal(pythonRound(-2.5, 0), -2);
    assert.ok(Object.is(pythonRound(-0.00001, 4), -0));
    assert.ok(Object.is(pythonRound(0, 4), 0));
    assert.ok(Object.is(pythonRound(-0, 4), -0));
    assert.equal(pythonRound(1234.5, -1), 1230);
    assert.equal(pythonRound(Infinity, 4), Infinity);
    assert.ok(Number.isNaN(pythonRound(NaN, 4)));
    assert.equal(pythonRound(5e-324, 400), 5e-324);
    assert.throws(() => pythonRound(1, 1.5), RangeError);
    assert.throws(() => pythonRound(1.7976931348623157e308, -308), RangeError); // Python: OverflowError
  });

  test("k/d for every 0 <= k <= d <= 400, at 4 and 6 places", { skip: skipWithoutPython }, () => {
    const cases: Array<[number, number]> = [];
    for (let d = 1; d <= 400; d++) {
      for (let k = 0; k <= d; k++) {
        cases.push([k / d, 4], [k / d, 6]);
      }
    }
    assertSameAsPython(cases);
  });

  test(`random doubles at places -3..17 and 4/6 (seed ${seed})`, { skip: skipWithoutPython }, () => {
    const rng = new Rng(seed);
    const cases: Array<[number, number]> = [];
    for (let i = 0; i < 40_000; i++) {
      const value = randomDouble(rng);
      const places = rng.chance(0.5) ? rng.pick([4, 6]) : rng.range(-3, 17);
      cases.push([value, places]);
    }
    // Exact halves at the 4th and 6th place, and their neighbouring doubles.
    for (let j = 0; j < 2000; j++) {
      for (const [places, half] of [[4, 0.00005], [6, 0.0000005]] as const) {
        const tie = (2 * j + 1) * half;
        cases.push([tie, places], [nextUp(tie), places], [nextDown(tie), places]);
      }
    }
    assertSameAsPython(cases);
  });
});

function nextUp(value: number): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, value);
  view.setBigUint64(0, view.getBigUint64(0) + 1n);
  return view.getFloat64(0);
}

function nextDown(value: number): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, value);
  view.setBigUint64(0, view.getBigUint64(0) - 1n);
  return view.getFloat64(0);
}
