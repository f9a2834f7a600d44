/**
 * `zaxy bench compaction-audit`: `zaxy compact LOG --audit` end to end on a generated log
 * (default 100 000 events), median of fresh processes, peak RSS. Imported only when it runs.
 */
import { defineCommand } from "../../command.ts";

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
    const { runBenchCompactionAudit } = await import("./compactionAuditRun.ts");
    return await runBenchCompactionAudit(ctx);
  },
});
