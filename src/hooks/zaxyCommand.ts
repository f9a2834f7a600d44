/**
 * How an installed hook should run zaxy: the absolute path of the running executable when it is
 * the compiled zaxy binary (so the hook keeps working whatever PATH a git client gives it), else
 * `zaxy` from PATH (when running from source, `process.execPath` is bun or deno, not zaxy).
 */
import * as path from "node:path";

export interface ZaxyCommand {
  command: string;
  source: "executable" | "path";
}

const runtimeNames = new Set(["bun", "deno", "node", "bun.exe", "deno.exe", "node.exe"]);

export function zaxyCommandFor(execPath: string = process.execPath): ZaxyCommand {
  const name = path.basename(execPath).toLowerCase();
  if (execPath === "" || runtimeNames.has(name) || /^(bun|deno|node)[-_.]/.test(name)) return { command: "zaxy", source: "path" };
  return { command: path.resolve(execPath), source: "executable" };
}
