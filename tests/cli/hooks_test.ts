/**
 * `zaxy hooks install` through the binary, end to end in a temporary git repository: the
 * installed hook refuses a commit that stages an unsafe Eventloom log (near-duplicate documents
 * differing only by identity code and path), lets a safe one through, audits the STAGED content
 * rather than the working tree, and the command's exit codes and --json document.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { fromJs } from "../../src/canonical/mod.ts";
import { appendEvents } from "../../src/eventloom/mod.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { childEnv, runZaxy, stackTraceLines, zaxyInvocation } from "./zaxy.ts";

after(removeTempDirs);

const slow = { timeout: 120_000 };

function git(cwd: string, args: string[]): { code: number | null; stdout: string; stderr: string } {
  const run = spawnSync("git", args, { cwd, encoding: "utf8", env: childEnv() });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

function gitRepo(): string {
  const repo = fs.realpathSync(makeTempDir("zaxy-hook-repo"));
  for (const args of [["init", "-q"], ["config", "user.name", "Zaxy Test"], ["config", "user.email", "test@example.invalid"], ["config", "commit.gpgsign", "false"]]) {
    assert.equal(git(repo, args).code, 0);
  }
  return repo;
}

/** Five documents that differ only by path and identity code: one representative loses four. */
async function writeUnsafeLog(root: string): Promise<void> {
  await appendEvents(root, "default", Array.from({ length: 5 }, (_, i) => ({
    type: "document.indexed",
    actor: "indexer",
    payload: fromJs({
      path: `docs/service-000${i + 1}.md`,
      start_line: 1,
      end_line: 5,
      content: `The service cache configuration uses identity-code-000${i + 1} for routing requests`,
    }),
  })));
}

async function writeSafeLog(root: string): Promise<void> {
  await appendEvents(root, "default", [{
    type: "document.indexed",
    actor: "indexer",
    payload: fromJs({ path: "docs/one.md", start_line: 1, end_line: 3, content: "Release checklist identity-code-0001" }),
  }]);
}

function commitCount(repo: string): number {
  const run = git(repo, ["rev-list", "--count", "HEAD"]);
  return run.code === 0 ? Number(run.stdout.trim()) : 0;
}

describe("zaxy hooks install", { skip: zaxyInvocation.kind === "binary" ? false : "needs the built binary (the hook calls it by path)" }, () => {
  let repo = "";

  before(() => {
    repo = gitRepo();
  });

  test("installs the hook with the binary's absolute path and reports it", slow, () => {
    const run = runZaxy(["hooks", "install", "--json"], { cwd: repo });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.equal(run.stderr, "");
    const doc = JSON.parse(run.stdout);
    assert.deepEqual(doc, {
      schema: "zaxy.hooks.install.v1",
      hook_path: path.join(repo, ".git", "hooks", "pre-commit"),
      hooks_dir: path.join(repo, ".git", "hooks"),
      zaxy_command: zaxyInvocation.command,
      zaxy_command_source: "executable",
      unchanged: false,
      replaced: false,
      replaced_zaxy_hook: false,
      backup_path: null,
    });
    assert.equal(fs.statSync(doc.hook_path).mode & 0o111, 0o111);
  });

  test("the hook refuses a commit that stages an unsafe log and prints the audit", slow, async () => {
    const root = path.join(repo, ".eventloom");
    await writeUnsafeLog(root);
    assert.equal(git(repo, ["add", ".eventloom/default.jsonl"]).code, 0);
    const commit = git(repo, ["commit", "-m", "unsafe log"]);
    assert.equal(commit.code, 1, commit.stdout + commit.stderr);
    // git sends a hook's stdout to its stderr.
    assert.match(commit.stderr, /zaxy pre-commit: auditing staged \.eventloom\/default\.jsonl/);
    assert.match(commit.stderr, /Compaction audit: UNSAFE/);
    assert.match(commit.stderr, /identity-code-000\d/);
    assert.match(commit.stderr, /commit refused: 1 of 1 staged Eventloom log\(s\) failed the compaction audit/);
    assert.equal(commitCount(repo), 0);
  });

  test("the hook audits the staged content, not the working tree", slow, async () => {
    // The working tree now holds a safe log, but the index still holds the unsafe one.
    const root = path.join(repo, ".eventloom");
    fs.rmSync(path.join(root, "default.jsonl"));
    await writeSafeLog(root);
    const refused = git(repo, ["commit", "-m", "still unsafe in the index"]);
    assert.equal(refused.code, 1, refused.stdout + refused.stderr);
    assert.equal(commitCount(repo), 0);
    // Staging the safe version lets the commit through.
    assert.equal(git(repo, ["add", ".eventloom/default.jsonl"]).code, 0);
    const accepted = git(repo, ["commit", "-m", "safe log"]);
    assert.equal(accepted.code, 0, accepted.stdout + accepted.stderr);
    assert.match(accepted.stderr, /Compaction audit: SAFE/);
    assert.equal(commitCount(repo), 1);
  });

  test("commits without Eventloom logs are not audited", slow, () => {
    fs.writeFileSync(path.join(repo, "notes.jsonl"), "not an eventloom log\n");
    assert.equal(git(repo, ["add", "notes.jsonl"]).code, 0);
    const commit = git(repo, ["commit", "-m", "other file"]);
    assert.equal(commit.code, 0, commit.stdout + commit.stderr);
    assert.doesNotMatch(commit.stdout + commit.stderr, /zaxy pre-commit/);
  });

  test("an existing different hook is kept without --force (exit 2 naming --force)", slow, () => {
    const hook = path.join(repo, ".git", "hooks", "pre-commit");
    fs.writeFileSync(hook, "#!/bin/sh\nexit 0\n");
    const run = runZaxy(["hooks", "install", "--json"], { cwd: repo });
    assert.equal(run.code, 2, run.stdout + run.stderr);
    const doc = JSON.parse(run.stdout);
    assert.equal(doc.error.code, "hook_exists");
    assert.equal(doc.error.field, "--force");
    assert.match(doc.error.message, /--force/);
    assert.equal(fs.readFileSync(hook, "utf8"), "#!/bin/sh\nexit 0\n");
    const forced = runZaxy(["hooks", "install", "--force"], { cwd: repo });
    assert.equal(forced.code, 0, forced.stderr);
    assert.match(forced.stdout, /^Installed the zaxy pre-commit hook: .*\nIt runs: .* compact <staged log> --audit\nThe previous hook was saved to .*pre-commit\.backup-\d+\n$/);
  });

  test("outside a git repository: exit 2 with a clear message and no stack trace", slow, () => {
    const dir = makeTempDir("zaxy-no-repo");
    const run = runZaxy(["hooks", "install"], { cwd: dir, env: { GIT_CEILING_DIRECTORIES: path.dirname(dir) } });
    assert.equal(run.code, 2);
    assert.equal(run.stdout, "");
    assert.match(run.stderr, /^zaxy: Cannot install a git hook: .* is not inside a git repository\n/);
    assert.deepEqual(stackTraceLines(run.stderr), []);
  });
});
