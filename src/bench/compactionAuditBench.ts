/**
 * `zaxy bench compaction-audit`: the audit end to end on a generated log. Each run is a fresh
 * `zaxy compact LOG --audit --json` process (what a git hook pays), timed wall-clock with the
 * child's peak RSS; the report's cluster figures come from the last run's JSON.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { selfCommand, spawnMeasured } from "../platform/process.ts";
import { atMost, type BenchMachine, type BenchTarget, benchMachine, median, round } from "./measure.ts";
import { writeSyntheticLog } from "./syntheticLog.ts";

export const compactionAuditBenchDefaults = { events: 100_000, runs: 3 };

export interface CompactionAuditBenchResult {
  machine: BenchMachine;
  command: string[];
  events: number;
  log_bytes: number;
  runs_s: number[];
  median_s: number;
  peak_rss_mib: number | null;
  exit_code: number;
  cluster_count: number;
  singleton_cluster_count: number;
  identity_recall: number;
  nearest_neighbour_preservation: number;
  targets: Record<string, BenchTarget>;
}

export interface CompactionAuditBenchOptions {
  events: number;
  runs: number;
  progress?: (message: string) => void;
}

export function runCompactionAuditBench(options: CompactionAuditBenchOptions): CompactionAuditBenchResult {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "zaxy-bench-compaction-audit-"));
  try {
    const log = path.join(dir, "bench.jsonl");
    options.progress?.(`writing ${options.events} events`);
    const logBytes = writeSyntheticLog({ path: log, events: options.events, style: "zaxy-v1" });
    const command = [...selfCommand(), "compact", log, "--audit", "--json"];
    const runs: number[] = [];
    let peak: number | null = null;
    let last = { exitCode: -1, stdout: "" };
    for (let i = 0; i < options.runs; i++) {
      options.progress?.(`audit run ${i + 1}/${options.runs}`);
      const run = spawnMeasured(command);
      if (run.exitCode !== 0 && run.exitCode !== 1) throw new Error(`zaxy compact --audit exited ${run.exitCode}: ${run.stderr.trim()}`);
      runs.push(run.wallMs / 1000);
      if (run.maxRssBytes !== null) peak = Math.max(peak ?? 0, run.maxRssBytes);
      last = run;
    }
    const report = JSON.parse(last.stdout) as Record<string, number>;
    const medianS = median(runs);
    const peakMib = peak === null ? null : round(peak / 2 ** 20, 0);
    return {
      machine: benchMachine(),
      command: ["zaxy", "compact", "LOG", "--audit", "--json"],
      events: options.events,
      log_bytes: logBytes,
      runs_s: runs.map((s) => round(s, 2)),
      median_s: round(medianS, 2),
      peak_rss_mib: peakMib,
      exit_code: last.exitCode,
      cluster_count: report.cluster_count,
      singleton_cluster_count: report.singleton_cluster_count,
      identity_recall: report.identity_recall,
      nearest_neighbour_preservation: report.nearest_neighbour_preservation,
      targets: { median_s: atMost(20, round(medianS, 2), "<= 20 s") },
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
