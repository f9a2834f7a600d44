/**
 * Runs zaxy commands on an Eventloom root in this process (not a test file itself). A command may
 * load Kuzu here (graph sync, graph queries, reprojects), so a test file that imports this module
 * runs in a Deno process of its own (first line "// deno-test: own-process"; see
 * tests/meta/deno_isolation_test.ts).
 */
import * as path from "node:path";
import { runCliCaptured } from "./inProcess.ts";
import { childEnv, type ZaxyRun } from "./zaxy.ts";

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
