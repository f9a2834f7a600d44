// test-lane: full (slow)
/**
 * Hostile input, part 2 (issue 12 item 13): values nothing can read back are refused on write
 * with exit 2, naming the line (ingest, 1-based) and the field, and nothing is written:
 * invalid UTF-8 (ingest used to replace it with U+FFFD and exit 0), U+FFFD and lone surrogates
 * in an event type or actor, blank or whitespace event types and actors, duplicate event ids
 * (within a batch, or already in the log), and NaN, ±Infinity and floats that overflow to
 * infinity (`1e999999`), which were written as bare `NaN`/`Infinity` that jq and JavaScript
 * cannot parse. Reading is unchanged: a log Python wrote with NaN in it still verifies and can
 * be appended to.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { invalidUtf8Offset, nonFiniteNumbers, parseJson } from "../../src/canonical/mod.ts";
import { makeTempDir, pythonWith, readLines, refVerify, removeTempDirs, skipWithoutPython } from "../eventloom/testkit.ts";
import { Rng } from "../testkit/rng.ts";
import { childEnv, runZaxy, stackTraceLines, type ZaxyRun, zaxyInvocation } from "../cli/zaxy.ts";

after(removeTempDirs);

const hasPython = skipWithoutPython === false;

/** A fresh root with one event, so "nothing written" is a byte comparison of an existing log. */
function seeded(): { dir: string; log: string; before: Buffer } {
  const dir = makeTempDir("hostile-values");
  const run = runZaxy(["memory", "append", "goal.created", "--actor", "agent", "--payload-json", '{"title":"seed"}'], { cwd: dir });
  assert.equal(run.code, 0, run.stderr);
  const log = path.join(dir, ".eventloom", "default.jsonl");
  return { dir, log, before: fs.readFileSync(log) };
}

function ingest(dir: string, input: string | Uint8Array): ZaxyRun {
  return runZaxy(["memory", "ingest", "-", "--json"], { cwd: dir, input });
}

/** Exit 2, one `{error}` document whose message matches every pattern, no trace, log unchanged. */
function assertRefusedJson(run: ZaxyRun, patterns: RegExp[], log: string, before: Buffer, label: string): { code: string; message: string; field?: string; line?: number } {
  assert.equal(run.code, 2, `${label}: ${run.stderr}${run.stdout}`);
  assert.equal(run.stderr, "", label);
  const error = JSON.parse(run.stdout).error;
  for (const pattern of patterns) assert.match(error.message, pattern, label);
  assert.match(error.message, /Nothing was written\.$/, label);
  assert.deepEqual(stackTraceLines(run.stdout), [], label);
  assert.deepEqual(fs.readFileSync(log), before, `${label}: log bytes unchanged`);
  return error;
}

const item = (fields: Record<string, unknown>): string => JSON.stringify({ event_type: "note.added", actor: "agent", ...fields });

describe("invalid UTF-8 is refused, never replaced by U+FFFD", () => {
  test("memory ingest: a line with invalid UTF-8 (in a payload, an event type or an actor) is exit 2 naming the 1-based line and byte", () => {
    const { dir, log, before } = seeded();
    const good = Buffer.from(item({ payload: { n: 1 } }) + "\n");
    const badPayload = Buffer.concat([Buffer.from('{"event_type":"note.added","actor":"agent","payload":{"t":"caf'), Buffer.from([0xe9]), Buffer.from('"}}\n')]);
    const badType = Buffer.concat([Buffer.from('{"event_type":"note.'), Buffer.from([0xff]), Buffer.from('","actor":"agent"}\n')]);
    const badActor = Buffer.concat([Buffer.from('{"event_type":"note.added","actor":"a'), Buffer.from([0xc3, 0x28]), Buffer.from('"}\n')]);
    const input = Buffer.concat([good, Buffer.from("\n"), badPayload, good, badType, badActor]);
    const error = assertRefusedJson(ingest(dir, input), [
      /^Cannot ingest: stdin line 3 is not valid JSON: invalid UTF-8 at byte 62; stdin line 5 is not valid JSON: invalid UTF-8 at byte 20; stdin line 6 is not valid JSON: invalid UTF-8 at byte 37\./,
    ], log, before, "ingest");
    assert.deepEqual([error.code, error.field, error.line], ["invalid_event", "stdin", 3]);
    assert.doesNotMatch(fs.readFileSync(log, "utf8"), /\ufffd/);
  });

  test("memory ingest FILE refuses invalid UTF-8 the same way, naming the file", () => {
    const { dir, log, before } = seeded();
    fs.writeFileSync(path.join(dir, "items.jsonl"), Buffer.concat([Buffer.from(item({}) + "\n"), Buffer.from('{"event_type":"note.added","actor":"\xff"}\n', "latin1")]));
    const run = runZaxy(["memory", "ingest", "items.jsonl"], { cwd: dir });
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /Cannot ingest: items\.jsonl line 2 is not valid JSON: invalid UTF-8 at byte 36\. Nothing was written\./);
    assert.deepEqual(fs.readFileSync(log), before);
  });

  test("memory append: an event type or actor given as invalid UTF-8 on the command line (U+FFFD after decoding) is exit 2", () => {
    const { dir, log, before } = seeded();
    // The shell passes the raw byte 0xFF; the runtime decodes argv leniently into U+FFFD.
    // The CLI names a field by its flag when it has one (--actor); TYPE is a positional argument.
    for (const [args, field, jsonField] of [[`"$(printf 'note.\\377')" --actor agent`, "event_type", "event_type"], [`note.added --actor "$(printf 'ag\\377ent')"`, "actor", "--actor"]]) {
      const run = spawnSync("sh", ["-c", `"$0" "$@" memory append ${args} --json`, zaxyInvocation.command, ...zaxyInvocation.args], { cwd: dir, env: childEnv(), encoding: "utf8" });
      const error = assertRefusedJson({ code: run.status, stdout: run.stdout, stderr: run.stderr }, [new RegExp(`^Cannot append: ${field} ".*\ufffd.*" contains U\\+FFFD, the mark of invalid UTF-8 replaced by a decoder`)], log, before, field);
      assert.equal(error.field, jsonField);
    }
  });

  test("a lone UTF-16 surrogate (\\ud800, \\udc00) in an event type or actor is exit 2; a proper surrogate pair is valid", () => {
    const { dir, log, before } = seeded();
    const input = ['{"event_type":"note.\\ud800","actor":"agent"}', '{"event_type":"note.added","actor":"a\\udc00"}', '{"event_type":"note.added","actor":"\\ud83d\\ude00 bot"}'].join("\n") + "\n";
    assertRefusedJson(ingest(dir, input), [
      /line 1: event_type "note\.\\ud800" contains a lone UTF-16 surrogate, which is not valid Unicode; line 2: actor "a\\udc00" contains a lone UTF-16 surrogate/,
    ], log, before, "surrogates");
    const pair = ingest(dir, '{"event_type":"note.added","actor":"\\ud83d\\ude00 bot"}\n');
    assert.equal(pair.code, 0, pair.stdout);
  });
});

describe("blank and whitespace event types and actors are refused", () => {
  const refusedTypes = ["   ", "\u3000", "note added", " note.added", "note.added\u00a0", "note.added\t"];
  for (const type of refusedTypes) {
    test(`memory append refuses event type ${JSON.stringify(type)} with exit 2`, () => {
      const { dir, log, before } = seeded();
      const run = runZaxy(["memory", "append", type, "--actor", "agent", "--json"], { cwd: dir });
      const error = assertRefusedJson(run, [/^Cannot append: event_type /], log, before, JSON.stringify(type));
      assert.equal(error.field, "event_type");
    });
  }

  test("memory ingest names every offending line: blank type, whitespace type, blank actor, padded actor", () => {
    const { dir, log, before } = seeded();
    const input = [item({ event_type: "  " }), item({ event_type: "note added" }), item({}), item({ actor: " \t " }), item({ actor: "agent " })].join("\n") + "\n";
    assertRefusedJson(ingest(dir, input), [
      /^Cannot ingest: line 1: event_type "  " is blank; line 2: event_type "note added" contains whitespace; event types are identifiers such as "goal\.created"; line 4: actor " \\t " contains a control character; line 5: actor "agent " starts or ends with whitespace\./,
    ], log, before, "ingest");
  });

  test("an actor with inner spaces and a one-segment legacy type are still accepted", () => {
    const { dir } = seeded();
    const run = runZaxy(["memory", "append", "x", "--actor", "Jane Doe", "--allow-envelope-switch", "--json"], { cwd: dir });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(JSON.parse(run.stdout).event_type, "x");
  });
});

describe("event ids are unique: a duplicate in the batch or in the log is refused", () => {
  test("two ingest lines with the same id: exit 2 naming the id and both lines", () => {
    const { dir, log, before } = seeded();
    const input = [item({ id: "evt-a" }), item({ id: "evt-b" }), item({ id: "evt-a" })].join("\n") + "\n";
    const error = assertRefusedJson(ingest(dir, input), [/^Cannot ingest: line 3: id "evt-a" is already used by line 1 of this batch; event ids are unique\./], log, before, "batch");
    assert.deepEqual([error.field, error.line], ["stdin", 3]);
  });

  test("an id already in the log (given by a producer, or generated by zaxy) is exit 2 naming the event holding it", () => {
    const { dir, log } = seeded();
    const first = ingest(dir, item({ id: "evt-a" }) + "\n");
    assert.equal(first.code, 0, first.stdout);
    const before = fs.readFileSync(log);
    assertRefusedJson(ingest(dir, [item({ id: "evt-new" }), item({ id: "evt-a" })].join("\n") + "\n"), [/^Cannot append: line 2: id "evt-a" is already event 2 of the log; event ids are unique\./], log, before, "producer id");
    const generated = JSON.parse(readLines(log)[0]).id as string;
    assert.match(generated, /^evt_zaxy_000000000001_[0-9a-f]{16}$/);
    assertRefusedJson(ingest(dir, item({ id: generated }) + "\n"), [new RegExp(`line 1: id "${generated}" is already event 1 of the log`)], log, before, "generated id");
    assert.equal(readLines(log).length, 2);
  });

  test("a retried item with the same producer_ref and id is deduplicated, not refused", () => {
    const { dir, log } = seeded();
    const line = item({ id: "evt-r", producer_ref: "run-1:0" }) + "\n";
    assert.equal(ingest(dir, line).code, 0);
    const retry = ingest(dir, line);
    assert.equal(retry.code, 0, retry.stdout);
    assert.deepEqual([JSON.parse(retry.stdout).imported, JSON.parse(retry.stdout).deduped], [0, 1]);
    assert.equal(readLines(log).length, 2);
  });
});

describe("NaN, Infinity and floats that overflow to infinity are refused on write, naming the JSON path", () => {
  const payloads: Array<[string, string, string]> = [
    ['{"a":{"b":NaN}}', "payload.a.b", "NaN"],
    ['{"x":[1,Infinity]}', "payload.x[1]", "Infinity"],
    ['{"x":-Infinity}', "payload.x", "-Infinity"],
    ['{"x":1e999999}', "payload.x", "1e999999 \\(overflows to Infinity\\)"],
    ['{"deep":[{"y":-1.5e400}]}', "payload.deep[0].y", "-1.5e400 \\(overflows to -Infinity\\)"],
  ];
  for (const [payload, where, shown] of payloads) {
    test(`${payload} via --payload-json, --payload-file, stdin and ingest: exit 2 naming ${where}`, () => {
      const { dir, log, before } = seeded();
      fs.writeFileSync(path.join(dir, "payload.json"), payload);
      const message = new RegExp(`${where.replace(/[.[\]]/g, "\\$&")} is ${shown}: JSON cannot carry NaN or infinity \\(jq and JavaScript cannot read them\\)`);
      const append = ["memory", "append", "metric.recorded", "--actor", "agent", "--json"];
      const runs: Array<[string, ZaxyRun]> = [
        ["--payload-json", runZaxy([...append, "--payload-json", payload], { cwd: dir })],
        ["--payload-file", runZaxy([...append, "--payload-file", "payload.json"], { cwd: dir })],
        ["stdin", runZaxy(append, { cwd: dir, input: payload })],
        ["ingest", ingest(dir, `${item({})}\n{"event_type":"metric.recorded","actor":"agent","payload":${payload}}\n`)],
      ];
      for (const [label, run] of runs) {
        const error = assertRefusedJson(run, [message, ...(label === "ingest" ? [/^Cannot ingest: line 2: /] : [])], log, before, label);
        // Ingest names the input and the line; the other front doors name the payload path.
        if (label === "ingest") assert.deepEqual([error.field, error.line], ["stdin", 2], label);
        else assert.equal(error.field, where, label);
      }
    });
  }

  test("large but finite numbers are written exactly and every JSON reader can parse the line", { skip: skipWithoutPython }, () => {
    const { dir, log } = seeded();
    const run = runZaxy(["memory", "append", "metric.recorded", "--actor", "agent", "--payload-json", '{"max":1.7976931348623157e308,"big":123456789012345678901234567890,"tiny":5e-324}'], { cwd: dir });
    assert.equal(run.code, 0, run.stderr);
    const last = readLines(log).at(-1) as string;
    assert.doesNotMatch(last, /NaN|Infinity/);
    assert.equal(JSON.parse(last).payload.max, 1.7976931348623157e308);
    assert.equal(refVerify(log).code, 0);
  });
});

describe("reading logs with NaN keeps working (Python writes them)", { skip: skipWithoutPython }, () => {
  /** Two events written the way Python's json writes them (allow_nan), legacy or v1, chained. */
  function pythonNanLog(envelope: "legacy" | "v1"): string {
    const program = `
ts = "2026-01-01T00:00:00.000000Z"
payload = {"score": float("nan"), "hi": float("inf"), "lo": float("-inf"), "ok": 1.5}
security = {"sensitivity": "public", "redacted_paths": []}
prev = None
for seq in (1, 2):
    if ${JSON.stringify(envelope)} == "legacy":
        rec = {"seq": seq, "timestamp": ts, "type": "metric.recorded", "actor": "py", "thread": "default", "payload": payload, "security": security, "prev_hash": prev}
        rec["hash"] = legacy_hash(rec)
        prev = rec["hash"]
        print(json.dumps(rec, ensure_ascii=False, separators=(",", ":")))
    else:
        rec = {"id": event_id("py", seq, ts, "metric.recorded"), "type": "metric.recorded", "actorId": "py", "threadId": "default", "parentEventId": None, "causedBy": [], "timestamp": ts, "payload": dict(payload, __zaxy_security=security)}
        h = v1_hash(rec, prev)
        rec["integrity"] = {"hash": "sha256:" + h, "previousHash": None if prev is None else "sha256:" + prev}
        prev = h
        print(json.dumps(rec, separators=(",", ":")))
`;
    const dir = makeTempDir("hostile-values");
    fs.mkdirSync(path.join(dir, ".eventloom"));
    const log = path.join(dir, ".eventloom", "default.jsonl");
    fs.writeFileSync(log, pythonWith(program));
    assert.match(fs.readFileSync(log, "utf8"), /"score":NaN,"hi":Infinity,"lo":-Infinity/);
    assert.equal(refVerify(log).code, 0);
    return dir;
  }

  for (const envelope of ["legacy", "v1"] as const) {
    test(`a ${envelope} log Python wrote with NaN and ±Infinity verifies, replays and accepts a new event (exit 0)`, () => {
      const dir = pythonNanLog(envelope);
      const log = path.join(dir, ".eventloom", "default.jsonl");
      const verified = runZaxy(["verify", "--json"], { cwd: dir });
      assert.equal(verified.code, 0, verified.stdout);
      assert.equal(JSON.parse(verified.stdout).logs[0].total_events, 2);
      const replayed = runZaxy(["replay", log, "--json"], { cwd: dir });
      assert.equal(replayed.code, 0, replayed.stderr);
      const appended = runZaxy(["memory", "append", "note.added", "--actor", "agent", "--payload-json", '{"n":1}'], { cwd: dir });
      assert.equal(appended.code, 0, appended.stderr);
      assert.equal(runZaxy(["verify"], { cwd: dir }).code, 0);
      assert.equal(refVerify(log).code, 0);
    });
  }
});

describe("the helpers behind the refusals", () => {
  test("invalidUtf8Offset agrees with a fatal TextDecoder on random bytes (seed 1212) and names the first bad byte", () => {
    const seed = 1212;
    const rng = new Rng(seed);
    const strict = new TextDecoder("utf-8", { fatal: true });
    const pieces = [[0x41], [0xc3, 0xa9], [0xe2, 0x82, 0xac], [0xf0, 0x9f, 0x98, 0x80], [0xed, 0xa0, 0x80], [0xc0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe0, 0x80, 0x80], [0x80], [0xff], [0xf0, 0x9f]];
    for (let round = 0; round < 3000; round++) {
      const bytes = Uint8Array.from(Array.from({ length: rng.range(0, 8) }, () => pieces[rng.int(pieces.length)]).flat());
      let valid = true;
      try {
        strict.decode(bytes);
      } catch {
        valid = false;
      }
      const offset = invalidUtf8Offset(bytes);
      assert.equal(offset === -1, valid, `seed ${seed} round ${round}: ${Array.from(bytes)}`);
      if (!valid) {
        // Everything before the offset decodes; the offset starts a bad sequence.
        strict.decode(bytes.subarray(0, offset));
        assert.throws(() => strict.decode(bytes.subarray(offset)), `seed ${seed} round ${round}`);
      }
    }
  });

  test("nonFiniteNumbers lists paths in document order, at most max, and ignores long integers and finite floats", () => {
    const value = parseJson('{"a":{"b":NaN,"ok":1e308},"c":[1,Infinity,{"d":-1e999}],"big":1' + "0".repeat(400) + ',"e":-Infinity}');
    assert.deepEqual(nonFiniteNumbers(value, "payload", 10), [
      { path: "payload.a.b", lexeme: "NaN" },
      { path: "payload.c[1]", lexeme: "Infinity" },
      { path: "payload.c[2].d", lexeme: "-1e999 (overflows to -Infinity)" },
      { path: "payload.e", lexeme: "-Infinity" },
    ]);
    assert.equal(nonFiniteNumbers(value, "payload", 2).length, 2);
  });
});
