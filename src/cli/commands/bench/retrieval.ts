/**
 * `zaxy bench retrieval`: identity recall on near-duplicate documents, zaxy vs BM25 only. The
 * benchmark (and the memory engine with it) is imported only when the command runs.
 */
import type { RankMetrics, RetrievalBenchResult } from "../../../bench/retrievalBench.ts";
import { machineLine, renderTargets } from "../../../bench/measure.ts";
import { intOption } from "../../args.ts";
import { defineCommand } from "../../command.ts";
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

export const benchRetrievalCommand = defineCommand({
  name: "retrieval",
  store: "self",
  summary: "Identity recall on near-duplicate documents: zaxy vs BM25 only; latency p50/p95/p99",
  description:
    "Appends --documents document.indexed events that share one runbook paragraph and differ only\n" +
    "by path and a four-digit identity code, then asks \"Which source records identity-code-XXXX?\"\n" +
    "for each through the memory service (limit 10). A hit is a result whose citation names the\n" +
    "document's event. Reports Recall@1/@5, MRR, citation coverage and latency, the first (cold,\n" +
    "projecting) call apart, and the same for a BM25-only baseline over the raw texts.",
  options: {
    documents: { type: "string", valueName: "N", description: "Documents (default 500)" },
    queries: { type: "string", valueName: "N", description: "Questions asked (default: one per document)" },
  },
  positionals: [],
  examples: ["zaxy bench retrieval --json", "zaxy bench retrieval --documents 2000 --queries 500"],
  async run(ctx) {
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
  },
});
