/**
 * `zaxy hooks install [--force]`, `zaxy hooks uninstall` and `zaxy hooks check`: the git
 * pre-commit hook that checks staged Eventloom logs (docs/hooks.md).
 */
import { defineCommand, defineGroup } from "../command.ts";

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
    const { runHooksInstall } = await import("./hooksRun.ts");
    return await runHooksInstall(ctx);
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
    const { runHooksUninstall } = await import("./hooksRun.ts");
    return await runHooksUninstall(ctx);
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
    const { runHooksCheck } = await import("./hooksRun.ts");
    return await runHooksCheck(ctx);
  },
});

export const hooksGroup = defineGroup({
  name: "hooks",
  summary: "Git hooks: a pre-commit check of staged Eventloom logs (install, uninstall, check)",
  children: [hooksInstallCommand, hooksUninstallCommand, hooksCheckCommand],
});
