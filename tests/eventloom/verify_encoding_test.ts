/**
 * The hash covers values, not their spelling on disk: the same log stored with raw UTF-8,
 * with lowercase or uppercase `\u` escapes, with `\/`, or with other number lexemes for the same
 * value verifies identically with zaxy and with the Python reference verifier. The rewrites are
 * done by python3 (independent of the code under test).
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { fromJs, JsonNumber, parseJson } from "../../src/canonical/mod.ts";
import type { PlainJson } from "../../src/projection/types.ts";
import { readEvents, verifyLog, writeConfig } from "../../src/eventloom/mod.ts";
import { appendEvents } from "../../src/events/append.ts";
import { runZaxy } from "../cli/zaxy.ts";
import { interopDir, makeTempDir, python, pythonWith, readLines, refVerifyMany, removeTempDirs, skipWithoutPython, type Verdict, writeLines } from "./testkit.ts";

after(removeTempDirs);

function verdictOf(report: Verdict): Verdict {
  return { ok: report.ok, total_events: report.total_events, broken_at_seq: report.broken_at_seq, broken_reason: report.broken_reason };
}

/** Payload strings that exercise every escaping rule (no backslash is followed by `u`). */
const tricky: Record<string, PlainJson> = {
  latin: "café crème brûlée",
  cjk: "日本語のテキスト",
  astral: "😀 𝄞 𠜎",
  combining: "e\u0301 a\u0308",
  separators: "line\u2028para\u2029end",
  // DEL (0x7f) has its own test below: Python escapes it in ASCII mode.
  controls: "\u0000\u0001\u001f\u0080\u009f",
  specials: 'quote " backslash \\ slash / tab \t nl \n cr \r bs \b ff \f',
  bmpEdges: "\ud7ff\ue000\uffff\ufeff",
  "é-key": 1,
  "\ufb01": "ligature key (sorts before the astral key)",
  "😀": "astral key (sorts last by code point)",
  Zed: ["ü", { "ñ": "ø", "ß": null }],
};

/** One line per encoding of `file`, rewritten by python3 from the parsed values. */
function rewrite(file: string, out: string, mode: "raw" | "escaped" | "upper-escaped"): void {
  const program = `
import json, re, sys
def raw(o):
    s = json.dumps(o, ensure_ascii=False, separators=(",", ":"))
    # Lone surrogates cannot be UTF-8: keep them escaped, as every writer must.
    return re.sub("[\\ud800-\\udfff]", lambda m: "\\\\u%04x" % ord(m.group()), s)
def escaped(o):
    return json.dumps(o, ensure_ascii=True, separators=(",", ":"))
def upper(o):
    s = escaped(o)
    s = re.sub(r"\\\\u([0-9a-f]{4})", lambda m: "\\\\u" + m.group(1).upper(), s)
    return s.replace("/", "\\\\/")
mode = ${JSON.stringify(mode)}
fn = {"raw": raw, "escaped": escaped, "upper-escaped": upper}[mode]
out = []
for line in sys.stdin.read().split("\\n"):
    if line.strip():
        out.append(fn(json.loads(line)))
sys.stdout.write("\\n".join(out) + "\\n")
`;
  const text = python(program, fs.readFileSync(file, "utf8"));
  fs.writeFileSync(out, text, "utf8");
}

const hasPython = skipWithoutPython === false;

describe("string encodings on disk", { skip: skipWithoutPython }, () => {
  let dir = "";
  let zaxyLog = "";
  before(async () => {
    dir = makeTempDir("encoding");
    const root = path.join(dir, "root");
    writeConfig(root, { envelope: "v1" });
    let micros = Date.UTC(2026, 4, 20, 2, 58, 49) * 1000 + 961953;
    const clock = () => (micros += 1_000_001);
    const payload = fromJs(tricky);
    // v1 lines (ASCII escapes), then legacy lines (raw UTF-8) after a type that forces legacy.
    await appendEvents(root, "enc", [
      { type: "note.added", actor: "agent-é", payload },
      { type: "note.added", actor: "agent-😀", payload: fromJs({ lone: "\ud800 and \udfff", ...tricky }) },
    ], { clock });
    await appendEvents(root, "enc", [
      { type: "note.added_raw", actor: "agent-日本", payload },
      { type: "note.added", actor: "agent", payload: fromJs({ lone: "x\udbff" }) },
    ], { clock });
    zaxyLog = path.join(root, "enc.jsonl");
  });

  test("the zaxy-written log mixes v1 lines (pure ASCII) and legacy lines (raw UTF-8)", () => {
    const lines = readLines(zaxyLog);
    assert.equal(lines.length, 4);
    assert.match(lines[0], /^\{"id":/);
    assert.match(lines[0], /^[\x00-\x7f]*$/);
    assert.ok(lines[0].includes("caf\\u00e9"));
    assert.match(lines[2], /^\{"seq":3,/);
    assert.ok(lines[2].includes("café crème"));
    assert.ok(!lines[2].includes("\\u00e9"));
    // Lone surrogates stay escaped in raw UTF-8 lines.
    assert.ok(lines[3].includes('"x\\udbff"'));
  });

  test("raw UTF-8, lowercase \\u escapes and uppercase \\u escapes with \\/ all verify identically", async () => {
    const variants = ["raw", "escaped", "upper-escaped"] as const;
    const files = variants.map((mode) => {
      const out = path.join(dir, `enc.${mode}.jsonl`);
      rewrite(zaxyLog, out, mode);
      return out;
    });
    const raw = fs.readFileSync(files[0], "utf8");
    assert.ok(raw.includes("café crème") && raw.includes("😀") && !raw.includes("\\u00e9"));
    assert.match(fs.readFileSync(files[1], "utf8"), /^[\x00-\x7f]*$/);
    assert.ok(fs.readFileSync(files[2], "utf8").includes("\\u00E9") && fs.readFileSync(files[2], "utf8").includes("\\/"));
    for (const variant of files) assert.notEqual(fs.readFileSync(variant, "utf8"), fs.readFileSync(zaxyLog, "utf8"));

    const expected = { ok: true, total_events: 4, broken_at_seq: null, broken_reason: null };
    for (const file of [zaxyLog, ...files]) assert.deepEqual(verdictOf(await verifyLog(file)), expected, file);
    assert.deepEqual(refVerifyMany([zaxyLog, ...files]), Array(4).fill(expected));

    const run = runZaxy(["verify", zaxyLog, ...files, "--json"], { cwd: dir });
    assert.equal(run.code, 0, run.stdout);
    assert.equal(run.stderr, "");
    assert.deepEqual(JSON.parse(run.stdout).logs.map(verdictOf), Array(4).fill(expected));

    // Same values read back: replay shows identical events whatever the spelling.
    const replays = [zaxyLog, ...files].map((file) => {
      const out = runZaxy(["replay", file, "--json"], { cwd: dir });
      assert.equal(out.code, 0, out.stderr);
      return JSON.parse(out.stdout).events;
    });
    for (const events of replays.slice(1)) assert.deepEqual(events, replays[0]);
    assert.equal(replays[0][0].payload.latin, "café crème brûlée");
    assert.equal(replays[0][0].payload["😀"], "astral key (sorts last by code point)");
  });

  test("a Python-written legacy log with non-ASCII text verifies in both spellings", async () => {
    // Written and sealed by python3 alone (ensure_ascii=False, as pydantic writes legacy lines).
    const program = `
prev = None
lines = []
payloads = json.loads(sys.stdin.read())
for i, payload in enumerate(payloads, 1):
    rec = {"seq": i, "timestamp": "2026-05-20T02:58:%02d.5Z" % i, "type": "note", "actor": "pythön", "thread": "py",
           "payload": payload, "security": {"sensitivity": "public", "redacted_paths": []}, "prev_hash": prev}
    rec["hash"] = legacy_hash(rec)
    prev = rec["hash"]
    lines.append(json.dumps(rec, ensure_ascii=False, separators=(",", ":")))
sys.stdout.write("\\n".join(lines) + "\\n")
`;
    const payloads = [{ text: "naïve café" }, { emoji: "🎉🎉", "clé": "値" }, { mixed: ["ü", 1.5, 1e16, -0.0, 12345678901234567890n.toString()] }];
    const file = path.join(dir, "py.raw.jsonl");
    fs.writeFileSync(file, pythonWith(program, JSON.stringify(payloads)), "utf8");
    const escapedFile = path.join(dir, "py.escaped.jsonl");
    rewrite(file, escapedFile, "escaped");
    const expected = { ok: true, total_events: 3, broken_at_seq: null, broken_reason: null };
    for (const f of [file, escapedFile]) assert.deepEqual(verdictOf(await verifyLog(f)), expected, f);
    assert.deepEqual(refVerifyMany([file, escapedFile]), [expected, expected]);
  });
});

describe("number lexemes and duplicate keys on disk", () => {
  /** Rewrites number lexemes in the payload text of one line of an interop-style log, keeping values. */
  test("equal numbers spelled differently (1E5, 5.00, 0.5e0, -0.00, 1e-07 vs 1e-7) verify as sealed from the values", { skip: skipWithoutPython }, async () => {
    const dir = makeTempDir("numbers");
    const program = `
rec = {"seq": 1, "timestamp": "2026-01-01T00:00:00Z", "type": "metric", "actor": "py", "thread": "n",
       "payload": {"a": 100000.0, "b": 5.0, "c": 0.5, "d": -0.0, "e": 1e-07, "f": 1e+16, "g": 12345678901234567890, "h": 0.1},
       "security": None, "prev_hash": None}
rec["hash"] = legacy_hash(rec)
sys.stdout.write(json.dumps(rec, separators=(",", ":")))
`;
    const line = pythonWith(program);
    assert.ok(line.includes('"a":100000.0,"b":5.0,"c":0.5,"d":-0.0,"e":1e-07,"f":1e+16'), line);
    const respelled = line
      .replace('"a":100000.0', '"a":1E5')
      .replace('"b":5.0', '"b":5.00')
      .replace('"c":0.5', '"c":0.5e0')
      .replace('"d":-0.0', '"d":-0.00')
      .replace('"e":1e-07', '"e":1e-7')
      .replace('"f":1e+16', '"f":10000000000000000.0')
      .replace('"h":0.1', '"h":1.0000000000000000555e-1');
    assert.notEqual(respelled, line);
    const files = [line, respelled].map((text, i) => {
      const file = path.join(dir, `n${i}.jsonl`);
      fs.writeFileSync(file, text + "\n");
      return file;
    });
    const expected = { ok: true, total_events: 1, broken_at_seq: null, broken_reason: null };
    assert.deepEqual(refVerifyMany(files), [expected, expected]);
    for (const file of files) assert.deepEqual(verdictOf(await verifyLog(file)), expected, file);
  });

  test("an integer-valued float (5.0) is not the integer 5: writing 5 instead breaks the seal", async () => {
    const dir = makeTempDir("numbers");
    const source = readLines(path.join(interopDir, "legacy-activation-release.jsonl"));
    assert.ok(source[0].includes('"facts_per_1k_prompt_tokens":5.0'));
    const file = path.join(dir, "five.jsonl");
    writeLines(file, [source[0].replace('"facts_per_1k_prompt_tokens":5.0', '"facts_per_1k_prompt_tokens":5'), source[1]]);
    const expected = { ok: false, total_events: 1, broken_at_seq: 1, broken_reason: "Event 1 hash mismatch" };
    assert.deepEqual(verdictOf(await verifyLog(file)), expected);
    if (hasPython) assert.deepEqual(refVerifyMany([file])[0], expected);
  });

  test("NaN, Infinity and -Infinity written by Python are read and hashed as Python does", { skip: skipWithoutPython }, async () => {
    const dir = makeTempDir("numbers");
    const program = `
rec = {"seq": 1, "timestamp": "2026-01-01T00:00:00Z", "type": "metric", "actor": "py", "thread": "n",
       "payload": {"nan": float("nan"), "inf": float("inf"), "ninf": float("-inf"), "list": [float("inf"), 1.5]},
       "security": {"sensitivity": "public", "redacted_paths": []}, "prev_hash": None}
rec["hash"] = legacy_hash(rec)
sys.stdout.write(json.dumps(rec, separators=(",", ":")) + "\\n")
`;
    const file = path.join(dir, "nan.jsonl");
    fs.writeFileSync(file, pythonWith(program));
    assert.ok(fs.readFileSync(file, "utf8").includes('"nan":NaN,"inf":Infinity,"ninf":-Infinity'));
    const expected = { ok: true, total_events: 1, broken_at_seq: null, broken_reason: null };
    assert.deepEqual(refVerifyMany([file])[0], expected);
    assert.deepEqual(verdictOf(await verifyLog(file)), expected);
  });

  test("duplicate payload keys: the last value wins, as in Python's json.loads", { skip: skipWithoutPython }, async () => {
    const dir = makeTempDir("numbers");
    const program = `
rec = {"seq": 1, "timestamp": "2026-01-01T00:00:00Z", "type": "x", "actor": "py", "thread": "d",
       "payload": {"k": "second", "z": 1}, "security": None, "prev_hash": None}
rec["hash"] = legacy_hash(rec)
sys.stdout.write(json.dumps(rec, separators=(",", ":")))
`;
    const line = pythonWith(program).replace('"payload":{"k":"second"', '"payload":{"k":"first","z":0,"k":"second"');
    const file = path.join(dir, "dup.jsonl");
    fs.writeFileSync(file, line + "\n");
    const expected = { ok: true, total_events: 1, broken_at_seq: null, broken_reason: null };
    assert.deepEqual(refVerifyMany([file])[0], expected);
    assert.deepEqual(verdictOf(await verifyLog(file)), expected);
    const { events } = readEvents(file);
    assert.equal(events[0].payload.get("k"), "second");
    assert.deepEqual(events[0].payload.get("z"), new JsonNumber("1", false));
  });

  test("parseJson keeps number lexemes and the int/float distinction", () => {
    const value = parseJson('{"a":5.0,"b":5,"c":1E5,"d":-0,"e":12345678901234567890123}') as Map<string, JsonNumber>;
    assert.deepEqual(
      [...value.values()].map((n) => [n.lexeme, n.isFloat]),
      [
        ["5.0", true],
        ["5", false],
        ["1E5", true],
        ["-0", false],
        ["12345678901234567890123", false],
      ],
    );
  });
});

describe("DEL (0x7f)", () => {
  test("a payload with DEL is sealed as Python seals it: ensure_ascii escapes DEL as \\u007f", { skip: skipWithoutPython }, async () => {
    // Python: json.dumps("\x7f") == '"\\u007f"' (ESCAPE_ASCII is [^\\ -~]); only ensure_ascii=False leaves DEL raw.
    assert.equal(python('import json; print(json.dumps("a\\x7fb"), json.dumps("a\\x7fb", ensure_ascii=False))').trim(), '"a\\u007fb" "a\x7fb"');
    const dir = makeTempDir("del");
    for (const envelope of ["v1", "legacy"] as const) {
      const root = path.join(dir, envelope);
      writeConfig(root, { envelope });
      await appendEvents(root, "s", [{ type: "note.added", actor: "a", payload: fromJs({ text: "a\u007fb" }) }]);
      const file = path.join(root, "s.jsonl");
      const expected = { ok: true, total_events: 1, broken_at_seq: null, broken_reason: null };
      assert.deepEqual(refVerifyMany([file])[0], expected, `${envelope}: ref_verify.py accepts zaxy's seal`);
      assert.deepEqual(verdictOf(await verifyLog(file)), expected);
      if (envelope === "v1") assert.ok(readLines(file)[0].includes('"text":"a\\u007fb"'), "v1 lines are json.dumps(ensure_ascii=True)");
    }
  });

  test("a Python-written log whose payload holds DEL verifies (its seal escapes DEL)", { skip: skipWithoutPython }, async () => {
    const program = `
rec = {"seq": 1, "timestamp": "2026-01-01T00:00:00Z", "type": "note", "actor": "py", "thread": "d",
       "payload": {"text": "a\\x7fb"}, "security": None, "prev_hash": None}
rec["hash"] = legacy_hash(rec)
sys.stdout.write(json.dumps(rec, ensure_ascii=False, separators=(",", ":")) + "\\n")
`;
    const file = path.join(makeTempDir("del"), "py-del.jsonl");
    fs.writeFileSync(file, pythonWith(program));
    const expected = { ok: true, total_events: 1, broken_at_seq: null, broken_reason: null };
    assert.deepEqual(refVerifyMany([file])[0], expected);
    assert.deepEqual(verdictOf(await verifyLog(file)), expected);
  });
});

describe("whitespace-only lines", () => {
  test("lines holding only Unicode whitespace (NBSP, NEL, U+2028, U+3000) are skipped as ref_verify's str.strip() skips them", { skip: skipWithoutPython }, async () => {
    const dir = makeTempDir("blank");
    const [first, second] = readLines(path.join(interopDir, "legacy-activation-release.jsonl"));
    const files = ["\u00a0", "\u0085", "\u2028", "\u3000"].map((ws, i) => {
      const file = path.join(dir, `ws${i}.jsonl`);
      fs.writeFileSync(file, `${first}\n${ws}\n${second}\n`, "utf8");
      return file;
    });
    const expected = { ok: true, total_events: 2, broken_at_seq: null, broken_reason: null };
    assert.deepEqual(refVerifyMany(files), Array(files.length).fill(expected));
    const reports = await Promise.all(files.map((file) => verifyLog(file)));
    assert.deepEqual(reports.map(verdictOf), Array(files.length).fill(expected));
  });
});
