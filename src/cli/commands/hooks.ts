/**
 * `zaxy hooks install [--force]`: the git pre-commit hook that audits staged Eventloom logs
 * (docs/hooks.md). The `hooks` group only registers `install`.
 */
import { installPreCommitHook, zaxyCommandFor } from "../../hooks/mod.ts";
import { booleanOption, defineCommand, defineGroup } from "../command.ts";
import { emit } from "../output.ts";

export const hooksInstallCommand = defineCommand({
  name: "install",
  store: "self",
  summary: "Write a git pre-commit hook that refuses commits staging an Eventloom log unsafe to compact",
  description:
    "Writes pre-commit into the repository's hooks directory (git rev-parse --git-path hooks, so\n" +
    "core.hooksPath and worktrees are honoured). The hook audits the STAGED content of every\n" +
    "*.jsonl under a .eventloom/ directory with `zaxy compact FILE --audit`, prints the report and\n" +
    "refuses the commit when a log is unsafe or cannot be audited. It runs zaxy by the absolute\n" +
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
      const lines = [`Installed the zaxy pre-commit hook: ${result.hook_path}`, `It runs: ${result.zaxy_command} compact <staged log> --audit`];
      if (result.backup_path !== null) lines.push(`The previous hook was saved to ${result.backup_path}`);
      return lines.join("\n");
    });
    return 0;
  },
});

export const hooksGroup = defineGroup({
  name: "hooks",
  summary: "Git hooks: a pre-commit audit of staged Eventloom logs",
  children: [hooksInstallCommand],
});
