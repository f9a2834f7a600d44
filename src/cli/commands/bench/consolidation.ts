/**
 * `zaxy bench consolidation`: consolidation-collapse identity recall and topic coverage of raw
 * retrieval, centroid, medoid, exemplar(k) and zaxy retrieval over projections, on tight and
 * spread sets of near-duplicate documents. The benchmark is imported only when it runs.
 */
import type { ConsolidationBenchResult } from "../../../bench/consolidationBench.ts";
import { machineLine } from "../../../bench/measure.ts";
import { intOption } from "../../args.ts";
import { defineCommand } from "../../command.ts";
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

export const benchConsolidationCommand = defineCommand({
  name: "consolidation",
  store: "self",
  summary: "Consolidation collapse: identity recall and topic coverage of centroid, medoid, exemplars, retrieval",
  description:
    "Appends two sets of near-duplicate documents that differ only by identity code and path\n" +
    "(tight: one topic; spread: --topics topics) and asks, for every document, \"Which <topic>\n" +
    "note records identity-code-XXXX?\". Each method answers with one source event: raw BM25\n" +
    "retrieval, the centroid (its nearest member), a medoid projection, exemplar projections\n" +
    "(k = topics and k = all), and zaxy retrieval with the exemplar projection merged in.\n" +
    "Reports identity recall (code and path in the answer) and topic coverage (answer about the\n" +
    "asked topic). See 'zaxy help compaction-projections'.",
  options: {
    identities: { type: "string", valueName: "N", description: "Documents per set, each with its own identity code (default 64)" },
    topics: { type: "string", valueName: "T", description: "Topics of the spread set, 2..8 (default 8)" },
  },
  positionals: [],
  examples: ["zaxy bench consolidation", "zaxy bench consolidation --identities 200 --json"],
  async run(ctx) {
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
  },
});
