/**
 * `zaxy memory consolidation trigger [--strategy S] [--min-similarity X] [--max-memories N] [--embedding hash|model]`:
 * merge candidates among the session's memories, without merging (DESIGN §8,
 * docs/trigger-consolidation.md). Read-only.
 */
import {
  defaultMaxMemories,
  defaultMinSimilarity,
  defaultModelMinSimilarity,
  modelSemanticAlignmentMin,
  triggerEmbeddings,
  maxMemoriesMax,
  maxMemoriesMin,
  triggerStrategies,
  validateTriggerParameters,
} from "../../../../consolidation/triggerParameters.ts";
import { type CommandContext, defineCommand, stringOption } from "../../../command.ts";
import { emit } from "../../../output.ts";
import { stderrWarn } from "../requestOptions.ts";
import { commandProgress } from "../../../progress.ts";
import type { TriggerDocument, TriggerEmbeddingReceipt } from "../../../../consolidation/trigger.ts";

const decimalPattern = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const integerPattern = /^[+-]?\d+$/;

/** The flag's text as a number when it is one; otherwise the text, which validation refuses by name. */
function numericOption(ctx: CommandContext, name: string, pattern: RegExp): number | string | undefined {
  const text = stringOption(ctx, name);
  if (text === undefined) return undefined;
  return pattern.test(text.trim()) ? Number(text) : text;
}

function renderEmbedding(receipt: TriggerEmbeddingReceipt): string {
  if (receipt.kind === "hash") return `embedding: hash (${receipt.dim}-d), semantic alignment >= ${receipt.alignment_min}`;
  return `embedding: model ${receipt.id} (${receipt.dim}-d, weights sha256 ${receipt.weights_sha256}), semantic alignment >= ${receipt.alignment_min}`;
}

function render(doc: TriggerDocument): string {
  const { consolidation_result: result, statistics: stats } = doc;
  const lines = [
    `${result.candidate_count} merge candidate(s) (${result.status}); strategy ${stats.strategy}, threshold ${stats.similarity_threshold}, ` +
    `${stats.fingerprints_analyzed} memories analysed (limit ${stats.max_memories_limit}), ${stats.pairs_evaluated} pairs evaluated (n(n-1)/2), ` +
    `${stats.pairs_compared} compared after the pre-filter`,
  ];
  if (doc.embedding !== undefined) lines.push(renderEmbedding(doc.embedding));
  for (const sample of doc.candidates_sample) {
    const [a, b] = sample.memories;
    lines.push(
      `  ${sample.similarity.toFixed(6)}  ${a.name} (${a.entity_type})  +  ${b.name} (${b.entity_type})  alignment ${sample.combined_alignment.toFixed(3)}`,
      `            ${a.citation}  ${b.citation}`,
      `            source_ids ${sample.source_ids.join(" ")}  ->  target_id ${sample.target_id}`,
    );
  }
  if (result.candidate_count > doc.candidates_sample.length) lines.push(`  … ${result.candidate_count - doc.candidates_sample.length} more (--json shows the first ${doc.candidates_sample.length})`);
  if (result.action_required) lines.push("Propose a merge for review with: zaxy memory consolidation merge --source-id ID --source-id ID (a pair's source_ids)");
  return lines.join("\n");
}

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
    const parameters = validateTriggerParameters(
      {
        strategy: stringOption(ctx, "strategy"),
        minSimilarity: numericOption(ctx, "min-similarity", decimalPattern),
        maxMemories: numericOption(ctx, "max-memories", integerPattern),
        embedding: stringOption(ctx, "embedding"),
      },
      { strategy: "--strategy", min_similarity: "--min-similarity", max_memories: "--max-memories", embedding: "--embedding" },
    );
    const { MemoryService } = await import("../../../../memory/service.ts");
    const { triggerSessionConsolidation } = await import("../../../../consolidation/triggerSession.ts");
    const service = new MemoryService(ctx.global.eventloomPath, { warn: stderrWarn(ctx) });
    const progress = commandProgress(ctx, "consolidation trigger");
    const { document } = await triggerSessionConsolidation(service, ctx.global.sessionId, parameters, progress, stderrWarn(ctx)).finally(() => progress.done());
    emit(ctx, "zaxy.memory.consolidation.trigger.v1", { ...document }, () => render(document));
    return 0;
  },
});
