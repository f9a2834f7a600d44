/**
 * `zaxy bench medoid`: the O(n·d) medoid against the all-pairs O(n²·d) medoid on the same random
 * unit vectors, plus farthest-point exemplars and the pairwise mean at that size. The benchmark
 * is imported only when it runs. Exit 1 when the two medoids disagree (the check said no).
 */
import { defineCommand } from "../../command.ts";

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
    const { runBenchMedoid } = await import("./medoidRun.ts");
    return await runBenchMedoid(ctx);
  },
});
