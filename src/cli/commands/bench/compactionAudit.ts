/**
 * `zaxy bench compaction-audit`: `zaxy compact LOG --audit` end to end on a generated log
 * (default 100 000 events), median of fresh processes, peak RSS. Imported only when it runs.
 */
import type { CompactionAuditBenchResult } from "../../../bench/compactionAuditBench.ts";
import { machineLine, renderTargets } from "../../../bench/measure.ts";
import { intOption } from "../../args.ts";
import { defineCommand } from "../../command.ts";
import { emit } from "../../output.ts";

function render(r: CompactionAuditBenchResult): string {
  return [
    machineLine(r.machine),
    `${r.events} events (${(r.log_bytes / 1e6).toFixed(1)} MB, synthetic agent session): ${r.command.join(" ")}`,
    `  median ${r.median_s.toFixed(2)} s over ${r.runs_s.length} runs (${r.runs_s.map((s) => s.toFixed(2)).join(", ")} s); peak RSS ${r.peak_rss_mib ?? "n/a"} MiB; exit ${r.exit_code}`,
    `  ${r.cluster_count} clusters (${r.singleton_cluster_count} single events); identity recall ${r.identity_recall}; nearest-neighbour preservation ${r.nearest_neighbour_preservation}`,
    ...renderTargets(r.targets, 2),
  ].join("\n");
}

export const benchCompactionAuditCommand = defineCommand({
  name: "compaction-audit",
  summary: "zaxy compact --audit end to end on a generated 100k-event log: median time, peak RSS",
  description:
    "Writes a synthetic agent session of --events events (tool calls, commands, edits, findings),\n" +
    "then runs `zaxy compact LOG --audit --json` --runs times as fresh processes and reports the\n" +
    "median wall time, the peak RSS and the audit's cluster figures. Target: <= 20 s for 100 000.",
  options: {
    events: { type: "string", valueName: "N", description: "Events in the generated log (default 100000)" },
    runs: { type: "string", valueName: "N", description: "Audit runs (default 3)" },
  },
  positionals: [],
  examples: ["zaxy bench compaction-audit", "zaxy bench compaction-audit --events 2000 --runs 1 --json"],
  async run(ctx) {
    const { runCompactionAuditBench, compactionAuditBenchDefaults } = await import("../../../bench/compactionAuditBench.ts");
    const result = runCompactionAuditBench({
      events: intOption(ctx, "events", 1, 10_000_000) ?? compactionAuditBenchDefaults.events,
      runs: intOption(ctx, "runs", 1, 50) ?? compactionAuditBenchDefaults.runs,
      progress: (message) => ctx.io.stderr(`bench: ${message}\n`),
    });
    emit(ctx, "zaxy.bench.compaction_audit.v1", { ...result }, () => render(result));
    return 0;
  },
});
