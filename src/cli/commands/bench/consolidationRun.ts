/** What consolidation.ts's command does: imported when the command runs, so start-up loads only the command tree. */
import type { CommandContext } from "../../command.ts";
import type { ConsolidationBenchResult } from "../../../bench/consolidationBench.ts";
import { machineLine } from "../../../bench/measure.ts";
import { intOption } from "../../args.ts";
import { emit } from "../../output.ts";
import { benchMessages } from "../../progress.ts";

function render(result: ConsolidationBenchResult): string {
  const lines = [
    machineLine(result.machine),
    `${result.identities} near-duplicate documents per set (distinct identity code and path); spread set over ${result.topics} topics`,
    `${"set".padEnd(7)} ${"method".padEnd(44)} ${"kept".padStart(5)}  ${"identity recall".padStart(15)}  ${"topic coverage".padStart(14)}  ${"build ms".padStart(9)}`,
  ];
  for (const dataset of result.datasets) {
    for (const row of dataset.rows) {
      lines.push(
        `${dataset.dataset.padEnd(7)} ${row.method.padEnd(44)} ${String(row.records_kept).padStart(5)}  ${row.identity_recall.toFixed(4).padStart(15)}  ` +
          `${row.topic_coverage.toFixed(4).padStart(14)}  ${row.build_ms.toFixed(2).padStart(9)}`,
      );
    }
  }
  lines.push(...result.datasets.map((d) => `${d.dataset}: mean pairwise cosine distance ${d.mean_pairwise_distance.toFixed(4)}`));
  return lines.join("\n");
}

export async function runBenchConsolidation(ctx: CommandContext): Promise<number> {
  const { consolidationBenchDefaults, runConsolidationBench } = await import("../../../bench/consolidationBench.ts");
  const reporter = benchMessages(ctx, "consolidation");
  const result = await runConsolidationBench({
    identities: intOption(ctx, "identities", 2, 9000) ?? consolidationBenchDefaults.identities,
    topics: intOption(ctx, "topics", 2, 8) ?? consolidationBenchDefaults.topics,
    progress: reporter.message,
  });
  reporter.done();
  emit(ctx, "zaxy.bench.consolidation.v1", { ...result }, () => render(result));
  return 0;
}
