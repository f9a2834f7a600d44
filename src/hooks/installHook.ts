/**
 * Installing the pre-commit hook: find the repository's hooks directory the way git does
 * (`git rev-parse --git-path hooks`, so `core.hooksPath` and linked worktrees are honoured),
 * refuse to replace a hook that is not byte-identical without `force` (and then keep a backup),
 * and write the new hook atomically with mode 0755.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { inputError, ioError } from "../errors.ts";
import { hookMarker, preCommitScript } from "./preCommitScript.ts";

export interface InstallHookOptions {
  /** Directory inside the repository (the command's working directory). */
  cwd: string;
  /** Replace an existing, different pre-commit hook (a backup is kept). */
  force?: boolean;
  /** How the hook runs zaxy: an absolute path, or `zaxy` (from PATH). */
  zaxyCommand: string;
  /** For the backup file name; injectable for tests. */
  now?: () => number;
}

export interface InstallHookResult {
  hook_path: string;
  hooks_dir: string;
  zaxy_command: string;
  /** True when the hook was already exactly this one: nothing was written. */
  unchanged: boolean;
  /** True when a different hook was replaced (only with force). */
  replaced: boolean;
  /** Where the replaced hook was saved, else null. */
  backup_path: string | null;
  /** Whether the replaced hook was one zaxy had written (an older install). */
  replaced_zaxy_hook: boolean;
}

/** The hooks directory of the repository containing `cwd`, absolute. */
export function gitHooksDir(cwd: string): string {
  const run = spawnSync("git", ["rev-parse", "--git-path", "hooks"], { cwd, encoding: "utf8" });
  if (run.error) {
    const missing = (run.error as { code?: string }).code === "ENOENT";
    throw inputError(missing ? "git_unavailable" : "git_failed", missing ? "Cannot install a git hook: git is not installed or not on PATH" : `Cannot run git: ${run.error.message}`);
  }
  if (run.status !== 0) {
    throw inputError("not_a_git_repository", `Cannot install a git hook: ${path.resolve(cwd)} is not inside a git repository`, {
      hint: "run zaxy hooks install from inside the repository (git init creates one)",
    });
  }
  return path.resolve(cwd, run.stdout.replace(/\r?\n$/, ""));
}

/**
 * Writes the zaxy pre-commit hook into the repository's hooks directory.
 *
 * @example
 * const result = installPreCommitHook({ cwd: process.cwd(), zaxyCommand: "/usr/local/bin/zaxy" });
 * result.hook_path; // "/repo/.git/hooks/pre-commit"
 */
export function installPreCommitHook(options: InstallHookOptions): InstallHookResult {
  const hooksDir = gitHooksDir(options.cwd);
  const hookPath = path.join(hooksDir, "pre-commit");
  const script = preCommitScript(options.zaxyCommand);
  const result: InstallHookResult = {
    hook_path: hookPath,
    hooks_dir: hooksDir,
    zaxy_command: options.zaxyCommand,
    unchanged: false,
    replaced: false,
    backup_path: null,
    replaced_zaxy_hook: false,
  };
  let existing: string | undefined;
  try {
    existing = fs.readFileSync(hookPath, "utf8");
  } catch (error) {
    if ((error as { code?: string }).code !== "ENOENT") {
      throw ioError("unreadable_hook", `Cannot read the existing hook ${hookPath}: ${(error as Error).message}`);
    }
  }
  if (existing === script) {
    // Same bytes: make sure it is executable and report that nothing changed.
    fs.chmodSync(hookPath, 0o755);
    return { ...result, unchanged: true };
  }
  if (existing !== undefined) {
    const ours = existing.includes(hookMarker);
    if (!options.force) {
      throw inputError("hook_exists", `Cannot install: ${hookPath} already exists${ours ? " (an older zaxy hook)" : ""}; pass --force to replace it (a backup is kept)`, {
        field: "--force",
      });
    }
    result.replaced = true;
    result.replaced_zaxy_hook = ours;
    result.backup_path = `${hookPath}.backup-${(options.now ?? Date.now)()}`;
  }
  try {
    fs.mkdirSync(hooksDir, { recursive: true });
    if (result.backup_path !== null) fs.copyFileSync(hookPath, result.backup_path);
    const temp = `${hookPath}.zaxy-tmp-${process.pid}`;
    fs.writeFileSync(temp, script, { mode: 0o755 });
    fs.chmodSync(temp, 0o755);
    fs.renameSync(temp, hookPath);
  } catch (error) {
    throw ioError("unwritable_hook", `Cannot write ${hookPath}: ${(error as Error).message}`);
  }
  return result;
}

export interface UninstallHookResult {
  hook_path: string;
  /** True when a zaxy hook was removed; false when there was no pre-commit hook. */
  removed: boolean;
  /** The backup `install --force` made of the hook it replaced, put back in place; else null. */
  restored_from: string | null;
}

/**
 * Removes the zaxy pre-commit hook and puts back the hook `install --force` replaced (its newest
 * `pre-commit.backup-<ms>` that is not itself a zaxy hook). A pre-commit hook that is not
 * zaxy's is left alone (exit 2).
 */
export function uninstallPreCommitHook(cwd: string): UninstallHookResult {
  const hooksDir = gitHooksDir(cwd);
  const hookPath = path.join(hooksDir, "pre-commit");
  let existing: string;
  try {
    existing = fs.readFileSync(hookPath, "utf8");
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return { hook_path: hookPath, removed: false, restored_from: null };
    throw ioError("unreadable_hook", `Cannot read the existing hook ${hookPath}: ${(error as Error).message}`);
  }
  if (!existing.includes(hookMarker)) {
    throw inputError("hook_not_zaxy", `Cannot uninstall: ${hookPath} is not a zaxy hook (it lacks the marker line); nothing was changed`, {
      hint: "remove or edit it yourself",
    });
  }
  const backups = fs.readdirSync(hooksDir)
    .filter((name) => /^pre-commit\.backup-\d+$/.test(name))
    .sort((a, b) => Number(b.split("-").pop()) - Number(a.split("-").pop()))
    .map((name) => path.join(hooksDir, name))
    .filter((file) => !fs.readFileSync(file, "utf8").includes(hookMarker));
  try {
    if (backups.length > 0) fs.renameSync(backups[0], hookPath);
    else fs.rmSync(hookPath);
  } catch (error) {
    throw ioError("unwritable_hook", `Cannot remove ${hookPath}: ${(error as Error).message}`);
  }
  return { hook_path: hookPath, removed: true, restored_from: backups[0] ?? null };
}
