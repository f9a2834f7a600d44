/**
 * The files the meta tests scan (not a test file itself): every file under a folder whose name
 * ends with a suffix, as absolute paths in sorted order, so each scan reports in the same order.
 *
 * @example
 * const sources = filesUnder(path.join(repoRoot, "src"), { excludedDirs: [path.join(repoRoot, "src/generated")] });
 */
import * as fs from "node:fs";
import * as path from "node:path";

export interface FilesUnderOptions {
  /** How a listed file's name ends; `.ts` unless given. */
  suffix?: string;
  /** Absolute paths of folders left out with everything under them. */
  excludedDirs?: readonly string[];
}

/** Every file under `dir` (absolute) whose name ends with the suffix, outside the excluded folders. */
export function filesUnder(dir: string, options: FilesUnderOptions = {}): string[] {
  const suffix = options.suffix ?? ".ts";
  const excludedDirs = options.excludedDirs ?? [];
  const out: string[] = [];
  const walk = (folder: string): void => {
    if (excludedDirs.includes(folder)) return;
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith(suffix)) out.push(full);
    }
  };
  walk(dir);
  return out.sort();
}
