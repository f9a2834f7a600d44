/** What checkout.ts's command does: imported when the command runs, so start-up loads only the command tree. */
import type { CommandContext } from "../../command.ts";
import type { CheckoutBenchResult, ColdRuns } from "../../../bench/checkoutBench.ts";
import { machineLine, renderTargets } from "../../../bench/measure.ts";
import { intOption } from "../../args.ts";
import { emit } from "../../output.ts";
import { benchMessages } from "../../progress.ts";

function coldLine(name: string, runs: ColdRuns): string {
  const median = runs.median_ms === null ? "-" : `${runs.median_ms.toFixed(1)} ms`;
  const rss = runs.max_peak_rss_mib === null ? "" : `, peak RSS <= ${runs.max_peak_rss_mib.toFixed(0)} MiB`;
  const failures = runs.failures.length === 0 ? "" : `; ${runs.failures.length} failed: ${runs.failures[0]}`;
  return `${name}: median ${median} over ${runs.runs_ms.length} runs (${runs.runs_ms.map((ms) => ms.toFixed(0)).join(", ")})${rss}${failures}`;
}

function render(result: CheckoutBenchResult): string {
  const w = result.warm;
  const lines = [
    machineLine(result.machine),
    `session: ${result.events} mixed events (seed ${result.seed}), ${result.setup.entity_versions} entity versions, projected once in ${result.setup.project_s.toFixed(2)} s; ${result.setup.feedback_events} feedback events before the warm run`,
  ];
  if (w.latency !== null) {
    lines.push(
      `warm (zaxy serve, memory_checkout over MCP stdio, ${w.latency.count} calls, ${w.distinct_queries} distinct queries):`,
      `  p50 ${w.latency.p50_ms.toFixed(2)} ms  p95 ${w.latency.p95_ms.toFixed(2)} ms  p99 ${w.latency.p99_ms.toFixed(2)} ms  (first call ${w.first_call_ms?.toFixed(1)} ms)`,
    );
  }
  if (w.error !== null) lines.push(`warm: ${w.errors > 0 ? `${w.errors} calls failed: ` : ""}${w.error}`);
  lines.push(coldLine("cold (fresh `zaxy memory checkout --json`)", result.cold));
  if (result.baseline !== null) {
    lines.push(`${coldLine(`baseline cold (${result.baseline.events} events)`, result.baseline)}; ratio ${result.baseline.ratio ?? "-"}x`);
  }
  lines.push(coldLine("agent loop (fresh `memory append` + `memory checkout`)", result.agent_loop), coldLine("cold after an append (catch-up)", result.cold_after_append));
  lines.push(...renderTargets(result.targets));
  return lines.join("\n");
}

export async function runBenchCheckout(ctx: CommandContext): Promise<number> {
  const { runCheckoutBench } = await import("../../../bench/checkoutBench.ts");
  const reporter = benchMessages(ctx, "checkout");
  const result = await runCheckoutBench({
    events: intOption(ctx, "events", 1, 10_000_000) ?? 10_000,
    queries: intOption(ctx, "queries", 1, 100_000) ?? 200,
    coldRuns: intOption(ctx, "cold-runs", 1, 1000) ?? 7,
    baselineEvents: intOption(ctx, "baseline-events", 0, 10_000_000) ?? 1000,
    feedbackEvents: intOption(ctx, "feedback", 0, 100_000),
    progress: reporter.message,
  });
  reporter.done();
  emit(ctx, "zaxy.bench.checkout.v1", { ...result }, () => render(result));
  return 0;
}
