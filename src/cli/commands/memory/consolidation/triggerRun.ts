/** What trigger.ts's command does: imported when the command runs, so start-up loads only the command tree. */
import { validateTriggerParameters } from "../../../../consolidation/triggerParameters.ts";
import { type CommandContext, stringOption } from "../../../command.ts";
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

export async function runMemoryConsolidationTrigger(ctx: CommandContext): Promise<number> {
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
}
