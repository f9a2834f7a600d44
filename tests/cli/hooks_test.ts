/**
 * `zaxy hooks install|uninstall|check` through the binary, end to end in a temporary git
 * repository (issue 18 item 11): the installed hook refuses a commit that stages a log that does
 * not verify or that rewrites committed history, saying what to do; lets an append-only log
 * through even when a compaction audit would call it unsafe (committing loses nothing), unless
 * `hook_strictness` is `audit`; checks the STAGED content rather than the working tree; and
 * `hooks uninstall` removes it and puts back the hook it replaced.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { fromJs } from "../../src/canonical/mod.ts";
import { appendEvents } from "../../src/events/append.ts";
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

  test("an append-only log that a compaction audit calls unsafe commits under the default strictness", slow, async () => {
    const root = path.join(repo, ".eventloom");
    await writeUnsafeLog(root);
    assert.equal(git(repo, ["add", ".eventloom/default.jsonl"]).code, 0);
    const commit = git(repo, ["commit", "-m", "near-duplicate documents"]);
    assert.equal(commit.code, 0, commit.stdout + commit.stderr);
    // git sends a hook's stdout to its stderr.
    assert.match(commit.stderr, /zaxy pre-commit: \.eventloom\/default\.jsonl ok \(5 events, new; strictness integrity\)/);
    assert.equal(commitCount(repo), 1);
  });

  test("hook_strictness audit refuses it, naming the recall and what to do", slow, async () => {
    const root = path.join(repo, ".eventloom");
    assert.equal(runZaxy(["config", "set", "hook_strictness", "audit"], { cwd: repo }).code, 0);
    await appendEvents(root, "default", [{ type: "goal.created", actor: "agent", payload: fromJs({ title: "one more" }) }]);
    assert.equal(git(repo, ["add", ".eventloom/default.jsonl"]).code, 0);
    const commit = git(repo, ["commit", "-m", "audited"]);
    assert.equal(commit.code, 1, commit.stdout + commit.stderr);
    assert.match(commit.stderr, /zaxy pre-commit: \.eventloom\/default\.jsonl refused: \.eventloom\/default\.jsonl: a compaction with one representative per cluster would keep [0-9.]+ % of its identities \(hook_recall_threshold 1\); missing: .*identity-code-000\d/);
    assert.match(commit.stderr, /what to do: this commit loses nothing .*zaxy config set hook_strictness integrity/);
    assert.match(commit.stderr, /commit refused: 1 of 1 staged Eventloom log\(s\) failed the check/);
    assert.equal(commitCount(repo), 1);
    assert.equal(runZaxy(["config", "unset", "hook_strictness"], { cwd: repo }).code, 0);
    const accepted = git(repo, ["commit", "-m", "append-only"]);
    assert.equal(accepted.code, 0, accepted.stdout + accepted.stderr);
    assert.match(accepted.stderr, /ok \(6 events, 5 committed kept; strictness integrity\)/);
  });

  test("a staged log that drops committed events is refused; the working tree is not what is checked", slow, async () => {
    const logPath = path.join(repo, ".eventloom", "default.jsonl");
    const committed = fs.readFileSync(logPath, "utf8");
    const lines = committed.split("\n").filter((line) => line !== "");
    fs.writeFileSync(logPath, lines.slice(0, 3).join("\n") + "\n");
    assert.equal(git(repo, ["add", ".eventloom/default.jsonl"]).code, 0);
    // The working tree gets the full log back; the index still holds the truncated one.
    fs.writeFileSync(logPath, committed);
    const refused = git(repo, ["commit", "-m", "truncated"]);
    assert.equal(refused.code, 1, refused.stdout + refused.stderr);
    assert.match(refused.stderr, /refused: \.eventloom\/default\.jsonl rewrites committed history: it has 3 events, the last commit has 6: events 4 to 6 were dropped/);
    assert.match(refused.stderr, /what to do: an Eventloom log only grows: restore the committed events \(`git checkout HEAD -- \.eventloom\/default\.jsonl`\)/);
    assert.equal(commitCount(repo), 2);
    assert.equal(git(repo, ["add", ".eventloom/default.jsonl"]).code, 0);
  });

  test("a staged log that does not verify is refused with how to restore it", slow, () => {
    const logPath = path.join(repo, ".eventloom", "default.jsonl");
    const text = fs.readFileSync(logPath, "utf8");
    fs.writeFileSync(logPath, text.replace("one more", "one less"));
    assert.equal(git(repo, ["add", ".eventloom/default.jsonl"]).code, 0);
    const refused = git(repo, ["commit", "-m", "tampered"]);
    assert.equal(refused.code, 1, refused.stdout + refused.stderr);
    assert.match(refused.stderr, /refused: \.eventloom\/default\.jsonl does not verify: .*\(seq 6, line 6\)/);
    assert.match(refused.stderr, /what to do: an Eventloom log is never edited by hand/);
    fs.writeFileSync(logPath, text);
    assert.equal(git(repo, ["add", ".eventloom/default.jsonl"]).code, 0);
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
    assert.match(forced.stdout, /^Installed the zaxy pre-commit hook: .*\nIt runs: .* hooks check <staged log>\nThe previous hook was saved to .*pre-commit\.backup-\d+\n$/);
  });

  test("hooks uninstall removes the zaxy hook and puts back the one install --force replaced; a foreign hook is left alone", slow, () => {
    const hook = path.join(repo, ".git", "hooks", "pre-commit");
    const removed = JSON.parse(runZaxy(["hooks", "uninstall", "--json"], { cwd: repo }).stdout);
    assert.equal(removed.removed, true);
    assert.match(removed.restored_from, /pre-commit\.backup-\d+$/);
    assert.equal(fs.readFileSync(hook, "utf8"), "#!/bin/sh\nexit 0\n", "the user's own hook is back");
    const foreign = runZaxy(["hooks", "uninstall", "--json"], { cwd: repo });
    assert.equal(foreign.code, 2, foreign.stdout);
    assert.equal(JSON.parse(foreign.stdout).error.code, "hook_not_zaxy");
    assert.equal(fs.readFileSync(hook, "utf8"), "#!/bin/sh\nexit 0\n");
    fs.rmSync(hook);
    const none = JSON.parse(runZaxy(["hooks", "uninstall", "--json"], { cwd: repo }).stdout);
    assert.deepEqual({ removed: none.removed, restored_from: none.restored_from }, { removed: false, restored_from: null });
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
