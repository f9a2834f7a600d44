// test-lane: full (slow)
/**
 * The hash embedding (DESIGN §5) against Python, bit for bit.
 *
 * Ground truth is Python's HashEmbeddingProvider: tokens = `text.casefold().split()` (or `[""]`);
 * per token `d = sha256(utf8(token))`, bucket `= uint32_be(d[0:4]) % dim`, `+1.0` if `d[4] & 1`
 * else `-1.0`; then divide by `sqrt(sum(v * v))` unless that is 0. Stored vectors were written by
 * that code, so every component must be the same double, not merely close.
 *
 * A seeded generator writes a few thousand texts (casefold specials, every character Python's
 * `str.split()` splits on and some it does not, astral characters, empty and whitespace-only
 * texts, repeated tokens, tokens at SHA-256 block boundaries, ~1000-token texts). python3 runs
 * once over them and answers, per text, its tokens and its embeddings at dim 1536 and dim 7 (a
 * small dim forces collisions and exact cancellations) as the nonzero `(index, IEEE-754 bits)`
 * pairs. The same python3 run dumps its whole casefold table and its whitespace set, which are
 * compared exhaustively over all code points.
 *
 * The seed is fixed and printed in the test names; `ZAXY_PROPERTY_SEED=<n>` overrides it. Tests
 * that need python3 are skipped, with the reason printed, when it is not installed.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { pythonCaseFold } from "../../src/vector/textAnalysis.ts";
import {
  embeddingTokens,
  entityEmbeddingText,
  hashEmbedMany,
  hashEmbeddingReference,
  hashEmbedSparseEach,
} from "../../src/vector/hashEmbedding.ts";
import { embedTextPostings } from "../../src/projection/vectorIndex.ts";
import { propertySeed, Rng } from "../testkit/rng.ts";

const defaultSeed = 0x5eed_e4b0;
const generatedTextCount = 2400;
const dims = [1536, 7] as const;

const seed = propertySeed(defaultSeed);
const seedLabel = `seed ${seed} (0x${seed.toString(16)})`;

// ---- python3 ---------------------------------------------------------------------------------

/**
 * The real python3 executable (a pyenv shim costs ~150 ms per start), run with `-S`: only the
 * standard library is used. Empty when python3 is absent.
 */
const pythonExe: string = (() => {
  const probe = spawnSync("python3", ["-c", "import hashlib, json, struct, sys; print(sys.executable)"], { encoding: "utf8" });
  return probe.error || probe.status !== 0 ? "" : probe.stdout.trim();
})();

/** `false` when python3 runs, else the reason to skip (for `test(name, { skip }, fn)`). */
const skipWithoutPython: false | string = (() => {
  if (pythonExe !== "") return false;
  const reason = "python3 is not installed: the bit-exact cross-checks against Python's embedding, casefold and split need it";
  console.error(`skipping: ${reason}`);
  return reason;
})();

// ---- seeded PRNG -----------------------------------------------------------------------------


// ---- character pools -------------------------------------------------------------------------

const chr = (cp: number): string => String.fromCodePoint(cp);
const span = (lo: number, hi: number): string[] => Array.from({ length: hi - lo + 1 }, (_, i) => chr(lo + i));

/** Every character Python's `str.split()` splits on (`str.isspace()`; checked against python3 below). */
const splitting: readonly string[] = [
  ...span(0x09, 0x0d), // \t \n \v \f \r
  ...span(0x1c, 0x1f), // file, group, record, unit separators
  " ",
  "\x85", // NEL
  "\xa0", // NBSP
  "\u1680",
  ...span(0x2000, 0x200a),
  "\u2028",
  "\u2029",
  "\u202f",
  "\u205f",
  "\u3000",
];

/** Characters that look like space or are invisible, but that Python does not split on. */
const nonSplitting: readonly string[] = [
  "\u200b", // zero width space (Cf)
  "\u180e", // Mongolian vowel separator (Cf since Unicode 6.3)
  "\ufeff", // BOM / zero width no-break space
  "\u200c", // ZWNJ
  "\u200d", // ZWJ
  "\u2060", // word joiner
  "\u00ad", // soft hyphen
  "\x00",
  "\x7f",
  "\x1b",
];

/** Characters and words whose casefold is not their toLowerCase, or is otherwise special. */
const caseFoldSpecials: readonly string[] = [
  "\u00df", // ß → ss
  "\u1e9e", // ẞ → ss
  "Stra\u00dfe",
  "STRASSE",
  "\ufb01", // ﬁ → fi
  "\ufb01le",
  "\ufb00", // ﬀ
  "\ufb03", // ﬃ
  "\ufb04", // ﬄ
  "\ufb05", // ﬅ
  "\ufb06", // ﬆ
  "\u0149", // ŉ → ʼn
  "\u0130", // İ → i̇
  "\u0130stanbul",
  "\u0131", // ı (unchanged)
  "I",
  "\u03a3", // Σ
  "\u03c3", // σ
  "\u03c2", // ς → σ
  "\u039f\u0394\u039f\u03a3", // ΟΔΟΣ
  "\u1f40\u03b4\u03cc\u03c2", // ὀδός
  "\u03c3\u03c2",
  "\u03a3\u0391\u03a3",
  "\u01c4", // Ǆ
  "\u01c5", // ǅ
  "\u01c6", // ǆ
  "\u01c4EMAL",
  "\u13a0", // Cherokee Ꭰ (uppercase; folds to itself)
  "\u13f8", // Cherokee small ᏸ → Ᏸ
  "\uab70", // Cherokee small ꭰ → Ꭰ
  "\u212a", // Kelvin sign → k
  "\u017f", // long s → s
  "\u017ftop",
  "\u0390", // ΐ
  "\u03b0", // ΰ
  "\u0386", // Ά
  "\u03ac", // ά
  "\u038f", // Ώ
  "\u1f88", // ᾈ
  "\u1fb3", // ᾳ
  "\u1ffc", // ῼ
  "\u0345", // combining ypogegrammeni → ι
  "e\u0301",
  "\u0587", // և → եւ
  "\u0535\u057e", // Եվ
  "\uff21", // fullwidth A
  "\uff3a\uff41\uff58\uff59", // ＺａＸｙ
  "\u2126", // Ohm sign → ω
  "\u212b", // Angstrom sign → å
  "\u01f0", // ǰ
  "\u1e96", // ẖ
  "\u1e9a", // ẚ
  "\ufb13", // ﬓ
  "\u216b", // Roman numeral twelve → ⅻ
  "\u24b6", // circled A → ⓐ
  "\u{10400}", // Deseret (astral, has case)
  "\u{104b0}", // Osage
  "\u{1e900}", // Adlam
  "\u{118a0}", // Warang Citi
  "\u{16e40}", // Medefaidrin
  "\u{10570}", // Vithkuqi (Unicode 14)
  "\u1c90", // Georgian Mtavruli
  "\ua7b4", // Ꞵ
  "\u1e9b", // ẛ → ṡ
  "\u1fd3", // ΐ (polytonic)
];

const asciiWords: readonly string[] = [
  "the", "The", "THE", "memory", "Zaxy", "agent", "event", "log", "hash", "chain", "ID-42",
  "e-mail", "x", "a", "don't", "3.14", "#tag", "user@example.com", "C++", "(person)", "MiXeD",
  "\u2014", "ok.", "\"quoted\"", "back\\slash", "{json}", "tab\\t",
];

/** Ranges to draw single characters from: [lo, hi]. */
const ranges: readonly (readonly [number, number])[] = [
  [0x41, 0x5a], // A-Z
  [0x61, 0x7a], // a-z
  [0x30, 0x39],
  [0x21, 0x2f],
  [0xc0, 0xff], // Latin-1 letters
  [0x100, 0x24f], // Latin Extended-A/B
  [0x1e00, 0x1eff], // Latin Extended Additional (ẞ, ẖ..ẛ)
  [0x370, 0x3ff], // Greek with tonos
  [0x1f00, 0x1fff], // polytonic Greek
  [0x400, 0x52f], // Cyrillic
  [0x531, 0x587], // Armenian (և)
  [0xfb13, 0xfb17], // Armenian ligatures
  [0x13a0, 0x13fd], // Cherokee
  [0xab70, 0xabbf], // Cherokee small letters
  [0xff21, 0xff3a], // fullwidth A-Z
  [0xff41, 0xff5a], // fullwidth a-z
  [0x2160, 0x2188], // Roman numerals
  [0x24b6, 0x24e9], // circled letters
  [0x10400, 0x1044f], // Deseret
  [0x1f600, 0x1f64f], // emoji
  [0x1f1e6, 0x1f1ff], // regional indicators
  [0x20000, 0x2a6df], // CJK Ext B
  [0x1d400, 0x1d7ff], // mathematical alphanumerics (no case mapping)
  [0x4e00, 0x9fff], // CJK
  [0x300, 0x36f], // combining marks
];

const emojiSequences: readonly string[] = [
  "\u{1f469}\u200d\u{1f469}\u200d\u{1f467}", // family (ZWJ sequence)
  "\u{1f1e9}\u{1f1ea}", // flag
  "\u{1f44d}\u{1f3fd}", // skin tone
  "\u2764\ufe0f",
];

/** A random non-surrogate code point anywhere (often unassigned: Python leaves those alone). */
function anyCodePoint(rng: Rng): string {
  for (;;) {
    const cp = rng.int(0x110000);
    if (cp < 0xd800 || cp > 0xdfff) return chr(cp);
  }
}

/** Byte lengths around SHA-256 padding and block boundaries (55/56, 63/64/65, 119/120, ...). */
const shaBoundaryLengths: readonly number[] = [54, 55, 56, 57, 63, 64, 65, 119, 120, 121, 127, 128, 129, 1000];

function tokenPiece(rng: Rng): string {
  const roll = rng.int(100);
  if (roll < 30) return rng.pick(asciiWords);
  if (roll < 55) return rng.pick(caseFoldSpecials);
  if (roll < 85) {
    const [lo, hi] = rng.pick(ranges);
    let s = "";
    for (let n = rng.range(1, 6); n > 0; n--) s += chr(rng.range(lo, hi));
    return s;
  }
  if (roll < 90) return rng.pick(emojiSequences);
  if (roll < 95) return rng.pick(nonSplitting) + rng.pick(asciiWords);
  if (roll < 98) return anyCodePoint(rng);
  // A token whose UTF-8 length sits at a SHA-256 block boundary: ASCII, or 2-byte characters.
  const bytes = rng.pick(shaBoundaryLengths);
  return rng.chance(0.5) ? "Q".repeat(bytes) : "\u00e9".repeat(bytes >> 1) + "z".repeat(bytes & 1);
}

function randomToken(rng: Rng): string {
  let token = "";
  for (let n = rng.chance(0.7) ? 1 : rng.range(2, 4); n > 0; n--) token += tokenPiece(rng);
  return token;
}

function separator(rng: Rng): string {
  if (rng.chance(0.6)) return " ";
  let s = "";
  for (let n = rng.range(1, 3); n > 0; n--) s += rng.pick(splitting);
  return s;
}

function joinTokens(rng: Rng, tokens: readonly string[]): string {
  let text = rng.chance(0.2) ? separator(rng) : "";
  tokens.forEach((token, i) => {
    text += (i > 0 ? separator(rng) : "") + token;
  });
  return text + (rng.chance(0.2) ? separator(rng) : "");
}

/**
 * Texts whose tokens cancel exactly: one to three pairs of lowercase-ASCII tokens (written in
 * random case) that share a bucket with opposite signs, at dim 7 or, less often, at dim 1536.
 * The tokens are ASCII so that finding the pairs does not depend on the casefold under test.
 */
function cancellingText(rng: Rng): string {
  const dim = rng.chance(0.8) ? 7 : 1536;
  const tokens: string[] = [];
  for (let pairs = rng.range(1, 3); pairs > 0; pairs--) {
    const a = `c${rng.u32().toString(36)}`;
    const [bucket, sign] = bucketAndSign(a, dim);
    let b: string;
    do b = `c${rng.u32().toString(36)}`; while (bucketAndSign(b, dim).join() !== [bucket, -sign].join());
    tokens.push(a, b);
  }
  for (let i = tokens.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [tokens[i], tokens[j]] = [tokens[j], tokens[i]];
  }
  return joinTokens(rng, tokens.map((token) => (rng.chance(0.5) ? token.toUpperCase() : token)));
}

function randomText(rng: Rng): string {
  const roll = rng.int(1000);
  if (roll < 10) return "";
  if (roll < 30) {
    let s = "";
    for (let n = rng.range(1, 6); n > 0; n--) s += rng.pick(splitting);
    return s;
  }
  if (roll < 45) {
    // ~1000 tokens from a small vocabulary: buckets accumulate far beyond ±1.
    const vocabulary = Array.from({ length: rng.range(5, 300) }, () => randomToken(rng));
    return joinTokens(rng, Array.from({ length: rng.range(800, 1200) }, () => rng.pick(vocabulary)));
  }
  if (roll < 80) return cancellingText(rng);
  if (roll < 200) {
    // Repeats of one to three tokens, spelled in different cases.
    const vocabulary = Array.from({ length: rng.range(1, 3) }, () => randomToken(rng));
    return joinTokens(rng, Array.from({ length: rng.range(2, 40) }, () => {
      const token = rng.pick(vocabulary);
      return rng.chance(0.3) ? token.toUpperCase() : token;
    }));
  }
  const count = roll < 400 ? 1 : roll < 850 ? rng.range(2, 12) : rng.range(13, 120);
  return joinTokens(rng, Array.from({ length: count }, () => randomToken(rng)));
}

// ---- exact cancellations, found with node:crypto --------------------------------------------

function bucketAndSign(token: string, dim: number): [number, number] {
  const d = createHash("sha256").update(token, "utf8").digest();
  return [d.readUInt32BE(0) % dim, d[4] & 1 ? 1 : -1];
}

/**
 * The first two tokens `w<i>`, `w<j>` (i < j) that fall into the same bucket with opposite signs
 * at `dim`: a text of the two embeds to the zero vector.
 */
function cancellingPair(dim: number): [string, string] {
  const seen = new Map<string, string>();
  for (let i = 0; ; i++) {
    const token = `w${i}`;
    const [bucket, sign] = bucketAndSign(token, dim);
    const partner = seen.get(`${bucket}:${-sign}`);
    if (partner !== undefined) return [partner, token];
    if (!seen.has(`${bucket}:${sign}`)) seen.set(`${bucket}:${sign}`, token);
  }
}

// ---- the corpus --------------------------------------------------------------------------------

/** Hand-picked texts, then the generated ones. */
function buildCorpus(): string[] {
  const [c7a, c7b] = cancellingPair(7);
  const [c1536a, c1536b] = cancellingPair(1536);
  const fixed: string[] = [
    "",
    " ",
    splitting.join(""),
    ...splitting,
    ...splitting.map((ws) => `A${ws}B`),
    ...nonSplitting,
    ...nonSplitting.map((ch) => `A${ch}B`),
    nonSplitting.join(""),
    ...caseFoldSpecials,
    caseFoldSpecials.join(" "),
    "the the the the the",
    "Straße strasse STRASSE ẞ",
    `${c7a} ${c7b}`,
    `${c7a.toUpperCase()}\u3000${c7b}`,
    `${c1536a} ${c1536b}`,
    `${c1536a} ${c1536b} ${c1536a}`,
    entityEmbeddingText("Ada Lovelace", "person", "wrote the first program"),
    entityEmbeddingText("Straße", "place"),
    entityEmbeddingText("İstanbul", "city", " "),
    ...shaBoundaryLengths.map((n) => "Q".repeat(n)),
    ...Array.from({ length: 130 }, (_, n) => "b".repeat(n)),
  ];
  const rng = new Rng(seed);
  const generated = Array.from({ length: generatedTextCount }, () => randomText(rng));
  return [...fixed, ...generated];
}

let corpusCache: string[] | undefined;

function corpus(): string[] {
  if (corpusCache === undefined) {
    corpusCache = buildCorpus();
    const tokens = corpusCache.reduce((n, text) => n + embeddingTokens(text).length, 0);
    console.log(`hash embedding property test: ${seedLabel}, ${corpusCache.length} texts, ${tokens} tokens; rerun with ZAXY_PROPERTY_SEED=${seed}`);
  }
  return corpusCache;
}

/** Our embeddings of the corpus, per dim: TS reference and WASM (one call for all texts). */
const oursCache = new Map<number, { reference: Float64Array[]; wasm: Float64Array[] }>();

function ours(dim: number): { reference: Float64Array[]; wasm: Float64Array[] } {
  let entry = oursCache.get(dim);
  if (entry === undefined) {
    const texts = corpus();
    entry = { reference: texts.map((text) => hashEmbeddingReference(text, dim)), wasm: hashEmbedMany(texts, dim) };
    oursCache.set(dim, entry);
  }
  return entry;
}

// ---- Python's answers --------------------------------------------------------------------------

const pythonScript = `
import hashlib, json, math, struct, sys, unicodedata

def embed(tokens, dim):
    vec = [0.0] * dim
    for token in tokens:
        d = hashlib.sha256(token.encode("utf-8")).digest()
        index = int.from_bytes(d[0:4], "big") % dim
        vec[index] += 1.0 if d[4] & 1 else -1.0
    norm = math.sqrt(sum(v * v for v in vec))
    return [v / norm for v in vec] if norm else vec

dims = [int(x) for x in sys.argv[2].split(",")]
out = []
code_points = [c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
out.append(json.dumps({
    "python": sys.version.split()[0],
    "unicode": unicodedata.unidata_version,
    "whitespace": [c for c in code_points if not chr(c).split()],
    "casefold": [[c, f] for c in code_points for f in [chr(c).casefold()] if f != chr(c)],
}))
with open(sys.argv[1], "rb") as f:
    lines = f.read().split(b"\\n")[:-1]
zero = bytes(8)
for raw in lines:
    text = json.loads(raw.decode("utf-8"))
    tokens = text.casefold().split() or [""]
    entry = {"tokens": tokens}
    for dim in dims:
        bits = [struct.pack(">d", v) for v in embed(tokens, dim)]
        entry[str(dim)] = [[i, b.hex()] for i, b in enumerate(bits) if b != zero]
    out.append(json.dumps(entry))
sys.stdout.write("\\n".join(out) + "\\n")
`;

interface PythonText {
  tokens: string[];
  /** Per dim: the nonzero components as [index, big-endian IEEE-754 bits in hex]. */
  [dim: string]: string[] | [number, string][];
}

interface PythonAnswers {
  python: string;
  unicode: string;
  whitespace: number[];
  casefold: [number, string][];
  texts: PythonText[];
}

let pythonCache: PythonAnswers | undefined;

function pythonAnswers(): PythonAnswers {
  if (pythonCache !== undefined) return pythonCache;
  const texts = corpus();
  const dir = mkdtempSync(join(tmpdir(), "zaxy-hash-embedding-"));
  try {
    const file = join(dir, "texts.jsonl");
    // JSON.stringify escapes \n, so one text is one line even when it holds U+2028 or NEL.
    writeFileSync(file, texts.map((text) => JSON.stringify(text)).join("\n") + "\n");
    const run = spawnSync(pythonExe, ["-S", "-c", pythonScript, file, dims.join(",")], {
      encoding: "utf8",
      maxBuffer: 1024 * 1024 * 1024,
      env: { ...process.env, PYTHONIOENCODING: "utf-8" },
    });
    if (run.error !== undefined || run.status !== 0) {
      throw new Error(`python3 failed (status ${run.status}): ${run.error ?? ""} ${run.stderr}`);
    }
    const lines = run.stdout.split("\n").slice(0, -1);
    assert.equal(lines.length, texts.length + 1, "python3 must answer a header line and one line per text");
    const header = JSON.parse(lines[0]);
    pythonCache = { ...header, texts: lines.slice(1).map((line) => JSON.parse(line)) };
    return pythonCache as PythonAnswers;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---- comparison helpers ------------------------------------------------------------------------

const view = new DataView(new ArrayBuffer(8));

function bitsOf(x: number): string {
  view.setFloat64(0, x);
  return view.getUint32(0).toString(16).padStart(8, "0") + view.getUint32(4).toString(16).padStart(8, "0");
}

function fromBits(hex: string): number {
  view.setUint32(0, parseInt(hex.slice(0, 8), 16));
  view.setUint32(4, parseInt(hex.slice(8), 16));
  return view.getFloat64(0);
}

/** The nonzero components as [index, value (bits)] text, for messages. */
function describeVector(vector: Float64Array | readonly number[], limit = 8): string {
  const parts: string[] = [];
  let count = 0;
  for (let i = 0; i < vector.length; i++) {
    if (Object.is(vector[i], 0)) continue;
    if (count++ < limit) parts.push(`${i}: ${vector[i]} (${bitsOf(vector[i])})`);
  }
  return `${count} nonzero [${parts.join(", ")}${count > limit ? ", ..." : ""}]`;
}

/** Python's answer for one text at one dim as a dense vector. */
function pythonVector(answer: PythonText, dim: number): number[] {
  const dense = new Array<number>(dim).fill(0);
  for (const [index, hex] of answer[String(dim)] as [number, string][]) dense[index] = fromBits(hex);
  return dense;
}

/** The first index whose bits differ, or -1. `Object.is` on doubles compares their bits (NaN aside). */
function firstDifference(actual: Float64Array, expected: readonly number[]): number {
  if (actual.length !== expected.length) return Math.min(actual.length, expected.length);
  for (let i = 0; i < expected.length; i++) if (!Object.is(actual[i], expected[i])) return i;
  return -1;
}

function jsonCodePoints(text: string): string {
  return [...text].map((ch) => `U+${(ch.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, "0")}`).join(" ");
}

/** The text as JSON, cut after 200 code points (never inside a surrogate pair). */
function shown(text: string): string {
  const chars = [...text];
  return chars.length > 200 ? `${JSON.stringify(chars.slice(0, 200).join(""))}... (${chars.length} code points)` : JSON.stringify(text);
}

function failIfAny(mismatches: string[], total: number, what: string): void {
  if (mismatches.length === 0) return;
  assert.fail(`${what}: ${mismatches.length} of ${total} differ (${seedLabel}); first ${Math.min(5, mismatches.length)}:\n${mismatches.slice(0, 5).join("\n")}`);
}

/**
 * The corpus embedded through the vector lane's postings (projection/vectorIndex.ts: each
 * distinct token hashed once, the kernel's arithmetic in TypeScript), made dense again.
 */
function densePostings(dim: number, texts: readonly string[]): Float64Array[] {
  const postings = embedTextPostings(texts.length, (i) => texts[i], dim, 0);
  const dense = texts.map(() => new Float64Array(dim));
  for (let b = 0; b < dim; b++) {
    for (let j = postings.offsets[b]; j < postings.offsets[b + 1]; j++) dense[postings.keys[j]][b] = postings.values[j];
  }
  return dense;
}

/** The corpus through the kernel's sparse entry (`hashEmbedSparseEach`), made dense again. */
function denseSparseKernel(dim: number, texts: readonly string[]): Float64Array[] {
  const dense = texts.map(() => new Float64Array(dim));
  hashEmbedSparseEach(texts, dim, (i, buckets, values) => buckets.forEach((bucket, j) => dense[i][bucket] = values[j]));
  return dense;
}

function compareWithPython(dim: number, which: "reference" | "wasm"): void {
  compareVectorsWithPython(dim, ours(dim)[which], which);
}

function compareVectorsWithPython(dim: number, vectors: readonly Float64Array[], which: string): void {
  const texts = corpus();
  const python = pythonAnswers().texts;
  assert.equal(vectors.length, texts.length);
  const mismatches: string[] = [];
  texts.forEach((text, i) => {
    const expected = pythonVector(python[i], dim);
    const at = firstDifference(vectors[i], expected);
    if (at < 0) return;
    mismatches.push(
      [
        `text ${i}: ${shown(text)}`,
        `  tokens (python): ${JSON.stringify(python[i].tokens.slice(0, 20))}`,
        `  first difference at index ${at}: python ${expected[at]} (${bitsOf(expected[at])}) vs ours ${vectors[i][at]} (${bitsOf(vectors[i][at])})`,
        `  python: ${describeVector(expected)}`,
        `  ours:   ${describeVector(vectors[i])}`,
      ].join("\n"),
    );
  });
  failIfAny(mismatches, texts.length, `${which} embeddings at dim ${dim} vs python3`);
}

// ---- tests ---------------------------------------------------------------------------------------

describe(`hash embedding against python3 on ${generatedTextCount}+ generated texts (${seedLabel})`, () => {
  test(`embeddingTokens equals Python's text.casefold().split() or [""] (${seedLabel})`, { skip: skipWithoutPython, timeout: 60_000 }, () => {
    const texts = corpus();
    const python = pythonAnswers().texts;
    const mismatches: string[] = [];
    texts.forEach((text, i) => {
      const tokens = embeddingTokens(text);
      try {
        assert.deepEqual(tokens, python[i].tokens);
      } catch {
        const differs = tokens.findIndex((token, k) => token !== python[i].tokens[k]);
        const at = differs >= 0 ? differs : Math.min(tokens.length, python[i].tokens.length);
        mismatches.push(
          `text ${i}: ${shown(text)}\n  first differing token ${at}: python ${JSON.stringify(python[i].tokens[at])} ` +
            `(${jsonCodePoints(python[i].tokens[at] ?? "")}) vs ours ${JSON.stringify(tokens[at])} (${jsonCodePoints(tokens[at] ?? "")}); ` +
            `counts ${python[i].tokens.length} vs ${tokens.length}`,
        );
      }
    });
    failIfAny(mismatches, texts.length, "token lists");
  });

  for (const dim of dims) {
    test(`hashEmbeddingReference equals Python bit for bit at dim ${dim} (${seedLabel})`, { skip: skipWithoutPython, timeout: 60_000 }, () => {
      compareWithPython(dim, "reference");
    });

    test(`hashEmbedMany (WASM, all texts in one call) equals Python bit for bit at dim ${dim} (${seedLabel})`, { skip: skipWithoutPython, timeout: 60_000 }, () => {
      compareWithPython(dim, "wasm");
    });

    test(`hashEmbedSparseEach (WASM, non-zeros only) equals Python bit for bit at dim ${dim} (${seedLabel})`, { skip: skipWithoutPython, timeout: 60_000 }, () => {
      compareVectorsWithPython(dim, denseSparseKernel(dim, corpus()), "sparse kernel");
    });

    test(`the vector postings (each distinct token hashed once) equal Python bit for bit at dim ${dim} (${seedLabel})`, { skip: skipWithoutPython, timeout: 60_000 }, () => {
      compareVectorsWithPython(dim, densePostings(dim, corpus()), "postings");
    });
  }

  test(`the corpus reaches zero vectors, repeated buckets and ~1000-token texts (${seedLabel})`, { skip: skipWithoutPython, timeout: 60_000 }, () => {
    const python = pythonAnswers().texts;
    const zeros7 = python.filter((answer) => (answer["7"] as [number, string][]).length === 0).length;
    const zeros1536 = python.filter((answer) => (answer["1536"] as [number, string][]).length === 0).length;
    const repeatedBuckets = ours(1536).reference.filter((vector) => {
      let min = Infinity;
      let max = 0;
      for (const v of vector) if (v !== 0) [min, max] = [Math.min(min, Math.abs(v)), Math.max(max, Math.abs(v))];
      return max > min;
    }).length;
    const longTexts = python.filter((answer) => answer.tokens.length >= 800).length;
    console.log(`hash embedding corpus coverage: ${JSON.stringify({ zeros7, zeros1536, repeatedBuckets, longTexts })}`);
    assert.ok(zeros7 >= 40, `too few zero vectors at dim 7: ${zeros7}`);
    assert.ok(zeros1536 >= 5, `too few zero vectors at dim 1536: ${zeros1536}`);
    assert.ok(repeatedBuckets >= 100, `too few vectors with a bucket beyond ±1: ${repeatedBuckets}`);
    assert.ok(longTexts >= 10, `too few ~1000-token texts: ${longTexts}`);
  });
});

describe("hash embedding properties (no python3 needed)", () => {
  test(`hashEmbedMany equals hashEmbeddingReference bit for bit on the corpus (${seedLabel})`, () => {
    for (const dim of dims) {
      const { reference, wasm } = ours(dim);
      const mismatches: string[] = [];
      corpus().forEach((text, i) => {
        const at = firstDifference(wasm[i], Array.from(reference[i]));
        if (at >= 0) {
          mismatches.push(`text ${i} ${shown(text)} at index ${at}: reference ${bitsOf(reference[i][at])} vs wasm ${bitsOf(wasm[i][at])}`);
        }
      });
      failIfAny(mismatches, corpus().length, `WASM vs TS reference at dim ${dim}`);
    }
  });

  test(`every vector is L2-normalised or exactly zero, never NaN (${seedLabel})`, () => {
    for (const dim of dims) {
      for (const which of ["reference", "wasm"] as const) {
        ours(dim)[which].forEach((vector, i) => {
          assert.equal(vector.length, dim);
          let sum = 0;
          let allZero = true;
          for (let k = 0; k < dim; k++) {
            const v = vector[k];
            if (!Number.isFinite(v)) assert.fail(`${which} dim ${dim} text ${i}: component ${k} is ${v}`);
            if (!Object.is(v, 0)) allZero = false;
            sum += v * v;
          }
          if (allZero) return;
          if (!(Math.abs(sum - 1) <= 1e-12)) assert.fail(`${which} dim ${dim} text ${i}: sum of squares ${sum}`);
        });
      }
    }
  });

  test("two tokens in the same bucket with opposite signs give the all-zero vector, not NaN", () => {
    for (const dim of [7, 1536]) {
      const [a, b] = cancellingPair(dim);
      const [bucketA, signA] = bucketAndSign(a, dim);
      const [bucketB, signB] = bucketAndSign(b, dim);
      assert.equal(bucketA, bucketB);
      assert.equal(signA, -signB);
      // Upper case and an ideographic space: the tokens are casefolded and split first.
      const text = `${a.toUpperCase()}\u3000${b}`;
      assert.deepEqual(embeddingTokens(text), [a, b]);
      const zero = new Float64Array(dim);
      assert.deepEqual(hashEmbeddingReference(text, dim), zero, `reference, dim ${dim}, ${JSON.stringify(text)}`);
      assert.deepEqual(hashEmbedMany([text], dim), [zero], `wasm, dim ${dim}, ${JSON.stringify(text)}`);
      // The same pair plus one more token is that token's ±1 alone, normalised.
      const one = hashEmbeddingReference(`${a} ${b} ${a}`, dim);
      assert.equal(one[bucketA], signA);
      assert.equal(one.filter((v) => v !== 0).length, 1);
    }
  });

  test("the default dim is 1536 and equals an explicit 1536", () => {
    const text = "Default dimension ẞ";
    assert.equal(hashEmbeddingReference(text).length, 1536);
    assert.deepEqual(hashEmbeddingReference(text), hashEmbeddingReference(text, 1536));
    const [wasm] = hashEmbedMany([text]);
    assert.deepEqual(wasm, hashEmbeddingReference(text, 1536));
  });

  test("hashEmbedMany of no texts is an empty list; its results stay valid after later calls", () => {
    assert.deepEqual(hashEmbedMany([]), []);
    const first = hashEmbedMany(["first text", "second"], 7);
    const copy = first.map((vector) => Float64Array.from(vector));
    hashEmbedMany(Array.from({ length: 50 }, (_, i) => `overwrite ${i} `.repeat(200)), 1536);
    hashEmbedMany(["z"], 7);
    assert.deepEqual(first, copy);
  });

  test("embeddingTokens: casefold then split on Python whitespace; empty and whitespace-only give [\"\"]", () => {
    assert.deepEqual(embeddingTokens(""), [""]);
    assert.deepEqual(embeddingTokens(" \t\n\u3000\x85\x1c"), [""]);
    assert.deepEqual(embeddingTokens("  Straße\u00a0ﬁle\u2028İ  "), ["strasse", "file", "i\u0307"]);
    assert.deepEqual(embeddingTokens("a\u200bb\ufeffc\u180ed"), ["a\u200bb\ufeffc\u180ed"]);
    assert.deepEqual(embeddingTokens("ΟΔΟΣ ὀδός"), ["οδοσ", "ὀδόσ"]);
  });

  test("embedding dims outside 1..16384 or not integers are rejected by both implementations", () => {
    for (const dim of [0, -1, 1.5, Number.NaN, 16385]) {
      assert.throws(() => hashEmbeddingReference("x", dim), RangeError, `reference, dim ${dim}`);
      assert.throws(() => hashEmbedMany(["x"], dim), RangeError, `wasm, dim ${dim}`);
    }
    // dim 1: every token lands in bucket 0.
    assert.deepEqual(hashEmbeddingReference("x", 1), hashEmbedMany(["x"], 1)[0]);
    assert.equal(Math.abs(hashEmbeddingReference("x", 1)[0]), 1);
  });
});

describe("entityEmbeddingText", () => {
  test("is '<name> (<entity_type>) <summary>' with a summary", () => {
    assert.equal(entityEmbeddingText("Ada Lovelace", "person", "wrote the first program"), "Ada Lovelace (person) wrote the first program");
    assert.equal(entityEmbeddingText("Straße", "place", "in Berlin"), "Straße (place) in Berlin");
  });

  test("is '<name> (<entity_type>)' without a summary, with null or with an empty summary", () => {
    assert.equal(entityEmbeddingText("Ada", "person"), "Ada (person)");
    assert.equal(entityEmbeddingText("Ada", "person", null), "Ada (person)");
    assert.equal(entityEmbeddingText("Ada", "person", undefined), "Ada (person)");
    assert.equal(entityEmbeddingText("Ada", "person", ""), "Ada (person)");
  });

  test("appends a whitespace-only summary, as Python's truthiness test does", () => {
    // `if summary:` is true for " ", so Python embeds "Ada (person)  "; the split drops it anyway.
    assert.equal(entityEmbeddingText("Ada", "person", " "), "Ada (person)  ");
    assert.deepEqual(embeddingTokens(entityEmbeddingText("Ada", "person", " ")), ["ada", "(person)"]);
  });
});

describe("casefold and whitespace tables against python3 over all code points", () => {
  test("pythonCaseFold maps every code point Python's casefold changes the same way", { skip: skipWithoutPython, timeout: 60_000 }, () => {
    const { casefold, python, unicode } = pythonAnswers();
    assert.ok(casefold.length > 1400, `python3 casefold table looks too small: ${casefold.length}`);
    const mismatches: string[] = [];
    for (const [cp, folded] of casefold) {
      const ours = pythonCaseFold(chr(cp));
      if (ours !== folded) mismatches.push(`U+${cp.toString(16).toUpperCase()}: python ${jsonCodePoints(folded)} vs ours ${jsonCodePoints(ours)}`);
    }
    failIfAny(mismatches, casefold.length, `casefold of mapped code points vs python3 ${python} (Unicode ${unicode})`);
  });

  test("pythonCaseFold of every code point 0..0x10FFFF (no surrogates) equals Python's, in batches of 4096", { skip: skipWithoutPython, timeout: 60_000 }, () => {
    const { casefold, python, unicode } = pythonAnswers();
    const map = new Map(casefold);
    const mismatches: string[] = [];
    for (let lo = 0; lo < 0x110000; lo += 4096) {
      let input = "";
      let expected = "";
      for (let cp = lo; cp < lo + 4096; cp++) {
        if (cp >= 0xd800 && cp <= 0xdfff) continue;
        input += chr(cp);
        expected += map.get(cp) ?? chr(cp);
      }
      if (pythonCaseFold(input) === expected) continue;
      for (let cp = lo; cp < lo + 4096; cp++) {
        if (cp >= 0xd800 && cp <= 0xdfff) continue;
        const want = map.get(cp) ?? chr(cp);
        const got = pythonCaseFold(chr(cp));
        if (got !== want) mismatches.push(`U+${cp.toString(16).toUpperCase()}: python ${jsonCodePoints(want)} vs ours ${jsonCodePoints(got)}`);
      }
    }
    failIfAny(mismatches, 0x110000 - 0x800, `casefold vs python3 ${python} (Unicode ${unicode})`);
  });

  test("embeddingTokens splits on exactly the code points Python's str.split() splits on", { skip: skipWithoutPython, timeout: 60_000 }, () => {
    const { whitespace, casefold } = pythonAnswers();
    assert.deepEqual(whitespace, splitting.map((ws) => ws.codePointAt(0)), "python3's whitespace set changed; update `splitting`");
    for (const ws of splitting) {
      assert.deepEqual(embeddingTokens(`A${ws}B`), ["a", "b"], `splits on U+${(ws.codePointAt(0) as number).toString(16)}`);
      assert.deepEqual(embeddingTokens(ws), [""], `U+${(ws.codePointAt(0) as number).toString(16)} alone`);
    }
    // All other code points, 4096 at a time without separators: one token, casefolded.
    const isSpace = new Set(whitespace);
    const map = new Map(casefold);
    for (let lo = 0; lo < 0x110000; lo += 4096) {
      let input = "";
      let expected = "";
      for (let cp = lo; cp < lo + 4096; cp++) {
        if ((cp >= 0xd800 && cp <= 0xdfff) || isSpace.has(cp)) continue;
        input += chr(cp);
        expected += map.get(cp) ?? chr(cp);
      }
      const tokens = embeddingTokens(input);
      if (tokens.length === 1 && tokens[0] === expected) continue;
      const splitAt = tokens.length > 1 ? [...tokens[0]].length : -1;
      assert.fail(
        `code points U+${lo.toString(16)}..U+${(lo + 4095).toString(16)} give ${tokens.length} tokens, want 1` +
          (splitAt >= 0 ? `; first split after ${splitAt} characters of the folded text` : "; the token differs from Python's casefold"),
      );
    }
  });
});

describe("frozen hash embedding", () => {
  // If this changes, stored vectors no longer match: every vector written by Python's
  // HashEmbeddingProvider (and by earlier Zaxy builds) would need `zaxy memory re-embed`.
  // Values from python3 3.11.7: 11 buckets hold ±1 and one holds +3, so the norm is sqrt(20).
  const sentence = "Zaxy remembers: the Straße to İstanbul is ΟΔΟΣ ﬁne — the the 😀 end";
  const tokens = ["zaxy", "remembers:", "the", "strasse", "to", "i\u0307stanbul", "is", "οδοσ", "fine", "—", "the", "the", "😀", "end"];
  const nonzero: [number, number][] = [
    [52, -0.22360679774997896],
    [88, -0.22360679774997896],
    [208, -0.22360679774997896],
    [447, 0.22360679774997896],
    [698, -0.22360679774997896],
    [785, -0.22360679774997896],
    [807, -0.22360679774997896],
    [892, 0.22360679774997896],
    [1312, 0.22360679774997896],
    [1353, 0.22360679774997896],
    [1362, -0.22360679774997896],
    [1405, 0.6708203932499369],
  ];

  test("the embedding of one fixed sentence at dim 1536 is pinned (if this changes, stored vectors no longer match)", () => {
    assert.deepEqual(embeddingTokens(sentence), tokens);
    const expected = new Float64Array(1536);
    for (const [index, value] of nonzero) expected[index] = value;
    assert.equal(bitsOf(0.22360679774997896), "3fcc9f25c5bfedd9");
    assert.equal(bitsOf(0.6708203932499369), "3fe5775c544ff263");
    assert.deepEqual(hashEmbeddingReference(sentence, 1536), expected);
    assert.deepEqual(hashEmbedMany([sentence], 1536), [expected]);
  });

  test("the empty text embeds its one empty token: sha256('') = e3b0c442 98..., bucket 578 of 1536, sign -1", () => {
    const expected = new Float64Array(1536);
    expected[578] = -1;
    assert.deepEqual(hashEmbeddingReference(""), expected);
    assert.deepEqual(hashEmbedMany(["", " \t"]), [expected, expected]);
  });
});
