/**
 * Git hooks (DESIGN §0, §9): `zaxy hooks install` writes a pre-commit hook that checks the staged
 * content of Eventloom logs with `zaxy hooks check` (it verifies, it keeps the committed events,
 * and with `hook_strictness: audit` its compaction audit is safe) and refuses a commit otherwise. The hook is
 * plain POSIX sh; it calls zaxy by the absolute path of the binary that installed it.
 *
 * @example
 * import { installPreCommitHook, zaxyCommandFor } from "./mod.ts";
 * installPreCommitHook({ cwd: "/repo", zaxyCommand: zaxyCommandFor().command }).hook_path;
 */
export { gitHooksDir, type InstallHookOptions, type InstallHookResult, installPreCommitHook, type UninstallHookResult, uninstallPreCommitHook } from "./installHook.ts";
// checkStagedLog.ts (it loads the compaction audit) is imported only by `zaxy hooks check`.
export { defaultHookPolicy, type HookPolicy, readHookPolicy } from "./hookPolicy.ts";
export { hookMarker, preCommitScript, shellQuote } from "./preCommitScript.ts";
export { type ZaxyCommand, zaxyCommandFor } from "./zaxyCommand.ts";
