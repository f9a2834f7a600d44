/**
 * `zaxy hooks install [--force]`, `zaxy hooks uninstall` and `zaxy hooks check`: the git
 * pre-commit hook that checks staged Eventloom logs (docs/hooks.md).
 */
import { installPreCommitHook, readHookPolicy, uninstallPreCommitHook, zaxyCommandFor } from "../../hooks/mod.ts";
import { inputError } from "../../errors.ts";
import { booleanOption, defineCommand, defineGroup, stringOption } from "../command.ts";
import { emit } from "../output.ts";

export const hooksInstallCommand = defineCommand({
  name: "install",
  store: "self",
  summary: "Write a git pre-commit hook that refuses commits staging a broken or history-rewriting Eventloom log",
  description:
    "Writes pre-commit into the repository's hooks directory (git rev-parse --git-path hooks, so\n" +
    "core.hooksPath and worktrees are honoured). The hook checks the STAGED content of every\n" +
    "*.jsonl under a .eventloom/ directory with `zaxy hooks check` (it must verify and keep every\n" +
    "committed event; with hook_strictness audit in config.json its compaction audit must be safe)\n" +
    "and refuses the commit otherwise, saying what to do. It runs zaxy by the absolute\n" +
    "path of this binary (or `zaxy` from PATH when run from source). An existing, different hook\n" +
    "is kept unless --force (then it is backed up). --json prints {hook_path, hooks_dir,\n" +
    "zaxy_command, zaxy_command_source, unchanged, replaced, replaced_zaxy_hook, backup_path}.",
  options: {
    force: { type: "boolean", description: "Replace an existing pre-commit hook (a backup copy is kept beside it)" },
  },
  positionals: [],
  examples: ["zaxy hooks install", "zaxy hooks install --force --json"],
  async run(ctx) {
    const zaxy = zaxyCommandFor();
    const result = installPreCommitHook({ cwd: ctx.io.cwd, force: booleanOption(ctx, "force"), zaxyCommand: zaxy.command });
    const doc = {
      hook_path: result.hook_path,
      hooks_dir: result.hooks_dir,
      zaxy_command: result.zaxy_command,
      zaxy_command_source: zaxy.source,
      unchanged: result.unchanged,
      replaced: result.replaced,
      replaced_zaxy_hook: result.replaced_zaxy_hook,
      backup_path: result.backup_path,
    };
    emit(ctx, "zaxy.hooks.install.v1", doc, () => {
      if (result.unchanged) return `The zaxy pre-commit hook is already installed: ${result.hook_path}`;
      const lines = [`Installed the zaxy pre-commit hook: ${result.hook_path}`, `It runs: ${result.zaxy_command} hooks check <staged log>`];
      if (result.backup_path !== null) lines.push(`The previous hook was saved to ${result.backup_path}`);
      return lines.join("\n");
    });
    return 0;
  },
});

export const hooksUninstallCommand = defineCommand({
  name: "uninstall",
  store: "self",
  summary: "Remove the zaxy pre-commit hook (and put back the hook install --force replaced)",
  description:
    "Removes the pre-commit hook `zaxy hooks install` wrote (recognised by its marker line) and,\n" +
    "when install --force had replaced another hook, puts that one back. A pre-commit hook that\n" +
    "is not zaxy's is left alone (exit 2). No hook: nothing to do (exit 0, removed false).\n" +
    "--json prints {hook_path, removed, restored_from}.",
  options: {},
  positionals: [],
  examples: ["zaxy hooks uninstall", "zaxy hooks uninstall --json"],
  async run(ctx) {
    const result = uninstallPreCommitHook(ctx.io.cwd);
    emit(ctx, "zaxy.hooks.uninstall.v1", { ...result }, () =>
      !result.removed
        ? `No pre-commit hook to remove: ${result.hook_path}`
        : `Removed the zaxy pre-commit hook: ${result.hook_path}${result.restored_from === null ? "" : `\nPut back the hook it had replaced (from ${result.restored_from})`}`);
    return 0;
  },
});

export const hooksCheckCommand = defineCommand({
  name: "check",
  store: "self",
  summary: "Check a staged Eventloom log the way the pre-commit hook does (verifies, keeps committed events)",
  description:
    "What the pre-commit hook runs for each staged log: LOG must verify and must keep every event\n" +
    "of --committed (the version in HEAD: same seq, same hash), so an append-only log and a\n" +
    "lossless `zaxy compact` rewrite pass and a truncated or edited history does not. With\n" +
    "hook_strictness audit in the root's config.json, its compaction audit must also keep at least\n" +
    "hook_recall_threshold of its identities. Exit 1 when refused, with what to do.\n" +
    "--json prints {path, ok, events, committed_events, strictness[, identity_recall][, problem, message, fix]}.",
  options: {
    committed: { type: "string", valueName: "FILE", description: "The log as committed in HEAD (absent: a new log)" },
    path: { type: "string", valueName: "PATH", description: "The log's path in the repository, for messages (default LOG)" },
  },
  positionals: [{ name: "LOG", description: "The staged log (a copy of the index version)", required: true }],
  examples: ["zaxy hooks check staged.jsonl --committed head.jsonl --path .eventloom/default.jsonl"],
  async run(ctx) {
    const staged = ctx.positionals[0];
    if (staged === "") throw inputError("usage", "zaxy hooks check: LOG is empty", { field: "LOG" });
    const { checkStagedLog } = await import("../../hooks/checkStagedLog.ts");
    const policy = readHookPolicy(ctx.global.eventloomPath);
    const check = await checkStagedLog({ staged, committed: stringOption(ctx, "committed"), path: stringOption(ctx, "path") ?? staged, policy });
    emit(ctx, "zaxy.hooks.check.v1", { ...check }, () =>
      check.ok
        ? `zaxy pre-commit: ${check.path} ok (${check.events} events${check.committed_events === null ? ", new" : `, ${check.committed_events} committed kept`}; strictness ${check.strictness})`
        : `zaxy pre-commit: ${check.path} refused: ${check.message}\n  what to do: ${check.fix}`);
    return check.ok ? 0 : 1;
  },
});

export const hooksGroup = defineGroup({
  name: "hooks",
  summary: "Git hooks: a pre-commit check of staged Eventloom logs (install, uninstall, check)",
  children: [hooksInstallCommand, hooksUninstallCommand, hooksCheckCommand],
});
