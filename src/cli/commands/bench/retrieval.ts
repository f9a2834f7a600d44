/**
 * `zaxy bench retrieval`: identity recall on near-duplicate documents, zaxy vs BM25 only. The
 * benchmark (and the memory engine with it) is imported only when the command runs.
 */
import { defineCommand } from "../../command.ts";

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
    paraphrase: {
      type: "boolean",
      description: "Instead: recall@k of facts asked about in other words, lexical lanes vs the semantic lane vs fused, and the semantic threshold's calibration",
    },
  },
  positionals: [],
  examples: ["zaxy bench retrieval --json", "zaxy bench retrieval --documents 2000 --queries 500", "zaxy bench retrieval --paraphrase"],
  async run(ctx) {
    const { runBenchRetrieval } = await import("./retrievalRun.ts");
    return await runBenchRetrieval(ctx);
  },
});
