/** What trigger.ts's command does: imported when the command runs, so start-up loads only the command tree. */
import type { CommandContext } from "../../command.ts";
import { machineLine, renderTargets } from "../../../bench/measure.ts";
import type { IndexedRun, TriggerBenchResult } from "../../../bench/triggerBench.ts";
import { intOption } from "../../args.ts";
import { emit } from "../../output.ts";
import { benchMessages } from "../../progress.ts";

function runLine(label: string, run: IndexedRun): string {
  const p = run.phases_ms;
  return `  ${label.padEnd(26)} ${run.seconds.toFixed(2).padStart(7)} s  (embedding ${p.embedding} ms, index build ${p.index_build} ms, ` +
    `kNN search ${p.knn_search} ms, exact re-scoring ${p.exact_rescoring} ms; ${run.pairs_rescored} pairs re-scored)`;
}

function render(r: TriggerBenchResult): string {
  return [
    machineLine(r.machine),
    `${r.memories} memories, ${r.planted_pairs} planted near-duplicate pairs (${r.planted_pairs_above_threshold} at cosine >= ${r.similarity_threshold}), dim ${r.embedding_dim}`,
    runLine(`indexed, ${r.indexed.memories} memories`, r.indexed),
    `    planted recall ${r.planted_recall.toFixed(4)}, ${r.indexed.candidates_found} candidates`,
    runLine(`indexed, ${r.indexed_all_pairs_subset.memories} memories`, r.indexed_all_pairs_subset),
    `  ${`all pairs, ${r.all_pairs.memories} memories`.padEnd(26)} ${r.all_pairs.seconds.toFixed(2).padStart(7)} s  (${r.all_pairs.pairs_compared} exact cosines; ` +
    `${r.all_pairs.pairs_above_threshold} pairs >= ${r.similarity_threshold}); indexed recall against it ${r.indexed_all_pairs_subset.recall_vs_all_pairs.toFixed(4)}`,
    `  speedup on the same ${r.all_pairs.memories} memories: ${r.speedup_same_memories}x; all pairs over ${r.memories} extrapolated to ` +
    `${r.all_pairs.extrapolated_seconds_for_all_memories} s: ${r.speedup_all_memories_extrapolated}x`,
    `  peak RSS ${r.peak_rss_mib} MiB`,
    ...renderTargets(r.targets, 3),
  ].join("\n");
}

export async function runBenchTrigger(ctx: CommandContext): Promise<number> {
  const { runTriggerBench, triggerBenchDefaults } = await import("../../../bench/triggerBench.ts");
  const reporter = benchMessages(ctx, "trigger");
  const result = await runTriggerBench({
    memories: intOption(ctx, "memories", 2, 1_000_000) ?? triggerBenchDefaults.memories,
    allPairsMemories: intOption(ctx, "all-pairs-memories", 2, 100_000) ?? triggerBenchDefaults.allPairsMemories,
    progress: reporter.message,
  });
  reporter.done();
  emit(ctx, "zaxy.bench.trigger.v1", { ...result }, () => render(result));
  return 0;
}
