/**
 * `zaxy bench retrieval`: identity recall on near-duplicate documents (DESIGN §13). Every
 * document is the same runbook paragraph followed by "This source records identity-code-XXXX."
 * with a distinct four-digit code and path, so only the code tells them apart: the case where
 * collapsing near-duplicates (centroids, summaries) loses the one fact that matters.
 *
 * For each document the benchmark asks "Which source records identity-code-XXXX?" through
 * `MemoryService.query` (limit 10); a hit at rank r is a result at position r whose citation
 * names the document's event. The first call projects the session and builds its indexes, so
 * it is reported apart as the cold call. A BM25-only baseline over the raw document texts
 * (the same `Bm25Index` and `queryTerms` the keyword lane uses) runs on the same documents and
 * questions in the same process.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fromJs } from "../canonical/mod.ts";
import { inputError } from "../errors.ts";
import { appendEvents } from "../events/append.ts";
import { citationUri, parseCitationUri } from "../eventloom/root.ts";
import { validateMemoryRequest } from "../memory/request.ts";
import { MemoryService } from "../memory/service.ts";
import { Bm25Index } from "../retrieval/bm25.ts";
import { queryTerms } from "../vector/textAnalysis.ts";
import {
  atLeast,
  type BenchMachine,
  benchMachine,
  type BenchTarget,
  latencySummary,
  type LatencySummary,
  round,
  seededRandom,
  shuffled,
} from "./measure.ts";

/** About 60 words, identical in every document. */
export const runbookParagraph =
  "This runbook describes how the on-call engineer restarts the payment reconciliation service after a failed " +
  "deployment. First drain the worker queue, then confirm that the database replica has caught up, rotate the " +
  "service credentials, and restart the pods one at a time while watching the error rate dashboard. Escalate to " +
  "the platform team if latency stays above the agreed threshold for ten minutes.";

/** Results asked for per question. */
export const retrievalLimit = 10;
/** Distinct four-digit codes exist for at most this many documents. */
export const retrievalDocumentsMax = 9000;
const sessionId = "retrieval-bench";
const areas = 10;

export interface RetrievalBenchOptions {
  documents: number;
  /** Questions asked (the first `queries` documents in a seeded order); default all. */
  queries?: number;
  seed?: number;
  workDir?: string;
  progress?: (message: string) => void;
}

export interface RankMetrics {
  recall_at_1: number;
  recall_at_5: number;
  recall_at_10: number;
  mrr: number;
  /** Fraction of returned results whose citation is exactly `eventloom://<thread>/events/<seq>#<hash12>` of a logged event. */
  citation_coverage: number | null;
  results_returned: number;
  latency: LatencySummary | null;
}

export interface RetrievalBenchResult {
  machine: BenchMachine;
  command: string[];
  documents: number;
  queries: number;
  seed: number;
  limit: number;
  setup: { append_ms: number; session_id: string };
  zaxy: RankMetrics & {
    cold_first_query_ms: number;
    cold_projection_timings_ms: Record<string, number>;
    misses: Array<{ identity_code: string; expected_seq: number; returned_seqs: number[] }>;
  };
  bm25_baseline: RankMetrics & { build_ms: number };
  targets: Record<string, BenchTarget>;
}

interface Document {
  code: string;
  path: string;
  content: string;
  seq: number;
}

function documentsFor(count: number, seed: number): Omit<Document, "seq">[] {
  const codes = shuffled(Array.from({ length: retrievalDocumentsMax }, (_, i) => String(1000 + i)), seededRandom(seed));
  return Array.from({ length: count }, (_, i) => ({
    code: codes[i],
    path: `docs/area-${i % areas}/record-${i}.md`,
    content: `${runbookParagraph} This source records identity-code-${codes[i]}.`,
  }));
}

export function identityQuestion(code: string): string {
  return `Which source records identity-code-${code}?`;
}

/** 1-based rank of the first result citing `seq`, or 0 when none does. */
function rankOf(seqs: readonly number[], seq: number): number {
  return seqs.indexOf(seq) + 1;
}

function rankMetrics(ranks: readonly number[]): Pick<RankMetrics, "recall_at_1" | "recall_at_5" | "recall_at_10" | "mrr"> {
  const n = ranks.length || 1;
  const within = (k: number) => ranks.filter((r) => r >= 1 && r <= k).length / n;
  return {
    recall_at_1: round(within(1), 4),
    recall_at_5: round(within(5), 4),
    recall_at_10: round(within(10), 4),
    mrr: round(ranks.reduce((sum, r) => sum + (r > 0 ? 1 / r : 0), 0) / n, 4),
  };
}

export async function runRetrievalBench(options: RetrievalBenchOptions): Promise<RetrievalBenchResult> {
  const seed = options.seed ?? 42;
  const documentCount = options.documents;
  if (!Number.isInteger(documentCount) || documentCount < 1 || documentCount > retrievalDocumentsMax) {
    throw inputError("invalid_option", `--documents must be an integer 1..${retrievalDocumentsMax} (distinct four-digit codes), got ${documentCount}`, {
      field: "--documents",
    });
  }
  const queryCount = Math.min(options.queries ?? documentCount, documentCount);
  const workDir = options.workDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "zaxy-bench-retrieval-"));
  const root = path.join(workDir, ".eventloom");
  try {
    const planned = documentsFor(documentCount, seed);
    options.progress?.(`appending ${documentCount} document.indexed events`);
    const appendStarted = performance.now();
    const appended = await appendEvents(
      root,
      sessionId,
      planned.map((doc) => ({
        type: "document.indexed",
        actor: "indexer",
        payload: fromJs({ path: doc.path, start_line: 1, end_line: 12, content: doc.content }),
      })),
    );
    const appendMs = performance.now() - appendStarted;
    const documents: Document[] = planned.map((doc, i) => ({ ...doc, seq: appended.records[i].seq }));
    const expectedCitation = new Map(appended.records.map((r) => [r.seq, citationUri(r.thread, r.seq, r.hash)]));
    const asked = shuffled(documents, seededRandom(seed + 1)).slice(0, queryCount);

    // zaxy: the memory service, as `zaxy memory query` and MCP use it.
    const service = new MemoryService(root, { warn: (message) => options.progress?.(`warning: ${message}`) });
    const zaxyRanks: number[] = [];
    const zaxyLatencies: number[] = [];
    const misses: RetrievalBenchResult["zaxy"]["misses"] = [];
    let coldMs = 0;
    let returned = 0;
    let cited = 0;
    for (const [i, doc] of asked.entries()) {
      if (i % 100 === 0) options.progress?.(`zaxy query ${i + 1}/${asked.length}`);
      const request = validateMemoryRequest({ sessionId, query: identityQuestion(doc.code), limit: retrievalLimit });
      const started = performance.now();
      const answer = await service.query(request);
      const ms = performance.now() - started;
      if (i === 0) coldMs = ms;
      else zaxyLatencies.push(ms);
      const results = answer.results as Array<{ citation: string }>;
      const seqs = results.map((result) => parseCitationUri(result.citation)?.seq ?? -1);
      for (const result of results) {
        returned++;
        const seq = parseCitationUri(result.citation)?.seq;
        if (seq !== undefined && expectedCitation.get(seq) === result.citation) cited++;
      }
      const rank = rankOf(seqs, doc.seq);
      zaxyRanks.push(rank);
      if (rank === 0 || rank > 5) {
        if (misses.length < 5) misses.push({ identity_code: doc.code, expected_seq: doc.seq, returned_seqs: seqs });
      }
    }
    const coldTimings = (await service.session(sessionId)).projected.timingsMs;

    // BM25 only, over the raw texts; document id i is documents[i].
    options.progress?.("BM25 baseline");
    const buildStarted = performance.now();
    const bm25 = new Bm25Index();
    for (const doc of documents) bm25.add(doc.content);
    const bm25BuildMs = performance.now() - buildStarted;
    const bm25Ranks: number[] = [];
    const bm25Latencies: number[] = [];
    let bm25Returned = 0;
    const docIndex = new Map(documents.map((doc, i) => [doc.seq, i]));
    for (const doc of asked) {
      const started = performance.now();
      const hits = bm25.search(queryTerms(identityQuestion(doc.code)), retrievalLimit);
      bm25Latencies.push(performance.now() - started);
      bm25Returned += hits.length;
      bm25Ranks.push(rankOf(hits.map((hit) => hit.docId), docIndex.get(doc.seq)!));
    }

    const zaxyMetrics = rankMetrics(zaxyRanks);
    return {
      machine: benchMachine(),
      command: ["zaxy", "bench", "retrieval", "--documents", String(documentCount), "--queries", String(queryCount)],
      documents: documentCount,
      queries: queryCount,
      seed,
      limit: retrievalLimit,
      setup: { append_ms: round(appendMs), session_id: sessionId },
      zaxy: {
        ...zaxyMetrics,
        citation_coverage: returned === 0 ? null : round(cited / returned, 4),
        results_returned: returned,
        latency: latencySummary(zaxyLatencies),
        cold_first_query_ms: round(coldMs),
        cold_projection_timings_ms: coldTimings,
        misses,
      },
      bm25_baseline: {
        ...rankMetrics(bm25Ranks),
        // BM25 returns document ids, not citations.
        citation_coverage: null,
        results_returned: bm25Returned,
        latency: latencySummary(bm25Latencies),
        build_ms: round(bm25BuildMs, 3),
      },
      targets: { zaxy_recall_at_5: atLeast(0.99, zaxyMetrics.recall_at_5) },
    };
  } finally {
    if (options.workDir === undefined) fs.rmSync(workDir, { recursive: true, force: true });
    else options.progress?.(`note: session kept in ${root}`);
  }
}
