/**
 * `zaxy bench compaction-audit`: `zaxy compact LOG --audit` end to end on a generated log
 * (default 100 000 events), median of fresh processes, peak RSS. Imported only when it runs.
 */
import type { CompactionAuditBenchResult } from "../../../bench/compactionAuditBench.ts";
import { machineLine, renderTargets } from "../../../bench/measure.ts";
import { intOption } from "../../args.ts";
import { defineCommand } from "../../command.ts";
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

export const benchCompactionAuditCommand = defineCommand({
  name: "compaction-audit",
  store: "self",
  summary: "zaxy compact --audit end to end on a generated 100k-event log: median time, peak RSS",
  description:
    "Writes a synthetic agent session of --events events (tool calls, commands, edits, findings)\n" +
    "with planted near-duplicate families (documents differing only by path and identity code,\n" +
    "which a medoid loses; notes sharing one identity, which it keeps), then runs\n" +
    "`zaxy compact LOG --audit --json` --runs times as fresh processes and reports the median wall\n" +
    "time, events/s, the peak RSS, the audit's cluster figures and how many planted families it\n" +
    "found. Targets: <= 20 s and <= 512 MiB for 100 000 events.",
  options: {
    events: { type: "string", valueName: "N", description: "Events in the generated log (default 100000)" },
    runs: { type: "string", valueName: "N", description: "Audit runs (default 3)" },
  },
  positionals: [],
  examples: ["zaxy bench compaction-audit", "zaxy bench compaction-audit --events 2000 --runs 1 --json"],
  async run(ctx) {
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
  },
});
