// test-lane: full (slow)
/**
 * Issue 12 item 14: hostile surroundings get one clear error each, naming the field, with the
 * right exit code, in text and --json, from writers and readers alike, and nothing written:
 * config.json with an unknown envelope or as a folder, --eventloom-path naming a file or empty,
 * a session log that is a folder, a read-only root (a real read-only tmpfs), `--limit -1`, and
 * `zaxy` with no command.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { makeTempDir, removeTempDirs, sha256Hex } from "../eventloom/testkit.ts";
import { runZaxy, stackTraceLines, type ZaxyRun } from "../cli/zaxy.ts";
import { canMountTmpfs, mountTmpfs, remountReadOnly, unmount } from "./fsFaults.ts";

after(removeTempDirs);

const slow = { timeout: 120_000 };

function zaxy(args: string[], cwd: string): ZaxyRun {
  return runZaxy(args, { cwd });
}

function appendArgs(extra: string[] = []): string[] {
  return ["memory", "append", "goal.created", "--actor", "a", "--payload-json", '{"title":"x"}', ...extra];
}

/** No raw syscall text (`EEXIST: file already exists, mkdir '/x'`), no "internal error", no stack. */
function assertClean(run: ZaxyRun, label: string): void {
  const all = run.stdout + run.stderr;
  assert.doesNotMatch(all, /\bE[A-Z]{3,}\b: |\b(EEXIST|EISDIR|EROFS|ENOTDIR|EACCES)\b/, `${label}: ${all}`);
  assert.doesNotMatch(all, /internal error/, label);
  assert.deepEqual(stackTraceLines(run.stderr), [], label);
}

/** Runs `args` as text and as --json: same exit code, one error object with `code` and `field`. */
function expectError(args: string[], cwd: string, exit: number, code: string, message: RegExp, field?: string): void {
  const label = args.join(" ");
  const text = zaxy(args, cwd);
  assert.equal(text.code, exit, `${label}: ${text.stdout}${text.stderr}`);
  assert.equal(text.stdout, "", label);
  assert.match(text.stderr, message, label);
  assertClean(text, label);
  const json = zaxy([...args, "--json"], cwd);
  assert.equal(json.code, exit, label);
  const error = JSON.parse(json.stdout).error;
  assert.equal(error.code, code, label);
  assert.match(error.message, message, label);
  if (field !== undefined) assert.equal(error.field, field, label);
  assertClean(json, label);
}

describe("config.json", () => {
  test('"envelope": "v9" is bad input naming the key and the allowed values (exit 2), nothing written; init --force rewrites it', slow, () => {
    const dir = makeTempDir("zaxy-config-envelope");
    fs.mkdirSync(path.join(dir, ".eventloom"));
    fs.writeFileSync(path.join(dir, ".eventloom", "config.json"), '{"envelope": "v9"}\n');
    expectError(appendArgs(), dir, 2, "invalid_config", /config\.json: envelope must be one of "v1", "legacy", got "v9"/, "config.json envelope");
    assert.deepEqual(fs.readdirSync(path.join(dir, ".eventloom")), ["config.json"], "no log written");
    const init = zaxy(["init", "--force", "--envelope", "v1"], dir);
    assert.equal(init.code, 0, init.stderr);
    assert.equal(zaxy(appendArgs(), dir).code, 0);
  });

  test("config.json that is a folder is bad input (exit 2), not silently ignored", slow, () => {
    const dir = makeTempDir("zaxy-config-folder");
    fs.mkdirSync(path.join(dir, ".eventloom", "config.json"), { recursive: true });
    expectError(appendArgs(), dir, 2, "invalid_config", /config\.json: it is a directory, not a file/, "config.json");
    assert.deepEqual(fs.readdirSync(path.join(dir, ".eventloom")), ["config.json"], "no log written");
  });
});

describe("--eventloom-path", () => {
  test("a path naming a file is exit 2 naming the flag for writers and readers; the file is untouched", slow, () => {
    const dir = makeTempDir("zaxy-root-file");
    const file = path.join(dir, "hostname");
    fs.writeFileSync(file, "box\n");
    for (const args of [appendArgs(), ["memory", "log"], ["verify"], ["memory", "checkout", "q"], ["memory", "status"], ["init"], ["reproject"]]) {
      expectError([...args, "--eventloom-path", file], dir, 2, "invalid_eventloom_path", /--eventloom-path ".*hostname" is a file, not a directory/, "--eventloom-path");
    }
    expectError([...appendArgs(), "--eventloom-path", path.join(file, "sub")], dir, 2, "invalid_eventloom_path", /is below the file .*hostname, not a directory/);
    assert.equal(fs.readFileSync(file, "utf8"), "box\n");
  });

  test("an empty path is exit 2 (not the current directory); nothing is written", slow, () => {
    const dir = makeTempDir("zaxy-root-empty");
    for (const args of [appendArgs(), ["memory", "log"], ["verify", "--all"]]) {
      expectError([...args, "--eventloom-path", ""], dir, 2, "invalid_eventloom_path", /--eventloom-path is empty/, "--eventloom-path");
      expectError([...args, "--eventloom-path="], dir, 2, "invalid_eventloom_path", /--eventloom-path is empty/, "--eventloom-path");
    }
    assert.deepEqual(fs.readdirSync(dir), []);
  });
});

describe("a session log that is a folder", () => {
  test("writers say it is a directory, not a log file (exit 2); readers report it without a raw EISDIR", slow, () => {
    const dir = makeTempDir("zaxy-log-folder");
    fs.mkdirSync(path.join(dir, ".eventloom", "default.jsonl"), { recursive: true });
    expectError(appendArgs(), dir, 2, "not_a_log_file", /The log of session "default" \(.*default\.jsonl\) is a directory, not a log file/);
    expectError(["memory", "ingest"], dir, 2, "not_a_log_file", /is a directory, not a log file/);
    expectError(["memory", "log"], dir, 2, "not_a_log_file", /is a directory, not a log file/);
    for (const args of [["verify"], ["replay", ".eventloom/default.jsonl"], ["memory", "checkout", "q"]]) {
      expectError(args, dir, 2, "unreadable_log", /is a directory/);
    }
  });
});

describe("a read-only Eventloom root (real read-only tmpfs)", () => {
  test("writers exit 3 with `Cannot write to the Eventloom root X: read-only file system`; readers still read", { ...slow, skip: !canMountTmpfs && "cannot mount a tmpfs here" }, () => {
    const dir = makeTempDir("zaxy-root-ro");
    const root = path.join(dir, "root");
    assert.ok(mountTmpfs(root), "mount tmpfs");
    try {
      assert.equal(zaxy([...appendArgs(), "--eventloom-path", "root"], dir).code, 0);
      remountReadOnly(root);
      const before = sha256Hex(fs.readFileSync(path.join(root, "default.jsonl")));
      for (const args of [appendArgs(), ["memory", "ingest"], ["init", "--force"], ["reproject"], ["fleet", "create", "f", "--actor", "a", "--summary", "s"]]) {
        expectError([...args, "--eventloom-path", "root"], dir, 3, "unwritable_root", /^Cannot write to the Eventloom root root: read-only file system$|^zaxy: Cannot write to the Eventloom root root: read-only file system\n$/);
      }
      expectError([...appendArgs(), "--eventloom-path", "root/new"], dir, 3, "unwritable_root", /Cannot write to .*root \(to create the Eventloom root root\/new\): read-only file system/);
      const log = zaxy(["memory", "log", "--eventloom-path", "root"], dir);
      assert.equal(log.code, 0, log.stderr);
      assert.match(log.stdout, /^integrity: OK \(1 events\)\n/);
      assert.equal(zaxy(["verify", "--eventloom-path", "root"], dir).code, 0);
      assert.equal(sha256Hex(fs.readFileSync(path.join(root, "default.jsonl"))), before);
    } finally {
      unmount(root);
    }
  });
});

describe("argument parsing", () => {
  test("--limit -1 is refused by the range check (exit 2 `must be an integer 1..1000`), not as a missing value", slow, () => {
    const dir = makeTempDir("zaxy-negative");
    expectError(["memory", "log", "--limit", "-1"], dir, 2, "invalid_option", /--limit must be an integer 1\.\.1000, got "-1"/, "--limit");
    expectError(["replay", "x.jsonl", "--from-seq", "-3"], dir, 2, "invalid_option", /--from-seq must be an integer >= 1, got "-3"/, "--from-seq");
    expectError(["compact", "x.jsonl", "--audit", "--max-records", "-2"], dir, 2, "invalid_option", /--max-records must be an integer >= 1, got "-2"/, "--max-records");
    // A flag after an option is still a missing value.
    const missing = zaxy(["memory", "log", "--limit", "--json"], dir);
    assert.equal(missing.code, 2);
    assert.equal(JSON.parse(missing.stdout).error.code, "usage");
    assert.match(JSON.parse(missing.stdout).error.message, /option "--limit" needs a value/);
  });

  test("zaxy with no command: usage on stderr, exit 2; --json gives the usage error object", slow, () => {
    const dir = makeTempDir("zaxy-noargs");
    const run = zaxy([], dir);
    assert.equal(run.code, 2);
    assert.equal(run.stdout, "");
    assert.match(run.stderr, /^Usage: zaxy <command>/);
    assert.match(run.stderr, /zaxy: missing command \(valid: init, config, verify, replay, memory/);
    const json = zaxy(["--json"], dir);
    assert.equal(json.code, 2);
    assert.deepEqual(Object.keys(JSON.parse(json.stdout).error), ["code", "message", "hint"]);
    assert.equal(JSON.parse(json.stdout).error.code, "usage");
    assert.equal(zaxy(["--help"], dir).code, 0, "asking for help is not an error");
  });
});
