/** What reproject.ts's command does: imported when the command runs, so start-up loads only the command tree. */
import type { CommandContext } from "../../command.ts";
import type { ReprojectBenchResult } from "../../../bench/reprojectBench.ts";
import { machineLine, renderTargets } from "../../../bench/measure.ts";
import { intOption } from "../../args.ts";
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

export async function runBenchReproject(ctx: CommandContext): Promise<number> {
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
}
