/**
 * `zaxy bench medoid`: the O(n·d) medoid against the all-pairs O(n²·d) medoid on the same random
 * unit vectors, plus farthest-point exemplars and the pairwise mean at that size. The benchmark
 * is imported only when it runs. Exit 1 when the two medoids disagree (the check said no).
 */
import { machineLine, renderTargets } from "../../../bench/measure.ts";
import type { MedoidBenchResult } from "../../../bench/medoidBench.ts";
import { inputError } from "../../../errors.ts";
import { embeddingDimMax } from "../../../vector/hashEmbedding.ts";
import { intOption } from "../../args.ts";
import { defineCommand } from "../../command.ts";
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

export const benchMedoidCommand = defineCommand({
  name: "medoid",
  store: "self",
  summary: "O(n·d) medoid vs the all-pairs O(n²·d) medoid on the same 20k × 1536 vectors; exemplars, pairwise mean",
  description:
    "Generates --count random unit vectors of --dim components (seeded) and times, in one run: the\n" +
    "O(n·d) medoid in WebAssembly (median of --runs after a warm-up) and in plain TypeScript, the\n" +
    "farthest-point exemplars (k 32) and the mean pairwise cosine distance (median of --runs each),\n" +
    "then the all-pairs O(n²·d) medoid once (WebAssembly SIMD, symmetric half; about a minute at\n" +
    "the defaults). Reports the speedup (target >= 100x) and whether the medoids agree.\n" +
    "Exit 1 when the medoids disagree.",
  options: {
    count: { type: "string", valueName: "N", description: "Vectors (default 20000)" },
    dim: { type: "string", valueName: "D", description: "Components per vector (default 1536)" },
    seed: { type: "string", valueName: "S", description: "PRNG seed (default 20261123)" },
    runs: { type: "string", valueName: "N", description: "Timed runs of each fast kernel (default 5)" },
  },
  positionals: [],
  examples: ["zaxy bench medoid", "zaxy bench medoid --count 2000 --dim 384 --runs 3 --json"],
  async run(ctx) {
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
  },
});
