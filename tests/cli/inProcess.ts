/**
 * Runs the CLI in this process with a captured `CommandIo` (not a test file itself): for tests of
 * commands whose output does not depend on the built binary.
 *
 * @example
 * const run = await runCliCaptured(["help", "verify"], { cwd: dir });
 * assert.equal(run.code, 0);
 */
import * as path from "node:path";
import type { CommandIo } from "../../src/cli/command.ts";
import { runCli } from "../../src/cli/main.ts";
import { childEnv, type ZaxyRun } from "./zaxy.ts";

export interface CapturedRun {
  code: number;
  out: string;
  err: string;
}

export async function runCliCaptured(
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; stdinIsTTY?: boolean; stdin?: Uint8Array } = {},
): Promise<CapturedRun> {
  let out = "";
  let err = "";
  const io: CommandIo = {
    stdout: (text) => void (out += text),
    stderr: (text) => void (err += text),
    readStdin: () => Promise.resolve(options.stdin ?? new Uint8Array()),
    stdinIsTTY: options.stdinIsTTY ?? false,
    stderrIsTTY: false,
    env: options.env ?? {},
    cwd: options.cwd ?? process.cwd(),
  };
  const code = await runCli(args, io);
  return { code, out, err };
}

/**
 * Runs the CLI in this process on the Eventloom root `<cwd>/.eventloom`, with the environment a
 * child of `runZaxy` would get, and returns what `runZaxy` returns: for tests of what a command
 * prints and writes, without paying for a process (and a Kuzu or model load) per call. The root is
 * passed as `--eventloom-path` because every other relative path a command takes resolves against
 * this process's directory, not `cwd`: give any other path (an `--output`, a bundle) absolute.
 * `zaxy verify` names its log relative to `cwd` and opens that name, so it needs a real process.
 *
 * @example
 * const run = await runZaxyInProcess(["memory", "append", "goal.created", "--actor", "a", "--json"], { cwd: dir });
 * assert.equal(run.code, 0);
 */
export async function runZaxyInProcess(args: string[], options: { cwd: string; env?: Record<string, string>; input?: string }): Promise<ZaxyRun> {
  const stdin = options.input === undefined ? undefined : new TextEncoder().encode(options.input);
  const run = await runCliCaptured([...args, "--eventloom-path", path.join(options.cwd, ".eventloom")], { cwd: options.cwd, env: childEnv(options.env), stdin });
  return { code: run.code, stdout: run.out, stderr: run.err };
}
