/**
 * Running this program again (benchmarks time fresh processes) and measuring a child's wall
 * time and peak RSS. Runtime-specific: Bun reports the child's `maxRSS` from spawnSync.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { runtimeName } from "./mod.ts";

// deno-lint-ignore no-explicit-any
const runtimeGlobal = globalThis as any;

/** argv prefix that starts this same program (compiled binary or source entry). */
export function selfCommand(): string[] {
  if (runtimeName === "bun") {
    const main: string = runtimeGlobal.Bun.main;
    return main.includes("$bunfs") || main.includes("~BUN") ? [process.execPath] : [process.execPath, main];
  }
  if (runtimeName === "deno") {
    return [runtimeGlobal.Deno.execPath(), "run", "-A", fileURLToPath(runtimeGlobal.Deno.mainModule)];
  }
  return [process.execPath, process.argv[1]];
}

/** Whether this process is the compiled single binary. */
export function isCompiledBinary(): boolean {
  return runtimeName === "bun" && selfCommand().length === 1;
}

export interface MeasuredRun {
  exitCode: number;
  stdout: string;
  stderr: string;
  wallMs: number;
  /** Peak resident set of the child in bytes, when the runtime reports it. */
  maxRssBytes: number | null;
}

/**
 * Runs `argv` to completion; the child's peak RSS is the one zaxy reports for itself through
 * `ZAXY_PEAK_RSS_FILE` (src/bin/zaxy.ts) when it does, else the runtime's rusage of children
 * (the largest of every child this process waited for, so only an upper bound).
 */
export function spawnMeasured(argv: string[], env?: Record<string, string | undefined>): MeasuredRun {
  const rssFile = path.join(os.tmpdir(), `zaxy-peak-rss-${process.pid}-${Math.random().toString(36).slice(2)}`);
  const run = spawnUnmeasured(argv, { ...(env ?? process.env), ZAXY_PEAK_RSS_FILE: rssFile });
  try {
    const reported = Number(fs.readFileSync(rssFile, "utf8"));
    if (Number.isSafeInteger(reported) && reported > 0) run.maxRssBytes = reported;
  } catch {
    // Not a zaxy child, or it died before reporting: keep the rusage figure.
  } finally {
    fs.rmSync(rssFile, { force: true });
  }
  return run;
}

function spawnUnmeasured(argv: string[], env: Record<string, string | undefined>): MeasuredRun {
  const started = performance.now();
  if (runtimeName === "bun") {
    const result = runtimeGlobal.Bun.spawnSync(argv, { env, stdout: "pipe", stderr: "pipe" });
    const wallMs = performance.now() - started;
    return {
      exitCode: result.exitCode ?? -1,
      stdout: new TextDecoder().decode(result.stdout),
      stderr: new TextDecoder().decode(result.stderr),
      wallMs,
      maxRssBytes: result.resourceUsage?.maxRSS ?? null,
    };
  }
  const result = spawnSync(argv[0], argv.slice(1), { env, encoding: "utf8", maxBuffer: 1 << 28 });
  return {
    exitCode: result.status ?? -1,
    stdout: result.stdout ?? "",
    stderr: result.stderr ?? "",
    wallMs: performance.now() - started,
    maxRssBytes: null,
  };
}

/**
 * The specifier of a worker module. From source it is the module's URL; inside the compiled
 * binary Bun stores every extra entry point under its path relative to the entry points'
 * common directory (`src/`), and resolves `./<that path>` to it.
 */
/**
 * The Web Worker constructor as the runtime provides it, captured when this module is first
 * evaluated. kuzu-wasm's Emscripten glue replaces `globalThis.Worker` with node's
 * `worker_threads.Worker` when it loads (that one rejects `file://` specifiers and has another
 * message API), so code that may run after Kuzu was loaded (`zaxy serve`) must use this one.
 */
export const WebWorker: typeof Worker = globalThis.Worker;

export function workerSpecifier(sourceUrl: URL, pathUnderSrc: string): string {
  return import.meta.url.includes("$bunfs") ? `./${pathUnderSrc}` : sourceUrl.href;
}
