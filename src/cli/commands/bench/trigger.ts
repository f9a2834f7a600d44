/**
 * `zaxy bench trigger`: trigger_consolidation's similarity strategy over many memories, against
 * an all-pairs exact scan measured in the same run. The benchmark is imported only when it runs.
 */
import { defineCommand } from "../../command.ts";

export const benchTriggerCommand = defineCommand({
  name: "trigger",
  store: "self",
  summary: "trigger_consolidation (similarity) over 100k memories vs an all-pairs scan of 10k; planted-pair recall",
  description:
    "Generates --memories memories (16 random words each) with a planted near-duplicate after every\n" +
    "100th, runs the similarity strategy (threshold 0.85, max_memories = all) and reports its phases,\n" +
    "then runs it and an all-pairs exact-cosine scan over the first --all-pairs-memories, reporting the\n" +
    "speedup on the same memories, the extrapolated speedup for all, and recall (planted pairs; all\n" +
    "pairs the scan finds). Targets: <= 60 s for the indexed run, recall 1.0.",
  options: {
    memories: { type: "string", valueName: "N", description: "Memories (default 100000)" },
    "all-pairs-memories": { type: "string", valueName: "N", description: "Memories the all-pairs scan covers (default 10000)" },
  },
  positionals: [],
  examples: ["zaxy bench trigger", "zaxy bench trigger --memories 20000 --all-pairs-memories 2000 --json"],
  async run(ctx) {
    const { runBenchTrigger } = await import("./triggerRun.ts");
    return await runBenchTrigger(ctx);
  },
});
