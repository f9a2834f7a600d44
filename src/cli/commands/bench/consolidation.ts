/**
 * `zaxy bench consolidation`: consolidation-collapse identity recall and topic coverage of raw
 * retrieval, centroid, medoid, exemplar(k) and zaxy retrieval over projections, on tight and
 * spread sets of near-duplicate documents. The benchmark is imported only when it runs.
 */
import { defineCommand } from "../../command.ts";

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
    const { runBenchConsolidation } = await import("./consolidationRun.ts");
    return await runBenchConsolidation(ctx);
  },
});
