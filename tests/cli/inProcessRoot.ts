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
 * prints and writes, and for set-up, reads and syncs around the real process a test is about,
 * without paying for a process (and a Kuzu or model load, ~1-5 s) per call. Kills, signals and
 * the exit of a real process stay with the built binary.
 *
 * The root is passed as `--eventloom-path` because every other relative path a command takes
 * resolves against this process's directory, not `cwd` (tests leave it alone): give any other path
 * (a log to verify, an `--output`, a bundle) absolute. Paths in the output are then absolute where
 * the binary run in `cwd` prints them relative to it (`.eventloom/...`).
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
