// test-lane: full (slow)
/**
 * What zaxy writes outside its root (docs/files.md): with a fresh `HOME` and `TMPDIR`, nothing
 * under `HOME` and, under `TMPDIR`, only the per-user cache directory with the unpacked Kuzu
 * loader script and usearch addon; with both read-only (or `TMPDIR` mounted `noexec`), the same
 * commands succeed and unpack into the root's own `projections/cache`.
 *
 * Read-only means a tmpfs mounted `ro` (we run as root, so permissions would not stop a write);
 * where mounting is not allowed, a path below a regular file (every write fails with ENOTDIR).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { runZaxy, stackTraceLines, zaxyInvocation } from "../cli/zaxy.ts";
import { canMountTmpfs, unmount } from "./fsFaults.ts";

const slow = { timeout: 240_000 };
const mounts: string[] = [];
after(() => {
  for (const mount of mounts.splice(0)) unmount(mount);
  removeTempDirs();
});

/** A directory nothing can be written under. */
function readOnlyDir(base: string, name: string): string {
  const dir = path.join(base, name);
  fs.mkdirSync(dir);
  if (canMountTmpfs && spawnSync("mount", ["-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", dir]).status === 0) {
    mounts.push(dir);
    return dir;
  }
  const file = path.join(base, `${name}-file`);
  fs.writeFileSync(file, "");
  return path.join(file, "dir");
}

/** Every file under `dir`, relative to it, sorted. */
function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (current: string) => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) walk(full);
      else out.push(path.relative(dir, full));
    }
  };
  walk(dir);
  return out.sort();
}

const goal = JSON.stringify({ title: "Ship the read-only TMPDIR fix", description: "unpack helpers into the root" });

/** The main commands, each with the exit code it must give; the last ones load Kuzu and usearch. */
const commands: Array<{ args: string[]; code: number }> = [
  { args: ["init", "--json"], code: 0 },
  { args: ["memory", "append", "goal.created", "--actor", "ci", "--payload-json", goal, "--json"], code: 0 },
  { args: ["memory", "append", "goal.created", "--actor", "ci", "--payload-json", goal, "--json"], code: 0 },
  { args: ["verify", "--json"], code: 0 },
  { args: ["replay", ".eventloom/default.jsonl", "--json"], code: 0 },
  { args: ["memory", "query", "read-only fix", "--json"], code: 0 },
  { args: ["memory", "checkout", "what are we shipping", "--json"], code: 0 },
  { args: ["reproject", "--graph-store", "--json"], code: 0 },
  { args: ["graph", "sync", "--json"], code: 0 },
  { args: ["memory", "consolidation", "trigger", "--json"], code: 0 },
  { args: ["compact", ".eventloom/default.jsonl", "--audit", "--json"], code: 0 },
  { args: ["doctor", "--selftest", "--json"], code: 0 },
];

function runAll(cwd: string, env: Record<string, string>): void {
  for (const { args, code } of commands) {
    const run = runZaxy(args, { cwd, env });
    assert.equal(run.code, code, `zaxy ${args.join(" ")}: ${run.stdout.slice(0, 400)}${run.stderr}`);
    assert.deepEqual(stackTraceLines(run.stderr), [], run.stderr);
  }
}

const binaryOnly = zaxyInvocation.kind === "binary" ? false : "runs from source: nothing is embedded, so nothing is unpacked (and Bun itself caches sources under HOME)";

describe("writes outside the root", () => {
  test("a fresh HOME stays empty; TMPDIR holds only zaxy-<uid>/ with the Kuzu loader and the usearch addon, reused by later runs", { ...slow, skip: binaryOnly }, () => {
    const base = makeTempDir("zaxy-outside-root");
    const home = path.join(base, "home");
    const tmp = path.join(base, "tmp");
    const cwd = path.join(base, "work");
    for (const dir of [home, tmp, cwd]) fs.mkdirSync(dir);
    runAll(cwd, { HOME: home, TMPDIR: tmp });
    assert.deepEqual(filesUnder(home), [], "nothing under HOME (no ~/.bun transpiler cache)");
    const uid = process.getuid?.() ?? 0;
    const written = filesUnder(tmp);
    assert.equal(written.length, 2, written.join(", "));
    assert.match(written[0], new RegExp(`^zaxy-${uid}/kuzu-[0-9a-f]{16}\\.cjs$`));
    assert.match(written[1], new RegExp(`^zaxy-${uid}/usearch-[0-9a-f]{16}\\.node$`));
    assert.equal(fs.statSync(path.join(tmp, `zaxy-${uid}`)).mode & 0o777, 0o700);
    assert.ok(!fs.existsSync(path.join(cwd, ".eventloom", "projections", "cache")), "the root's cache is only a fallback");
    // A second run reuses the same files (content-addressed), writing nothing new.
    const before = written.map((file) => fs.statSync(path.join(tmp, file)).mtimeMs);
    const again = runZaxy(["memory", "consolidation", "trigger", "--json"], { cwd, env: { HOME: home, TMPDIR: tmp } });
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(filesUnder(tmp), written);
    assert.deepEqual(written.map((file) => fs.statSync(path.join(tmp, file)).mtimeMs), before);
  });

  test("with read-only TMPDIR and HOME every main command works, and the helpers are unpacked into <root>/projections/cache", slow, () => {
    const base = makeTempDir("zaxy-readonly-env");
    const home = readOnlyDir(base, "home");
    const tmp = readOnlyDir(base, "tmp");
    const cwd = path.join(base, "work");
    fs.mkdirSync(cwd);
    assert.throws(() => fs.mkdirSync(path.join(tmp, "probe")), "TMPDIR must refuse writes");
    assert.throws(() => fs.mkdirSync(path.join(home, "probe")), "HOME must refuse writes");
    runAll(cwd, { HOME: home, TMPDIR: tmp });
    if (zaxyInvocation.kind === "binary") {
      const cached = filesUnder(path.join(cwd, ".eventloom", "projections", "cache"));
      assert.equal(cached.length, 2, cached.join(", "));
      assert.match(cached[0], /^kuzu-[0-9a-f]{16}\.cjs$/);
      assert.match(cached[1], /^usearch-[0-9a-f]{16}\.node$/);
    }
  });

  test("a TMPDIR mounted noexec: the usearch addon is loaded from the root's cache instead", { ...slow, skip: binaryOnly || (canMountTmpfs ? false : "cannot mount a tmpfs here") }, () => {
    const base = makeTempDir("zaxy-noexec-tmp");
    const tmp = path.join(base, "tmp");
    const cwd = path.join(base, "work");
    fs.mkdirSync(tmp);
    fs.mkdirSync(cwd);
    assert.equal(spawnSync("mount", ["-t", "tmpfs", "-o", "noexec,size=64m", "tmpfs", tmp]).status, 0);
    mounts.push(tmp);
    const env = { TMPDIR: tmp, HOME: path.join(base, "home") };
    for (const args of [["init"], ["memory", "append", "goal.created", "--actor", "ci", "--payload-json", goal], ["memory", "append", "goal.created", "--actor", "ci", "--payload-json", goal]]) {
      assert.equal(runZaxy(args, { cwd, env }).code, 0);
    }
    const run = runZaxy(["memory", "consolidation", "trigger", "--json"], { cwd, env });
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(filesUnder(path.join(cwd, ".eventloom", "projections", "cache")).map((f) => f.replace(/-[0-9a-f]{16}/, "")), ["usearch.node"]);
  });
});
