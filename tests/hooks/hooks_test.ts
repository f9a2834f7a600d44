/**
 * The pre-commit hook installer (src/hooks/; docs/hooks.md) without the binary: where the hook
 * goes (`git rev-parse --git-path hooks`, so core.hooksPath and subdirectories work), refusing
 * to replace a different hook without force (and the backup with it), idempotent reinstall,
 * the outside-a-repository error, the script's quoting and which zaxy it calls.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { isZaxyError } from "../../src/errors.ts";
import { hookMarker, installPreCommitHook, preCommitScript, shellQuote, zaxyCommandFor } from "../../src/hooks/mod.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";

after(removeTempDirs);

function gitRepo(): string {
  const dir = makeTempDir("zaxy-hooks");
  const run = spawnSync("git", ["init", "-q"], { cwd: dir, encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr);
  return fs.realpathSync(dir);
}

function rejectsWith(fn: () => unknown, code: string, exitCode: number): string {
  try {
    fn();
  } catch (error) {
    assert.ok(isZaxyError(error), String(error));
    assert.equal(error.code, code, error.message);
    assert.equal(error.exitCode, exitCode);
    return error.message;
  }
  assert.fail(`expected ${code}`);
}

describe("installPreCommitHook", () => {
  test("writes an executable hook into .git/hooks that calls the given zaxy", () => {
    const repo = gitRepo();
    const result = installPreCommitHook({ cwd: repo, zaxyCommand: "/opt/zaxy bin/zaxy" });
    assert.equal(result.hook_path, path.join(repo, ".git", "hooks", "pre-commit"));
    assert.equal(result.hooks_dir, path.join(repo, ".git", "hooks"));
    assert.deepEqual([result.unchanged, result.replaced, result.backup_path], [false, false, null]);
    const text = fs.readFileSync(result.hook_path, "utf8");
    assert.equal(text, preCommitScript("/opt/zaxy bin/zaxy"));
    assert.ok(text.startsWith(`#!/bin/sh\n${hookMarker}\n`));
    assert.ok(text.includes("ZAXY='/opt/zaxy bin/zaxy'\n"));
    assert.equal(fs.statSync(result.hook_path).mode & 0o777, 0o755);
  });

  test("installing the same hook again changes nothing; a different hook needs force and is backed up", () => {
    const repo = gitRepo();
    installPreCommitHook({ cwd: repo, zaxyCommand: "zaxy" });
    const again = installPreCommitHook({ cwd: repo, zaxyCommand: "zaxy" });
    assert.equal(again.unchanged, true);

    const hook = path.join(repo, ".git", "hooks", "pre-commit");
    fs.writeFileSync(hook, "#!/bin/sh\necho mine\n");
    const message = rejectsWith(() => installPreCommitHook({ cwd: repo, zaxyCommand: "zaxy" }), "hook_exists", 2);
    assert.match(message, /already exists; pass --force to replace it/);
    assert.equal(fs.readFileSync(hook, "utf8"), "#!/bin/sh\necho mine\n", "nothing written without force");

    const forced = installPreCommitHook({ cwd: repo, zaxyCommand: "zaxy", force: true, now: () => 1234 });
    assert.equal(forced.replaced, true);
    assert.equal(forced.replaced_zaxy_hook, false);
    assert.equal(forced.backup_path, `${hook}.backup-1234`);
    assert.equal(fs.readFileSync(forced.backup_path!, "utf8"), "#!/bin/sh\necho mine\n");
    assert.equal(fs.readFileSync(hook, "utf8"), preCommitScript("zaxy"));
  });

  test("an older zaxy hook (another binary path) is named as such and still needs force", () => {
    const repo = gitRepo();
    installPreCommitHook({ cwd: repo, zaxyCommand: "/old/zaxy" });
    const message = rejectsWith(() => installPreCommitHook({ cwd: repo, zaxyCommand: "/new/zaxy" }), "hook_exists", 2);
    assert.match(message, /\(an older zaxy hook\)/);
    const forced = installPreCommitHook({ cwd: repo, zaxyCommand: "/new/zaxy", force: true });
    assert.equal(forced.replaced_zaxy_hook, true);
  });

  test("core.hooksPath is honoured, from a subdirectory too", () => {
    const repo = gitRepo();
    spawnSync("git", ["config", "core.hooksPath", "tools/hooks"], { cwd: repo });
    fs.mkdirSync(path.join(repo, "src", "deep"), { recursive: true });
    const result = installPreCommitHook({ cwd: path.join(repo, "src", "deep"), zaxyCommand: "zaxy" });
    assert.equal(result.hook_path, path.join(repo, "tools", "hooks", "pre-commit"));
    assert.ok(fs.existsSync(result.hook_path), "the hooks directory is created");
  });

  test("outside a git repository is bad input", () => {
    const dir = makeTempDir("zaxy-no-git");
    const message = rejectsWith(() => installPreCommitHook({ cwd: dir, zaxyCommand: "zaxy" }), "not_a_git_repository", 2);
    assert.match(message, /is not inside a git repository/);
  });
});

describe("the hook script and the zaxy it calls", () => {
  test("shellQuote makes one single-quoted word of anything", () => {
    assert.equal(shellQuote("/a b/it's"), `'/a b/it'\\''s'`);
    const run = spawnSync("sh", ["-c", `printf %s ${shellQuote("$HOME `x` it's \"q\"")}`], { encoding: "utf8" });
    assert.equal(run.stdout, "$HOME `x` it's \"q\"");
  });

  test("the script is valid sh", () => {
    const run = spawnSync("sh", ["-n"], { input: preCommitScript("/usr/bin/zaxy"), encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
  });

  test("the compiled binary is called by its absolute path; a runtime means zaxy from PATH", () => {
    assert.deepEqual(zaxyCommandFor(true, "/usr/local/bin/zaxy"), { command: "/usr/local/bin/zaxy", source: "executable" });
    // Whatever the binary is called (a name starting like a runtime's included).
    assert.deepEqual(zaxyCommandFor(true, "/opt/node-tools/bin/node-zaxy"), { command: "/opt/node-tools/bin/node-zaxy", source: "executable" });
    assert.deepEqual(zaxyCommandFor(false, "/repo/node_modules/bun/bin/bun"), { command: "zaxy", source: "path" });
    assert.deepEqual(zaxyCommandFor(false, "/home/u/.deno/bin/deno"), { command: "zaxy", source: "path" });
    // These tests run from source under bun or deno: not the compiled binary.
    assert.deepEqual(zaxyCommandFor(), { command: "zaxy", source: "path" });
  });
});

describe("the hook without a runnable zaxy", () => {
  test("refuses a commit that stages a log, lets one without logs through", () => {
    const repo = gitRepo();
    const env = { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@e.invalid", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@e.invalid" };
    installPreCommitHook({ cwd: repo, zaxyCommand: path.join(repo, "no-such-zaxy") });
    fs.writeFileSync(path.join(repo, "readme.txt"), "hello\n");
    spawnSync("git", ["add", "readme.txt"], { cwd: repo });
    const plain = spawnSync("git", ["-c", "commit.gpgsign=false", "commit", "-qm", "plain"], { cwd: repo, encoding: "utf8", env });
    assert.equal(plain.status, 0, plain.stderr);
    fs.mkdirSync(path.join(repo, ".eventloom"));
    fs.writeFileSync(path.join(repo, ".eventloom", "default.jsonl"), "");
    spawnSync("git", ["add", ".eventloom/default.jsonl"], { cwd: repo });
    const withLog = spawnSync("git", ["-c", "commit.gpgsign=false", "commit", "-qm", "log"], { cwd: repo, encoding: "utf8", env });
    assert.equal(withLog.status, 1);
    assert.match(withLog.stderr, /zaxy pre-commit: cannot run .*no-such-zaxy to check \.eventloom\/default\.jsonl/);
  });
});
