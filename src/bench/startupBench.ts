/**
 * `zaxy bench startup`: how long a fresh process of this program takes to print its version and
 * to verify a three-event log. Each command is run a few times first (warm-ups: page cache,
 * the binary's pages) and then `runs` times; the figures are wall times of the whole child.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fromJs } from "../canonical/mod.ts";
import { appendEvents } from "../events/append.ts";
import { ioError } from "../errors.ts";
import { isCompiledBinary, selfCommand } from "../platform/process.ts";
import { atMost, type BenchMachine, type BenchTarget, benchMachine, median, percentile, round } from "./measure.ts";

/** Runs of each command before the measured ones. */
export const startupWarmupRuns = 3;
/** Events in the log `verify` reads: a tiny log, so the figure is start-up, not hashing. */
const verifyLogEvents = 3;
/** The binary's goal for either median. */
const startupTargetMs = 15;

export interface StartupSample {
  /** The arguments after the program, e.g. ["--version"]. */
  args: string[];
  median_ms: number;
  p90_ms: number;
  min_ms: number;
  runs_ms: number[];
}

export interface StartupBenchResult {
  /** `binary` (the compiled zaxy) or `source` (a runtime running src/bin/zaxy.ts, much slower). */
  measured: "binary" | "source";
  /** The program run: the binary, or the runtime and the entry file. */
  command: string[];
  runs: number;
  warmup_runs: number;
  version: StartupSample;
  verify: StartupSample & { events: number };
  targets: Record<string, BenchTarget>;
  machine: BenchMachine;
}

function timeRuns(command: string[], args: string[], runs: number, cwd: string): StartupSample {
  const times: number[] = [];
  for (let i = 0; i < startupWarmupRuns + runs; i++) {
    const started = performance.now();
    const run = spawnSync(command[0], [...command.slice(1), ...args], { cwd, stdio: ["ignore", "ignore", "pipe"] });
    const wallMs = performance.now() - started;
    if (run.status !== 0) {
      throw ioError("bench_failed", `zaxy ${args.join(" ")} exited with ${run.status ?? run.signal}: ${String(run.stderr ?? "").trim()}`);
    }
    if (i >= startupWarmupRuns) times.push(wallMs);
  }
  return {
    args,
    median_ms: round(median(times), 2),
    p90_ms: round(percentile(times, 90), 2),
    min_ms: round(Math.min(...times), 2),
    runs_ms: times.map((t) => round(t, 2)),
  };
}

export async function runStartupBench(options: { runs: number; progress?: (message: string) => void }): Promise<StartupBenchResult> {
  const machine = benchMachine();
  const command = selfCommand();
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), "zaxy-bench-startup-"));
  try {
    const root = path.join(workDir, ".eventloom");
    const items = Array.from({ length: verifyLogEvents }, (_, i) => ({ type: "goal.created", actor: "a", payload: fromJs({ title: `goal ${i}` }) }));
    const { logPath } = await appendEvents(root, "default", items);
    options.progress?.(`zaxy --version, ${options.runs} runs`);
    const version = timeRuns(command, ["--version"], options.runs, workDir);
    options.progress?.(`zaxy verify, ${options.runs} runs`);
    const verify = { ...timeRuns(command, ["verify", logPath], options.runs, workDir), events: verifyLogEvents };
    const measured = isCompiledBinary() ? "binary" : "source";
    // The goal is the binary's: a source run transpiles first, so it is reported, not judged.
    const target = (value: number): BenchTarget => (measured === "binary" ? atMost(startupTargetMs, value) : { ...atMost(startupTargetMs, value), met: null });
    return {
      measured,
      command,
      runs: options.runs,
      warmup_runs: startupWarmupRuns,
      version,
      verify,
      targets: {
        version_median_ms: target(version.median_ms),
        verify_median_ms: target(verify.median_ms),
      },
      machine,
    };
  } finally {
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}
