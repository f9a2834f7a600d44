/**
 * `zaxy benchmark-compare REPORT`: the LongMemEval gate of the alpha documents over a report of
 * `zaxy bench longmemeval` (bench/longmemevalGate.ts). Exit 0 PASS, 1 FAIL (each failed check
 * named), 2 when a report is unavailable or not a `zaxy.bench.longmemeval.v1` report.
 */
import { inputError } from "../../errors.ts";
import type { GateBounds } from "../../bench/longmemevalGate.ts";
import { type CommandContext, defineCommand, type OptionSpec, stringOption } from "../command.ts";
import { emit } from "../output.ts";

/** A finite non-negative number option; undefined when absent. */
function boundOption(ctx: CommandContext, name: string): number | undefined {
  const raw = stringOption(ctx, name);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (raw.trim() === "" || !Number.isFinite(value) || value < 0) {
    throw inputError("invalid_option", `--${name} must be a number >= 0, got ${JSON.stringify(raw)}`, { field: `--${name}` });
  }
  return value;
}

const boundFlags: [string, keyof GateBounds, string][] = [
  ["min-mean-score", "minMeanScore", "Lowest mean_score (default 0.95)"],
  ["min-answer-recall-at-5", "minAnswerRecallAt5", "Lowest answer_recall_at_5 (default 0.95)"],
  ["min-recall-at-5", "minRecallAt5", "Lowest recall_at_5 (default 0.99)"],
  ["min-citation-coverage", "minCitationCoverage", "Lowest citation_coverage (default 0.95)"],
  ["max-p95-ms", "maxP95Ms", "Highest p95 latency in ms (default 500)"],
  ["max-p99-ms", "maxP99Ms", "Highest p99 latency in ms (default 750)"],
  ["max-latency-regression-ratio", "maxLatencyRegressionRatio", "Highest (p95 − baseline p95) / baseline p95, same for p99 (with --baseline; default 0.25)"],
];

export const benchmarkCompareCommand = defineCommand({
  name: "benchmark-compare",
  store: "self",
  summary: "Offline gate: check a bench longmemeval report against quality and latency bounds",
  description:
    "Offline runner gate (no network): reads a report written by\n" +
    "'zaxy bench longmemeval --output PATH' (schema zaxy.bench.longmemeval.v1) and checks one\n" +
    "backend's summary against Python's benchmark-compare bounds (defaults: the CI guardrail).\n" +
    "With --baseline, also the latency regression ratio of p95 and p99 against the same backend\n" +
    "of the baseline report. Exit 0 PASS, 1 FAIL (each failed check: metric, value, bound),\n" +
    "2 when a report is unavailable, not JSON, of another schema or lacks the backend.\n" +
    "Details: 'zaxy help benchmarks-longmemeval' (docs/benchmarks-longmemeval.md).",
  options: {
    backend: { type: "string", valueName: "NAME", description: "Backend of the report to check (default zaxy-checkout)" },
    baseline: { type: "string", valueName: "REPORT2", description: "Earlier report of the same backend, for the latency regression ratio" },
    ...Object.fromEntries(boundFlags.map(([flag, , description]): [string, OptionSpec] => [flag, { type: "string", valueName: "X", description }])),
  },
  positionals: [{ name: "REPORT", description: "A zaxy.bench.longmemeval.v1 report", required: true }],
  examples: [
    "zaxy benchmark-compare report.json",
    "zaxy benchmark-compare report.json --min-answer-recall-at-5 0.90 --min-citation-coverage 1.0 --max-p95-ms 2500 --max-p99-ms 3000",
    "zaxy benchmark-compare report.json --baseline previous.json --json",
  ],
  async run(ctx) {
    const { compareReport, renderGate, benchmarkCompareSchema } = await import("../../bench/longmemevalGate.ts");
    const bounds: Partial<GateBounds> = {};
    for (const [flag, key] of boundFlags) {
      const value = boundOption(ctx, flag);
      if (value !== undefined) bounds[key] = value;
    }
    const gate = compareReport({ report: ctx.positionals[0], backend: stringOption(ctx, "backend"), baseline: stringOption(ctx, "baseline"), bounds });
    emit(ctx, benchmarkCompareSchema, { ...gate }, () => renderGate(gate));
    return gate.verdict === "PASS" ? 0 : 1;
  },
});
