/**
 * Canonical JSON test vectors (DESIGN §3) for both implementations: the TypeScript writer over
 * the lossless parser (`canonicalJson(parseJson(s))`, and `parseJsonBytes` for byte input) and
 * the WebAssembly kernel (`wasmCanonicalize`).
 *
 * Every expected value was produced once by python3 3.11
 * `json.dumps(json.loads(s), sort_keys=True, separators=(",", ":"))` and pasted in; nothing here
 * calls Python. DEL (0x7f) follows Python (`\u007f`), not DESIGN §3's "DEL is not escaped":
 * byte compatibility with Python's hashes is the requirement that section exists for.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { jsonDepthMax } from "../../src/limits.ts";
import { canonicalJson, compareCodePoints, JsonNumber, JsonSyntaxError, type JsonValue, parseJson, parseJsonBytes } from "../../src/canonical/json.ts";
import { wasmCanonicalize } from "../../src/canonical/wasmKernel.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function viaTs(text: string): string {
  return canonicalJson(parseJson(text));
}

function viaTsBytes(bytes: Uint8Array): string {
  return canonicalJson(parseJsonBytes(bytes));
}

function viaWasm(bytes: Uint8Array): string {
  return decoder.decode(wasmCanonicalize(bytes));
}

/** Asserts that the text, the bytes and the WASM paths all give exactly `expected`. */
function assertCanonical(input: string, expected: string): void {
  const bytes = encoder.encode(input);
  assert.equal(viaTs(input), expected, `TS parseJson of ${JSON.stringify(input)}`);
  assert.equal(viaTsBytes(bytes), expected, `TS parseJsonBytes of ${JSON.stringify(input)}`);
  assert.equal(viaWasm(bytes), expected, `WASM of ${JSON.stringify(input)}`);
}

function isSyntaxError(code: "invalid_json" | "depth_limit"): (error: unknown) => boolean {
  return (error) => error instanceof JsonSyntaxError && error.code === code;
}

/** Asserts that all three paths reject the text with `code`. */
function assertRejected(input: string, code: "invalid_json" | "depth_limit" = "invalid_json"): void {
  const bytes = encoder.encode(input);
  const label = JSON.stringify(input.length > 80 ? `${input.slice(0, 80)}…` : input);
  assert.throws(() => viaTs(input), isSyntaxError(code), `TS parseJson must reject ${label}`);
  assert.throws(() => viaTsBytes(bytes), isSyntaxError(code), `TS parseJsonBytes must reject ${label}`);
  assert.throws(() => viaWasm(bytes), isSyntaxError(code), `WASM must reject ${label}`);
}

/** Asserts that both byte paths reject the bytes as invalid JSON. */
function assertBytesRejected(bytes: number[]): void {
  const input = new Uint8Array(bytes);
  assert.throws(() => viaTsBytes(input), isSyntaxError("invalid_json"), `TS parseJsonBytes must reject ${bytes}`);
  assert.throws(() => viaWasm(input), isSyntaxError("invalid_json"), `WASM must reject ${bytes}`);
}

function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/**
 * A table of [input, expected] pairs. `String.raw` keeps JSON escapes as written. Non-ASCII text
 * inside it is interpolated (`${"é"}`) because Bun 1.4.5 rewrites non-ASCII characters in a
 * template's raw strings to `\u` escapes (String.raw`é` is "\\u00E9" under Bun, "é" elsewhere).
 */
type Vectors = [input: string, expected: string][];

function vectorTest(name: string, vectors: Vectors): void {
  test(name, () => {
    for (const [input, expected] of vectors) assertCanonical(input, expected);
  });
}

describe("canonical JSON vectors of DESIGN §3", () => {
  vectorTest("canonicalise every DESIGN §3 vector like Python json.dumps", [
    [String.raw`5.0`, String.raw`5.0`],
    [String.raw`1e16`, String.raw`1e+16`],
    [String.raw`1e-7`, String.raw`1e-07`],
    [String.raw`0.1`, String.raw`0.1`],
    [String.raw`-0.0`, String.raw`-0.0`],
    [String.raw`9223372036854775809`, String.raw`9223372036854775809`],
    [String.raw`"caf${"é"}"`, String.raw`"caf\u00e9"`],
    [String.raw`"${"😀"}"`, String.raw`"\ud83d\ude00"`],
    [String.raw`{"b":1,"a":[1,2.50]}`, String.raw`{"a":[1,2.5],"b":1}`],
  ]);

  vectorTest('sort keys "\\ufb01" and "\\U0001f600" with the astral key last (code point, not UTF-16)', [
    [String.raw`{"\ud83d\ude00":1,"\ufb01":2}`, String.raw`{"\ufb01":2,"\ud83d\ude00":1}`],
    [String.raw`{"${"😀"}":1,"${"ﬁ"}":2}`, String.raw`{"\ufb01":2,"\ud83d\ude00":1}`],
    [String.raw`{"${"ﬁ"}":2,"${"😀"}":1}`, String.raw`{"\ufb01":2,"\ud83d\ude00":1}`],
  ]);

  test("keep the interop regression facts_per_1k_prompt_tokens 5.0 as 5.0", () => {
    assertCanonical(
      String.raw`{"prompt_tokens":400,"current_fact_count":2,"evidence_count":2,"facts_per_1k_prompt_tokens":5.0}`,
      String.raw`{"current_fact_count":2,"evidence_count":2,"facts_per_1k_prompt_tokens":5.0,"prompt_tokens":400}`,
    );
  });

  test("reproduce the stored hash of line 1 of interop/legacy-activation-release.jsonl", () => {
    // Written by the Python implementation; the legacy hash covers every field except `hash`.
    const storedHash = "cb8718cce9c5679ae7699e8d00bb0b7c2cb16dadf4aa04bd5753541f73213fc1";
    const line = String.raw`{"seq":1,"timestamp":"2026-05-20T11:55:00Z","type":"memory.checkout.completed","actor":"zaxy-memory","thread":"agent-1","payload":{"source":"release-gate","token_efficiency":{"prompt_tokens":400,"current_fact_count":2,"evidence_count":2,"facts_per_1k_prompt_tokens":5.0}},"security":{"sensitivity":"public","redacted_paths":[]},"prev_hash":null,"hash":"${storedHash}"}`;
    const preimage = String.raw`{"actor":"zaxy-memory","payload":{"source":"release-gate","token_efficiency":{"current_fact_count":2,"evidence_count":2,"facts_per_1k_prompt_tokens":5.0,"prompt_tokens":400}},"prev_hash":null,"security":{"redacted_paths":[],"sensitivity":"public"},"seq":1,"thread":"agent-1","timestamp":"2026-05-20T11:55:00Z","type":"memory.checkout.completed"}`;
    const event = parseJson(line) as Map<string, JsonValue>;
    event.delete("hash");
    assert.equal(canonicalJson(event), preimage);
    assert.equal(viaWasm(encoder.encode(line.replace(`,"hash":"${storedHash}"`, ""))), preimage);
    assert.equal(sha256Hex(preimage), storedHash);
  });
});

describe("canonical JSON numbers", () => {
  vectorTest("write -0 as 0 and keep the sign of -0.0", [
    [String.raw`-0`, String.raw`0`],
    [String.raw`[-0,0,-0.0,0.0,-0e0,0e0,-0E-5]`, String.raw`[0,0,-0.0,0.0,-0.0,0.0,-0.0]`],
  ]);

  vectorTest("write exponent lexemes as Python repr: 1E5 as 100000.0, 1e-7 and 1e-07 as 1e-07", [
    [String.raw`1E5`, String.raw`100000.0`],
    [String.raw`1e+05`, String.raw`100000.0`],
    [String.raw`1e5`, String.raw`100000.0`],
    [String.raw`1e-7`, String.raw`1e-07`],
    [String.raw`1e-07`, String.raw`1e-07`],
    [String.raw`1E-7`, String.raw`1e-07`],
    [String.raw`0.1e1`, String.raw`1.0`],
    [String.raw`1.0e0`, String.raw`1.0`],
    [String.raw`123.456e2`, String.raw`12345.6`],
    [String.raw`-1.25E-10`, String.raw`-1.25e-10`],
    [String.raw`1.5e-300`, String.raw`1.5e-300`],
  ]);

  vectorTest("switch between fixed and exponent notation exactly at 1e-4 and 1e16", [
    [String.raw`1e-4`, String.raw`0.0001`],
    [String.raw`0.0001`, String.raw`0.0001`],
    [String.raw`0.000123`, String.raw`0.000123`],
    [String.raw`1e-5`, String.raw`1e-05`],
    [String.raw`0.00001`, String.raw`1e-05`],
    [String.raw`1e15`, String.raw`1000000000000000.0`],
    [String.raw`9999999999999998.0`, String.raw`9999999999999998.0`],
    [String.raw`1e+16`, String.raw`1e+16`],
    [String.raw`1e22`, String.raw`1e+22`],
    [String.raw`12345678901234567890.0`, String.raw`1.2345678901234567e+19`],
  ]);

  vectorTest("write shortest round-trip digits and drop superfluous zeros", [
    [String.raw`2.50`, String.raw`2.5`],
    [String.raw`-2.50`, String.raw`-2.5`],
    [String.raw`10.0`, String.raw`10.0`],
    [String.raw`1000000.0`, String.raw`1000000.0`],
    [String.raw`123456789.0`, String.raw`123456789.0`],
    [String.raw`0.30000000000000004`, String.raw`0.30000000000000004`],
  ]);

  vectorTest("write subnormal, extreme, overflowing and underflowing floats like Python", [
    [String.raw`5e-324`, String.raw`5e-324`],
    [String.raw`2.2250738585072014e-308`, String.raw`2.2250738585072014e-308`],
    [String.raw`1.7976931348623157e308`, String.raw`1.7976931348623157e+308`],
    [String.raw`1e400`, String.raw`Infinity`],
    [String.raw`-1e400`, String.raw`-Infinity`],
    [String.raw`1e-400`, String.raw`0.0`],
    [String.raw`-1e-400`, String.raw`-0.0`],
  ]);

  vectorTest("accept NaN, Infinity and -Infinity and write them as Python does", [
    [String.raw`NaN`, String.raw`NaN`],
    [String.raw`Infinity`, String.raw`Infinity`],
    [String.raw`-Infinity`, String.raw`-Infinity`],
    [String.raw`[NaN,Infinity,-Infinity]`, String.raw`[NaN,Infinity,-Infinity]`],
  ]);

  vectorTest("write integers exactly at any size", [
    [String.raw`100`, String.raw`100`],
    [String.raw`9223372036854775809`, String.raw`9223372036854775809`],
    [String.raw`-18446744073709551617`, String.raw`-18446744073709551617`],
  ]);

  test("accept an integer of 4300 digits and reject one of 4301 (Python 3.11 int limit)", () => {
    for (const digits of ["1".repeat(4300), `-${"9".repeat(4300)}`]) {
      assertCanonical(digits, digits);
      assertCanonical(`[${digits}]`, `[${digits}]`);
    }
    for (const digits of ["1".repeat(4301), `-${"9".repeat(4301)}`]) {
      assertRejected(digits);
      assertRejected(`{"n":${digits}}`);
    }
    // The limit is on int conversion only: a long float lexeme is a float (here it overflows).
    assertCanonical(`${"1".repeat(4301)}.0`, "Infinity");
  });
});

describe("canonical JSON strings", () => {
  vectorTest("escape non-ASCII as lowercase \\uXXXX and astral characters as surrogate pairs", [
    [String.raw`"\u00E9"`, String.raw`"\u00e9"`],
    [String.raw`"\u00e9"`, String.raw`"\u00e9"`],
    [String.raw`"\uFFFF\uE000\uFB01"`, String.raw`"\uffff\ue000\ufb01"`],
    [String.raw`"${"Ω≈ç√"} ${"∑"} ${"日本語"}"`, String.raw`"\u03a9\u2248\u00e7\u221a \u2211 \u65e5\u672c\u8a9e"`],
    [String.raw`"${"𝄞😀"}"`, String.raw`"\ud834\udd1e\ud83d\ude00"`],
    [String.raw`"\uD834\uDD1E"`, String.raw`"\ud834\udd1e"`],
  ]);

  vectorTest("do not escape /", [
    [String.raw`"/"`, String.raw`"/"`],
    [String.raw`"\/"`, String.raw`"/"`],
    [String.raw`"a/b\/c"`, String.raw`"a/b/c"`],
  ]);

  vectorTest("escape quote, backslash and every control character as Python does", [
    [String.raw`"\"\\"`, String.raw`"\"\\"`],
    [String.raw`"\b\f\n\r\t"`, String.raw`"\b\f\n\r\t"`],
    [String.raw`"\u0020~"`, String.raw`" ~"`],
    [
      String.raw`"\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\u0008\u0009\u000a\u000b\u000c\u000d\u000e\u000f\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017\u0018\u0019\u001a\u001b\u001c\u001d\u001e\u001f"`,
      String.raw`"\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\b\t\n\u000b\f\r\u000e\u000f\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017\u0018\u0019\u001a\u001b\u001c\u001d\u001e\u001f"`,
    ],
  ]);

  // Python's ensure_ascii encoder escapes everything outside 0x20..0x7e, so json.dumps("\x7f")
  // is '"\\u007f"'. DESIGN §3 says DEL stays raw; a Python-written hash over a string holding DEL
  // would then not verify, so both implementations follow Python.
  test("escape DEL (0x7f) as \\u007f exactly like Python json.dumps", () => {
    assertCanonical(String.raw`"\u007f"`, String.raw`"\u007f"`);
    assertCanonical('"a\x7fb"', String.raw`"a\u007fb"`);
    assertCanonical('{"\x7f":1,"~":2}', String.raw`{"~":2,"\u007f":1}`);
  });

  vectorTest("round-trip lone surrogate escapes such as \\ud800 as \\ud800", [
    [String.raw`"\ud800"`, String.raw`"\ud800"`],
    [String.raw`"\udfff"`, String.raw`"\udfff"`],
    [String.raw`"\udc00\ud800"`, String.raw`"\udc00\ud800"`],
    [String.raw`"\ud83dx"`, String.raw`"\ud83dx"`],
    [String.raw`"x\ud83d"`, String.raw`"x\ud83d"`],
    [String.raw`"\ud800\ud800\udc00"`, String.raw`"\ud800\ud800\udc00"`],
    [String.raw`"\ud83d${"😀"}"`, String.raw`"\ud83d\ud83d\ude00"`],
    [String.raw`{"\ud800":1}`, String.raw`{"\ud800":1}`],
    [String.raw`["\ud800","\ude00"]`, String.raw`["\ud800","\ude00"]`],
  ]);
});

describe("canonical JSON objects", () => {
  vectorTest("sort keys by code point where UTF-16 order differs (U+E000..U+FFFF vs astral)", [
    [String.raw`{"${"😀"}":1,"\ue000":2,"\uffff":3,"z":4,"\u0080":5}`, String.raw`{"z":4,"\u0080":5,"\ue000":2,"\uffff":3,"\ud83d\ude00":1}`],
    [String.raw`{"x${"😀"}":1,"x${"ﬁ"}":2,"x":3}`, String.raw`{"x":3,"x\ufb01":2,"x\ud83d\ude00":1}`],
    [
      String.raw`{"\ud83d\ude00":1,"\ud83d":2,"\ud83d\udfff":3,"\udbff\udfff":4,"\uffff":5}`,
      String.raw`{"\ud83d":2,"\uffff":5,"\ud83d\ude00":1,"\ud83d\udfff":3,"\udbff\udfff":4}`,
    ],
  ]);

  vectorTest("sort keys holding lone surrogates by code point", [
    [String.raw`{"\ud800\ud801":1,"\ud800\ud800":2}`, String.raw`{"\ud800\ud800":2,"\ud800\ud801":1}`],
    [String.raw`{"\ud83d\ud83d\ude00":1,"\ud83d\ue000":2}`, String.raw`{"\ud83d\ue000":2,"\ud83d\ud83d\ude00":1}`],
  ]);

  test("compareCodePoints orders by code point, not by UTF-16 code unit", () => {
    assert.ok(compareCodePoints("\ufb01", "\u{1f600}") < 0);
    assert.ok(compareCodePoints("\uffff", "\u{10000}") < 0);
    assert.ok(compareCodePoints("\ud800\ud800", "\ud800\ud801") < 0);
    assert.ok(compareCodePoints("\ud800\ud801", "\ud800\ud800") > 0);
    assert.ok(compareCodePoints("\ud83d\ue000", "\ud83d" + "\u{1f600}") < 0);
    assert.ok(compareCodePoints("\ud83d", "\u{1f600}") < 0);
    assert.equal(compareCodePoints("a\u{1f600}", "a\u{1f600}"), 0);
  });

  vectorTest("sort keys recursively and compare plain ASCII keys bytewise", [
    [String.raw`{"b":{"d":1,"c":2},"a":[{"f":1,"e":2}]}`, String.raw`{"a":[{"e":2,"f":1}],"b":{"c":2,"d":1}}`],
    [String.raw`{"aa":1,"a":2,"":3,"A":4,"~":5,"\u0080":6}`, String.raw`{"":3,"A":4,"a":2,"aa":1,"~":5,"\u0080":6}`],
  ]);

  vectorTest("keep the last value of a duplicate key", [
    [String.raw`{"a":1,"a":2}`, String.raw`{"a":2}`],
    [String.raw`{"a":1,"b":0,"a":[3]}`, String.raw`{"a":[3],"b":0}`],
    [String.raw`{"a":1,"\u0061":2}`, String.raw`{"a":2}`],
    [String.raw`{"${"😀"}":1,"\ud83d\ude00":2}`, String.raw`{"\ud83d\ude00":2}`],
    [String.raw`{"x":{"k":1,"k":{"k":2,"k":3}}}`, String.raw`{"x":{"k":{"k":3}}}`],
    [String.raw`{"b":1,"a":1,"b":2,"a":2,"b":3}`, String.raw`{"a":2,"b":3}`],
  ]);

  vectorTest("drop insignificant whitespace (space, tab, CR, LF) everywhere", [
    [' \t\r\n{ "a" : [ 1 , 2 ] ,\t"b":\r\n{ } }\n ', String.raw`{"a":[1,2],"b":{}}`],
    ["\n[]\n", "[]"],
    [' "x" ', '"x"'],
    ["\t5.0\r\n", "5.0"],
  ]);

  test("canonicalise documents large enough to grow the WASM kernel's tape and output", () => {
    const items = Array.from({ length: 150_000 }, (_, i) => (i % 3 === 0 ? `${i}.50` : i % 3 === 1 ? `"é${i}"` : `${i}`));
    const input = `[${items.join(",")}]`;
    const expected = `[${items.map((item, i) => (i % 3 === 0 ? `${i}.5` : i % 3 === 1 ? `"\\u00e9${i}"` : item)).join(",")}]`;
    assertCanonical(input, expected);
  });
});

describe("canonical JSON depth limit", () => {
  const arrays = (levels: number) => "[".repeat(levels) + "]".repeat(levels);
  const objects = (levels: number) => '{"k":'.repeat(levels) + "0" + "}".repeat(levels);

  test(`accept a document nested exactly jsonDepthMax (${jsonDepthMax}) levels`, () => {
    assertCanonical(arrays(jsonDepthMax), arrays(jsonDepthMax));
    assertCanonical(objects(jsonDepthMax), objects(jsonDepthMax));
  });

  test("reject jsonDepthMax + 1 levels with code depth_limit in both implementations", () => {
    assertRejected(arrays(jsonDepthMax + 1), "depth_limit");
    assertRejected(objects(jsonDepthMax + 1), "depth_limit");
    assertRejected(`[${'{"a":'.repeat(jsonDepthMax)}0${"}".repeat(jsonDepthMax)}]`, "depth_limit");
  });

  test("reject a million levels cleanly, without exhausting the stack", () => {
    assertRejected("[".repeat(1_000_000), "depth_limit");
    assertRejected(arrays(1_000_000), "depth_limit");
  });

  test("canonicalJson refuses a constructed value deeper than jsonDepthMax with code depth_limit", () => {
    let value: JsonValue = JsonNumber.int(1);
    for (let i = 0; i < jsonDepthMax; i++) value = [value];
    assert.equal(canonicalJson(value), `${"[".repeat(jsonDepthMax)}1${"]".repeat(jsonDepthMax)}`);
    const deeper: JsonValue = [value];
    assert.throws(() => canonicalJson(deeper), (error: unknown) => (error as { code?: string }).code === "depth_limit");
  });

  test("keep the WASM kernel usable after it rejected a document", () => {
    assertRejected(arrays(jsonDepthMax + 1), "depth_limit");
    assertRejected('{"a":');
    assertCanonical('{"b":1,"a":2.50}', '{"a":2.5,"b":1}');
  });
});

describe("canonical JSON rejects invalid documents", () => {
  test("reject truncated documents", () => {
    for (const input of ["", " ", '{"a":1', "[1,2", '"abc', '{"a":', '{"a"', "{", "[", "tru", "nul", "fals", "Na", "Infinit", "-Infinit", "-", "1.", "1e", "1e+", '"\\', '"\\u', '"\\u00']) {
      assertRejected(input);
    }
  });

  test("reject trailing garbage after the value", () => {
    for (const input of ['{"a":1}x', "1 2", "[1]]", "{} {}", '"a"b', "truex", "Infinity1", "1.5.2", "0x10"]) assertRejected(input);
  });

  test("reject raw control characters inside strings", () => {
    for (let c = 0; c < 0x20; c++) assertRejected(`"a${String.fromCharCode(c)}b"`);
    assertRejected('{"k\n":1}');
  });

  test("reject bad escapes", () => {
    for (const input of [String.raw`"\x41"`, String.raw`"\u12"`, String.raw`"\u12G4"`, String.raw`"\'"`, String.raw`"\U0001F600"`, String.raw`"\a"`, String.raw`"\0"`, String.raw`"\u{41}"`]) {
      assertRejected(input);
    }
  });

  test("reject numbers with leading zeros and other non-JSON numbers", () => {
    for (const input of ["01", "-01", "[00]", '{"a":007}', "00.5", ".5", "+1", "--1", "1.e5", "nan", "-NaN", "infinity", "-infinity", "+Infinity"]) {
      assertRejected(input);
    }
  });

  test("reject other grammar errors", () => {
    for (const input of ["[1,]", '{"a":1,}', "{a:1}", "'a'", '{"a"1}', '{"a",1}', "[1 2]", "{,}", "[,]", "\x0b1", "\x0c1", "\xa01", "{1:2}"]) {
      assertRejected(input);
    }
  });

  test("reject a byte order mark", () => {
    assertRejected("\ufeff{}");
    assertRejected("\ufeff1");
    assertRejected("[1,\ufeff2]");
    assertBytesRejected([0xef, 0xbb, 0xbf, 0x7b, 0x7d]);
  });

  test("reject invalid UTF-8 in the byte APIs", () => {
    const quoted = (...inner: number[]) => [0x22, ...inner, 0x22];
    assertBytesRejected(quoted(0xff));
    assertBytesRejected(quoted(0x80)); // lone continuation byte
    assertBytesRejected(quoted(0xc3)); // truncated 2-byte sequence
    assertBytesRejected(quoted(0xc3, 0x78));
    assertBytesRejected(quoted(0xe2, 0x82)); // truncated 3-byte sequence
    assertBytesRejected(quoted(0xf0, 0x9f, 0x98)); // truncated 4-byte sequence
    assertBytesRejected(quoted(0xc0, 0xaf)); // overlong "/"
    assertBytesRejected(quoted(0xe0, 0x80, 0xaf)); // overlong
    assertBytesRejected(quoted(0xed, 0xa0, 0x80)); // UTF-8 encoded surrogate U+D800
    assertBytesRejected(quoted(0xf4, 0x90, 0x80, 0x80)); // beyond U+10FFFF
    assertBytesRejected([0x22, 0xc3]); // truncated at the end of input
    assertBytesRejected([0x5b, 0x31, 0x5d, 0xff]); // after the value
    assertBytesRejected([0xff]);
    assertBytesRejected([0x7b, 0xc3, 0xa9, 0x3a, 0x31, 0x7d]); // non-ASCII outside a string
  });
});

// If this hash changes, we broke compatibility: every Eventloom hash and deterministic id is a
// SHA-256 over these bytes. The document gathers every tricky case of DESIGN §3 (number lexemes,
// -0, big ints, NaN/Infinity, non-ASCII, astral, lone surrogates, escapes, code-point key order,
// duplicate keys, whitespace).
// Expected bytes and hash: python3 3.11 json.dumps(json.loads(doc), sort_keys=True, separators=(",", ":")).
describe("canonical JSON frozen document", () => {
  const frozenDocument = String.raw`{
  "z": "last key",
  "b": 1,
  "a": [1, 2.50, 5.0, 1e16, 1e-7, 1e-07, 0.1, -0.0, -0, 1E5, 1e+05, 0.000123, 0.0001, 0.00001,
	123456789.0, 9999999999999998.0, 1e22, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308,
	1e400, -1e-400, 9223372036854775809, -18446744073709551617, NaN, Infinity, -Infinity, true, false, null],
  "strings": ["caf${"é"}", "${"😀"}", "\ud83d\ude00", "\ud800", "\udfff", "\ud800\ud800x", "\u0000\u001f\b\f\n\r\t",
	"\"\\\/", "~ tilde and space stay raw", "${"ﬁ"}", "\u00E9\u00e9", "\uFFFF\uE000", "${"Ω≈ç√"}"],
  "\ufb01": "U+FB01 sorts before the astral key",
  "${"😀"}": "U+1F600 sorts last",
  "\ue000": "U+E000 sorts before U+FB01 (and before any astral key)",
  "\ud800\ud801": "lone surrogates: sorts after the next key",
  "\ud800\ud800": "lone surrogates: sorts before the previous key",
  "dup": "first",
  "dup": "second wins",
  "facts_per_1k_prompt_tokens": 5.0,
  "nested": {"y": {"x": [{}, [], {"b": [], "a": {}}]}, "\u0061": "escaped a", "A": "upper"}
}
`;
  const frozenCanonical = String.raw`{"a":[1,2.5,5.0,1e+16,1e-07,1e-07,0.1,-0.0,0,100000.0,100000.0,0.000123,0.0001,1e-05,123456789.0,9999999999999998.0,1e+22,5e-324,2.2250738585072014e-308,1.7976931348623157e+308,Infinity,-0.0,9223372036854775809,-18446744073709551617,NaN,Infinity,-Infinity,true,false,null],"b":1,"dup":"second wins","facts_per_1k_prompt_tokens":5.0,"nested":{"A":"upper","a":"escaped a","y":{"x":[{},[],{"a":{},"b":[]}]}},"strings":["caf\u00e9","\ud83d\ude00","\ud83d\ude00","\ud800","\udfff","\ud800\ud800x","\u0000\u001f\b\f\n\r\t","\"\\/","~ tilde and space stay raw","\ufb01","\u00e9\u00e9","\uffff\ue000","\u03a9\u2248\u00e7\u221a"],"z":"last key","\ud800\ud800":"lone surrogates: sorts before the previous key","\ud800\ud801":"lone surrogates: sorts after the next key","\ue000":"U+E000 sorts before U+FB01 (and before any astral key)","\ufb01":"U+FB01 sorts before the astral key","\ud83d\ude00":"U+1F600 sorts last"}`;
  const frozenSha256 = "b96953d257a19cbda8df97db9326c0d9b05fca27796f628f22ea4c36d30ec413";

  test("pin the canonical bytes and SHA-256 of the frozen document (TS)", () => {
    const canonical = viaTs(frozenDocument);
    assert.equal(canonical, frozenCanonical);
    assert.equal(canonical.length, 907);
    assert.equal(sha256Hex(canonical), frozenSha256);
    assert.equal(sha256Hex(viaTsBytes(encoder.encode(frozenDocument))), frozenSha256);
  });

  test("pin the canonical bytes and SHA-256 of the frozen document (WASM)", () => {
    const bytes = wasmCanonicalize(encoder.encode(frozenDocument));
    assert.equal(decoder.decode(bytes), frozenCanonical);
    assert.equal(createHash("sha256").update(bytes).digest("hex"), frozenSha256);
  });
});
