/**
 * `zaxy memory append` end to end: the --json document, the exact line shapes of both
 * envelopes (`zaxy init --envelope legacy` vs the default v1, and mixed logs), and the event id,
 * hashes and redaction cross-checked against python3 and ref_verify.py.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { keysOf, makeTempDir, pythonLineChecks, readLines, refVerify, removeTempDirs, skipWithoutPython } from "../eventloom/testkit.ts";
import { runZaxy } from "./zaxy.ts";

after(removeTempDirs);

const hasPython = skipWithoutPython === false;
const legacyKeys = ["seq", "timestamp", "type", "actor", "thread", "payload", "security", "prev_hash", "hash"];
const v1Keys = ["id", "type", "actorId", "threadId", "parentEventId", "causedBy", "timestamp", "payload", "integrity"];
const timestampPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{6})?Z$/;
const appendDocKeys = ["schema", "seq", "hash", "event_id", "session_id", "event_type", "citation", "envelope"];

interface AppendDoc {
  schema: string;
  seq: number;
  hash: string;
  event_id: string;
  session_id: string;
  event_type: string;
  citation: string;
  envelope: "legacy" | "v1";
}

function append(dir: string, type: string, payload: unknown, extra: string[] = [], warned?: RegExp): AppendDoc {
  const run = runZaxy(["memory", "append", type, "--actor", "agent-ü", "--payload-json", JSON.stringify(payload), "--json", ...extra], { cwd: dir });
  assert.equal(run.code, 0, run.stdout + run.stderr);
  const doc = JSON.parse(run.stdout) as AppendDoc & { warnings?: string[] };
  if (warned === undefined) {
    assert.equal(run.stderr, "");
    assert.deepEqual(Object.keys(doc), appendDocKeys);
  } else {
    // Said once on stderr and in `warnings` (issue 18 item 3).
    assert.match(run.stderr, warned);
    assert.equal(doc.warnings?.length, 1, run.stdout);
    assert.match(doc.warnings![0], warned);
    delete doc.warnings;
    assert.deepEqual(Object.keys(doc), appendDocKeys);
  }
  return doc;
}

const payloads = [
  { title: "Ship ✓ café", n: 1.5, big: 12345678901234567890, none: null },
  { task_id: "t1", tags: ["α", "😀"], nested: { deep: [1, { x: "y" }] } },
  { text: "quote \" backslash \\ tab \t newline \n del \u007f" },
];

function checkDocs(docs: AppendDoc[], session: string): void {
  docs.forEach((doc, i) => {
    assert.equal(doc.schema, "zaxy.memory.append.v1");
    assert.equal(doc.seq, i + 1);
    assert.match(doc.hash, /^[0-9a-f]{64}$/);
    assert.match(doc.event_id, new RegExp(`^evt_zaxy_${String(i + 1).padStart(12, "0")}_[0-9a-f]{16}$`));
    assert.equal(doc.session_id, session);
    assert.equal(doc.citation, `eventloom://${session}/events/${i + 1}#${doc.hash.slice(0, 12)}`);
  });
}

describe("zaxy memory append", () => {
  test("default (v1): lines have the v1 keys in order, ASCII escapes, __zaxy_security last; ids and hashes match python3", () => {
    const dir = makeTempDir("append-v1");
    const docs = payloads.map((p) => append(dir, "note.added", p));
    checkDocs(docs, "default");
    assert.deepEqual(docs.map((d) => d.envelope), ["v1", "v1", "v1"]);
    const file = path.join(dir, ".eventloom", "default.jsonl");
    const lines = readLines(file);
    for (const line of lines) {
      assert.deepEqual(keysOf(line), v1Keys);
      assert.match(line, /^[\x00-\x7f]*$/);
      const parsed = JSON.parse(line);
      assert.match(parsed.timestamp, timestampPattern);
    }
    assert.ok(lines[0].includes('"actorId":"agent-\\u00fc"'));
    assert.ok(lines[2].includes('del \\u007f'), "DEL escaped as Python's ensure_ascii does");
    const parsed = lines.map((l) => JSON.parse(l));
    assert.deepEqual(parsed.map((p) => p.id), docs.map((d) => d.event_id));
    assert.deepEqual(parsed.map((p) => p.integrity.hash), docs.map((d) => `sha256:${d.hash}`));
    if (hasPython) {
      const checks = pythonLineChecks(file);
      assert.deepEqual(checks.map((c) => c.hash), docs.map((d) => d.hash), "integrity hashes as python3 computes them");
      assert.deepEqual(checks.map((c) => c.id), docs.map((d) => d.event_id), "event ids as python3 computes them");
      assert.deepEqual(checks.map((c) => c.same_bytes), [true, true, true], "line == json.dumps(rec, separators=(',', ':'))");
      assert.deepEqual(refVerify(file), { code: 0, verdict: { ok: true, total_events: 3, broken_at_seq: null, broken_reason: null } });
    }
    // Last, so the checks above run either way: the issue asks for Python's layout.
    for (const p of parsed) assert.equal(Object.keys(p.payload).at(-1), "__zaxy_security", "security metadata last in the payload, as Python writes it");
  });

  test("zaxy init --envelope legacy: lines have the legacy keys in order, raw UTF-8; hashes and ids match python3", () => {
    const dir = makeTempDir("append-legacy");
    const init = runZaxy(["init", "--envelope", "legacy", "--json"], { cwd: dir });
    assert.equal(init.code, 0, init.stdout);
    const docs = payloads.map((p) => append(dir, "note.added", p));
    checkDocs(docs, "default");
    assert.deepEqual(docs.map((d) => d.envelope), ["legacy", "legacy", "legacy"]);
    const file = path.join(dir, ".eventloom", "default.jsonl");
    const lines = readLines(file);
    lines.forEach((line, i) => {
      assert.deepEqual(keysOf(line), legacyKeys);
      const parsed = JSON.parse(line);
      assert.equal(parsed.seq, i + 1);
      assert.equal(parsed.hash, docs[i].hash);
      assert.equal(parsed.prev_hash, i === 0 ? null : docs[i - 1].hash);
      assert.equal(parsed.thread, "default");
      assert.match(parsed.timestamp, timestampPattern);
      assert.deepEqual(parsed.security, { sensitivity: "public", redacted_paths: [] });
    });
    assert.ok(lines[0].includes('"actor":"agent-ü"') && lines[0].includes('"title":"Ship ✓ café"'), "raw UTF-8");
    assert.ok(lines[1].includes('"tags":["α","😀"]'));
    assert.ok(lines[2].includes('"text":"quote \\" backslash \\\\ tab \\t newline \\n del \u007f"'), "DEL raw, controls escaped (ensure_ascii=False)");
    if (hasPython) {
      const checks = pythonLineChecks(file);
      assert.deepEqual(checks.map((c) => c.hash), docs.map((d) => d.hash));
      assert.deepEqual(checks.map((c) => c.id), docs.map((d) => d.event_id));
      assert.deepEqual(checks.map((c) => c.same_bytes), [true, true, true], "line == json.dumps(rec, ensure_ascii=False, separators)");
      assert.deepEqual(refVerify(file), { code: 0, verdict: { ok: true, total_events: 3, broken_at_seq: null, broken_reason: null } });
    }
  });

  test("mixed: v1 lines, then user.preference_changed forces legacy, and legacy stays; ref_verify.py accepts the file", () => {
    const dir = makeTempDir("append-mixed");
    const docs = [
      append(dir, "goal.created", { title: "one" }),
      append(dir, "task.started", { task_id: "t" }),
      // A plain type v1 cannot carry (an underscore); governance types such as memory.rolled_back are not plain appends.
      append(dir, "user.preference_changed", { preference: "tabs" }, ["--allow-envelope-switch"], /legacy/),
      append(dir, "goal.created", { title: "after" }),
    ];
    assert.deepEqual(docs.map((d) => d.envelope), ["v1", "v1", "legacy", "legacy"]);
    checkDocs(docs, "default");
    const file = path.join(dir, ".eventloom", "default.jsonl");
    const lines = readLines(file);
    assert.deepEqual(lines.map((l) => keysOf(l)), [v1Keys, v1Keys, legacyKeys, legacyKeys]);
    assert.equal(JSON.parse(lines[2]).prev_hash, docs[1].hash, "a legacy line links to the bare hex of the v1 hash");
    const verify = runZaxy(["verify", "--json"], { cwd: dir });
    assert.equal(verify.code, 0, verify.stdout);
    assert.equal(verify.stderr, "");
    if (hasPython) {
      assert.deepEqual(pythonLineChecks(file).map((c) => c.hash), docs.map((d) => d.hash));
      assert.deepEqual(refVerify(file), { code: 0, verdict: { ok: true, total_events: 4, broken_at_seq: null, broken_reason: null } });
    }
  });

  test("text mode prints one line: 'appended TYPE as seq N (ENVELOPE)  CITATION', stderr empty", () => {
    const dir = makeTempDir("append-text");
    const run = runZaxy(["memory", "append", "goal.created", "--actor", "a", "--payload-json", "{}"], { cwd: dir });
    assert.equal(run.code, 0);
    assert.equal(run.stderr, "");
    const hash = JSON.parse(readLines(path.join(dir, ".eventloom", "default.jsonl"))[0]).integrity.hash.slice(7);
    assert.equal(run.stdout, `appended goal.created as seq 1 (v1)  eventloom://default/events/1#${hash.slice(0, 12)}\n`);
  });

  test("text mode says how many values were redacted and at which paths, never the values", () => {
    const dir = makeTempDir("append-text-redacted");
    const secret = "sk-" + "abcdef1234567890abcdef";
    const one = runZaxy(["memory", "append", "note.added", "--actor", "a", "--payload-json", JSON.stringify({ api_key: secret, text: "kept" })], { cwd: dir });
    assert.equal(one.code, 0, one.stderr);
    assert.equal(one.stderr, "");
    const hash = JSON.parse(readLines(path.join(dir, ".eventloom", "default.jsonl"))[0]).integrity.hash.slice(7);
    assert.equal(one.stdout, `appended note.added as seq 1 (v1)  eventloom://default/events/1#${hash.slice(0, 12)}\n  redacted: 1 value (payload.api_key)\n`);
    const many = { password: "a", nested: { token: "b" }, list: [{ secret: "c" }], dsn: "postgres://app:pw@db/main", cookie: "d", api_key: secret, text: "kept" };
    const six = runZaxy(["memory", "append", "note.added", "--actor", "a", "--payload-json", JSON.stringify(many)], { cwd: dir });
    assert.equal(six.code, 0, six.stderr);
    assert.equal(
      six.stdout.split("\n")[1],
      "  redacted: 6 values (payload.password, payload.nested.token, payload.list[0].secret, payload.dsn, payload.cookie, and 1 more)",
    );
    for (const run of [one, six]) assert.ok(!run.stdout.includes(secret) && !run.stdout.includes("pw@"), "no secret is echoed");
    const clean = runZaxy(["memory", "append", "note.added", "--actor", "a", "--payload-json", '{"text":"nothing secret"}'], { cwd: dir });
    assert.doesNotMatch(clean.stdout, /redacted/);
    assert.equal(clean.stdout.split("\n").length, 2, "one line when nothing was redacted");
  });

  test("the payload comes from --payload-json, --payload-file or stdin; no payload is {}", () => {
    const dir = makeTempDir("append-sources");
    fs.writeFileSync(path.join(dir, "p.json"), '{"from":"file"}');
    const runs = [
      runZaxy(["memory", "append", "note.added", "--actor", "a", "--payload-json", '{"from":"flag"}'], { cwd: dir }),
      runZaxy(["memory", "append", "note.added", "--actor", "a", "--payload-file", "p.json"], { cwd: dir }),
      runZaxy(["memory", "append", "note.added", "--actor", "a"], { cwd: dir, input: '{"from":"stdin"}\n' }),
      runZaxy(["memory", "append", "note.added", "--actor", "a"], { cwd: dir }),
      runZaxy(["memory", "append", "note.added", "--actor", "a"], { cwd: dir, input: "  \n" }),
    ];
    for (const run of runs) {
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stderr, "");
    }
    const payloadsRead = readLines(path.join(dir, ".eventloom", "default.jsonl")).map((l) => {
      const { __zaxy_security: _, ...rest } = JSON.parse(l).payload;
      return rest;
    });
    assert.deepEqual(payloadsRead, [{ from: "flag" }, { from: "file" }, { from: "stdin" }, {}, {}]);
  });

  for (const envelope of ["legacy", "v1"] as const) {
    test(`${envelope}: secrets in the payload are stored as [REDACTED] with their paths, restricted`, () => {
      const dir = makeTempDir("append-redact");
      assert.equal(runZaxy(["init", "--envelope", envelope], { cwd: dir }).code, 0);
      const secretPayload = {
        api_key: "abc",
        "API-KEY": "def",
        a: { password: "pw", b: "sk-abcdefgh123" },
        items: [{ token: "t" }],
        aws: "AKIA" + "ABCDEFGHIJ123456",
        pypi: "pypi-" + "x".repeat(20),
        jwt: "aaaaaaaaaa.bbbbbbbbbb.cccccccccc",
        usage: { prompt_tokens: 1, total_tokens: 2, token_efficiency: 0.5 },
      };
      const redactedPaths = ["api_key", "API-KEY", "a.password", "a.b", "items[0].token", "aws", "pypi", "jwt"];
      const run = runZaxy(["memory", "append", "note.added", "--actor", "agent", "--payload-json", JSON.stringify(secretPayload), "--json"], { cwd: dir });
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stderr, "");
      const doc = JSON.parse(run.stdout);
      assert.deepEqual(Object.keys(doc), [...appendDocKeys, "redacted_paths"], "--json lists the redacted paths");
      assert.deepEqual(doc.redacted_paths, redactedPaths);
      append(dir, "note.added", { clean: true });
      const file = path.join(dir, ".eventloom", "default.jsonl");
      const [first, second] = readLines(file).map((l) => JSON.parse(l));
      const security = (rec: { security?: unknown; payload: { __zaxy_security?: unknown } }) => (envelope === "legacy" ? rec.security : rec.payload.__zaxy_security);
      assert.deepEqual(security(first), { sensitivity: "restricted", redacted_paths: redactedPaths });
      assert.deepEqual(security(second), { sensitivity: "public", redacted_paths: [] });
      const R = "[REDACTED]";
      assert.deepEqual(
        [first.payload.api_key, first.payload["API-KEY"], first.payload.a, first.payload.items, first.payload.aws, first.payload.pypi, first.payload.jwt],
        [R, R, { password: R, b: R }, [{ token: R }], R, R, R],
      );
      assert.deepEqual(first.payload.usage, { prompt_tokens: 1, total_tokens: 2, token_efficiency: 0.5 });
      const text = fs.readFileSync(file, "utf8");
      for (const secret of ["sk-abcdefgh123", "AKIA" + "ABCDEFGHIJ123456", "aaaaaaaaaa.bbbbbbbbbb"]) assert.ok(!text.includes(secret), secret);
      if (hasPython) assert.equal(refVerify(file).code, 0);
    });
  }
});
