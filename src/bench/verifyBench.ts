/**
 * `zaxy bench verify`: verify throughput against the Python reference verifier and against
 * one-shot SHA-256 of the same bytes, peak RSS, and cold start. Every ratio is measured in one
 * run on one machine; each zaxy figure is the median of several fresh processes.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { appendEvents } from "../events/append.ts";
import { fromJs } from "../canonical/mod.ts";
import { selfCommand, spawnMeasured } from "../platform/process.ts";
import { type BenchMachine, benchMachine, median } from "./measure.ts";
import { refVerifyScript } from "./refVerifyScript.ts";
import { type SyntheticStyle, writeSyntheticLog } from "./syntheticLog.ts";

export interface VerifyBenchOptions {
  events: number;
  runs: number;
  python: boolean;
  /** Verify these logs instead of generating them. */
  logs?: string[];
  workDir?: string;
  keep?: boolean;
  coldStartRuns: number;
  progress?: (message: string) => void;
}

export interface LogBench {
  name: string;
  path: string;
  events: number | null;
  bytes: number;
  zaxy_verify: { median_s: number; mb_per_s: number; runs_s: number[]; peak_rss_mb: number | null; ok: boolean };
  sha256_one_shot: { median_s: number; mb_per_s: number };
  ratio_to_sha256: number;
  python_ref_verify: { seconds: number; mb_per_s: number; verdict: string } | null;
  speedup_vs_python: number | null;
}

export interface VerifyBenchResult {
  machine: BenchMachine;
  command: string[];
  logs: LogBench[];
  cold_start: { median_ms: number; runs_ms: number[]; events: number } | null;
  targets: Record<string, { target: string; value: number | null; met: boolean | null }>;
}

function sha256File(file: string): number {
  const started = performance.now();
  const fd = fs.openSync(file, "r");
  const buffer = new Uint8Array(8 << 20);
  const hash = createHash("sha256");
  try {
    for (;;) {
      const read = fs.readSync(fd, buffer, 0, buffer.length, null);
      if (read === 0) break;
      hash.update(buffer.subarray(0, read));
    }
  } finally {
    fs.closeSync(fd);
  }
  hash.digest("hex");
  return (performance.now() - started) / 1000;
}

function benchLog(name: string, file: string, events: number | null, options: VerifyBenchOptions, workDir: string): LogBench {
  const bytes = fs.statSync(file).size;
  const mb = bytes / 1e6;
  const self = selfCommand();
  const runs: number[] = [];
  let peakRss: number | null = null;
  let ok = true;
  for (let i = 0; i < options.runs; i++) {
    options.progress?.(`${name}: zaxy verify run ${i + 1}/${options.runs}`);
    const run = spawnMeasured([...self, "verify", file, "--json"]);
    runs.push(run.wallMs / 1000);
    if (run.maxRssBytes !== null) peakRss = Math.max(peakRss ?? 0, run.maxRssBytes);
    ok &&= run.exitCode === 0;
  }
  const shaRuns: number[] = [];
  for (let i = 0; i < options.runs; i++) {
    options.progress?.(`${name}: one-shot SHA-256 run ${i + 1}/${options.runs}`);
    shaRuns.push(sha256File(file));
  }
  const zaxyMedian = median(runs);
  const shaMedian = median(shaRuns);
  let python: LogBench["python_ref_verify"] = null;
  if (options.python) {
    options.progress?.(`${name}: python3 ref_verify.py (once)`);
    const script = path.join(workDir, "ref_verify.py");
    fs.writeFileSync(script, refVerifyScript);
    const run = spawnMeasured(["python3", script, file]);
    if (run.exitCode === 0 || run.exitCode === 1) {
      python = { seconds: run.wallMs / 1000, mb_per_s: mb / (run.wallMs / 1000), verdict: run.stdout.trim() };
    }
  }
  return {
    name,
    path: file,
    events,
    bytes,
    zaxy_verify: {
      median_s: zaxyMedian,
      mb_per_s: mb / zaxyMedian,
      runs_s: runs,
      peak_rss_mb: peakRss === null ? null : peakRss / 2 ** 20,
      ok,
    },
    sha256_one_shot: { median_s: shaMedian, mb_per_s: mb / shaMedian },
    ratio_to_sha256: shaMedian / zaxyMedian,
    python_ref_verify: python,
    speedup_vs_python: python === null ? null : python.seconds / zaxyMedian,
  };
}

async function coldStart(workDir: string, runs: number): Promise<VerifyBenchResult["cold_start"]> {
  const root = path.join(workDir, "cold");
  const items = Array.from({ length: 10 }, (_, i) => ({ type: "tool.call.completed", actor: "agent", payload: fromJs({ step: i, note: "cold start" }) }));
  const { logPath } = await appendEvents(root, "cold", items);
  const self = selfCommand();
  spawnMeasured([...self, "verify", logPath]); // warm the page cache
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push(spawnMeasured([...self, "verify", logPath]).wallMs);
  return { median_ms: median(times), runs_ms: times.map((t) => Math.round(t * 100) / 100), events: 10 };
}

export async function runVerifyBench(options: VerifyBenchOptions): Promise<VerifyBenchResult> {
  const workDir = options.workDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "zaxy-bench-verify-"));
  try {
    const logs: LogBench[] = [];
    if (options.logs !== undefined && options.logs.length > 0) {
      for (const file of options.logs) logs.push(benchLog(path.basename(file), file, null, options, workDir));
    } else {
      for (const style of ["python-legacy", "zaxy-v1"] as SyntheticStyle[]) {
        const file = path.join(workDir, `${style}.jsonl`);
        options.progress?.(`generating ${options.events} ${style} events`);
        writeSyntheticLog({ path: file, events: options.events, style });
        logs.push(benchLog(style, file, options.events, options, workDir));
      }
    }
    const cold = options.coldStartRuns > 0 ? await coldStart(workDir, options.coldStartRuns) : null;
    const legacy = logs.find((l) => l.name === "python-legacy") ?? logs[0];
    const zaxyWritten = logs.find((l) => l.name === "zaxy-v1") ?? logs[0];
    const maxRss = Math.max(...logs.map((l) => l.zaxy_verify.peak_rss_mb ?? 0));
    return {
      machine: benchMachine(),
      command: ["zaxy", "bench", "verify", "--events", String(options.events), "--runs", String(options.runs)],
      logs,
      cold_start: cold,
      targets: {
        speedup_vs_python: { target: ">= 4", value: legacy.speedup_vs_python, met: legacy.speedup_vs_python === null ? null : legacy.speedup_vs_python >= 4 },
        peak_rss_mb: { target: "<= 200", value: maxRss || null, met: maxRss ? maxRss <= 200 : null },
        ratio_to_sha256_on_zaxy_log: { target: ">= 0.30", value: zaxyWritten.ratio_to_sha256, met: zaxyWritten.ratio_to_sha256 >= 0.3 },
        cold_start_ms: { target: "<= 30", value: cold?.median_ms ?? null, met: cold === null ? null : cold.median_ms <= 30 },
      },
    };
  } finally {
    if (options.keep || options.workDir !== undefined) options.progress?.(`note: logs kept in ${workDir}`);
    else fs.rmSync(workDir, { recursive: true, force: true });
  }
}
