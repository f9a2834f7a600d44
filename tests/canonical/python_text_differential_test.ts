/**
 * src/canonical/pythonText.ts against python3 itself: generated JSON values (every code point up
 * to U+33FF and a spread of astral ones, lone surrogates, quotes and backslashes, -0 and -0.0,
 * NaN, Infinity and overflowing floats, big ints, shortest-repr floats, nested arrays and objects)
 * go through `json.loads`, and Python's `repr`, `str` and `json.dumps(sort_keys=True)` of each
 * must equal `pythonRepr`, `pythonStr` and `pythonJsonDumpsSorted` of `parseJson` of the same
 * text, byte for byte.
 *
 * One allowance: a code point the JavaScript engine's Unicode tables assign but python3's older
 * ones do not (python3 escapes it in `repr` as unprintable) is left out of the generated text;
 * the test names how many, and fails if any other code point differs.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseJson, pythonFixed3, pythonJsonDumpsSorted, pythonRepr, pythonStr } from "../../src/canonical/mod.ts";
import { python, skipWithoutPython } from "../eventloom/testkit.ts";

/** A small deterministic generator (mulberry32), so a failure reproduces. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** JSON text of a string holding exactly these UTF-16 units (lone surrogates as `\uXXXX` escapes). */
function jsonString(units: number[]): string {
  return `"${units.map((unit) => `\\u${unit.toString(16).padStart(4, "0")}`).join("")}"`;
}

function unitsOf(codePoint: number): number[] {
  if (codePoint < 0x10000) return [codePoint];
  const offset = codePoint - 0x10000;
  return [0xd800 + (offset >> 10), 0xdc00 + (offset & 0x3ff)];
}

/** Code points unassigned for python3 (category Cn) that the JavaScript engine's tables assign. */
function unicodeVersionDrift(codePoints: number[]): Set<number> {
  const pythonUnassigned = JSON.parse(python(
    "import json, sys, unicodedata\n" +
      "print(json.dumps([c for c in json.load(sys.stdin) if unicodedata.category(chr(c)) == 'Cn']))\n",
    JSON.stringify(codePoints),
  )) as number[];
  return new Set(pythonUnassigned.filter((codePoint) => !/\p{Cn}/u.test(String.fromCodePoint(codePoint))));
}

const astral = [0x10000, 0x1d11e, 0x1f600, 0x1f9ff, 0x20000, 0x2fa1d, 0xe0001, 0xe007f, 0xe0100, 0xf0000, 0xffffd, 0x10fffd, 0x10ffff];
const surrogates = [0xd800, 0xdbff, 0xdc00, 0xdfff, 0xd83d];

const numberLexemes = [
  "0", "-0", "0.0", "-0.0", "1", "-1", "1.0", "100.0", "1E5", "1e16", "1e15", "1e-4", "1e-5", "1e-7", "0.1", "2.5", "-2.5e-3",
  "123456789012345678901234567890", "-98765432109876543210", "9007199254740993", "5e-324", "1.7976931348623157e308",
  "1e400", "-1e400", "1e-400", "-1e-400", "NaN", "Infinity", "-Infinity", "0.30000000000000004", "1.5e300",
];

function generatedValues(drift: Set<number>, codePoints: number[]): string[] {
  const random = generator(20261128);
  const texts: string[] = [];
  const kept = codePoints.filter((codePoint) => !drift.has(codePoint));
  // Every code point, 48 to a string, each string once as a value and once as a key.
  for (let start = 0; start < kept.length; start += 48) {
    const text = jsonString(kept.slice(start, start + 48).flatMap(unitsOf));
    texts.push(text, `{${text}: ${text}}`);
  }
  for (const surrogate of surrogates) texts.push(jsonString([0x61, surrogate, 0x62]), jsonString([surrogate]));
  texts.push(jsonString([0xdc00, 0xd800]));
  for (const quoted of [`it's`, `say "hi"`, `both ' and "`, `back\\slash`, `'`, `"`, ``, ` `, `tab\there`]) texts.push(JSON.stringify(quoted));
  texts.push(...numberLexemes, "true", "false", "null", "[]", "{}");
  for (let i = 0; i < 200; i++) {
    const x = (random() - 0.5) * 10 ** Math.floor(random() * 40 - 20);
    texts.push(String(x).includes(".") || String(x).includes("e") ? String(x) : `${x}.0`);
    texts.push(String(Math.floor((random() - 0.5) * 2 ** 53)));
  }
  const leaf = (): string => {
    const pick = random();
    if (pick < 0.3) return numberLexemes[Math.floor(random() * numberLexemes.length)];
    if (pick < 0.4) return ["true", "false", "null"][Math.floor(random() * 3)];
    const length = Math.floor(random() * 6);
    return jsonString(Array.from({ length }, () => kept[Math.floor(random() * kept.length)]).flatMap(unitsOf));
  };
  const key = (): string => {
    const text = leaf();
    return text.startsWith('"') ? text : JSON.stringify(text);
  };
  const tree = (depth: number): string => {
    if (depth === 0 || random() < 0.3) return leaf();
    const size = Math.floor(random() * 4);
    if (random() < 0.5) return `[${Array.from({ length: size }, () => tree(depth - 1)).join(", ")}]`;
    return `{${Array.from({ length: size }, () => `${key()}: ${tree(depth - 1)}`).join(", ")}}`;
  };
  for (let i = 0; i < 300; i++) texts.push(tree(4));
  return texts;
}

describe("Python text helpers match python3", () => {
  test("repr, str and json.dumps(sort_keys=True) of json.loads values, byte for byte", { skip: skipWithoutPython, timeout: 120_000 }, () => {
    const codePoints = [...Array.from({ length: 0x3400 }, (_, i) => i).filter((c) => c < 0xd800 || c > 0xdfff), ...astral];
    const drift = unicodeVersionDrift(codePoints);
    const texts = generatedValues(drift, codePoints);
    // Python answers in ASCII JSON, so lone surrogates and every byte survive the pipe.
    const answers = JSON.parse(python(
      "import json, sys\n" +
        "out = []\n" +
        "for text in json.load(sys.stdin):\n" +
        "    value = json.loads(text)\n" +
        "    out.append([repr(value), str(value), json.dumps(value, sort_keys=True)])\n" +
        "print(json.dumps(out))\n",
      JSON.stringify(texts),
    )) as [string, string, string][];
    assert.equal(answers.length, texts.length);
    const mismatches: string[] = [];
    texts.forEach((text, i) => {
      const value = parseJson(text);
      const ours = [pythonRepr(value), pythonStr(value), pythonJsonDumpsSorted(value)];
      ["repr", "str", "json.dumps"].forEach((name, k) => {
        if (ours[k] !== answers[i][k]) mismatches.push(`${name}(${text.slice(0, 80)}): ${JSON.stringify(ours[k]).slice(0, 120)} != ${JSON.stringify(answers[i][k]).slice(0, 120)}`);
      });
    });
    assert.deepEqual(mismatches.slice(0, 20), [], `${mismatches.length} of ${texts.length * 3} differ`);
    // The allowance stays an allowance: a handful of newly assigned code points, not a category.
    assert.ok(drift.size < 200, `${drift.size} code points set aside as newer Unicode than python3's`);
  });

  test('f"{x:.3f}" of confidences: ties to even, -0.0, and the ends of 0..1', { skip: skipWithoutPython }, () => {
    const random = generator(3);
    const values = [0, -0, 1, 0.0625, 0.0005, 0.0015, 0.0025, 0.9995, 0.1235, 0.5, 1 / 3, 2 / 3, 5e-324, 0.1, 0.7, 0.9];
    for (let i = 0; i < 500; i++) values.push(random(), Math.round(random() * 2000) / 2000);
    const expected = JSON.parse(python("import json, sys\nprint(json.dumps([f'{x:.3f}' for x in json.load(sys.stdin)]))\n", `[${values.map((x) => (Object.is(x, -0) ? "-0.0" : String(x))).join(",")}]`)) as string[];
    const mismatches = values.map((x, i) => [String(x), pythonFixed3(x), expected[i]]).filter(([, ours, theirs]) => ours !== theirs);
    assert.deepEqual(mismatches, []);
  });
});
