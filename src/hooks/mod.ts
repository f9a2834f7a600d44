/**
 * Git hooks (DESIGN §0, §9): `zaxy hooks install` writes a pre-commit hook that audits the staged
 * content of Eventloom logs with `zaxy compact --audit` and refuses an unsafe commit. The hook is
 * plain POSIX sh; it calls zaxy by the absolute path of the binary that installed it.
 *
 * @example
 * import { installPreCommitHook, zaxyCommandFor } from "./mod.ts";
 * installPreCommitHook({ cwd: "/repo", zaxyCommand: zaxyCommandFor().command }).hook_path;
 */
export { gitHooksDir, type InstallHookOptions, type InstallHookResult, installPreCommitHook } from "./installHook.ts";
export { hookMarker, preCommitScript, shellQuote } from "./preCommitScript.ts";
export { type ZaxyCommand, zaxyCommandFor } from "./zaxyCommand.ts";
