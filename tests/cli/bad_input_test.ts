// test-lane: full (slow)
/**
 * Bad input to `zaxy memory append` (DESIGN §12): exit 2, a message naming the problem, nothing
 * written (no file in a fresh directory; an existing log byte-identical), never a stack trace.
 * In --json mode stdout is exactly one `{"error": {code, message, ...}}` document; otherwise
 * stdout is empty. Also the payload size boundary: exactly 1 MiB of compact UTF-8 is accepted.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { makeTempDir, readLines, removeTempDirs } from "../eventloom/testkit.ts";
import { runZaxy, stackTraceLines, type ZaxyRun } from "./zaxy.ts";

after(removeTempDirs);

const mib = 1024 * 1024;

/** Every file under `dir` with the sha256 of its bytes. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (at: string): void => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name);
      if (entry.isDirectory()) {
        out[path.relative(dir, full) + "/"] = "dir";
        walk(full);
      } else {
        out[path.relative(dir, full)] = createHash("sha256").update(fs.readFileSync(full)).digest("hex");
      }
    }
  };
  walk(dir);
  return out;
}

interface BadCase {
  name: string;
  args: string[];
  code: string;
  message: RegExp;
  input?: string;
  env?: Record<string, string>;
  /** Files the case needs in its directory before it runs (they are part of the snapshot). */
  files?: Record<string, string | Uint8Array>;
}

const appendArgs = ["memory", "append", "note.added", "--actor", "agent"];

const cases: BadCase[] = [
  { name: "malformed JSON payload", args: [...appendArgs, "--payload-json", "{bad"], code: "invalid_json", message: /--payload-json is not valid JSON/ },
  { name: "truncated JSON payload", args: [...appendArgs, "--payload-json", '{"a":'], code: "invalid_json", message: /--payload-json is not valid JSON/ },
  { name: "array payload", args: [...appendArgs, "--payload-json", "[1,2]"], code: "invalid_event", message: /payload must be a JSON object, got an array/ },
  { name: "string payload", args: [...appendArgs, "--payload-json", '"text"'], code: "invalid_event", message: /payload must be a JSON object, got a string/ },
  { name: "number payload", args: [...appendArgs, "--payload-json", "42"], code: "invalid_event", message: /payload must be a JSON object, got a number/ },
  { name: "null payload", args: [...appendArgs, "--payload-json", "null"], code: "invalid_event", message: /payload must be a JSON object, got null/ },
  { name: "boolean payload", args: [...appendArgs, "--payload-json", "true"], code: "invalid_event", message: /payload must be a JSON object, got a boolean/ },
  { name: "malformed stdin payload", args: appendArgs, input: "{nope", code: "invalid_json", message: /stdin payload is not valid JSON/ },
  { name: "array payload on stdin", args: appendArgs, input: "[]", code: "invalid_event", message: /payload must be a JSON object, got an array/ },
  { name: "payload file with invalid UTF-8", args: [...appendArgs, "--payload-file", "bad.json"], files: { "bad.json": new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]) }, code: "invalid_json", message: /--payload-file is not valid JSON: invalid UTF-8/ },
  { name: "payload nested past the depth limit", args: [...appendArgs, "--payload-file", "deep.json"], files: { "deep.json": '{"a":' + "[".repeat(5000) + "]".repeat(5000) + "}" }, code: "depth_limit", message: /nests deeper than 1000 levels/ },
  { name: "session id ../x", args: [...appendArgs, "--session-id", "../x"], code: "invalid_session_id", message: /session "\.\.\/x"/ },
  { name: "session id a/b", args: [...appendArgs, "--session-id", "a/b"], code: "invalid_session_id", message: /session "a\/b"/ },
  { name: "empty session id", args: [...appendArgs, "--session-id", ""], code: "invalid_session_id", message: /session ""/ },
  { name: "session id of 129 characters", args: [...appendArgs, "--session-id", "s".repeat(129)], code: "invalid_session_id", message: /session ids are 1-128/ },
  { name: "session id .", args: [...appendArgs, "--session-id", "."], code: "invalid_session_id", message: /session "\."/ },
  { name: "session id ..", args: [...appendArgs, "--session-id", ".."], code: "invalid_session_id", message: /session "\.\."/ },
  { name: "absolute session id", args: [...appendArgs, "--session-id", "/tmp/x"], code: "invalid_session_id", message: /session "\/tmp\/x"/ },
  { name: "session id with a space", args: [...appendArgs, "--session-id", "a b"], code: "invalid_session_id", message: /session "a b"/ },
  { name: "EVENTLOOM_THREAD=../x", args: appendArgs, env: { EVENTLOOM_THREAD: "../x" }, code: "invalid_session_id", message: /session "\.\.\/x"/ },
  { name: "missing payload file", args: [...appendArgs, "--payload-file", "missing.json"], code: "unreadable_file", message: /Cannot read --payload-file "missing\.json": no such file/ },
  { name: "payload file that is a directory", args: [...appendArgs, "--payload-file", "adir"], files: { "adir/keep": "" }, code: "unreadable_file", message: /Cannot read --payload-file "adir": it is a directory/ },
  { name: "unknown flag", args: [...appendArgs, "--bogus"], code: "usage", message: /unknown option "--bogus"/ },
  { name: "unknown short flag", args: [...appendArgs, "-x"], code: "usage", message: /unknown option "-x"/ },
  { name: "missing --actor", args: ["memory", "append", "note.added"], code: "usage", message: /--actor is required/ },
  { name: "--actor without a value", args: ["memory", "append", "note.added", "--actor"], code: "usage", message: /"--actor" needs a value/ },
  { name: "--session-id without a value", args: [...appendArgs, "--session-id"], code: "usage", message: /"--session-id" needs a value/ },
  { name: "both --payload-json and --payload-file", args: [...appendArgs, "--payload-json", "{}", "--payload-file", "p.json"], files: { "p.json": "{}" }, code: "usage", message: /--payload-json or --payload-file, not both/ },
  { name: "missing event type", args: ["memory", "append", "--actor", "a"], code: "usage", message: /missing argument TYPE/ },
  { name: "extra positional argument", args: [...appendArgs, "extra"], code: "usage", message: /unexpected argument "extra"/ },
  { name: "empty actor", args: ["memory", "append", "note.added", "--actor", ""], code: "invalid_event", message: /actor must be a non-empty string/ },
  { name: "empty event type", args: ["memory", "append", "", "--actor", "a"], code: "invalid_event", message: /event_type must be a non-empty string/ },
  { name: "event type with a control character", args: ["memory", "append", "note\u0001added", "--actor", "a"], code: "invalid_event", message: /event_type .* contains a control character/ },
  { name: "actor of 257 characters", args: ["memory", "append", "note.added", "--actor", "a".repeat(257)], code: "invalid_event", message: /actor is 257 characters; at most 256/ },
  { name: "payload of 1 MiB + 1 byte", args: [...appendArgs, "--payload-file", "big.json"], files: { "big.json": `{"data":"${"a".repeat(mib - 10)}"}` }, code: "invalid_event", message: /payload is 1048577 bytes as compact UTF-8 JSON; at most 1048576/ },
];

function assertNoTrace(run: ZaxyRun, label: string): void {
  assert.deepEqual(stackTraceLines(run.stderr), [], `${label}: no stack trace`);
  assert.doesNotMatch(run.stderr + run.stdout, /internal error/, label);
}

function setup(files: BadCase["files"], dir: string): void {
  for (const [name, content] of Object.entries(files ?? {})) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), content);
  }
}

/** A directory whose log holds one appended event, made once and copied into each --json case. */
let seededTemplate: string | undefined;

function seededDir(): string {
  if (seededTemplate === undefined) {
    const template = makeTempDir("bad-json-template");
    const seeded = runZaxy(["memory", "append", "note.added", "--actor", "seed", "--payload-json", '{"n":1}'], { cwd: template });
    assert.equal(seeded.code, 0, seeded.stderr);
    seededTemplate = template;
  }
  const dir = makeTempDir("bad-json");
  fs.cpSync(seededTemplate, dir, { recursive: true });
  return dir;
}

describe("zaxy memory append rejects bad input with exit 2 and writes nothing", () => {
  for (const c of cases) {
    test(`${c.name}: exit 2, message on stderr, stdout empty, nothing created in a fresh directory`, () => {
      const dir = makeTempDir("bad");
      setup(c.files, dir);
      const before = snapshot(dir);
      const run = runZaxy(c.args, { cwd: dir, input: c.input, env: c.env });
      assert.equal(run.code, 2, `${c.name}: ${run.stderr}`);
      assert.equal(run.stdout, "");
      assert.match(run.stderr, c.message);
      assert.match(run.stderr, /^zaxy/);
      assertNoTrace(run, c.name);
      assert.deepEqual(snapshot(dir), before, "nothing written");
    });

    test(`${c.name}: --json prints one {"error": {code: "${c.code}", message}} document; an existing log is unchanged`, () => {
      const dir = seededDir();
      assert.equal(readLines(path.join(dir, ".eventloom", "default.jsonl")).length, 1);
      setup(c.files, dir);
      const before = snapshot(dir);
      const run = runZaxy([...c.args, "--json"], { cwd: dir, input: c.input, env: c.env });
      assert.equal(run.code, 2, `${c.name}: ${run.stdout}`);
      assert.equal(run.stderr, "");
      assert.ok(run.stdout.endsWith("}\n") && run.stdout.split("\n").length === 2, "exactly one JSON document on one line");
      const doc = JSON.parse(run.stdout);
      assert.deepEqual(Object.keys(doc), ["error"]);
      assert.equal(doc.error.code, c.code);
      assert.equal(typeof doc.error.message, "string");
      assert.match(doc.error.message, c.message);
      assertNoTrace(run, c.name);
      assert.deepEqual(snapshot(dir), before, "nothing written");
    });
  }
});

describe("boundaries that are accepted", () => {
  function appendFile(dir: string, name: string, content: string, extra: string[] = []): ZaxyRun {
    fs.writeFileSync(path.join(dir, name), content);
    return runZaxy([...appendArgs, "--payload-file", name, "--json", ...extra], { cwd: dir });
  }

  test("a payload of exactly 1 MiB compact UTF-8 (ASCII) is accepted; one byte more is not", () => {
    const dir = makeTempDir("mib");
    const exact = `{"data":"${"a".repeat(mib - 11)}"}`;
    assert.equal(Buffer.byteLength(exact), mib);
    const run = appendFile(dir, "exact.json", exact);
    assert.equal(run.code, 0, run.stdout);
    assert.equal(run.stderr, "");
    assert.equal(JSON.parse(run.stdout).seq, 1);
    const over = appendFile(dir, "over.json", `{"data":"${"a".repeat(mib - 10)}"}`);
    assert.equal(over.code, 2);
    assert.equal(JSON.parse(over.stdout).error.code, "invalid_event");
    assert.equal(readLines(path.join(dir, ".eventloom", "default.jsonl")).length, 1);
  });

  test("the limit counts UTF-8 bytes of the compact form: 2-byte characters, \\u escapes and whitespace in the file", () => {
    const dir = makeTempDir("mib");
    // {"data":"é…éa"}: 11 + 2·524282 + 1 = 1048576 bytes.
    const multibyte = `{"data":"${"é".repeat(524_282)}a"}`;
    assert.equal(Buffer.byteLength(multibyte), mib);
    assert.equal(appendFile(dir, "utf8.json", multibyte).code, 0);
    assert.equal(appendFile(dir, "utf8-over.json", `{"data":"${"é".repeat(524_282)}aa"}`).code, 2);
    // The same value spelled with \u00e9 escapes is 3 MiB on disk but 1 MiB compact.
    const escaped = `{"data":"${"\\u00e9".repeat(524_282)}a"}`;
    assert.equal(escaped.length, 11 + 6 * 524_282 + 1);
    assert.equal(appendFile(dir, "escaped.json", escaped).code, 0);
    // Pretty-printed whitespace does not count.
    const pretty = `{\n    "data"  :  "${"a".repeat(mib - 11)}"\n}\n`;
    assert.equal(appendFile(dir, "pretty.json", pretty).code, 0);
    assert.equal(readLines(path.join(dir, ".eventloom", "default.jsonl")).length, 3);
    const verify = runZaxy(["verify"], { cwd: dir });
    assert.equal(verify.code, 0, verify.stdout);
  });

  test("a 1 MiB payload on stdin is accepted", () => {
    const dir = makeTempDir("mib");
    const run = runZaxy([...appendArgs, "--json"], { cwd: dir, input: `{"data":"${"b".repeat(mib - 11)}"}` });
    assert.equal(run.code, 0, run.stdout);
    assert.equal(run.stderr, "");
  });

  test("a session id of 128 characters from A-Z a-z 0-9 . _ - is accepted and names the file", () => {
    const dir = makeTempDir("session");
    const id = ("Ab9._-" + "x".repeat(200)).slice(0, 128);
    const run = runZaxy([...appendArgs, "--session-id", id, "--json"], { cwd: dir });
    assert.equal(run.code, 0, run.stdout);
    assert.equal(JSON.parse(run.stdout).session_id, id);
    assert.deepEqual(fs.readdirSync(path.join(dir, ".eventloom")), [`${id}.jsonl`]);
  });

  test("session ids with dots that are not . or .. are fine (team.alpha, ..x, a..b, -leading-dash)", () => {
    const dir = makeTempDir("session");
    // fleet.<id> is a fleet's own thread, which only the fleet commands write (reliability tests cover it).
    for (const id of ["team.alpha", "..x", "a..b", "-leading-dash"]) {
      // `=` form: a value starting with "-" would otherwise read as an option.
      const run = runZaxy([...appendArgs, `--session-id=${id}`], { cwd: dir });
      assert.equal(run.code, 0, `${id}: ${run.stderr}`);
    }
    assert.deepEqual(fs.readdirSync(path.join(dir, ".eventloom")).sort(), ["-leading-dash.jsonl", "..x.jsonl", "a..b.jsonl", "team.alpha.jsonl"]);
  });

  test("a payload nested right up to the parser's depth limit is appended or rejected with exit 2 — never exit 3, never an empty log left behind", () => {
    for (const depth of [998, 999, 1000]) {
      const dir = makeTempDir("depth");
      const payload = '{"a":' + "[".repeat(depth - 1) + "]".repeat(depth - 1) + "}";
      const run = appendFile(dir, "deep.json", payload);
      assert.ok(run.code === 0 || run.code === 2, `depth ${depth}: exit ${run.code} ${run.stdout}`);
      if (run.code === 2) assert.deepEqual(snapshot(dir), { "deep.json": createHash("sha256").update(payload).digest("hex") }, `depth ${depth}: nothing written`);
    }
  });
});
