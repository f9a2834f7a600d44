/**
 * A torn last line (crash mid-write) is never silently extended (DESIGN §2.3): verify reports
 * it (exit 1, torn_tail true), append refuses it (file unchanged), and only the explicit
 * `zaxy repair --truncate-torn-tail` removes it — exactly the torn bytes, saved to a backup —
 * after which verify and append work again. Repair on a healthy log changes nothing.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { makeTempDir, refVerify, removeTempDirs, skipWithoutPython } from "../eventloom/testkit.ts";
import { runZaxy } from "./zaxy.ts";

after(removeTempDirs);

const hasPython = skipWithoutPython === false;

interface TornLog {
  dir: string;
  file: string;
  /** Bytes of the complete lines kept before the torn one. */
  intact: Buffer;
  /** The torn bytes after the last newline. */
  torn: Buffer;
}

/** Three events via the CLI, then the third line cut to `keepBytes` bytes (no newline). */
function tornLog(options: { envelope?: "legacy" | "v1"; keep?: (line: Buffer) => number } = {}): TornLog {
  const dir = makeTempDir("torn");
  if (options.envelope) assert.equal(runZaxy(["init", "--envelope", options.envelope], { cwd: dir }).code, 0);
  for (const [i, text] of ["first", "second", "third ☕ café"].entries()) {
    const run = runZaxy(["memory", "append", "note.added", "--actor", "agent", "--payload-json", JSON.stringify({ i, text })], { cwd: dir });
    assert.equal(run.code, 0, run.stderr);
  }
  const file = path.join(dir, ".eventloom", "default.jsonl");
  const bytes = fs.readFileSync(file);
  const lastStart = bytes.lastIndexOf(0x0a, bytes.length - 2) + 1;
  const intact = bytes.subarray(0, lastStart);
  const lastLine = bytes.subarray(lastStart, bytes.length - 1);
  const torn = lastLine.subarray(0, options.keep ? options.keep(lastLine) : Math.floor(lastLine.length / 2));
  fs.writeFileSync(file, Buffer.concat([intact, torn]));
  return { dir, file, intact: Buffer.from(intact), torn: Buffer.from(torn) };
}

/** What repair shows of the removed bytes: up to 200 characters, then "…". */
function previewOf(bytes: Buffer): string {
  const text = bytes.toString("utf8");
  return text.length > 200 ? text.slice(0, 200) + "…" : text;
}

describe("torn tail", () => {
  test("zaxy verify exits 1, names the line and says torn tail; --json has torn_tail true", () => {
    const { dir, file } = tornLog();
    const text = runZaxy(["verify"], { cwd: dir });
    assert.equal(text.code, 1);
    assert.equal(text.stderr, "");
    assert.equal(
      text.stdout,
      // The session's log is shown relative to the working directory, as --all shows paths.
      `BROKEN  ${path.relative(dir, file)}  line 3 is not valid JSON (torn tail: the last line was cut mid-write) (seq 3, line 3)\n` +
        "        hint: the last line was cut mid-write; run 'zaxy repair --truncate-torn-tail' on this log\n",
    );
    const json = runZaxy(["verify", "--json"], { cwd: dir });
    assert.equal(json.code, 1);
    assert.equal(json.stderr, "");
    const log = JSON.parse(json.stdout).logs[0];
    assert.deepEqual(
      { ok: log.ok, total: log.total_events, seq: log.broken_at_seq, line: log.line, code: log.code, torn: log.torn_tail, reason: log.broken_reason },
      { ok: false, total: 3, seq: 3, line: 3, code: "torn_tail", torn: true, reason: "line 3 is not valid JSON (torn tail: the last line was cut mid-write)" },
    );
    if (hasPython) {
      const ref = refVerify(file);
      assert.equal(ref.code, 1);
      assert.deepEqual([ref.verdict.ok, ref.verdict.total_events, ref.verdict.broken_at_seq], [false, 3, 3]);
      assert.match(ref.verdict.broken_reason ?? "", /^line 3 is not JSON/);
    }
  });

  test("zaxy memory append refuses a torn log (exit 1, file bytes unchanged), in text and --json mode", () => {
    const { dir, file } = tornLog();
    const before = fs.readFileSync(file);
    const text = runZaxy(["memory", "append", "note.added", "--actor", "agent"], { cwd: dir });
    assert.notEqual(text.code, 0);
    assert.equal(text.code, 1);
    assert.equal(text.stdout, "");
    assert.match(text.stderr, /torn tail/);
    assert.match(text.stderr, /zaxy repair --truncate-torn-tail/);
    const json = runZaxy(["memory", "append", "note.added", "--actor", "agent", "--json"], { cwd: dir });
    assert.equal(json.code, 1);
    assert.equal(JSON.parse(json.stdout).error.code, "torn_tail");
    const ingest = runZaxy(["memory", "ingest", "-"], { cwd: dir, input: '{"event_type":"note.added","actor":"a"}\n' });
    assert.equal(ingest.code, 1);
    assert.deepEqual(fs.readFileSync(file), before);
  });

  test("zaxy repair --truncate-torn-tail removes only the torn bytes, backs them up, and says what it removed", () => {
    const { dir, file, intact, torn } = tornLog();
    const run = runZaxy(["repair", "--truncate-torn-tail"], { cwd: dir });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, "");
    const backups = fs.readdirSync(path.dirname(file)).filter((name) => name.includes(".torn-tail-"));
    assert.equal(backups.length, 1);
    assert.match(backups[0], /^default\.jsonl\.torn-tail-\d+\.bak$/);
    const backup = path.join(path.dirname(file), backups[0]);
    assert.equal(
      run.stdout,
      `Removed the torn last line (line 3, ${torn.length} bytes); saved it to ${backup}.\nremoved: ${JSON.stringify(previewOf(torn))}\n2 events kept\n`,
    );
    assert.deepEqual(fs.readFileSync(backup), torn, "the backup holds exactly the removed bytes");
    assert.deepEqual(fs.readFileSync(file), intact, "everything before the torn line is untouched");

    const verify = runZaxy(["verify", "--json"], { cwd: dir });
    assert.equal(verify.code, 0, verify.stdout);
    assert.equal(JSON.parse(verify.stdout).logs[0].total_events, 2);
    const append = runZaxy(["memory", "append", "note.added", "--actor", "agent", "--json"], { cwd: dir });
    assert.equal(append.code, 0, append.stderr);
    assert.equal(JSON.parse(append.stdout).seq, 3);
    assert.equal(runZaxy(["verify"], { cwd: dir }).code, 0);
    if (hasPython) assert.equal(refVerify(file).code, 0);
  });

  test("repair --json reports {repaired, removed_line, removed_bytes, removed_preview, backup_path, events_kept}", () => {
    const { dir, file, torn } = tornLog({ envelope: "legacy" });
    const run = runZaxy(["repair", file, "--truncate-torn-tail", "--json"], { cwd: dir });
    assert.equal(run.code, 0, run.stdout);
    assert.equal(run.stderr, "");
    const doc = JSON.parse(run.stdout);
    assert.equal(doc.schema, "zaxy.repair.v1");
    assert.deepEqual(
      { repaired: doc.repaired, path: doc.path, line: doc.removed_line, bytes: doc.removed_bytes, kept: doc.events_kept, preview: doc.removed_preview },
      { repaired: true, path: file, line: 3, bytes: torn.length, kept: 2, preview: previewOf(torn) },
    );
    assert.deepEqual(fs.readFileSync(doc.backup_path), torn);
    assert.match(doc.message, /^Removed the torn last line \(line 3, \d+ bytes\)/);
  });

  test("a raw UTF-8 legacy line cut inside a multi-byte character is backed up byte-exactly", () => {
    const { dir, file, intact, torn } = tornLog({
      envelope: "legacy",
      keep: (line) => line.indexOf(Buffer.from("☕")) + 1, // one byte into a 3-byte character
    });
    assert.equal(torn.at(-1), 0xe2);
    const verify = runZaxy(["verify", "--json"], { cwd: dir });
    assert.equal(verify.code, 1);
    assert.equal(JSON.parse(verify.stdout).logs[0].torn_tail, true);
    const run = runZaxy(["repair", "--truncate-torn-tail", "--json"], { cwd: dir });
    assert.equal(run.code, 0, run.stdout);
    assert.deepEqual(fs.readFileSync(JSON.parse(run.stdout).backup_path), torn);
    assert.deepEqual(fs.readFileSync(file), intact);
  });

  test("a one-byte torn tail ('{') is found and removed", () => {
    const { dir, file, intact } = tornLog({ keep: () => 1 });
    assert.equal(runZaxy(["verify"], { cwd: dir }).code, 1);
    const run = runZaxy(["repair", "--truncate-torn-tail", "--json"], { cwd: dir });
    assert.equal(JSON.parse(run.stdout).removed_bytes, 1);
    assert.deepEqual(fs.readFileSync(file), intact);
  });

  test("repair on a healthy log changes nothing and writes no backup (exit 0)", () => {
    const dir = makeTempDir("healthy");
    for (let i = 0; i < 2; i++) assert.equal(runZaxy(["memory", "append", "note.added", "--actor", "a"], { cwd: dir }).code, 0);
    const root = path.join(dir, ".eventloom");
    const before = fs.readFileSync(path.join(root, "default.jsonl"));
    const listing = fs.readdirSync(root).sort();
    const run = runZaxy(["repair", "--truncate-torn-tail"], { cwd: dir });
    assert.equal(run.code, 0);
    assert.equal(run.stderr, "");
    assert.equal(run.stdout, "No torn tail: the log ends with a complete line. Nothing changed.\n");
    const json = runZaxy(["repair", "--truncate-torn-tail", "--json"], { cwd: dir });
    assert.equal(json.code, 0);
    const doc = JSON.parse(json.stdout);
    assert.deepEqual([doc.repaired, doc.removed_bytes, doc.backup_path, doc.events_kept], [false, 0, null, 2]);
    assert.deepEqual(fs.readFileSync(path.join(root, "default.jsonl")), before);
    assert.deepEqual(fs.readdirSync(root).sort(), listing);
  });

  test("a complete last line without its newline is not torn: verify OK, repair refuses (exit 1), append adds the newline", () => {
    const dir = makeTempDir("nonewline");
    for (let i = 0; i < 2; i++) assert.equal(runZaxy(["memory", "append", "note.added", "--actor", "a"], { cwd: dir }).code, 0);
    const file = path.join(dir, ".eventloom", "default.jsonl");
    const trimmed = fs.readFileSync(file).subarray(0, -1);
    fs.writeFileSync(file, trimmed);
    const verify = runZaxy(["verify", "--json"], { cwd: dir });
    assert.equal(verify.code, 0, verify.stdout);
    assert.equal(JSON.parse(verify.stdout).logs[0].torn_tail, false);
    if (hasPython) assert.equal(refVerify(file).code, 0);
    const repair = runZaxy(["repair", "--truncate-torn-tail", "--json"], { cwd: dir });
    assert.equal(repair.code, 1);
    assert.equal(JSON.parse(repair.stdout).error.code, "not_torn");
    assert.deepEqual(fs.readFileSync(file), trimmed);
    const append = runZaxy(["memory", "append", "note.added", "--actor", "a", "--json"], { cwd: dir });
    assert.equal(append.code, 0, append.stdout);
    assert.equal(JSON.parse(append.stdout).seq, 3);
    assert.equal(runZaxy(["verify"], { cwd: dir }).code, 0);
  });

  test("repair without --truncate-torn-tail, or of a missing log, is bad input (exit 2) and touches nothing", () => {
    const { dir, file } = tornLog();
    const before = fs.readFileSync(file);
    const bare = runZaxy(["repair"], { cwd: dir });
    assert.equal(bare.code, 2);
    assert.match(bare.stderr, /--truncate-torn-tail/);
    const missing = runZaxy(["repair", path.join(dir, "nope.jsonl"), "--truncate-torn-tail"], { cwd: dir });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /no such file/);
    assert.deepEqual(fs.readFileSync(file), before);
  });
});
