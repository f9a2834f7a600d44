/**
 * Shared pieces of the retrieval, reproject and checkout benchmarks: the machine description
 * every report carries, medians and nearest-rank percentiles of latency samples, a seeded PRNG,
 * and a stopwatch. Absolute times mean nothing without the machine (DESIGN §13).
 *
 * @example
 * const samples = [3.1, 2.4, 9.8];
 * latencySummary(samples); // { count: 3, p50_ms: 3.1, p95_ms: 9.8, p99_ms: 9.8, ... }
 */
import * as os from "node:os";
import { runtimeName } from "../platform/mod.ts";

export interface BenchMachine {
  cpu: string;
  cores: number;
  memory_gb: number;
  os: string;
  runtime: string;
  /** 1-minute load average when the run started: the machine may be shared. */
  load_average_1m: number;
}

export function benchMachine(): BenchMachine {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model ?? "unknown",
    cores: cpus.length,
    memory_gb: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    runtime: runtimeName,
    load_average_1m: Math.round(os.loadavg()[0] * 100) / 100,
  };
}

/**
 * This process's peak resident set so far, in MiB (getrusage's `ru_maxrss`, KiB on Linux): the
 * true peak, not a sample taken between phases. Null where the runtime does not report it.
 */
export function processPeakRssMib(): number | null {
  try {
    const kib = process.resourceUsage().maxRSS;
    return Number.isFinite(kib) && kib > 0 ? kib / 1024 : null;
  } catch {
    return null;
  }
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Nearest-rank percentile (`p` in 0..100): the smallest sample with at least p % at or below it. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1];
}

/** Rounds to `digits` decimals (reports keep figures readable, not falsely precise). */
export function round(value: number, digits = 2): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

export interface LatencySummary {
  count: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  mean_ms: number;
  max_ms: number;
}

/** Null when there are no samples (JSON has no NaN). */
export function latencySummary(samplesMs: readonly number[]): LatencySummary | null {
  if (samplesMs.length === 0) return null;
  const sum = samplesMs.reduce((a, b) => a + b, 0);
  return {
    count: samplesMs.length,
    p50_ms: round(percentile(samplesMs, 50), 3),
    p95_ms: round(percentile(samplesMs, 95), 3),
    p99_ms: round(percentile(samplesMs, 99), 3),
    mean_ms: round(sum / samplesMs.length, 3),
    max_ms: round(Math.max(...samplesMs), 3),
  };
}

/** A small deterministic PRNG (mulberry32) in [0, 1), so generated data is identical run to run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Fisher-Yates shuffle of a copy, driven by `rand`. */
export function shuffled<T>(items: readonly T[], rand: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** Milliseconds taken by `fn` (awaited) and its result. */
export async function timed<T>(fn: () => T | Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await fn();
  return { ms: performance.now() - started, value };
}

/** `{target, value, met}`; `met` is null when the value could not be measured. */
export interface BenchTarget {
  target: string;
  value: number | null;
  met: boolean | null;
}

export function atMost(limit: number, value: number | null, label = `<= ${limit}`): BenchTarget {
  return { target: label, value: value === null ? null : round(value, 3), met: value === null ? null : value <= limit };
}

export function atLeast(limit: number, value: number | null, label = `>= ${limit}`): BenchTarget {
  return { target: label, value: value === null ? null : round(value, 3), met: value === null ? null : value >= limit };
}

/** The text lines of a target table, as `zaxy bench verify` prints them. */
export function renderTargets(targets: Record<string, BenchTarget>, digits = 2): string[] {
  const lines = ["targets:"];
  for (const [name, t] of Object.entries(targets)) {
    const value = t.value === null ? "-" : t.value.toFixed(digits);
    lines.push(`  ${name.padEnd(34)} ${t.target.padEnd(10)} ${value.padStart(10)}  ${t.met === null ? "n/a" : t.met ? "met" : "NOT MET"}`);
  }
  return lines;
}

export function machineLine(m: BenchMachine): string {
  return `machine: ${m.cpu}, ${m.cores} cores, ${m.memory_gb} GiB, ${m.os}, ${m.runtime}, load ${m.load_average_1m}`;
}
