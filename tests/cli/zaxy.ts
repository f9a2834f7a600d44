/**
 * Runs the `zaxy` CLI as a child process for tests (not a test file itself).
 *
 * Prefers the built binary `dist/zaxy` (built by `node_modules/.bin/bun build.ts`); when it is
 * missing, runs the CLI from source with the pinned Bun (`bun src/bin/zaxy.ts`). Overrides:
 * `ZAXY_TEST_BIN=/path/to/zaxy` runs that binary, `ZAXY_TEST_FROM_SOURCE=1` forces the source.
 *
 * The child gets a minimal environment (PATH, HOME, TMPDIR plus what the test passes), so an
 * `EVENTLOOM_PATH` or `EVENTLOOM_THREAD` set in the developer's shell never leaks into a test.
 *
 * @example
 * const run = runZaxy(["memory", "append", "goal.created", "--actor", "a", "--json"], { cwd: dir });
 * assert.equal(run.code, 0);
 */
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = path.resolve(fileURLToPath(new URL("../../", import.meta.url)));
export const builtBinary = path.join(repoRoot, "dist", "zaxy");
export const bunPath = path.join(repoRoot, "node_modules", ".bin", "bun");
export const denoPath = path.join(repoRoot, "node_modules", ".bin", "deno");
const sourceEntry = path.join(repoRoot, "src", "bin", "zaxy.ts");

/** Generous per call: a loaded CI machine can be slow, and the lock wait is 30 s. */
const runTimeoutMs = 60_000;

export interface ZaxyRun {
  /** Exit status; null only when the child was killed (the assertion on it then fails loudly). */
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface ZaxyRunOptions {
  cwd: string;
  env?: Record<string, string>;
  /** Bytes or text written to stdin; stdin is closed (empty) when absent. */
  input?: string | Uint8Array;
  /** Kill the child after this long (default 60 s); a whole bench run needs its test's budget. */
  timeoutMs?: number;
}

function newestMtimeMs(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtimeMs(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}

/** The command and leading arguments that start zaxy, chosen once per process. */
export const zaxyInvocation: { command: string; args: string[]; kind: "binary" | "source" } = (() => {
  const override = process.env.ZAXY_TEST_BIN;
  if (override) return { command: path.resolve(override), args: [], kind: "binary" as const };
  if (process.env.ZAXY_TEST_FROM_SOURCE !== "1" && fs.existsSync(builtBinary)) {
    const builtAt = fs.statSync(builtBinary).mtimeMs;
    if (newestMtimeMs(path.join(repoRoot, "src")) > builtAt) {
      console.error(`note: ${builtBinary} is older than src/; CLI tests run that binary (rebuild with node_modules/.bin/bun build.ts)`);
    }
    return { command: builtBinary, args: [], kind: "binary" as const };
  }
  return { command: bunPath, args: [sourceEntry], kind: "source" as const };
})();

/** PATH, HOME and TMPDIR of this process plus `extra`: nothing else leaks into the child. */
export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin" };
  for (const key of ["HOME", "TMPDIR"]) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  return { ...env, ...extra };
}

/** Runs zaxy to completion. */
export function runZaxy(args: string[], options: ZaxyRunOptions): ZaxyRun {
  const run = spawnSync(zaxyInvocation.command, [...zaxyInvocation.args, ...args], {
    cwd: options.cwd,
    env: childEnv(options.env),
    input: options.input ?? "",
    encoding: "utf8",
    timeout: options.timeoutMs ?? runTimeoutMs,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.error) throw run.error;
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** Starts zaxy without waiting, so several can run at once. */
export function runZaxyAsync(args: string[], options: ZaxyRunOptions): Promise<ZaxyRun> {
  return runProcess(zaxyInvocation.command, [...zaxyInvocation.args, ...args], options);
}

/** Runs any program asynchronously with the same minimal environment. */
export function runProcess(command: string, args: string[], options: ZaxyRunOptions): Promise<ZaxyRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: childEnv(options.env), stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => void (stdout += chunk));
    child.stderr.on("data", (chunk: string) => void (stderr += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? runTimeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? "");
  });
}

/** Lines of stderr that look like a JavaScript stack frame (`    at f (file:1:2)`). */
export function stackTraceLines(stderr: string): string[] {
  return stderr.split("\n").filter((line) => /^\s+at\s/.test(line));
}
