/** What medoid.ts's command does: imported when the command runs, so start-up loads only the command tree. */
import type { CommandContext } from "../../command.ts";
import { machineLine, renderTargets } from "../../../bench/measure.ts";
import type { MedoidBenchResult } from "../../../bench/medoidBench.ts";
import { inputError } from "../../../errors.ts";
import { embeddingDimMax } from "../../../vector/hashEmbedding.ts";
import { intOption } from "../../args.ts";
import { emit } from "../../output.ts";
import { commandProgress, phaseCallback } from "../../progress.ts";

function render(r: MedoidBenchResult): string {
  const a = r.medoid_all_pairs_wasm;
  return [
    machineLine(r.machine),
    `data: ${r.count} random unit vectors, dim ${r.dim} (f32, seed ${r.seed}), generated in ${r.generate_ms} ms`,
    `medoid O(n·d), WebAssembly SIMD   median ${r.medoid_linear_wasm.median_ms.toFixed(2).padStart(10)} ms over ${r.runs} runs -> index ${r.medoid_linear_wasm.index}` +
    ` (first call ${r.medoid_linear_wasm.warmup_ms} ms)`,
    `medoid O(n·d), TypeScript         median ${r.medoid_linear_typescript.median_ms.toFixed(2).padStart(10)} ms over ${r.runs} runs -> index ${r.medoid_linear_typescript.index}`,
    `medoid O(n²·d), all pairs         once   ${a.ms.toFixed(2).padStart(10)} ms -> index ${a.index} (${a.pairs} pairs)`,
    `  ${a.method}`,
    `medoid indexes agree: ${r.medoid_indexes_agree ? "yes" : "NO"}`,
    `speedup O(n·d) vs all pairs: ${r.speedup_linear_vs_all_pairs}x; WebAssembly vs TypeScript O(n·d): ${r.speedup_wasm_vs_typescript}x`,
    `farthest-point exemplars, k ${r.farthest_point_exemplars.k}  median ${r.farthest_point_exemplars.median_ms.toFixed(2).padStart(10)} ms over ${r.runs} runs`,
    `mean pairwise cosine distance     median ${r.mean_pairwise_cosine_distance.median_ms.toFixed(2).padStart(10)} ms over ${r.runs} runs -> ${r.mean_pairwise_cosine_distance.value}`,
    ...renderTargets(r.targets, 1),
  ].join("\n");
}

export async function runBenchMedoid(ctx: CommandContext): Promise<number> {
  const { medoidBenchDefaults, medoidBenchValuesMax, runMedoidBench } = await import("../../../bench/medoidBench.ts");
  const count = intOption(ctx, "count", 2, 100_000) ?? medoidBenchDefaults.count;
  const dim = intOption(ctx, "dim", 1, embeddingDimMax) ?? medoidBenchDefaults.dim;
  const seed = intOption(ctx, "seed", 0, 2 ** 32 - 1) ?? medoidBenchDefaults.seed;
  const runs = intOption(ctx, "runs", 1, 100) ?? medoidBenchDefaults.runs;
  if (count * dim > medoidBenchValuesMax) {
    throw inputError(
      "invalid_option",
      `--count × --dim must be at most ${medoidBenchValuesMax} (100000 × 1536), got ${count} × ${dim} = ${count * dim}`,
      { field: "--count" },
    );
  }
  const display = commandProgress(ctx, "bench medoid");
  const result = runMedoidBench({ count, dim, seed, runs, progress: phaseCallback(display) });
  display.done();
  emit(ctx, "zaxy.bench.medoid.v1", { ...result }, () => render(result));
  return result.medoid_indexes_agree ? 0 : 1;
}
