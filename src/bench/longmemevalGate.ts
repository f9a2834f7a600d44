/**
 * The LongMemEval gates of the alpha documents, over a report of `zaxy bench longmemeval`
 * (schema `zaxy.bench.longmemeval.v1`):
 *
 * - `benchmark-compare`: Python's bounds and defaults (CI guardrail: mean ≥ 0.95, Answer@5 ≥ 0.95,
 *   R@5 ≥ 0.99, citation ≥ 0.95, p95 ≤ 500 ms, p99 ≤ 750 ms) and, against a baseline report, a
 *   latency regression ratio `(p95 − baseline p95) / baseline p95` (and the same for p99) ≤ 0.25;
 * - `benchmark-guardrail`: the alpha.1 regression guard, fixed at the published 1.x floors of the
 *   500-question legacy run (mean ≥ 0.626, Answer@5 ≥ 0.608, R@5 ≥ 0.956, citation ≥ 1.0,
 *   p95 ≤ 15000 ms, p99 ≤ 23000 ms).
 *
 * A report that is missing, unreadable, not JSON, of another schema or without the backend is bad
 * input (exit 2, code `report_unavailable` or `invalid_report`), never a FAIL: the gate could
 * not look, which is not the same as the gate saying no.
 */
import * as fs from "node:fs";
import { inputError } from "../errors.ts";
import { benchmarkReportBytesMax as reportBytesMax } from "../limits.ts";
import { type BackendSummary, checkoutBackend, longMemEvalReportSchema } from "./longmemevalBench.ts";
import { round } from "./measure.ts";

export const benchmarkCompareSchema = "zaxy.benchmark_compare.v1";
export const benchmarkGuardrailSchema = "zaxy.benchmark_guardrail.v1";

export interface GateBounds {
  minMeanScore: number;
  minAnswerRecallAt5: number;
  minRecallAt5: number;
  minCitationCoverage: number;
  maxP95Ms: number;
  maxP99Ms: number;
  maxLatencyRegressionRatio: number;
}

/** Python's `benchmark-compare` defaults (the CI guardrail). */
export const compareDefaults: GateBounds = {
  minMeanScore: 0.95,
  minAnswerRecallAt5: 0.95,
  minRecallAt5: 0.99,
  minCitationCoverage: 0.95,
  maxP95Ms: 500,
  maxP99Ms: 750,
  maxLatencyRegressionRatio: 0.25,
};

/** The published 1.x floors of the 500-question legacy run (docs/benchmarks-longmemeval.md). */
export const guardrailFloors: Omit<GateBounds, "maxLatencyRegressionRatio"> = {
  minMeanScore: 0.626,
  minAnswerRecallAt5: 0.608,
  minRecallAt5: 0.956,
  minCitationCoverage: 1.0,
  maxP95Ms: 15000,
  maxP99Ms: 23000,
};

export interface GateCheck {
  metric: string;
  value: number;
  op: ">=" | "<=";
  bound: number;
  passed: boolean;
}

export interface GateResult {
  verdict: "PASS" | "FAIL";
  report: string;
  backend: string;
  baseline: string | null;
  checks: GateCheck[];
  failures: GateCheck[];
}

const summaryKeys: (keyof BackendSummary)[] = ["mean_score", "answer_recall_at_5", "recall_at_5", "citation_coverage", "p95_ms", "p99_ms"];

/**
 * Reads one backend's summary from a report file; `field` names the argument in messages.
 *
 * @example
 * readReportBackend("report.json", "zaxy-checkout", "REPORT").recall_at_5 // 1
 */
export function readReportBackend(file: string, backend: string, field: string): BackendSummary {
  let text: string;
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile()) throw new Error("not a regular file");
    if (stat.size > reportBytesMax) throw new Error(`larger than ${reportBytesMax} bytes`);
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    const reason = (error as { code?: unknown }).code === "ENOENT" ? "no such file" : (error as Error).message;
    throw inputError("report_unavailable", `The benchmark artifact ${field} ${JSON.stringify(file)} is unavailable: ${reason}`, {
      field,
      hint: "write one with 'zaxy bench longmemeval --dataset FILE --output PATH'",
    });
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw inputError("invalid_report", `The benchmark artifact ${field} ${JSON.stringify(file)} is not JSON: ${(error as Error).message}`, { field });
  }
  const schema = typeof doc === "object" && doc !== null ? (doc as { schema?: unknown }).schema : undefined;
  if (schema !== longMemEvalReportSchema) {
    throw inputError("invalid_report", `The benchmark artifact ${field} ${JSON.stringify(file)} has schema ${JSON.stringify(schema ?? null)}, expected "${longMemEvalReportSchema}"`, {
      field,
      expected: longMemEvalReportSchema,
    });
  }
  const backends = (doc as { backends?: Record<string, unknown> }).backends;
  const summary = typeof backends === "object" && backends !== null ? backends[backend] : undefined;
  if (typeof summary !== "object" || summary === null) {
    const names = typeof backends === "object" && backends !== null ? Object.keys(backends).join(", ") : "none";
    throw inputError("invalid_report", `The benchmark artifact ${field} ${JSON.stringify(file)} has no backend "${backend}" (backends: ${names})`, { field });
  }
  const missing = summaryKeys.filter((key) => typeof (summary as Record<string, unknown>)[key] !== "number");
  if (missing.length > 0) {
    throw inputError("invalid_report", `The benchmark artifact ${field} ${JSON.stringify(file)}: backend "${backend}" lacks numeric ${missing.join(", ")}`, { field });
  }
  return summary as BackendSummary;
}

function check(metric: string, value: number, op: ">=" | "<=", bound: number): GateCheck {
  return { metric, value, op, bound, passed: op === ">=" ? value >= bound : value <= bound };
}

function boundChecks(summary: BackendSummary, bounds: Omit<GateBounds, "maxLatencyRegressionRatio">): GateCheck[] {
  return [
    check("mean_score", summary.mean_score, ">=", bounds.minMeanScore),
    check("answer_recall_at_5", summary.answer_recall_at_5, ">=", bounds.minAnswerRecallAt5),
    check("recall_at_5", summary.recall_at_5, ">=", bounds.minRecallAt5),
    check("citation_coverage", summary.citation_coverage, ">=", bounds.minCitationCoverage),
    check("p95_ms", summary.p95_ms, "<=", bounds.maxP95Ms),
    check("p99_ms", summary.p99_ms, "<=", bounds.maxP99Ms),
  ];
}

/** Relative growth of a latency over the baseline's; 0 when the baseline is 0 and so is the value. */
function regressionRatio(value: number, baseline: number): number {
  if (baseline <= 0) return value <= 0 ? 0 : Number.MAX_SAFE_INTEGER;
  return round((value - baseline) / baseline, 4);
}

function result(report: string, backend: string, baseline: string | null, checks: GateCheck[]): GateResult {
  const failures = checks.filter((c) => !c.passed);
  return { verdict: failures.length === 0 ? "PASS" : "FAIL", report, backend, baseline, checks, failures };
}

/** `benchmark-compare`: the bounds, plus the latency regression ratios when a baseline is given. */
export function compareReport(options: { report: string; backend?: string; baseline?: string; bounds?: Partial<GateBounds> }): GateResult {
  const backend = options.backend ?? checkoutBackend;
  const bounds = { ...compareDefaults, ...options.bounds };
  const summary = readReportBackend(options.report, backend, "REPORT");
  const checks = boundChecks(summary, bounds);
  if (options.baseline !== undefined) {
    const base = readReportBackend(options.baseline, backend, "--baseline");
    checks.push(check("p95_latency_regression_ratio", regressionRatio(summary.p95_ms, base.p95_ms), "<=", bounds.maxLatencyRegressionRatio));
    checks.push(check("p99_latency_regression_ratio", regressionRatio(summary.p99_ms, base.p99_ms), "<=", bounds.maxLatencyRegressionRatio));
  }
  return result(options.report, backend, options.baseline ?? null, checks);
}

/** `benchmark-guardrail`: the fixed 1.x floors on the `zaxy-checkout` backend. */
export function guardrailReport(report: string): GateResult {
  const summary = readReportBackend(report, checkoutBackend, "REPORT");
  return result(report, checkoutBackend, null, boundChecks(summary, guardrailFloors));
}

/** The text form: a verdict line, then one line per failed check. */
export function renderGate(gate: GateResult): string {
  const head = `${gate.verdict} ${gate.report} (backend ${gate.backend}${gate.baseline === null ? "" : `, baseline ${gate.baseline}`}): ` +
    `${gate.checks.length - gate.failures.length}/${gate.checks.length} checks passed`;
  const lines = gate.failures.map((c) => `  failed: ${c.metric} = ${c.value}, required ${c.op} ${c.bound}`);
  return [head, ...lines].join("\n");
}
