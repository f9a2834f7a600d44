/**
 * Tampering with one byte of a hashed field makes verification fail at exactly that event,
 * with the DESIGN §2.4 message, exit 1, and the same verdict as the Python reference verifier
 * (ref_verify.py) on the same tampered file. Covers Python-written interop logs and logs written
 * by zaxy in both envelopes, plus re-sealed edits (computed by python3) that only a chain-link
 * check can catch.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { fromJs } from "../../src/canonical/mod.ts";
import { verifyLog, writeConfig } from "../../src/eventloom/mod.ts";
import { appendEvents } from "../../src/events/append.ts";
import { runZaxy } from "../cli/zaxy.ts";
import {
  interopDir,
  keysOf,
  makeTempDir,
  pythonWith,
  readLines,
  refVerifyMany,
  removeTempDirs,
  skipWithoutPython,
  type Verdict,
  writeLines,
} from "./testkit.ts";

after(removeTempDirs);

type Field = "payload" | "type" | "actor" | "thread" | "timestamp" | "seq" | "prev_hash" | "security" | "hash" | "id";

interface TamperCase {
  label: string;
  file: string;
  seq: number;
  expected: Verdict & { code: string };
}

const hexDigits = "0123456789abcdef";

/** A different character of the same class, so the line stays valid JSON (and hex stays hex). */
function otherChar(c: string, hexOnly: boolean): string {
  if (hexOnly) return hexDigits[(hexDigits.indexOf(c) + 1) % 16];
  if (c >= "0" && c <= "9") return String((Number(c) + 1) % 10);
  if (c === "z") return "a";
  if (c === "Z") return "A";
  return String.fromCharCode(c.charCodeAt(0) + 1);
}

function replaceAt(line: string, index: number, hexOnly: boolean): string {
  return line.slice(0, index) + otherChar(line[index], hexOnly) + line.slice(index + 1);
}

/** Changes one byte of `field` in a line (legacy or v1); the line stays valid JSON. */
function tamperLine(line: string, field: Field): string {
  const v1 = line.startsWith('{"id":');
  const find = (marker: string, last = false): number => {
    const at = last ? line.lastIndexOf(marker) : line.indexOf(marker);
    assert.ok(at >= 0, `marker ${marker} not in line`);
    return at + marker.length;
  };
  switch (field) {
    case "payload": {
      const start = find('"payload":{');
      const match = /":"([A-Za-z0-9])/.exec(line.slice(start));
      assert.ok(match, "payload has a string value");
      return replaceAt(line, start + match.index + 3, false);
    }
    case "type":
      return replaceAt(line, find('"type":"'), false);
    case "actor":
      return replaceAt(line, find(v1 ? '"actorId":"' : '"actor":"'), false);
    case "thread":
      return replaceAt(line, find(v1 ? '"threadId":"' : '"thread":"'), false);
    case "timestamp":
      return replaceAt(line, find('"timestamp":"') + 3, false);
    case "seq": {
      const start = find('"seq":');
      const digits = /^[0-9]+/.exec(line.slice(start))![0];
      return replaceAt(line, start + digits.length - 1, false);
    }
    case "prev_hash":
      return replaceAt(line, v1 ? find('"previousHash":"sha256:') + 10 : find('"prev_hash":"', true) + 10, true);
    case "security":
      return replaceAt(line, find('"sensitivity":"', true), false);
    case "hash":
      return replaceAt(line, v1 ? find('"hash":"sha256:', true) + 5 : find('"hash":"', true) + 5, true);
    case "id":
      return replaceAt(line, find('"id":"evt_zaxy_') + 15, true);
  }
}

function expectedFor(field: Field, seq: number, line: string, v1: boolean): Verdict & { code: string } {
  if (field === "seq") {
    const found = JSON.parse(tamperLine(line, "seq")).seq;
    return { ok: false, total_events: seq, broken_at_seq: seq, broken_reason: `Event sequence expected ${seq} but found ${found}`, code: "sequence_mismatch" };
  }
  if (field === "prev_hash" && v1) {
    return { ok: false, total_events: seq, broken_at_seq: seq, broken_reason: `Event ${seq} prev_hash does not link to previous`, code: "prev_hash_mismatch" };
  }
  return { ok: false, total_events: seq, broken_at_seq: seq, broken_reason: `Event ${seq} hash mismatch`, code: "hash_mismatch" };
}

/** Writes one tampered copy of `source` per (seq, field) into `dir`. */
function tamperCases(source: string, dir: string, seqs: number[], fields: Field[]): TamperCase[] {
  const lines = readLines(source);
  const cases: TamperCase[] = [];
  for (const seq of seqs) {
    const line = lines[seq - 1];
    const v1 = line.startsWith('{"id":');
    for (const field of fields) {
      if (v1 && (field === "seq" || field === "security")) continue;
      if (!v1 && field === "id") continue;
      if (field === "prev_hash" && seq === 1) continue;
      const tampered = tamperLine(line, field);
      assert.notEqual(tampered, line);
      assert.equal(Buffer.byteLength(tampered), Buffer.byteLength(line), "one byte changed, not added");
      JSON.parse(tampered);
      const copy = lines.slice();
      copy[seq - 1] = tampered;
      const file = path.join(dir, `${path.basename(source, ".jsonl")}.seq${seq}.${field}.jsonl`);
      writeLines(file, copy);
      cases.push({ label: `${path.basename(source)} seq ${seq} ${field}`, file, seq, expected: expectedFor(field, seq, line, v1) });
    }
  }
  return cases;
}

function verdictOf(report: Verdict): Verdict {
  return { ok: report.ok, total_events: report.total_events, broken_at_seq: report.broken_at_seq, broken_reason: report.broken_reason };
}

/** Checks every case with verifyLog, one `zaxy verify --json` run over all files, and ref_verify.py. */
async function checkCases(cases: TamperCase[], withPython: boolean): Promise<void> {
  assert.ok(cases.length > 0);
  for (const c of cases) {
    const report = await verifyLog(c.file);
    const { code, ...verdict } = c.expected;
    assert.deepEqual(verdictOf(report), verdict, `verifyLog: ${c.label}`);
    assert.equal(report.code, code, c.label);
    assert.equal(report.line, c.seq, c.label);
  }
  const run = runZaxy(["verify", ...cases.map((c) => c.file), "--json"], { cwd: path.dirname(cases[0].file) });
  assert.equal(run.code, 1, run.stderr);
  assert.equal(run.stderr, "");
  const doc = JSON.parse(run.stdout);
  assert.equal(doc.ok, false);
  assert.equal(doc.logs.length, cases.length);
  cases.forEach((c, i) => {
    const { code, ...verdict } = c.expected;
    assert.deepEqual(verdictOf(doc.logs[i]), verdict, `zaxy verify: ${c.label}`);
    assert.equal(doc.logs[i].code, code, c.label);
  });
  if (withPython) {
    const refs = refVerifyMany(cases.map((c) => c.file));
    cases.forEach((c, i) => assert.deepEqual(verdictOf(doc.logs[i]), refs[i], `ref_verify.py: ${c.label}`));
  }
}

const allFields: Field[] = ["payload", "type", "actor", "thread", "timestamp", "seq", "prev_hash", "security", "hash", "id"];
const hasPython = skipWithoutPython === false;

describe("one-byte tampering of Python-written interop logs", () => {
  const logs: Array<[string, number[]]> = [
    ["legacy-activation-release.jsonl", [1, 2]],
    ["legacy-coordination-case-1.jsonl", [1, 9, 18]],
    ["legacy-coordinate-0-4-real-1.jsonl", [2, 42]],
    ["v1-fleet-scaling-case-1.jsonl", [1, 7, 14]],
    ["v1-state-release-policy-supersession.jsonl", [2, 4]],
    ["v1-fleet.fleetbench.jsonl", [5]],
  ];
  for (const [name, seqs] of logs) {
    test(`${name}: each hashed field edited at seq ${seqs.join(", ")} fails there with ref_verify's verdict`, async () => {
      const dir = makeTempDir("tamper");
      await checkCases(tamperCases(path.join(interopDir, name), dir, seqs, allFields), hasPython);
    });
  }

  test("zaxy verify prints BROKEN with the reason, seq and line in text mode, exit 1, stderr empty", () => {
    const dir = makeTempDir("tamper");
    const [c] = tamperCases(path.join(interopDir, "legacy-coordination-case-1.jsonl"), dir, [9], ["payload"]);
    const run = runZaxy(["verify", c.file], { cwd: dir });
    assert.equal(run.code, 1);
    assert.equal(run.stderr, "");
    assert.equal(run.stdout, `BROKEN  ${c.file}  Event 9 hash mismatch (seq 9, line 9)\n`);
  });
});

describe("one-byte tampering of zaxy-written logs", () => {
  let legacyLog = "";
  let v1Log = "";
  let mixedLog = "";
  before(async () => {
    const clock = (() => {
      let micros = Date.UTC(2026, 0, 2, 3, 4, 5) * 1000;
      return () => (micros += 1_000_123);
    })();
    const events = [
      { type: "goal.created", actor: "planner", payload: fromJs({ title: "Ship zaxy", note: "café ☕ 😀" }) },
      { type: "task.started", actor: "worker-1", payload: fromJs({ task_id: "t1", weight: 0.5, big: 12345678901234567890n }) },
      { type: "task.completed", actor: "worker-1", payload: fromJs({ task_id: "t1", api_key: "hunter2", nested: { list: [1, "two", null] } }) },
      { type: "memory.noted", actor: "planner", payload: fromJs({ text: "日本語のメモ", ok: true }) },
    ];
    const legacyRoot = makeTempDir("zaxy-legacy");
    writeConfig(legacyRoot, { envelope: "legacy" });
    await appendEvents(legacyRoot, "s", events, { clock });
    await appendEvents(legacyRoot, "s", events, { clock });
    legacyLog = path.join(legacyRoot, "s.jsonl");
    const v1Root = makeTempDir("zaxy-v1");
    await appendEvents(v1Root, "s", events, { clock });
    await appendEvents(v1Root, "s", events, { clock });
    v1Log = path.join(v1Root, "s.jsonl");
    const mixedRoot = makeTempDir("zaxy-mixed");
    await appendEvents(mixedRoot, "s", events, { clock });
    await appendEvents(mixedRoot, "s", [{ type: "memory.rolled_back", actor: "planner", payload: fromJs({ reason: "undo" }) }, ...events], { clock });
    mixedLog = path.join(mixedRoot, "s.jsonl");
  });

  test("the zaxy-written logs are what the tampering assumes: 8 legacy, 8 v1, 4 v1 then 5 legacy lines", async () => {
    assert.deepEqual(readLines(legacyLog).map((l) => keysOf(l)[0]), Array(8).fill("seq"));
    assert.deepEqual(readLines(v1Log).map((l) => keysOf(l)[0]), Array(8).fill("id"));
    assert.deepEqual(readLines(mixedLog).map((l) => keysOf(l)[0]), [...Array(4).fill("id"), ...Array(5).fill("seq")]);
    for (const file of [legacyLog, v1Log, mixedLog]) assert.equal((await verifyLog(file)).ok, true);
  });

  test("legacy log: each hashed field edited at seq 1, 3, 8 fails there with ref_verify's verdict", async () => {
    await checkCases(tamperCases(legacyLog, makeTempDir("tamper"), [1, 3, 8], allFields), hasPython);
  });

  test("v1 log: each hashed field edited at seq 1, 3, 8 fails there with ref_verify's verdict", async () => {
    await checkCases(tamperCases(v1Log, makeTempDir("tamper"), [1, 3, 8], allFields), hasPython);
  });

  test("mixed log: edits on both sides of the envelope switch (seq 4 v1, 5 and 9 legacy) fail there", async () => {
    await checkCases(tamperCases(mixedLog, makeTempDir("tamper"), [4, 5, 9], allFields), hasPython);
  });
});

/** Re-seals line `seq` of `source` after `edit` (python3 code on `rec`), writing `file`. */
function resealWithPython(source: string, file: string, seq: number, edit: string, v1 = false): void {
  const lines = readLines(source);
  const program = `
rec = json.loads(sys.stdin.read())
${edit}
${v1 ? "" : "rec['hash'] = legacy_hash(rec)"}
sys.stdout.write(json.dumps(rec, ensure_ascii=False, separators=(",", ":")))
`;
  lines[seq - 1] = pythonWith(program, lines[seq - 1]);
  writeLines(file, lines);
}

describe("re-sealed edits that only the chain link catches", { skip: skipWithoutPython }, () => {
  const legacy = path.join(interopDir, "legacy-coordination-case-1.jsonl");
  const v1 = path.join(interopDir, "v1-fleet-scaling-case-1.jsonl");

  test("legacy: first event re-sealed with a prev_hash → 'First event has prev_hash set'", async () => {
    const file = path.join(makeTempDir("reseal"), "first.jsonl");
    resealWithPython(legacy, file, 1, "rec['prev_hash'] = 'ab' * 32");
    await checkCases(
      [{ label: "first prev", file, seq: 1, expected: { ok: false, total_events: 1, broken_at_seq: 1, broken_reason: "First event has prev_hash set", code: "first_prev_hash_set" } }],
      true,
    );
  });

  test("legacy: event 6 re-sealed with another prev_hash → 'Event 6 prev_hash does not link to previous'", async () => {
    const file = path.join(makeTempDir("reseal"), "link.jsonl");
    resealWithPython(legacy, file, 6, "rec['prev_hash'] = 'cd' * 32");
    await checkCases(
      [{ label: "link", file, seq: 6, expected: { ok: false, total_events: 6, broken_at_seq: 6, broken_reason: "Event 6 prev_hash does not link to previous", code: "prev_hash_mismatch" } }],
      true,
    );
  });

  test("legacy: event 6 re-sealed with seq 60 → 'Event sequence expected 6 but found 60'", async () => {
    const file = path.join(makeTempDir("reseal"), "seq.jsonl");
    resealWithPython(legacy, file, 6, "rec['seq'] = 60");
    await checkCases(
      [{ label: "seq", file, seq: 6, expected: { ok: false, total_events: 6, broken_at_seq: 6, broken_reason: "Event sequence expected 6 but found 60", code: "sequence_mismatch" } }],
      true,
    );
  });

  test("legacy: event 6 re-sealed with an uppercase prev_hash → link failure (hashes compare as strings)", async () => {
    const file = path.join(makeTempDir("reseal"), "upper.jsonl");
    resealWithPython(legacy, file, 6, "rec['prev_hash'] = rec['prev_hash'].upper()");
    await checkCases(
      [{ label: "upper", file, seq: 6, expected: { ok: false, total_events: 6, broken_at_seq: 6, broken_reason: "Event 6 prev_hash does not link to previous", code: "prev_hash_mismatch" } }],
      true,
    );
  });

  test("v1: first event with previousHash set (seal unchanged) → 'Event 1 prev_hash does not link to previous', as ref_verify says", async () => {
    const file = path.join(makeTempDir("reseal"), "v1first.jsonl");
    resealWithPython(v1, file, 1, "rec['integrity']['previousHash'] = 'sha256:' + 'ab' * 32", true);
    await checkCases(
      [{ label: "v1 first", file, seq: 1, expected: { ok: false, total_events: 1, broken_at_seq: 1, broken_reason: "Event 1 prev_hash does not link to previous", code: "prev_hash_mismatch" } }],
      true,
    );
  });

  test("v1: previousHash without its sha256: prefix does not link (ref_verify compares the prefixed string)", async () => {
    const file = path.join(makeTempDir("reseal"), "v1bare.jsonl");
    resealWithPython(v1, file, 5, "rec['integrity']['previousHash'] = rec['integrity']['previousHash'][len('sha256:'):]", true);
    await checkCases(
      [{ label: "v1 bare prev", file, seq: 5, expected: { ok: false, total_events: 5, broken_at_seq: 5, broken_reason: "Event 5 prev_hash does not link to previous", code: "prev_hash_mismatch" } }],
      true,
    );
  });

  test("v1: integrity.hash without its sha256: prefix is a hash mismatch", async () => {
    const file = path.join(makeTempDir("reseal"), "v1barehash.jsonl");
    resealWithPython(v1, file, 5, "rec['integrity']['hash'] = rec['integrity']['hash'][len('sha256:'):]", true);
    await checkCases(
      [{ label: "v1 bare hash", file, seq: 5, expected: { ok: false, total_events: 5, broken_at_seq: 5, broken_reason: "Event 5 hash mismatch", code: "hash_mismatch" } }],
      true,
    );
  });

  test("legacy: the last event's seq stored as 18.0 and sealed that way verifies, as in ref_verify (18.0 == 18)", async () => {
    const file = path.join(makeTempDir("reseal"), "floatseq.jsonl");
    resealWithPython(legacy, file, 18, "rec['seq'] = 18.0");
    assert.match(readLines(file)[17], /^\{"seq":18\.0,/);
    const expected = { ok: true, total_events: 18, broken_at_seq: null, broken_reason: null };
    assert.deepEqual(refVerifyMany([file])[0], expected);
    assert.deepEqual(verdictOf(await verifyLog(file)), expected);
  });

  test("legacy: odd seq values are reported as ref_verify prints them (str(), not repr(): 'found 6' for \"6\")", async () => {
    const dir = makeTempDir("reseal");
    const edits: Array<[string, string]> = [
      ["rec['seq'] = '6'", "6"],
      ["del rec['seq']", "None"],
      ["rec['seq'] = None", "None"],
      ["rec['seq'] = 6.5", "6.5"],
      ["rec['seq'] = True", "True"],
      ["rec['seq'] = -6", "-6"],
      ["rec['seq'] = 10**20", "100000000000000000000"],
      ["rec['seq'] = [6]", "[6]"],
      ["rec['seq'] = {'a': 'b'}", "{'a': 'b'}"],
    ];
    const files = edits.map(([edit], i) => {
      const file = path.join(dir, `odd${i}.jsonl`);
      resealWithPython(legacy, file, 6, edit);
      return file;
    });
    const expected = edits.map(([edit, found]) => `${edit} → Event sequence expected 6 but found ${found}`);
    assert.deepEqual(
      refVerifyMany(files).map((ref, i) => `${edits[i][0]} → ${ref.broken_reason}`),
      expected,
    );
    const reports = await Promise.all(files.map((file) => verifyLog(file)));
    // All values at once, so a failure shows every divergent rendering.
    assert.deepEqual(
      reports.map((report, i) => `${edits[i][0]} → ${report.broken_reason}`),
      expected,
    );
    for (const report of reports) assert.deepEqual([report.broken_at_seq, report.code], [6, "sequence_mismatch"]);
  });
});

describe("structural damage", () => {
  const legacy = path.join(interopDir, "legacy-coordination-case-1.jsonl");
  const v1 = path.join(interopDir, "v1-fleet-scaling-case-1.jsonl");

  test("a deleted legacy line fails at its position: 'Event sequence expected 5 but found 6'", async () => {
    const file = path.join(makeTempDir("struct"), "deleted.jsonl");
    const lines = readLines(legacy);
    lines.splice(4, 1);
    writeLines(file, lines);
    await checkCases(
      [{ label: "deleted", file, seq: 5, expected: { ok: false, total_events: 5, broken_at_seq: 5, broken_reason: "Event sequence expected 5 but found 6", code: "sequence_mismatch" } }],
      hasPython,
    );
  });

  test("a deleted v1 line fails at its position with a hash mismatch (the seal covers previousHash)", async () => {
    const file = path.join(makeTempDir("struct"), "deleted-v1.jsonl");
    const lines = readLines(v1);
    lines.splice(4, 1);
    writeLines(file, lines);
    await checkCases(
      [{ label: "deleted v1", file, seq: 5, expected: { ok: false, total_events: 5, broken_at_seq: 5, broken_reason: "Event 5 hash mismatch", code: "hash_mismatch" } }],
      hasPython,
    );
  });

  test("blank lines, whitespace-only lines and CRLF endings are skipped by both verifiers", async () => {
    const dir = makeTempDir("struct");
    const lines = readLines(legacy);
    const file = path.join(dir, "blank.jsonl");
    fs.writeFileSync(file, "\n" + lines.slice(0, 3).join("\n\n") + "\n \t \n" + lines.slice(3).map((l) => l + "\r\n").join("") + "\n\n");
    const expected = { ok: true, total_events: 18, broken_at_seq: null, broken_reason: null };
    assert.deepEqual(verdictOf(await verifyLog(file)), expected);
    if (hasPython) assert.deepEqual(refVerifyMany([file])[0], expected);
    const run = runZaxy(["verify", file, "--json"], { cwd: dir });
    assert.equal(run.code, 0, run.stdout);
    assert.deepEqual(verdictOf(JSON.parse(run.stdout).logs[0]), expected);
  });

  test("a line that is not JSON in the middle fails there: 'line 4 is not valid JSON' (ref_verify: same seq)", async () => {
    const dir = makeTempDir("struct");
    const lines = readLines(legacy);
    lines.splice(3, 0, "{not json");
    const file = path.join(dir, "garbage.jsonl");
    writeLines(file, lines);
    const report = await verifyLog(file);
    assert.deepEqual(verdictOf(report), { ok: false, total_events: 4, broken_at_seq: 4, broken_reason: "line 4 is not valid JSON" });
    assert.equal(report.code, "invalid_json");
    assert.equal(report.torn_tail, false);
    if (hasPython) {
      const ref = refVerifyMany([file])[0];
      assert.deepEqual([ref.ok, ref.total_events, ref.broken_at_seq], [false, 4, 4]);
      assert.match(ref.broken_reason ?? "", /^line 4 is not JSON/);
    }
    const run = runZaxy(["verify", file], { cwd: dir });
    assert.equal(run.code, 1);
    assert.equal(run.stdout, `BROKEN  ${file}  line 4 is not valid JSON (seq 4, line 4)\n`);
  });

  test("a JSON line that is not an object fails there (it cannot be an event)", async () => {
    const dir = makeTempDir("struct");
    for (const junk of ["[1,2,3]", '"text"', "42", "null"]) {
      const lines = readLines(legacy);
      lines.splice(2, 0, junk);
      const file = path.join(dir, "junk.jsonl");
      writeLines(file, lines);
      const report = await verifyLog(file);
      assert.deepEqual([report.ok, report.broken_at_seq, report.line], [false, 3, 3], junk);
      assert.match(report.broken_reason ?? "", /^line 3 is not valid JSON/, junk);
    }
  });

  test("two swapped legacy lines fail at the first of them", async () => {
    const file = path.join(makeTempDir("struct"), "swapped.jsonl");
    const lines = readLines(legacy);
    [lines[9], lines[10]] = [lines[10], lines[9]];
    writeLines(file, lines);
    await checkCases(
      [{ label: "swapped", file, seq: 10, expected: { ok: false, total_events: 10, broken_at_seq: 10, broken_reason: "Event sequence expected 10 but found 11", code: "sequence_mismatch" } }],
      hasPython,
    );
  });
});

describe("--all-errors", () => {
  test("lists every failure with its seq and line; the first failure is the verdict", async () => {
    const dir = makeTempDir("allerr");
    const source = path.join(interopDir, "legacy-coordination-case-1.jsonl");
    const lines = readLines(source);
    lines[2] = tamperLine(lines[2], "payload"); // seq 3: hash mismatch
    lines[6] = tamperLine(lines[6], "seq"); // seq 7: found 8
    lines[11] = tamperLine(lines[11], "timestamp"); // seq 12: hash mismatch
    const file = path.join(dir, "several.jsonl");
    writeLines(file, lines);
    const expectedErrors = [
      { code: "hash_mismatch", seq: 3, line: 3, reason: "Event 3 hash mismatch" },
      { code: "sequence_mismatch", seq: 7, line: 7, reason: "Event sequence expected 7 but found 8" },
      { code: "hash_mismatch", seq: 12, line: 12, reason: "Event 12 hash mismatch" },
    ];

    const report = await verifyLog(file, { allErrors: true });
    assert.deepEqual(report.errors, expectedErrors);
    assert.deepEqual(verdictOf(report), { ok: false, total_events: 18, broken_at_seq: 3, broken_reason: "Event 3 hash mismatch" });

    const first = await verifyLog(file);
    assert.deepEqual(first.errors, expectedErrors.slice(0, 1));

    const json = runZaxy(["verify", file, "--all-errors", "--json"], { cwd: dir });
    assert.equal(json.code, 1);
    assert.equal(json.stderr, "");
    assert.deepEqual(JSON.parse(json.stdout).logs[0].errors, expectedErrors);

    const text = runZaxy(["verify", file, "--all-errors"], { cwd: dir });
    assert.equal(text.code, 1);
    assert.equal(text.stderr, "");
    assert.equal(
      text.stdout,
      [
        `BROKEN  ${file}  Event 3 hash mismatch (seq 3, line 3)`,
        "        Event sequence expected 7 but found 8 (seq 7, line 7)",
        "        Event 12 hash mismatch (seq 12, line 12)",
        "",
      ].join("\n"),
    );
  });

  test("a re-sealed event with a wrong link also breaks the next link (its stored hash changed)", { skip: skipWithoutPython }, async () => {
    const dir = makeTempDir("allerr");
    const file = path.join(dir, "relinked.jsonl");
    resealWithPython(path.join(interopDir, "legacy-coordination-case-1.jsonl"), file, 6, "rec['prev_hash'] = 'cd' * 32");
    const report = await verifyLog(file, { allErrors: true });
    assert.deepEqual(
      report.errors.map((e) => [e.seq, e.code]),
      [
        [6, "prev_hash_mismatch"],
        [7, "prev_hash_mismatch"],
      ],
    );
  });
});
