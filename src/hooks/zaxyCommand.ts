/**
 * How an installed hook should run zaxy: the absolute path of the running executable when it is
 * the compiled zaxy binary (so the hook keeps working whatever PATH a git client gives it), else
 * `zaxy` from PATH (when running from source, `process.execPath` is bun or deno, not zaxy).
 */
import * as path from "node:path";
import { isCompiledBinary } from "../platform/process.ts";

export interface ZaxyCommand {
  command: string;
  source: "executable" | "path";
}

export function zaxyCommandFor(compiled: boolean = isCompiledBinary(), execPath: string = process.execPath): ZaxyCommand {
  return compiled ? { command: path.resolve(execPath), source: "executable" } : { command: "zaxy", source: "path" };
}
