/** What retrieval.ts's command does: imported when the command runs, so start-up loads only the command tree. */
import type { CommandContext } from "../../command.ts";
import type { RankMetrics, RetrievalBenchResult } from "../../../bench/retrievalBench.ts";
import type { ParaphraseBenchResult, ParaphraseRecall } from "../../../bench/paraphraseBench.ts";
import { machineLine, renderTargets } from "../../../bench/measure.ts";
import { intOption } from "../../args.ts";
import { booleanOption } from "../../command.ts";
import { emit } from "../../output.ts";
import { benchMessages } from "../../progress.ts";

function metricsLine(name: string, m: RankMetrics): string {
  const coverage = m.citation_coverage === null ? "-" : m.citation_coverage.toFixed(3);
  const latency = m.latency === null ? "-" : `p50 ${m.latency.p50_ms.toFixed(2)} / p95 ${m.latency.p95_ms.toFixed(2)} / p99 ${m.latency.p99_ms.toFixed(2)} ms`;
  return `  ${name.padEnd(14)} R@1 ${m.recall_at_1.toFixed(3)}  R@5 ${m.recall_at_5.toFixed(3)}  MRR ${m.mrr.toFixed(3)}  citations ${coverage}  ${latency}`;
}

function render(result: RetrievalBenchResult): string {
  const lines = [
    machineLine(result.machine),
    `${result.documents} near-duplicate documents (same paragraph, distinct identity codes), ${result.queries} questions, limit ${result.limit}`,
    metricsLine("zaxy", result.zaxy),
    metricsLine("BM25 only", result.bm25_baseline),
    `  zaxy cold first query (projects, builds indexes): ${result.zaxy.cold_first_query_ms.toFixed(1)} ms`,
  ];
  for (const miss of result.zaxy.misses) {
    lines.push(`  miss: identity-code-${miss.identity_code} (seq ${miss.expected_seq}) -> ${miss.returned_seqs.join(", ") || "nothing"}`);
  }
  lines.push(...renderTargets(result.targets, 3));
  return lines.join("\n");
}

function recallLine(name: string, r: ParaphraseRecall): string {
  return `  ${name.padEnd(14)} R@1 ${r.recall_at_1.toFixed(3)}  R@5 ${r.recall_at_5.toFixed(3)}  R@10 ${r.recall_at_10.toFixed(3)}`;
}

function renderParaphrase(result: ParaphraseBenchResult): string {
  const t = result.threshold;
  const latency = (l: ParaphraseBenchResult["latency"]["fused"]) => l === null ? "-" : `p50 ${l.p50_ms.toFixed(1)} / p95 ${l.p95_ms.toFixed(1)} ms`;
  const lines = [
    machineLine(result.machine),
    `${result.facts} facts among ${result.distractors} distractors, ${result.questions} paraphrased questions, ${result.unrelated_questions} unrelated; model ${result.model.id}${result.model.weights_sha256 === null ? "" : ` (weights sha256 ${result.model.weights_sha256.slice(0, 12)}…)`}`,
    recallLine("lexical", result.lexical),
    recallLine("semantic only", result.semantic_only),
    recallLine("fused", result.fused),
    `  lane threshold ${t.centred_similarity_min} (centred), evidence threshold ${t.evidence_similarity_min}: true fact similarity p10/p50/p90 ${t.true_fact_similarity.join(" / ")} (${(100 * t.true_facts_at_or_above).toFixed(0)}% at or above); ` +
      `unrelated best p50/p90/max ${t.unrelated_best_similarity.join(" / ")} (${(100 * t.unrelated_at_or_above).toFixed(0)}% at or above)`,
    `  checkout: ${result.related_fact_served}/${result.questions} questions get their fact as a current fact; ${result.unrelated_not_ask_user}/${result.unrelated_questions} unrelated questions not ask_user`,
    `  latency: lexical ${latency(result.latency.lexical)}; fused (warm) ${latency(result.latency.fused)}`,
  ];
  for (const miss of result.misses) lines.push(`  miss: ${JSON.stringify(miss.question)} -> ${JSON.stringify(miss.fact)} (fused rank ${miss.fused_rank ?? "none"})`);
  return lines.join("\n");
}

export async function runBenchRetrieval(ctx: CommandContext): Promise<number> {
  if (booleanOption(ctx, "paraphrase")) {
    const { runParaphraseBench } = await import("../../../bench/paraphraseBench.ts");
    const reporter = benchMessages(ctx, "retrieval");
    const result = await runParaphraseBench({ progress: reporter.message });
    reporter.done();
    emit(ctx, "zaxy.bench.retrieval_paraphrase.v1", { ...result }, () => renderParaphrase(result));
    return 0;
  }
  const { runRetrievalBench } = await import("../../../bench/retrievalBench.ts");
  const reporter = benchMessages(ctx, "retrieval");
  const result = await runRetrievalBench({
    documents: intOption(ctx, "documents", 1) ?? 500,
    queries: intOption(ctx, "queries", 1),
    progress: reporter.message,
  });
  reporter.done();
  emit(ctx, "zaxy.bench.retrieval.v1", { ...result }, () => render(result));
  return 0;
}
