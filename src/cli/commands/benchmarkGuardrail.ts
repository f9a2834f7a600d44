/**
 * `zaxy benchmark-guardrail REPORT`: the alpha.1 regression guard over a report of
 * `zaxy bench longmemeval`, at the published 1.x floors (bench/longmemevalGate.ts).
 */
import { defineCommand } from "../command.ts";
import { emit } from "../output.ts";

export const benchmarkGuardrailCommand = defineCommand({
  name: "benchmark-guardrail",
  store: "self",
  summary: "Offline gate: no regression below the published 1.x LongMemEval floors",
  description:
    "Offline runner gate (no network): the alpha.1 regression guard. Reads a report written by\n" +
    "'zaxy bench longmemeval --output PATH' (schema zaxy.bench.longmemeval.v1) and checks its\n" +
    "zaxy-checkout backend against the fixed floors of the published 1.x 500-question legacy run:\n" +
    "mean_score >= 0.626, answer_recall_at_5 >= 0.608, recall_at_5 >= 0.956,\n" +
    "citation_coverage >= 1.0, p95_ms <= 15000, p99_ms <= 23000.\n" +
    "Exit 0 PASS, 1 FAIL (each failed check: metric, value, floor), 2 when the report is\n" +
    "unavailable, not JSON or of another schema. Details: 'zaxy help benchmarks-longmemeval' (docs/benchmarks-longmemeval.md).",
  options: {},
  positionals: [{ name: "REPORT", description: "A zaxy.bench.longmemeval.v1 report", required: true }],
  examples: ["zaxy benchmark-guardrail report.json", "zaxy benchmark-guardrail report.json --json"],
  async run(ctx) {
    const { guardrailReport, renderGate, benchmarkGuardrailSchema } = await import("../../bench/longmemevalGate.ts");
    const gate = guardrailReport(ctx.positionals[0]);
    emit(ctx, benchmarkGuardrailSchema, { ...gate }, () => renderGate(gate));
    return gate.verdict === "PASS" ? 0 : 1;
  },
});
