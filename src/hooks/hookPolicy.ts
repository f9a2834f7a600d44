/**
 * How strict the pre-commit hook is, from `<root>/config.json` (`zaxy config set`):
 * - `hook_strictness`: `integrity` (default) refuses a staged log that does not verify or that
 *   drops or changes events the last commit has (a history rewrite, a lossy compaction copied over
 *   the log); `audit` also refuses one whose compaction audit is unsafe, i.e. whose identity
 *   recall is below `hook_recall_threshold` (default 1: every identity kept).
 * The audit is about what a compaction would lose; committing an append-only log loses nothing,
 * which is why it is not the default.
 */
import { configPath, readConfigObject } from "../eventloom/root.ts";
import { inputError } from "../errors.ts";

export const hookStrictnessLevels = ["integrity", "audit"] as const;
export type HookStrictness = (typeof hookStrictnessLevels)[number];

export interface HookPolicy {
  strictness: HookStrictness;
  recallThreshold: number;
}

export const defaultHookPolicy: HookPolicy = { strictness: "integrity", recallThreshold: 1 };

export function readHookPolicy(root: string): HookPolicy {
  const object = readConfigObject(root);
  const strictness = object?.hook_strictness ?? defaultHookPolicy.strictness;
  if (typeof strictness !== "string" || !(hookStrictnessLevels as readonly string[]).includes(strictness)) {
    throw inputError("invalid_config", `${configPath(root)}: hook_strictness must be one of ${hookStrictnessLevels.join(", ")}, got ${JSON.stringify(strictness)}`, {
      field: "config.json hook_strictness",
      expected: hookStrictnessLevels.join("|"),
    });
  }
  const threshold = object?.hook_recall_threshold ?? defaultHookPolicy.recallThreshold;
  if (typeof threshold !== "number" || !(threshold >= 0 && threshold <= 1)) {
    throw inputError("invalid_config", `${configPath(root)}: hook_recall_threshold must be a number from 0 to 1, got ${JSON.stringify(threshold)}`, {
      field: "config.json hook_recall_threshold",
      expected: "0..1",
    });
  }
  return { strictness: strictness as HookStrictness, recallThreshold: threshold };
}
