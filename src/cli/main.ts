/**
 * CLI entry: `main(argv)` runs one command against the real process and returns its exit code.
 */
import { zaxyVersion } from "../version.ts";
import type { CommandIo } from "./command.ts";
import { dispatch } from "./dispatch.ts";
import { processIo } from "./processIo.ts";
import { rootGroup } from "./root.ts";

export async function runCli(argv: string[], io: CommandIo): Promise<number> {
  return await dispatch(rootGroup, argv, io, zaxyVersion);
}

export async function main(argv: string[]): Promise<number> {
  return await runCli(argv, processIo());
}
