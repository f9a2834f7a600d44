/**
 * `zaxy bench reproject`: full rebuild of a mixed session, per phase, vector index apart, and
 * bulk load vs one statement per row. The benchmark is imported only when the command runs.
 */
import type { ReprojectBenchResult } from "../../../bench/reprojectBench.ts";
import { machineLine, renderTargets } from "../../../bench/measure.ts";
import { intOption } from "../../args.ts";
import { defineCommand } from "../../command.ts";
import { emit } from "../../output.ts";
import { benchMessages } from "../../progress.ts";

function fmt(value: number | null): string {
  return value === null ? "n/a" : String(value);
}

function render(result: ReprojectBenchResult): string {
  const r = result.reproject;
  const b = result.baseline;
  const phases = Object.entries(r.phases_ms).map(([phase, ms]) => `${phase} ${(ms / 1000).toFixed(2)} s`).join(", ");
  return [
    machineLine(result.machine),
    `session: ${result.events} mixed events (seed ${result.seed}), appended in ${result.append.seconds.toFixed(2)} s, ${(result.append.log_bytes / 1e6).toFixed(1)} MB`,
    `reproject (rebuild): ${r.seconds.toFixed(2)} s end to end; ${phases}`,
    `  rows written: ${r.rows_written.entities} entities, ${r.rows_written.relations} relations, ${r.rows_written.events} events (${r.rows_written.total} total)`,
    `  ${r.write_rows_per_s.toFixed(0)} rows/s in the write phase, ${r.end_to_end_rows_per_s.toFixed(0)} rows/s end to end`,
    `vector index build: ${result.vector_index.seconds.toFixed(2)} s for ${result.vector_index.vectors} vectors (dim ${result.vector_index.dim})`,
    `per-row baseline: ${b.note}`,
    `  ${b.rows.total} rows: per-row ${b.per_row.seconds.toFixed(2)} s (${b.per_row.rows_per_s.toFixed(0)} rows/s), bulk ${b.bulk_same_diff.seconds.toFixed(2)} s (${b.bulk_same_diff.rows_per_s.toFixed(0)} rows/s) -> ${b.bulk_vs_per_row_same_diff.toFixed(1)}x on the same diff`,
    `  full-run write phase vs per-row: ${result.ratios.bulk_write_vs_per_row.toFixed(1)}x; end to end vs per-row: ${result.ratios.end_to_end_vs_per_row.toFixed(1)}x`,
    `zaxy reproject --reset-projection (fresh processes): median ${fmt(result.cli.median_s)} s (runs ${result.cli.runs_s.join(", ")}), peak RSS ${fmt(result.cli.max_peak_rss_mib)} MiB` +
    (result.cli.failures.length > 0 ? `, failures: ${result.cli.failures.join("; ")}` : ""),
    `  ref_verify.py on the same log: median ${fmt(result.cli.ref_verify.median_s)} s${result.cli.ref_verify.error === null ? "" : ` (${result.cli.ref_verify.error})`} -> ${fmt(result.cli.ratio_to_ref_verify)}x`,
    ...renderTargets(result.targets),
  ].join("\n");
}

export const benchReprojectCommand = defineCommand({
  name: "reproject",
  store: "self",
  summary: "Full reproject of a mixed session (phases, rows/s), vector index build, bulk vs per-row writes",
  description:
    "Generates a seeded mixed agent session (goals, tasks, decisions, preferences, documents,\n" +
    "transcript turns, tool calls, commands, file edits) in a temporary directory, times\n" +
    "projectSession with rebuild end to end and per phase, then the vector index build. The\n" +
    "one-statement-per-row baseline runs on the first --baseline-events events (the whole\n" +
    "session would take tens of minutes) and is compared with the bulk load of the same rows.\n" +
    "Then times `zaxy reproject --reset-projection` in --cli-runs fresh processes (rows, read\n" +
    "model and vector index rebuilt from nothing) against python3 ref_verify.py on the same log.",
  options: {
    events: { type: "string", valueName: "N", description: "Events in the session (default 100000)" },
    "baseline-events": { type: "string", valueName: "N", description: "Prefix for the per-row baseline (default 2000)" },
    "cli-runs": { type: "string", valueName: "N", description: "Fresh zaxy reproject and ref_verify.py runs (default 3)" },
  },
  positionals: [],
  examples: ["zaxy bench reproject --json", "zaxy bench reproject --events 20000 --baseline-events 500"],
  async run(ctx) {
    const { runReprojectBench } = await import("../../../bench/reprojectBench.ts");
    const reporter = benchMessages(ctx, "reproject");
    const result = await runReprojectBench({
      events: intOption(ctx, "events", 1, 10_000_000) ?? 100_000,
      baselineEvents: intOption(ctx, "baseline-events", 1, 10_000_000) ?? 2000,
      cliRuns: intOption(ctx, "cli-runs", 1, 100) ?? 3,
      progress: reporter.message,
    });
    reporter.done();
    emit(ctx, "zaxy.bench.reproject.v1", { ...result }, () => render(result));
    return 0;
  },
});
