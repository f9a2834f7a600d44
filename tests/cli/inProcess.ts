/**
 * Runs the CLI in this process with a captured `CommandIo` (not a test file itself): for tests of
 * commands whose output does not depend on the built binary.
 *
 * @example
 * const run = await runCliCaptured(["help", "verify"], { cwd: dir });
 * assert.equal(run.code, 0);
 */
import type { CommandIo } from "../../src/cli/command.ts";
import { runCli } from "../../src/cli/main.ts";

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
