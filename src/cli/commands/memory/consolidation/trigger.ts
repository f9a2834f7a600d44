/**
 * `zaxy memory consolidation trigger [--strategy S] [--min-similarity X] [--max-memories N] [--embedding hash|model]`:
 * merge candidates among the session's memories, without merging (DESIGN §8,
 * docs/trigger-consolidation.md). Read-only.
 */
import { defaultMaxMemories, defaultMinSimilarity, defaultModelMinSimilarity, modelSemanticAlignmentMin, triggerEmbeddings, maxMemoriesMax, maxMemoriesMin, triggerStrategies } from "../../../../consolidation/triggerParameters.ts";
import { defineCommand } from "../../../command.ts";

export const memoryConsolidationTriggerCommand = defineCommand({
  name: "trigger",
  summary: "Find merge candidates among the session's memories (similarity, temporal or semantic); merges nothing",
  description:
    "Analyses the --max-memories most recent current entities of the session (by source event)\n" +
    "with the hash embedding the vector index uses. Candidate pairs come from a usearch index\n" +
    "(k nearest neighbours per memory), never from comparing all pairs; a pair is compared when\n" +
    "its exact cosine passes the pre-filter (0.9 x --min-similarity) and the strategy's rule\n" +
    "(temporal: created within 24 h; semantic: both aligned >= 0.5 with the session's goals), and\n" +
    "qualifies when its cosine >= --min-similarity and its goal alignments differ by <= 0.05.\n" +
    "--json prints {consolidation_result, statistics, candidates_sample}; statistics.pairs_evaluated\n" +
    "is n(n-1)/2 of the memories analysed, pairs_compared the pairs compared against the\n" +
    "threshold. Each sample has the memories' source_ids and the target_id merge gives their\n" +
    "merged concept. Writes nothing.\n" +
    "--embedding model compares the bundled sentence model's vectors instead (pair cosines and\n" +
    `goal alignments; every pair compared exactly; --min-similarity defaults to ${defaultModelMinSimilarity}, semantic\n` +
    `alignment >= ${modelSemanticAlignmentMin}); it finds reworded duplicates and goals served in other words, and\n` +
    "costs a second or so to load the model. With --embedding, the output names the embedding used\n" +
    "(for the model: its id and the SHA-256 of its weights).",
  options: {
    strategy: { type: "string", valueName: "S", description: `${triggerStrategies.join(", ")} (default similarity)` },
    "min-similarity": { type: "string", valueName: "X", description: `Cosine threshold 0..1 (default ${defaultMinSimilarity})` },
    "max-memories": { type: "string", valueName: "N", description: `Most recent memories analysed, ${maxMemoriesMin}..${maxMemoriesMax} (default ${defaultMaxMemories})` },
    embedding: { type: "string", valueName: "E", description: `${triggerEmbeddings.join(", ")}: which vectors are compared (default hash)` },
  },
  positionals: [],
  examples: [
    "zaxy memory consolidation trigger",
    "zaxy memory consolidation trigger --strategy temporal --min-similarity 0.9 --max-memories 1000 --json",
    "zaxy memory consolidation trigger --strategy semantic --embedding model --json",
  ],
  async run(ctx) {
    const { runMemoryConsolidationTrigger } = await import("./triggerRun.ts");
    return await runMemoryConsolidationTrigger(ctx);
  },
});
