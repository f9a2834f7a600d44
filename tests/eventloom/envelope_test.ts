/**
 * Line envelopes written by appendEvents (DESIGN §2.2): exact key order and string encoding of
 * legacy and v1 lines, which envelope a batch gets, generated event ids and timestamps — each
 * cross-checked against python3 computing the same thing from the stored values.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { canonicalJson, fromJs, parseJson } from "../../src/canonical/mod.ts";
import { citationUri, formatTimestamp, generatedEventId, isV1EventType, parseCitationUri, parseSourceEventRef, readEvents, verifyLog, writeConfig } from "../../src/eventloom/mod.ts";
import { appendEvents } from "../../src/events/append.ts";
import { isZaxyError } from "../../src/errors.ts";
import { interopDir, keysOf, makeTempDir, python, pythonLineChecks, pythonWith, readLines, refVerifyMany, removeTempDirs, sha256Hex, skipWithoutPython } from "./testkit.ts";

after(removeTempDirs);

const legacyKeys = ["seq", "timestamp", "type", "actor", "thread", "payload", "security", "prev_hash", "hash"];
const v1Keys = ["id", "type", "actorId", "threadId", "parentEventId", "causedBy", "timestamp", "payload", "integrity"];
const timestampPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{6})?Z$/;
const eventIdPattern = /^evt_zaxy_(\d{12})_[0-9a-f]{16}$/;
const hasPython = skipWithoutPython === false;

/** A deterministic clock: whole seconds on even calls, odd microseconds on odd calls. */
function testClock(): () => number {
  let n = 0;
  const base = Date.UTC(2026, 4, 20, 2, 58, 49) * 1000;
  return () => {
    n++;
    return base + n * 1_000_000 + (n % 2 === 1 ? 961_953 : 0);
  };
}

async function newRoot(envelope?: "legacy" | "v1"): Promise<string> {
  const root = path.join(makeTempDir("envelope"), ".eventloom");
  if (envelope) writeConfig(root, { envelope });
  return root;
}

const sample = [
  { type: "goal.created", actor: "planner", payload: fromJs({ title: "Ship ✓ café", n: 1.5, big: 12345678901234567890n, none: null }) },
  { type: "task.started", actor: "worker-😀", payload: fromJs({ task_id: "t1", tags: ["α", "β"] }) },
  { type: "task.completed", actor: "worker", payload: fromJs({}) },
];

describe("legacy lines", () => {
  test("keys seq,timestamp,type,actor,thread,payload,security,prev_hash,hash in order, raw UTF-8, Python's bytes and hashes", async () => {
    const root = await newRoot("legacy");
    const { events } = await appendEvents(root, "agent-1", sample, { clock: testClock() });
    const file = path.join(root, "agent-1.jsonl");
    const lines = readLines(file);
    assert.equal(lines.length, 3);
    for (const line of lines) assert.deepEqual(keysOf(line), legacyKeys);
    assert.ok(lines[0].includes('"title":"Ship ✓ café"'), "raw UTF-8, no escapes");
    assert.ok(lines[1].includes('"actor":"worker-😀"'));
    assert.ok(lines[0].includes('"n":1.5,"big":12345678901234567890,"none":null'), "numbers kept exactly");
    assert.match(lines[0], /^\{"seq":1,"timestamp":"2026-05-20T02:58:50\.961953Z","type":"goal\.created","actor":"planner","thread":"agent-1","payload":\{/);
    assert.match(lines[1], /"timestamp":"2026-05-20T02:58:51Z"/, "microseconds omitted when zero");
    assert.ok(lines[0].endsWith(`"security":{"sensitivity":"public","redacted_paths":[]},"prev_hash":null,"hash":"${events[0].hash}"}`));
    assert.ok(lines[1].includes(`"prev_hash":"${events[0].hash}","hash":"${events[1].hash}"}`));
    assert.deepEqual(events.map((e) => e.envelope), ["legacy", "legacy", "legacy"]);
    assert.deepEqual(events.map((e) => e.seq), [1, 2, 3]);
    for (const e of events) {
      assert.match(e.event_id, eventIdPattern);
      assert.equal(e.citation, `eventloom://agent-1/events/${e.seq}#${e.hash.slice(0, 12)}`);
    }
    assert.equal(fs.readFileSync(file, "utf8").endsWith("}\n"), true);
    if (hasPython) {
      const checks = pythonLineChecks(file);
      assert.deepEqual(checks.map((c) => c.same_bytes), [true, true, true], "line == json.dumps(rec, ensure_ascii=False, separators)");
      assert.deepEqual(events.map((e) => e.hash), checks.map((c) => c.hash));
      assert.deepEqual(events.map((e) => e.event_id), checks.map((c) => c.id));
      assert.deepEqual(refVerifyMany([file])[0], { ok: true, total_events: 3, broken_at_seq: null, broken_reason: null });
    }
  });
});

describe("v1 lines", () => {
  test("keys id,type,actorId,threadId,parentEventId,causedBy,timestamp,payload,integrity in order, ASCII escapes, __zaxy_security last", async () => {
    const root = await newRoot();
    const { events } = await appendEvents(root, "agent-1", sample, { clock: testClock() });
    const file = path.join(root, "agent-1.jsonl");
    const lines = readLines(file);
    for (const line of lines) {
      assert.deepEqual(keysOf(line), v1Keys);
      assert.match(line, /^[\x00-\x7f]*$/, "pure ASCII");
      const parsed = JSON.parse(line);
      assert.deepEqual(parsed.payload.__zaxy_security, { sensitivity: "public", redacted_paths: [] });
      assert.deepEqual(Object.keys(parsed.integrity), ["hash", "previousHash"]);
      assert.equal(parsed.parentEventId, null);
      assert.deepEqual(parsed.causedBy, []);
      assert.match(parsed.timestamp, timestampPattern);
    }
    assert.ok(lines[0].includes('"title":"Ship \\u2713 caf\\u00e9"'));
    assert.ok(lines[1].includes('"actorId":"worker-\\ud83d\\ude00"'));

    assert.deepEqual(events.map((e) => e.envelope), ["v1", "v1", "v1"]);
    const parsed = lines.map((l) => JSON.parse(l));
    assert.deepEqual(parsed.map((p) => p.id), events.map((e) => e.event_id));
    assert.deepEqual(parsed.map((p) => p.integrity.hash), events.map((e) => `sha256:${e.hash}`));
    assert.deepEqual(parsed.map((p) => p.integrity.previousHash), [null, `sha256:${events[0].hash}`, `sha256:${events[1].hash}`]);
    for (const e of events) assert.equal(Number(eventIdPattern.exec(e.event_id)![1]), e.seq);
    if (hasPython) {
      const checks = pythonLineChecks(file);
      assert.deepEqual(checks.map((c) => c.same_bytes), [true, true, true], "line == json.dumps(rec, separators)");
      assert.deepEqual(events.map((e) => e.hash), checks.map((c) => c.hash));
      assert.deepEqual(events.map((e) => e.event_id), checks.map((c) => c.id));
      assert.deepEqual(refVerifyMany([file])[0], { ok: true, total_events: 3, broken_at_seq: null, broken_reason: null });
    }
    // Last, so the checks above run either way: Python's layout puts security metadata last,
    // with sensitivity before redacted_paths.
    assert.ok(lines[2].includes('"payload":{"__zaxy_security":{"sensitivity":"public","redacted_paths":[]}}'));
    for (const p of parsed) assert.equal(Object.keys(p.payload).at(-1), "__zaxy_security");
  });

  test("ingest-style items keep producer ids, parentEventId and causedBy in the hashed v1 envelope", async () => {
    const root = await newRoot();
    const { events } = await appendEvents(
      root,
      "s",
      [
        { type: "task.started", actor: "a", id: "ext-1", payload: fromJs({ x: 1 }) },
        { type: "task.completed", actor: "a", parentEventId: "ext-1", causedBy: ["ext-1"], producerRef: "run-7", payload: fromJs({ x: 2 }) },
      ],
      { clock: testClock() },
    );
    const file = path.join(root, "s.jsonl");
    const [first, second] = readLines(file).map((l) => JSON.parse(l));
    assert.equal(first.id, "ext-1");
    assert.equal(events[0].event_id, "ext-1");
    assert.equal(second.parentEventId, "ext-1");
    assert.deepEqual(second.causedBy, ["ext-1"]);
    assert.equal(second.payload.__zaxy_producer_ref, "run-7");
    if (hasPython) assert.deepEqual(refVerifyMany([file])[0], { ok: true, total_events: 2, broken_at_seq: null, broken_reason: null });
    // A tail with a producer id carries no seq: the next append counts lines instead.
    const next = await appendEvents(root, "s", [{ type: "task.started", actor: "a", id: "ext-3" }], { clock: testClock() });
    assert.equal(next.events[0].seq, 3);
    assert.equal((await verifyLog(file)).ok, true);
    // Python's layout: user keys, then the producer ref, then security metadata.
    assert.deepEqual(Object.keys(second.payload), ["x", "__zaxy_producer_ref", "__zaxy_security"]);
  });
});

describe("which envelope a batch gets", () => {
  test("isV1EventType: lowercase dotted with two or more segments, no _ or -", () => {
    const yes = ["goal.created", "a.b", "memory.checkout.completed", "x1.y2"];
    const no = ["memory.rolled_back", "goal", "Goal.created", "goal.", ".goal", "goal..created", "fleet.promotion.rolled-back", "1a.b", "goal.Created", "göal.created"];
    assert.deepEqual(yes.map(isV1EventType), yes.map(() => true));
    assert.deepEqual(no.map(isV1EventType), no.map(() => false));
    if (hasPython) {
      const py = JSON.parse(python(`import json, re, sys\nprint(json.dumps([bool(re.match(r"^[a-z][a-z0-9]*(\\.[a-z][a-z0-9]*)+$", t)) for t in json.loads(sys.stdin.read())]))`, JSON.stringify([...yes, ...no])));
      assert.deepEqual(py, [...yes, ...no].map(isV1EventType));
    }
  });

  test("v1 until a type like memory.rolled_back forces legacy; then legacy stays (tail rule); links use bare hex", async () => {
    const root = await newRoot();
    const clock = testClock();
    await appendEvents(root, "m", [sample[0], sample[1]], { clock });
    const mixed = await appendEvents(root, "m", [{ type: "memory.rolled_back", actor: "a", payload: fromJs({ target_seq: 1 }) }, sample[2]], { clock });
    const after = await appendEvents(root, "m", [sample[0]], { clock });
    assert.deepEqual(mixed.events.map((e) => e.envelope), ["legacy", "legacy"], "the whole batch is legacy");
    assert.equal(after.events[0].envelope, "legacy", "a legacy tail keeps later appends legacy");
    const file = path.join(root, "m.jsonl");
    const lines = readLines(file);
    assert.deepEqual(lines.map((l) => keysOf(l)[0]), ["id", "id", "seq", "seq", "seq"]);
    const v1Hash = JSON.parse(lines[1]).integrity.hash as string;
    assert.equal(JSON.parse(lines[2]).prev_hash, v1Hash.slice("sha256:".length));
    assert.equal(JSON.parse(lines[2]).seq, 3);
    assert.equal((await verifyLog(file)).ok, true);
    if (hasPython) {
      assert.deepEqual(refVerifyMany([file])[0], { ok: true, total_events: 5, broken_at_seq: null, broken_reason: null });
      assert.deepEqual(pythonLineChecks(file).map((c) => c.same_bytes), [true, true, true, true, true]);
    }
  });

  test("an empty log under a v1 root starts legacy when the first batch has a non-v1 type", async () => {
    const root = await newRoot("v1");
    const { events } = await appendEvents(root, "s", [{ type: "Deploy", actor: "a" }, sample[0]], { clock: testClock() });
    assert.deepEqual(events.map((e) => e.envelope), ["legacy", "legacy"]);
  });

  test("a legacy root writes legacy lines even for v1-shaped types", async () => {
    const root = await newRoot("legacy");
    const { events } = await appendEvents(root, "s", [sample[0]], { clock: testClock() });
    assert.equal(events[0].envelope, "legacy");
  });

  test("appending to a Python-written v1 log continues its chain in v1 (seq from the tail id)", async () => {
    const root = await newRoot("legacy");
    const source = path.join(interopDir, "v1-fleet-scaling-case-1.jsonl");
    fs.copyFileSync(source, path.join(root, "worker.jsonl"));
    const { events } = await appendEvents(root, "worker", [sample[0]], { clock: testClock() });
    assert.deepEqual([events[0].seq, events[0].envelope], [15, "v1"]);
    const file = path.join(root, "worker.jsonl");
    assert.equal((await verifyLog(file)).ok, true);
    if (hasPython) assert.deepEqual(refVerifyMany([file])[0], { ok: true, total_events: 15, broken_at_seq: null, broken_reason: null });
  });

  test("appending to a file whose last line lacks its newline adds the newline first", async () => {
    const root = await newRoot("legacy");
    const file = path.join(root, "s.jsonl");
    await appendEvents(root, "s", [sample[0]], { clock: testClock() });
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace(/\n$/, ""));
    await appendEvents(root, "s", [sample[1]], { clock: testClock() });
    assert.equal(readLines(file).length, 2);
    assert.equal((await verifyLog(file)).ok, true);
  });
});

describe("ids, timestamps, citations", () => {
  test("formatTimestamp matches Python's isoformat().replace('+00:00', 'Z') (microseconds omitted when zero)", () => {
    const micros = [
      0,
      1,
      100,
      999_999,
      1_000_000,
      Date.UTC(2026, 4, 20, 2, 58, 49) * 1000 + 961_953,
      Date.UTC(2024, 1, 29, 23, 59, 59) * 1000 + 999_999,
      Date.UTC(2024, 5, 15, 12, 0, 0) * 1000,
      Date.UTC(2199, 11, 31, 23, 59, 59) * 1000 + 999_999,
    ];
    const ours = micros.map(formatTimestamp);
    assert.equal(ours[0], "1970-01-01T00:00:00Z");
    assert.equal(ours[2], "1970-01-01T00:00:00.000100Z");
    assert.equal(ours[5], "2026-05-20T02:58:49.961953Z");
    assert.equal(ours[7], "2024-06-15T12:00:00Z");
    for (const t of ours) assert.match(t, timestampPattern);
    if (hasPython) {
      const program = `
import json, sys
from datetime import datetime, timedelta, timezone
epoch = datetime(1970, 1, 1, tzinfo=timezone.utc)
print(json.dumps([(epoch + timedelta(microseconds=m)).isoformat().replace("+00:00", "Z") for m in json.loads(sys.stdin.read())]))
`;
      assert.deepEqual(ours, JSON.parse(python(program, JSON.stringify(micros))));
    }
  });

  test("generatedEventId is evt_zaxy_<seq:012>_<16 hex of sha256(canonical {actor, seq, timestamp, type})>", () => {
    const inputs: Array<[string, number, string, string]> = [
      ["worker-api", 1, "2026-07-21T16:00:43.374301Z", "coordination.finding.reported"],
      ["agent-😀", 42, "2026-05-20T02:58:49Z", "goal.created"],
      ["a", 123456789012, "2026-01-01T00:00:00.000001Z", "x"],
    ];
    const ours = inputs.map(([actor, seq, ts, type]) => generatedEventId(actor, seq, ts, type));
    // Python-written fixture: this is the id stored on line 1 of v1-worker-api.jsonl.
    assert.equal(ours[0], "evt_zaxy_000000000001_fa0ba461d37a60f8");
    assert.equal(
      ours[1],
      `evt_zaxy_000000000042_${sha256Hex(canonicalJson(fromJs({ actor: "agent-😀", seq: 42, timestamp: "2026-05-20T02:58:49Z", type: "goal.created" }))).slice(0, 16)}`,
    );
    assert.match(ours[2], /^evt_zaxy_123456789012_[0-9a-f]{16}$/);
    if (hasPython) {
      const program = `print(json.dumps([event_id(a, s, t, ty) for a, s, t, ty in json.loads(sys.stdin.read())]))`;
      assert.deepEqual(ours, JSON.parse(pythonWith(program, JSON.stringify(inputs))));
    }
  });

  test("citationUri and parseCitationUri round-trip; the URI keeps 12 hex", () => {
    const hash = "0123456789abcdef".repeat(4);
    const uri = citationUri("fleet.alpha", 17, hash);
    assert.equal(uri, "eventloom://fleet.alpha/events/17#0123456789ab");
    assert.deepEqual(parseCitationUri(uri), { thread: "fleet.alpha", seq: 17, hashPrefix: "0123456789ab" });
    assert.equal(parseCitationUri("eventloom://x/events/abc#00"), undefined);
  });

  test("parseSourceEventRef accepts SEQ:HASH (seq >= 1, 64 lowercase hex) and rejects everything else with exit 2", () => {
    const hash = "ab".repeat(32);
    assert.deepEqual(parseSourceEventRef(`3:${hash}`), { seq: 3, hash });
    for (const bad of [`0:${hash}`, `-1:${hash}`, `03:${hash}`, `3:${hash.toUpperCase()}`, `3:${hash.slice(1)}`, `3:${hash}0`, "3", `3:sha256:${hash}`, ` 3:${hash}`]) {
      assert.throws(
        () => parseSourceEventRef(bad),
        (error: unknown) => isZaxyError(error) && error.code === "invalid_source_event" && error.exitCode === 2 && error.message.includes(JSON.stringify(bad)),
        bad,
      );
    }
  });

  test("readEvents normalises both envelopes to the same record shape", async () => {
    const root = await newRoot();
    await appendEvents(root, "r", [sample[0]], { clock: testClock() });
    await appendEvents(root, "r", [{ type: "memory.rolled_back", actor: "planner", payload: fromJs({ title: "Ship ✓ café" }) }], { clock: testClock() });
    const { events, total } = readEvents(path.join(root, "r.jsonl"));
    assert.equal(total, 2);
    assert.deepEqual(events.map((e) => [e.seq, e.envelope, e.thread, e.actor]), [
      [1, "v1", "r", "planner"],
      [2, "legacy", "r", "planner"],
    ]);
    assert.equal(events[0].payload.has("__zaxy_security"), false, "v1 security is lifted out of the payload");
    assert.deepEqual(canonicalJson(events[0].security as never), '{"redacted_paths":[],"sensitivity":"public"}');
    assert.equal(events[1].prevHash, events[0].hash);
    assert.equal(canonicalJson(events[0].payload), canonicalJson(parseJson('{"big":12345678901234567890,"n":1.5,"none":null,"title":"Ship \\u2713 caf\\u00e9"}')));
  });
});
