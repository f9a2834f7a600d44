// test-lane: full (slow)
/**
 * Differential property test: thousands of generated JSON documents, canonicalised by python3
 * (`json.dumps(json.loads(line), sort_keys=True, separators=(",", ":"))`, run once over one
 * JSONL file), by the TypeScript implementation and by the WebAssembly kernel, compared byte for
 * byte.
 *
 * Each generated value tree is written twice with independent choices: once with strings as raw
 * UTF-8, once with every non-ASCII character (and some ASCII) as `\uXXXX` escapes; number
 * lexemes (`1E5`, `1e+05`, `2.50`, `0.000123`, shifted exponents, extra digits) and whitespace
 * differ between the two. Both lines must canonicalise identically.
 *
 * Python's answers are then fed back: canonical output must canonicalise to itself, and so must a
 * near-canonical variant of it with one semantic-preserving change (a whitespace, another lexeme
 * for a number, another spelling of a character, two keys out of order) at a random place. This
 * exercises the kernel's path for input that already is canonical, and its fallback.
 *
 * The seed is fixed and printed in the test names; `ZAXY_PROPERTY_SEED=<n>` overrides it, so a
 * failure is reproducible with the seed it printed.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { canonicalJson, type JsonValue, parseJson, parseJsonBytes, writeJson } from "../../src/canonical/json.ts";
import { wasmCanonicalize } from "../../src/canonical/wasmKernel.ts";
import { propertySeed, Rng } from "../testkit/rng.ts";

const defaultSeed = 0x5eed_2026;
const documentCount = 3000; // value trees; each is written as two lines
const deepDepthMax = 50;

const seed = propertySeed(defaultSeed);
const seedLabel = `seed ${seed} (0x${seed.toString(16)})`;

// ---- seeded PRNG ---------------------------------------------------------------------------


// ---- value model ---------------------------------------------------------------------------

type Node =
  | { t: "literal"; text: "null" | "true" | "false" | "NaN" | "Infinity" | "-Infinity" }
  | { t: "int"; text: string }
  | { t: "float"; x: number }
  | { t: "floatText"; text: string } // overflowing / underflowing lexemes, written as is
  | { t: "string"; s: string }
  | { t: "array"; items: Node[] }
  | { t: "object"; entries: [string, Node][] };

/** What the corpus exercised; the coverage test keeps the generator from silently degrading. */
const coverage = {
  deepDocuments: 0,
  duplicateKeys: 0,
  astralVersusBmpSiblingKeys: 0,
  loneSurrogates: 0,
  astralChars: 0,
  bmpNonAsciiChars: 0,
  controlChars: 0,
  delChars: 0,
  quoteBackslashSlash: 0,
  subnormals: 0,
  bitPatternDoubles: 0,
  boundaryDoubles: 0,
  integralFloats: 0,
  negativeZeros: 0,
  bigInts: 0,
  exponentLexemes: 0,
  fixedLexemes: 0,
  trailingZeroLexemes: 0,
};

const view = new DataView(new ArrayBuffer(8));

function doubleFromBits(hi: number, lo: number): number {
  view.setUint32(0, hi >>> 0);
  view.setUint32(4, lo >>> 0);
  return view.getFloat64(0);
}

function bitsOf(x: number): [number, number] {
  view.setFloat64(0, x);
  return [view.getUint32(0), view.getUint32(4)];
}

/** The double `steps` ulps away from positive finite x (towards larger magnitude when steps > 0). */
function ulpStep(x: number, steps: number): number {
  const [hi, lo] = bitsOf(x);
  const bits = ((BigInt(hi) << 32n) | BigInt(lo)) + BigInt(steps);
  return doubleFromBits(Number(bits >> 32n), Number(bits & 0xffffffffn));
}

const boundaryBases = [
  1e-4, 1e-5, 1e16, 1e15, 9999999999999998, 2 ** 53, 2 ** 63, 2 ** 64, 1e22, 1e23, 0.1, 1, 5e-324,
  2.2250738585072014e-308, Number.MAX_VALUE, 1e-7, 1e21, 123456789, 0.5,
];

function randomDigits(rng: Rng, count: number): string {
  let out = String(rng.range(1, 9));
  for (let i = 1; i < count; i++) out += String(rng.int(10));
  return out;
}

function randomDouble(rng: Rng): number {
  let x: number;
  switch (rng.int(8)) {
    case 0: {
      // Any finite double: random bits with the all-ones exponent (NaN / Infinity) avoided.
      let hi = rng.u32();
      if (((hi >>> 20) & 0x7ff) === 0x7ff) hi &= ~0x00100000;
      x = doubleFromBits(hi, rng.u32());
      coverage.bitPatternDoubles++;
      break;
    }
    case 1:
      x = doubleFromBits(rng.u32() & 0x800fffff, rng.u32()); // subnormal (or zero)
      break;
    case 2: {
      const base = rng.pick(boundaryBases);
      x = ulpStep(base, rng.range(-3, 3));
      if (!Number.isFinite(x) || x === 0) x = base;
      if (rng.chance(0.5)) x = -x;
      coverage.boundaryDoubles++;
      break;
    }
    case 3: {
      // Integer-valued floats: 5.0, 1e22, 2**53 and friends.
      const kind = rng.int(4);
      if (kind === 0) x = rng.int(1_000_000);
      else if (kind === 1) x = 10 ** rng.range(0, 25);
      else if (kind === 2) x = 2 ** rng.range(0, 80);
      else x = Number(randomDigits(rng, rng.range(1, 22)));
      if (rng.chance(0.3)) x = -x;
      coverage.integralFloats++;
      break;
    }
    case 4:
      // Tiny and huge magnitudes.
      x = Number(`${randomDigits(rng, rng.range(1, 17))}e${rng.range(-345, 308)}`);
      if (rng.chance(0.3)) x = -x;
      break;
    case 5:
      // Short decimals such as 2.5, 0.1, 0.000123.
      x = Number(`${rng.range(1, 999_999)}e-${rng.range(0, 9)}`);
      break;
    case 6:
      x = rng.chance(0.5) ? 0 : -0;
      break;
    default:
      // 17 significant digits: the hardest case for shortest round-trip printing.
      x = Number(`${randomDigits(rng, 17)}e${rng.range(-40, 40)}`);
      break;
  }
  if (!Number.isFinite(x)) x = 1.5;
  if (x !== 0 && Math.abs(x) < 2.2250738585072014e-308) coverage.subnormals++;
  if (Object.is(x, -0)) coverage.negativeZeros++;
  return x;
}

function randomInt(rng: Rng): string {
  switch (rng.int(6)) {
    case 0:
      return rng.pick(["0", "-0", "1", "-1", "9223372036854775807", "9223372036854775808", "-9223372036854775809", "18446744073709551616", "9007199254740993"]);
    case 1:
    case 2:
      return String(rng.range(-1000, 100_000));
    case 3: {
      coverage.bigInts++;
      return (rng.chance(0.4) ? "-" : "") + randomDigits(rng, rng.range(19, 60));
    }
    default:
      return (rng.chance(0.3) ? "-" : "") + randomDigits(rng, rng.range(1, 18));
  }
}

/** Code points where UTF-16 order and code-point order disagree, and their neighbours. */
const trickyTails = [
  "\ufb01", "\u{1f600}", "\ue000", "\uffff", "\ufeff", "\ufffd", "\u{10000}", "\u{10ffff}", "\u{1d11e}",
  "\ud7ff", "\ud800", "\udbff", "\udc00", "\udfff", "\ud83d", "\ude00", "\ud800\ud800", "\ud800\ud801",
  "\ud83d" + "\u{1f600}", "\ud83d\ue000", "\ud83dx", "\u007f", "\u0080", "a", "", "\u{1f600}x", "\ufb01x",
];

function randomCodePoint(rng: Rng): number {
  const r = rng.int(100);
  if (r < 34) return rng.range(0x20, 0x7e);
  if (r < 42) return rng.pick([0x22, 0x5c, 0x2f, 0x7f]);
  if (r < 50) return rng.range(0x00, 0x1f);
  if (r < 58) return rng.range(0x80, 0x7ff);
  if (r < 66) return rng.range(0x800, 0xd7ff);
  if (r < 74) return rng.range(0xe000, 0xffff);
  if (r < 84) return rng.chance(0.5) ? rng.range(0x1f300, 0x1faff) : rng.range(0x10000, 0x10ffff);
  if (r < 90) return rng.range(0xd800, 0xdfff); // lone surrogate (written as an escape)
  return rng.pick([0xfb01, 0x1f600, 0xe000, 0xffff, 0x10000]);
}

function randomString(rng: Rng, maxLength: number): string {
  const length = rng.chance(0.1) ? rng.range(0, 80) : rng.range(0, maxLength);
  let s = "";
  for (let i = 0; i < length; i++) s += String.fromCodePoint(randomCodePoint(rng));
  return s;
}

function randomKey(rng: Rng, prefix: string): string {
  const r = rng.int(10);
  if (r < 3) return prefix + rng.pick(trickyTails);
  if (r < 5) return rng.pick(["a", "b", "id", "type", "payload", "z", "", "A", "aa", "é", "😀"]);
  return randomString(rng, 8);
}

function randomLeaf(rng: Rng): Node {
  const r = rng.int(20);
  if (r < 2) return { t: "literal", text: rng.pick(["null", "true", "false"] as const) };
  if (r < 3) {
    if (rng.chance(0.5)) return { t: "literal", text: rng.pick(["NaN", "Infinity", "-Infinity"] as const) };
    return { t: "floatText", text: rng.pick(["1e400", "-1e400", "1e-400", "-1e-400", "1E999", "123456789e-999"]) };
  }
  if (r < 7) return { t: "int", text: randomInt(rng) };
  if (r < 13) return { t: "float", x: randomDouble(rng) };
  return { t: "string", s: randomString(rng, 12) };
}

function randomObject(rng: Rng, depth: number, budget: { nodes: number }, child?: Node): Node {
  const entries: [string, Node][] = [];
  const prefix = rng.chance(0.5) ? "" : randomString(rng, 3);
  const count = rng.chance(0.15) ? rng.range(10, 40) : rng.range(0, 6);
  // Sibling keys that differ only in a BMP vs astral (or lone surrogate) last character.
  if (rng.chance(0.35)) {
    const tails = [...trickyTails];
    const n = rng.range(2, 8);
    for (let i = 0; i < n; i++) {
      const tail = tails.splice(rng.int(tails.length), 1)[0];
      entries.push([prefix + tail, randomValue(rng, depth + 1, budget)]);
    }
    coverage.astralVersusBmpSiblingKeys++;
  }
  for (let i = 0; i < count && budget.nodes > 0; i++) {
    if (entries.length > 0 && rng.chance(0.12)) {
      // A duplicate key, possibly spelled differently in the other line (escapes vs raw).
      entries.push([rng.pick(entries)[0], randomValue(rng, depth + 1, budget)]);
      coverage.duplicateKeys++;
    } else {
      entries.push([randomKey(rng, prefix), randomValue(rng, depth + 1, budget)]);
    }
  }
  if (child !== undefined) entries.splice(rng.int(entries.length + 1), 0, [randomKey(rng, prefix), child]);
  // Shuffle so sorted input is not the common case.
  for (let i = entries.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [entries[i], entries[j]] = [entries[j], entries[i]];
  }
  return { t: "object", entries };
}

function randomArray(rng: Rng, depth: number, budget: { nodes: number }, child?: Node): Node {
  const items: Node[] = [];
  const count = rng.chance(0.1) ? rng.range(10, 30) : rng.range(0, 5);
  for (let i = 0; i < count && budget.nodes > 0; i++) items.push(randomValue(rng, depth + 1, budget));
  if (child !== undefined) items.splice(rng.int(items.length + 1), 0, child);
  return { t: "array", items };
}

function randomValue(rng: Rng, depth: number, budget: { nodes: number }): Node {
  budget.nodes--;
  if (depth >= 6 || budget.nodes <= 0 || rng.chance(0.55)) return randomLeaf(rng);
  return rng.chance(0.55) ? randomObject(rng, depth, budget) : randomArray(rng, depth, budget);
}

function randomDocument(rng: Rng): Node {
  const budget = { nodes: rng.range(5, 120) };
  if (rng.chance(0.2)) {
    // A spine nested up to deepDepthMax levels with small siblings at every level.
    const levels = rng.range(10, deepDepthMax);
    let node = randomLeaf(rng);
    for (let level = levels - 1; level >= 0; level--) {
      const siblings = { nodes: rng.range(0, 2) };
      node = rng.chance(0.5) ? randomObject(rng, 5, siblings, node) : randomArray(rng, 5, siblings, node);
    }
    if (levels >= 40) coverage.deepDocuments++;
    return node;
  }
  if (rng.chance(0.08)) return randomLeaf(rng);
  return rng.chance(0.75) ? randomObject(rng, 0, budget) : randomArray(rng, 0, budget);
}

// ---- writing a model as JSON text ------------------------------------------------------------

type StringStyle = "raw" | "escaped";

function hex4(rng: Rng, unit: number): string {
  const hex = unit.toString(16).padStart(4, "0");
  return `\\u${rng.chance(0.3) ? hex.toUpperCase() : hex}`;
}

const shortEscapes: Record<number, string> = { 0x08: "\\b", 0x0c: "\\f", 0x0a: "\\n", 0x0d: "\\r", 0x09: "\\t" };

function writeString(rng: Rng, s: string, style: StringStyle): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) as number;
    if (cp < 0x20) {
      coverage.controlChars++;
      out += shortEscapes[cp] !== undefined && rng.chance(0.6) ? shortEscapes[cp] : hex4(rng, cp);
    } else if (cp === 0x22 || cp === 0x5c) {
      coverage.quoteBackslashSlash++;
      out += rng.chance(0.8) ? `\\${ch}` : hex4(rng, cp);
    } else if (cp === 0x2f) {
      coverage.quoteBackslashSlash++;
      out += rng.chance(0.5) ? "/" : rng.chance(0.5) ? "\\/" : hex4(rng, cp);
    } else if (cp >= 0xd800 && cp <= 0xdfff) {
      coverage.loneSurrogates++;
      out += hex4(rng, cp); // raw UTF-8 cannot carry a lone surrogate
    } else if (cp === 0x7f) {
      coverage.delChars++;
      out += style === "raw" || rng.chance(0.5) ? ch : hex4(rng, cp);
    } else if (cp < 0x80) {
      out += style === "escaped" && rng.chance(0.1) ? hex4(rng, cp) : ch;
    } else if (style === "raw") {
      if (cp >= 0x10000) coverage.astralChars++;
      else coverage.bmpNonAsciiChars++;
      out += ch;
    } else {
      // Astral characters as an escaped surrogate pair; Python joins the two escapes.
      out += cp >= 0x10000 ? hex4(rng, ch.charCodeAt(0)) + hex4(rng, ch.charCodeAt(1)) : hex4(rng, cp);
    }
  }
  return `${out}"`;
}

/**
 * A JSON float lexeme for x, chosen at random among forms Python parses to exactly x: exponent
 * forms (`1E5`, `1e+05`, `1.0e005`), a shifted decimal point (`12.3e-8`, `0.0123e-5`), fixed
 * notation (`0.000123`, `100000.0`), extra (correctly rounded) digits and trailing zeros.
 */
function floatLexeme(rng: Rng, x: number): string {
  if (x === 0) {
    const sign = Object.is(x, -0) ? "-" : "";
    return sign + rng.pick(["0.0", "0e0", "0.000", "0E+5", "0.0e-10", "0e-400"]);
  }
  const sign = x < 0 ? "-" : "";
  const ax = Math.abs(x);
  let scientific = ax.toExponential(); // shortest round-trip digits
  if (rng.chance(0.2)) {
    // More digits than needed: the correctly rounded expansion still parses to x. (Its exponent
    // can differ from the shortest form's: 1e-323 is 9.8813129e-324.)
    const shortestDigits = scientific.indexOf("e") - (scientific.includes(".") ? 1 : 0);
    scientific = ax.toExponential(Math.min(100, shortestDigits - 1 + rng.range(1, 8)));
  }
  const exponent = Number(scientific.slice(scientific.indexOf("e") + 1));
  let digits = scientific.slice(0, scientific.indexOf("e")).replace(".", "");
  if (rng.chance(0.2)) digits += "0".repeat(rng.range(1, 3));
  // digits d1 d2 d3 ... mean 0.d1d2d3... * 10^(exponent + 1); put the point after `split` digits.
  let split: number;
  let useExponent: boolean;
  const form = rng.int(3);
  if (form === 0 && exponent >= -30 && exponent <= 30) {
    split = exponent + 1;
    useExponent = false;
  } else if (form === 1) {
    split = 1 + rng.range(-4, 4);
    useExponent = true;
  } else {
    split = 1;
    useExponent = true;
  }
  let intPart: string;
  let fracPart: string;
  if (split <= 0) {
    intPart = "0";
    fracPart = "0".repeat(-split) + digits;
  } else if (split >= digits.length) {
    intPart = digits + "0".repeat(split - digits.length);
    fracPart = "";
  } else {
    intPart = digits.slice(0, split);
    fracPart = digits.slice(split);
  }
  let lexeme = sign + intPart;
  if (fracPart !== "" || !useExponent || rng.chance(0.3)) lexeme += `.${fracPart === "" ? "0" : fracPart}`;
  if (useExponent) {
    const e = exponent + 1 - split;
    const expSign = e < 0 ? "-" : rng.chance(0.5) ? "+" : "";
    lexeme += `${rng.chance(0.5) ? "e" : "E"}${expSign}${String(Math.abs(e)).padStart(rng.range(1, 3), "0")}`;
  }
  if (!Object.is(Number(lexeme), x)) {
    // Never expected; keep the corpus valid rather than guess.
    throw new Error(`generated float lexeme ${lexeme} does not parse to ${x} (${seedLabel})`);
  }
  if (useExponent) coverage.exponentLexemes++;
  else coverage.fixedLexemes++;
  if (/\.\d*0(?:[eE]|$)/.test(lexeme) && !/\.0$/.test(lexeme)) coverage.trailingZeroLexemes++;
  return lexeme;
}

const whitespaces = ["", "", "", "", " ", "\t", "\r", "  ", " \t", "\r\t "];

function ws(rng: Rng): string {
  return rng.chance(0.7) ? "" : rng.pick(whitespaces);
}

function writeNode(rng: Rng, node: Node, style: StringStyle, parts: string[]): void {
  switch (node.t) {
    case "literal":
    case "int":
    case "floatText":
      parts.push(node.text);
      return;
    case "float":
      parts.push(floatLexeme(rng, node.x));
      return;
    case "string":
      parts.push(writeString(rng, node.s, style));
      return;
    case "array":
      parts.push("[", ws(rng));
      node.items.forEach((item, i) => {
        if (i > 0) parts.push(ws(rng), ",", ws(rng));
        writeNode(rng, item, style, parts);
      });
      parts.push(ws(rng), "]");
      return;
    case "object":
      parts.push("{", ws(rng));
      node.entries.forEach(([key, value], i) => {
        if (i > 0) parts.push(ws(rng), ",", ws(rng));
        parts.push(writeString(rng, key, style), ws(rng), ":", ws(rng));
        writeNode(rng, value, style, parts);
      });
      parts.push(ws(rng), "}");
      return;
  }
}

function writeDocument(rng: Rng, node: Node, style: StringStyle): string {
  const parts: string[] = [ws(rng)];
  writeNode(rng, node, style, parts);
  parts.push(ws(rng));
  return parts.join("");
}

// ---- the corpus and Python's answers ---------------------------------------------------------

const pythonScript = `
import json, sys
with open(sys.argv[1], "rb") as f:
    lines = f.read().split(b"\\n")[:-1]
out = []
for raw in lines:
    try:
        out.append(json.dumps(json.loads(raw.decode("utf-8")), sort_keys=True, separators=(",", ":")))
    except Exception as error:
        out.append("!python error: " + repr(error))
sys.stdout.write("\\n".join(out) + "\\n")
`;

interface Corpus {
  /** Line 2i is document i with raw UTF-8 strings, line 2i+1 the same document escaped. */
  lines: string[];
  /** python3's canonical form of each line. */
  python: string[];
  /** The expected canonical form of each line: python3's output. */
  expected: string[];
  /** `expected[i]` with one meaning-preserving change (see `nearCanonical`). */
  nearCanonical: string[];
}

let corpusCache: Corpus | undefined;

function corpus(): Corpus {
  if (corpusCache !== undefined) return corpusCache;
  console.log(`canonical property test: ${seedLabel}, ${documentCount} documents x 2 forms; rerun with ZAXY_PROPERTY_SEED=${seed}`);
  const rng = new Rng(seed);
  const lines: string[] = [];
  for (let i = 0; i < documentCount; i++) {
    const document = randomDocument(rng);
    lines.push(writeDocument(rng, document, "raw"), writeDocument(rng, document, "escaped"));
  }
  console.log(`canonical property test coverage: ${JSON.stringify(coverage)}`);
  const dir = mkdtempSync(join(tmpdir(), "zaxy-canonical-property-"));
  try {
    const file = join(dir, "documents.jsonl");
    writeFileSync(file, lines.join("\n") + "\n");
    const result = spawnSync("python3", ["-c", pythonScript, file], {
      encoding: "utf8",
      maxBuffer: 1024 * 1024 * 1024,
      env: { ...process.env, PYTHONIOENCODING: "utf-8" },
    });
    if (result.error !== undefined || result.status !== 0) {
      throw new Error(`python3 failed (status ${result.status}): ${result.error ?? ""} ${result.stderr}`);
    }
    const python = result.stdout.split("\n").slice(0, -1);
    assert.equal(python.length, lines.length, "python3 must answer one line per document");
    const expected = python;
    const variantRng = new Rng(seed ^ 0x2545f491);
    corpusCache = { lines, python, expected, nearCanonical: expected.map((line) => nearCanonical(variantRng, line)) };
    return corpusCache;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---- near-canonical variants of Python's output ----------------------------------------------

interface Token {
  kind: "structural" | "string" | "number";
  start: number;
  end: number;
}

/** Tokens of compact JSON text (no whitespace outside strings, as canonical output is). */
function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      tokens.push({ kind: "string", start: i, end: j + 1 });
      i = j + 1;
    } else if ("[]{},:".includes(c)) {
      tokens.push({ kind: "structural", start: i, end: i + 1 });
      i++;
    } else {
      let j = i;
      while (j < text.length && !"[]{},:".includes(text[j])) j++;
      if (/^-?[0-9]/.test(text.slice(i, j))) tokens.push({ kind: "number", start: i, end: j });
      i = j;
    }
  }
  return tokens;
}

function objectsWithTwoKeys(value: JsonValue, out: Map<string, JsonValue>[]): Map<string, JsonValue>[] {
  if (Array.isArray(value)) for (const item of value) objectsWithTwoKeys(item, out);
  else if (value instanceof Map) {
    if (value.size >= 2) out.push(value);
    for (const item of value.values()) objectsWithTwoKeys(item, out);
  }
  return out;
}

function splice(text: string, start: number, end: number, replacement: string): string {
  return text.slice(0, start) + replacement + text.slice(end);
}

/** The characters of a string token's content: one escape (`\n`, `\u00e9`) or one raw character each. */
function stringUnits(text: string, token: Token): [start: number, end: number][] {
  const units: [number, number][] = [];
  let i = token.start + 1;
  while (i < token.end - 1) {
    const length = text[i] !== "\\" ? 1 : text[i + 1] === "u" ? 6 : 2;
    units.push([i, i + length]);
    i += length;
  }
  return units;
}

/** Another spelling of one character of a canonical string: `\/`, `\u0061`, raw `é`, `\uD800`. */
function respell(unit: string): string {
  if (unit === "/") return "\\/";
  if (unit.length === 1) return `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`;
  if (unit.length === 2) return `\\u${JSON.parse(`"${unit}"`).charCodeAt(0).toString(16).padStart(4, "0")}`;
  const code = parseInt(unit.slice(2), 16);
  // A non-ASCII BMP character (not a surrogate) may be written raw; others with uppercase hex.
  if (code >= 0x80 && (code < 0xd800 || code > 0xdfff)) return String.fromCharCode(code);
  return `\\u${unit.slice(2).toUpperCase()}`;
}

/**
 * The canonical text with one change that keeps its meaning, at a random place. Each kind takes
 * the path from that place to the root off the kernel's already-canonical path.
 */
function nearCanonical(rng: Rng, canonical: string): string {
  const tokens = tokenize(canonical);
  const kind = rng.int(4);
  if (kind === 1) {
    // Another lexeme for a number: 2.5 -> 25e-1, 0 -> -0.
    const numbers = tokens.filter((token) => token.kind === "number");
    if (numbers.length > 0) {
      const token = rng.pick(numbers);
      const lexeme = canonical.slice(token.start, token.end);
      const replacement = /[.eE]/.test(lexeme) ? floatLexeme(rng, Number(lexeme)) : lexeme === "0" ? "-0" : lexeme;
      if (replacement !== lexeme) return splice(canonical, token.start, token.end, replacement);
    }
  }
  if (kind === 2) {
    const strings = tokens.filter((token) => token.kind === "string" && token.end - token.start > 2);
    if (strings.length > 0) {
      const token = rng.pick(strings);
      const [start, end] = rng.pick(stringUnits(canonical, token));
      const unit = canonical.slice(start, end);
      const replacement = respell(unit);
      if (replacement !== unit) return splice(canonical, start, end, replacement);
    }
  }
  if (kind === 3) {
    // Two keys out of order: rotate the members of one object.
    const root = parseJson(canonical);
    const objects = objectsWithTwoKeys(root, []);
    if (objects.length > 0) {
      const object = rng.pick(objects);
      const entries = [...object.entries()];
      object.clear();
      for (const [key, value] of [...entries.slice(1), entries[0]]) object.set(key, value);
      return writeJson(root, { sortKeys: false, asciiOnly: true });
    }
  }
  // Otherwise (or when the change above would change nothing): a whitespace after a structural character.
  const structurals = tokens.filter((token) => token.kind === "structural");
  if (structurals.length === 0) return ` ${canonical}`;
  const token = rng.pick(structurals);
  return splice(canonical, token.end, token.end, rng.pick([" ", "\t", "\r", "  "]));
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function attempt(run: () => string): string {
  try {
    return run();
  } catch (error) {
    return `!error ${(error as { code?: string }).code ?? ""}: ${(error as Error).message}`;
  }
}

type Inputs = "lines" | "python" | "expected" | "nearCanonical";

/**
 * Canonicalises `corpus()[inputs][i]` for every i and compares it byte for byte with python3's
 * answer for line i, printing the seed, the index, the input and both outputs of the first few
 * mismatches.
 */
function assertMatchesPython(name: string, inputs: Inputs, canonicalise: (line: string) => string): void {
  const data = corpus();
  const mismatches: number[] = [];
  for (let i = 0; i < data.lines.length; i++) {
    const input = data[inputs][i];
    const expected = data.expected[i];
    const actual = attempt(() => canonicalise(input));
    if (actual === expected) continue;
    mismatches.push(i);
    if (mismatches.length <= 3) {
      let at = 0;
      while (at < expected.length && expected[at] === actual[at]) at++;
      const around = (text: string) => JSON.stringify(text.slice(Math.max(0, at - 40), at + 40));
      console.error(
        [
          `${name} differs from python3 (${seedLabel}) on corpus.${inputs}[${i}] (document ${i >> 1}, ${i % 2 === 0 ? "raw" : "escaped"} form)`,
          `  input:  ${JSON.stringify(input)}`,
          `  python: ${data.python[i]}`,
          `  ${name}: ${JSON.stringify(actual)}`,
          `  first difference at offset ${at}: python ${around(expected)} vs ${name} ${around(actual)}`,
        ].join("\n"),
      );
    }
  }
  assert.equal(
    mismatches.length,
    0,
    `${name}: ${mismatches.length} of ${data.lines.length} inputs (corpus.${inputs}) differ from python3 (${seedLabel}); first at lines ${mismatches.slice(0, 10).join(", ")}`,
  );
}

const viaTs = (line: string) => canonicalJson(parseJson(line));
const viaTsBytes = (line: string) => canonicalJson(parseJsonBytes(encoder.encode(line)));
const viaWasm = (line: string) => decoder.decode(wasmCanonicalize(encoder.encode(line)));

describe(`canonical JSON against python3 json.dumps on ${documentCount * 2} generated documents (${seedLabel})`, () => {
  test(`python3 accepts every generated document and both forms of a document agree (${seedLabel})`, () => {
    const { lines, python } = corpus();
    for (let i = 0; i < python.length; i++) {
      assert.ok(!python[i].startsWith("!python error"), `python3 rejected line ${i} (${seedLabel}): ${JSON.stringify(lines[i])}: ${python[i]}`);
    }
    for (let i = 0; i < python.length; i += 2) {
      assert.equal(python[i + 1], python[i], `raw and escaped forms of document ${i >> 1} differ in python3 (${seedLabel})`);
    }
  });

  test(`the corpus covers every case class (${seedLabel})`, () => {
    corpus();
    for (const [name, count] of Object.entries(coverage)) assert.ok(count >= 20, `only ${count} cases of ${name} (${seedLabel})`);
  });

  test(`TS canonicalJson(parseJson(line)) equals python3 byte for byte (${seedLabel})`, () => {
    assertMatchesPython("TS", "lines", viaTs);
  });

  test(`TS canonicalJson(parseJsonBytes(bytes)) equals python3 byte for byte (${seedLabel})`, () => {
    assertMatchesPython("TS bytes", "lines", viaTsBytes);
  });

  test(`WASM wasmCanonicalize(bytes) equals python3 byte for byte (${seedLabel})`, () => {
    assertMatchesPython("WASM", "lines", viaWasm);
  });

  test(`TS and WASM leave canonical output unchanged and accept python3's own output (${seedLabel})`, () => {
    assertMatchesPython("TS", "expected", viaTs);
    assertMatchesPython("WASM", "expected", viaWasm);
    assertMatchesPython("TS", "python", viaTs);
    assertMatchesPython("WASM", "python", viaWasm);
  });

  test(`TS and WASM canonicalise near-canonical variants back to python3's output (${seedLabel})`, () => {
    const { expected, nearCanonical } = corpus();
    assert.ok(nearCanonical.every((line, i) => line !== expected[i]), "every near-canonical variant differs from its canonical form");
    assertMatchesPython("TS", "nearCanonical", viaTs);
    assertMatchesPython("WASM", "nearCanonical", viaWasm);
  });
});
