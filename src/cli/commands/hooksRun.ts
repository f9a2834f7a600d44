/** What hooks.ts's command does: imported when the command runs, so start-up loads only the command tree. */
import type { CommandContext } from "../command.ts";
import { installPreCommitHook, readHookPolicy, uninstallPreCommitHook, zaxyCommandFor } from "../../hooks/mod.ts";
import { inputError } from "../../errors.ts";
import { booleanOption, stringOption } from "../command.ts";
import { emit } from "../output.ts";

export async function runHooksInstall(ctx: CommandContext): Promise<number> {
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
}

export async function runHooksUninstall(ctx: CommandContext): Promise<number> {
  const result = uninstallPreCommitHook(ctx.io.cwd);
  emit(ctx, "zaxy.hooks.uninstall.v1", { ...result }, () =>
    !result.removed
      ? `No pre-commit hook to remove: ${result.hook_path}`
      : `Removed the zaxy pre-commit hook: ${result.hook_path}${result.restored_from === null ? "" : `\nPut back the hook it had replaced (from ${result.restored_from})`}`);
  return 0;
}

export async function runHooksCheck(ctx: CommandContext): Promise<number> {
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
}
