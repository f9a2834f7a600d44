/** What compactionAudit.ts's command does: imported when the command runs, so start-up loads only the command tree. */
import type { CommandContext } from "../../command.ts";
import type { CompactionAuditBenchResult } from "../../../bench/compactionAuditBench.ts";
import { machineLine, renderTargets } from "../../../bench/measure.ts";
import { intOption } from "../../args.ts";
import { emit } from "../../output.ts";
import { benchMessages } from "../../progress.ts";

function render(r: CompactionAuditBenchResult): string {
  return [
    `${machineLine(r.machine)} (after: ${r.load_average_1m_after})`,
    `${r.events} events (${(r.log_bytes / 1e6).toFixed(1)} MB, synthetic agent session with planted near-duplicate families): ${r.command.join(" ")}`,
    `  median ${r.median_s.toFixed(2)} s over ${r.runs_s.length} runs (${r.runs_s.map((s) => s.toFixed(2)).join(", ")} s), ${r.events_per_s} events/s; peak RSS ${r.peak_rss_mib ?? "n/a"} MiB; exit ${r.exit_code}`,
    `  ${r.cluster_count} clusters (${r.singleton_cluster_count} single events, ${r.multi_event_cluster_count} multi-event, ${r.unsafe_cluster_count} losing identities); identity recall ${r.identity_recall}; nearest-neighbour preservation ${r.nearest_neighbour_preservation}`,
    `  planted families found: unsafe ${r.planted_unsafe_families_found}/${r.planted_unsafe_families}, safe ${r.planted_safe_families_found}/${r.planted_safe_families}`,
    ...renderTargets(r.targets, 2),
  ].join("\n");
}

export async function runBenchCompactionAudit(ctx: CommandContext): Promise<number> {
  const { runCompactionAuditBench, compactionAuditBenchDefaults } = await import("../../../bench/compactionAuditBench.ts");
  const reporter = benchMessages(ctx, "compaction-audit");
  const result = runCompactionAuditBench({
    events: intOption(ctx, "events", 1, 10_000_000) ?? compactionAuditBenchDefaults.events,
    runs: intOption(ctx, "runs", 1, 50) ?? compactionAuditBenchDefaults.runs,
    progress: reporter.message,
  });
  reporter.done();
  emit(ctx, "zaxy.bench.compaction_audit.v1", { ...result }, () => render(result));
  return 0;
}
