/**
 * Runs a `zaxy` command in this process against the root `<cwd>/.eventloom` (not a test file
 * itself), answering like `runZaxy` from tests/cli/zaxy.ts: exit code, stdout, stderr.
 *
 * For steps that are not about a real process (set-up, reads, a sync after a kill): it saves the
 * spawn and, above all, the ~1-5 s of loading Kuzu's WASM in every process that opens the graph
 * store. Kills, signals and exit codes of a real process stay with the built binary.
 *
 * This process's working directory is not `cwd` (tests leave it alone), so the root is named
 * explicitly (`EVENTLOOM_PATH`) and file arguments must be absolute; paths in the output are then
 * absolute where the binary run in `cwd` prints them relative to it (`.eventloom/...`).
 *
 * @example
 * const run = await runZaxyInProcess(["memory", "checkout", "editor", "--json"], { cwd: dir });
 * assert.equal(run.code, 0, run.stderr);
 */
import * as path from "node:path";
import { runCliCaptured } from "../cli/inProcess.ts";
import type { ZaxyRun } from "../cli/zaxy.ts";

export async function runZaxyInProcess(args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<ZaxyRun> {
  const env = { EVENTLOOM_PATH: path.join(options.cwd, ".eventloom"), ...options.env };
  const run = await runCliCaptured(args, { cwd: options.cwd, env });
  return { code: run.code, stdout: run.out, stderr: run.err };
}
