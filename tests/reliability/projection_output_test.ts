/**
 * Issue 12 item 1: `zaxy compact LOG --projection-output PATH` may only write a
 * `*.compaction.json` artifact in an existing directory. It never replaces another session's
 * log, a fleet log or config.json (under any alias: symlink, hard link, `..`), never writes
 * outside the artifact rule, never creates directories, replaces an existing file only when it
 * is an artifact of the same log (or --force), and a failed write leaves the old artifact whole.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { makeTempDir, removeTempDirs, sha256Hex } from "../eventloom/testkit.ts";
import { runZaxy, stackTraceLines, type ZaxyRun } from "../cli/zaxy.ts";
import { canMountTmpfs, mountTmpfs, remountReadOnly, unmount } from "./fsFaults.ts";

after(removeTempDirs);

const slow = { timeout: 120_000 };
let dir = "";
let root = "";
let log = "";

function zaxy(args: string[], cwd = dir): ZaxyRun {
  return runZaxy(args, { cwd });
}

function append(cwd: string, type: string, payload: Record<string, unknown>, session = "default"): void {
  const run = runZaxy(["memory", "append", type, "--actor", "indexer", "--session-id", session, "--payload-json", JSON.stringify(payload)], { cwd });
  assert.equal(run.code, 0, run.stderr);
}

/** sha256 of every file under the root (symlinks by target name), to prove nothing changed. */
function rootDigest(): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(d, e.name);
      if (e.isSymbolicLink()) out[full] = `-> ${fs.readlinkSync(full)}`;
      else if (e.isDirectory()) walk(full);
      else out[full] = sha256Hex(fs.readFileSync(full));
    }
  };
  walk(root);
  return out;
}

function refused(run: ZaxyRun, code: string, message: RegExp, label: string): void {
  assert.equal(run.code, 2, `${label}: ${run.stderr}${run.stdout}`);
  const doc = JSON.parse(run.stdout);
  assert.equal(doc.error.code, code, label);
  assert.match(doc.error.message, message, label);
  assert.equal(doc.error.field, "--projection-output", label);
}

before(() => {
  dir = makeTempDir("zaxy-projection-output");
  root = path.join(dir, ".eventloom");
  // The fleet plane is off by default; this root needs a fleet log to protect.
  assert.equal(zaxy(["init", "--fleet"]).code, 0);
  for (let i = 0; i < 4; i++) append(dir, "document.indexed", { path: `docs/d${i}.md`, start_line: 1, end_line: 3, content: `Release note identity-code-000${i}.` });
  append(dir, "note.recorded", { text: "another session's memory" }, "other");
  assert.equal(zaxy(["fleet", "create", "alpha", "--actor", "steward", "--summary", "Alpha fleet"]).code, 0);
  log = path.join(root, "default.jsonl");
});

describe("compact --projection-output never replaces a log, a fleet log or config.json", () => {
  test("another session's log, a fleet log, config.json and a path outside the root are refused (exit 2), with or without --force; every byte stays", slow, () => {
    const outside = path.join(makeTempDir("zaxy-outside"), "x");
    fs.writeFileSync(outside, "not zaxy's\n");
    const before = rootDigest();
    const targets = [
      [".eventloom/other.jsonl", "protected_file", /is the Eventloom log .*other\.jsonl; a projection never replaces a log/],
      [".eventloom/fleet.alpha.jsonl", "protected_file", /is the Eventloom log .*fleet\.alpha\.jsonl/],
      [".eventloom/config.json", "protected_file", /is the Eventloom config .*config\.json/],
      [".eventloom/default.jsonl", "protected_file", /is the log itself/],
      [path.relative(dir, outside), "invalid_projection_output", /must name a \*\.compaction\.json file/],
      [".eventloom/rows.json", "invalid_projection_output", /must name a \*\.compaction\.json file/],
    ] as const;
    for (const [target, code, message] of targets) {
      for (const force of [[], ["--force"]]) {
        const run = zaxy(["compact", ".eventloom/default.jsonl", "--projection-output", target, ...force, "--json"]);
        refused(run, code, message, `${target} ${force.join(" ")}`);
      }
    }
    assert.deepEqual(rootDigest(), before);
    assert.equal(fs.readFileSync(outside, "utf8"), "not zaxy's\n");
    const verify = zaxy(["verify", "--all", "--json"]);
    assert.equal(verify.code, 0, verify.stdout);
    assert.deepEqual(JSON.parse(verify.stdout).logs.map((l: { ok: boolean }) => l.ok), [true, true, true]);
  });

  test("aliases of a log or config.json are refused even with --force: symlinks (name and directory), hard links, `..` spellings", slow, () => {
    const links = makeTempDir("zaxy-aliases");
    fs.symlinkSync(path.join(root, "other.jsonl"), path.join(links, "sym-log.compaction.json"));
    fs.symlinkSync(path.join(root, "config.json"), path.join(links, "sym-config.compaction.json"));
    fs.linkSync(path.join(root, "other.jsonl"), path.join(links, "hard-log.compaction.json"));
    fs.linkSync(path.join(root, "config.json"), path.join(links, "hard-config.compaction.json"));
    fs.linkSync(path.join(root, "fleet.alpha.jsonl"), path.join(links, "hard-fleet.compaction.json"));
    fs.symlinkSync(root, path.join(links, "rootlink"));
    const before = rootDigest();
    const aliases = [
      path.join(links, "sym-log.compaction.json"),
      path.join(links, "sym-config.compaction.json"),
      path.join(links, "hard-log.compaction.json"),
      path.join(links, "hard-config.compaction.json"),
      path.join(links, "hard-fleet.compaction.json"),
      // Other spellings of the hard link: relative with `..`, doubled slashes and `.`.
      `${path.relative(dir, links)}/../${path.basename(links)}/hard-log.compaction.json`,
      `${links}//./hard-log.compaction.json`,
    ];
    for (const alias of aliases) {
      const run = zaxy(["compact", log, "--projection-output", alias, "--force", "--json"]);
      refused(run, "protected_file", /is an alias of the Eventloom (log|config)/, alias);
    }
    // A log named through a symlinked directory is the same log.
    const viaDir = zaxy(["compact", log, "--projection-output", path.join(links, "rootlink", "other.jsonl"), "--json"]);
    refused(viaDir, "protected_file", /is an alias of the Eventloom log .*other\.jsonl/, "rootlink/other.jsonl");
    assert.deepEqual(rootDigest(), before);
    assert.equal(zaxy(["verify", "--all"]).code, 0);
  });

  test("a missing parent directory is refused (exit 2) and not created", slow, () => {
    const run = zaxy(["compact", ".eventloom/default.jsonl", "--projection-output", "newdir/sub/x.compaction.json", "--json"]);
    refused(run, "missing_directory", /is in a directory that does not exist .*newdir\/sub.*; nothing was written/, "missing dir");
    assert.match(JSON.parse(run.stdout).error.hint, /mkdir -p/);
    assert.equal(fs.existsSync(path.join(dir, "newdir")), false);
    const text = zaxy(["compact", ".eventloom/default.jsonl", "--projection-output", "newdir/sub/x.compaction.json"]);
    assert.equal(text.code, 2);
    assert.equal(text.stdout, "");
    assert.deepEqual(stackTraceLines(text.stderr), []);
  });
});

describe("compact --projection-output over an existing *.compaction.json", () => {
  test("an artifact of the same log is replaced; a file that is not an artifact needs --force; an artifact of another log needs --force", slow, () => {
    const projections = path.join(root, "projections");
    fs.mkdirSync(projections, { recursive: true });
    const out = path.join(projections, "default.compaction.json");
    const first = zaxy(["compact", log, "--projection-output", out, "--json"]);
    assert.equal(first.code, 0, first.stderr);
    append(dir, "document.indexed", { path: "docs/d9.md", start_line: 1, end_line: 3, content: "Release note identity-code-0009." });
    const again = zaxy(["compact", log, "--projection-output", out, "--strategy", "exemplar", "--max-records", "5", "--json"]);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(JSON.parse(fs.readFileSync(out, "utf8")).source_event_count, 5);

    const junk = path.join(projections, "notes.compaction.json");
    fs.writeFileSync(junk, "my notes, not an artifact\n");
    refused(zaxy(["compact", log, "--projection-output", junk, "--json"]), "projection_output_exists", /exists and is not a compaction artifact; nothing was written/, "junk");
    assert.equal(fs.readFileSync(junk, "utf8"), "my notes, not an artifact\n");
    const forced = zaxy(["compact", log, "--projection-output", junk, "--force", "--json"]);
    assert.equal(forced.code, 0, forced.stderr);
    assert.equal(JSON.parse(fs.readFileSync(junk, "utf8")).source_event_count, 5);

    const otherLog = path.join(root, "other.jsonl");
    const otherBytes = fs.readFileSync(out);
    refused(zaxy(["compact", otherLog, "--projection-output", out, "--json"]), "projection_output_exists", /is a compaction artifact of another log/, "other log");
    assert.deepEqual(fs.readFileSync(out), otherBytes);
    const overOther = zaxy(["compact", otherLog, "--projection-output", out, "--force", "--json"]);
    assert.equal(overOther.code, 0, overOther.stderr);
    assert.match(JSON.parse(fs.readFileSync(out, "utf8")).records[0].event_ref, /^eventloom:\/\/other\/events\/1#/);
    assert.deepEqual(fs.readdirSync(projections).filter((name) => name.endsWith(".tmp")), [], "no temp file left");
  });

  test("a write that fails (read-only file system) leaves the previous artifact byte for byte, exit 3", { ...slow, skip: !canMountTmpfs && "cannot mount a tmpfs here" }, () => {
    const mountDir = path.join(makeTempDir("zaxy-projection-ro"), "projections");
    assert.ok(mountTmpfs(mountDir), "mount tmpfs");
    try {
      const out = path.join(mountDir, "default.compaction.json");
      assert.equal(zaxy(["compact", log, "--projection-output", out]).code, 0);
      const before = fs.readFileSync(out);
      remountReadOnly(mountDir);
      const run = zaxy(["compact", log, "--projection-output", out, "--json"]);
      assert.equal(run.code, 3, run.stdout + run.stderr);
      assert.equal(JSON.parse(run.stdout).error.code, "projection_write_failed");
      assert.deepEqual(fs.readFileSync(out), before);
      assert.deepEqual(fs.readdirSync(mountDir), ["default.compaction.json"]);
    } finally {
      unmount(mountDir);
    }
  });
});
