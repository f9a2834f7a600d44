/**
 * `zaxy bench longmemeval`: an offline, retrieval-side proxy of LongMemEval over a local file in
 * the public format (longmemevalDataset.ts). No network and no LLM: nothing reads the contexts
 * and answers, so the figures are not LongMemEval's QA accuracy.
 *
 * Per question, in this process:
 *
 * 1. a fresh temporary Eventloom root; every haystack turn is appended to session `longmemeval`
 *    as a `transcript.turn` event `{source: <haystack session id>, turn_index, role, content,
 *    haystack_session_id, haystack_date}` (one event per turn, sessions in file order), so each
 *    retrieved context's cited event names the haystack session it came from;
 * 2. backend `zaxy-checkout`: Memory Checkout for the question (the library call behind
 *    `zaxy memory checkout`, limit max(10, top-k)). The first call projects the fresh log and is
 *    reported as `project_ms`; the second, on the warm service, is the timed query (`latency_ms`);
 *    its `evidence` items are the ranked contexts;
 * 3. backend `bm25`: Okapi BM25 (retrieval/bm25.ts) over the same turns' text `role: content`,
 *    query terms of the question; the hits carry their turn event's citation. Only the search is
 *    timed (the index is built per question, like the checkout's projection).
 *
 * Scores per question and backend (`k` = `--top-k`, default 5):
 *
 * - `hit_at_1/5/10`: a session of `answer_session_ids` is among the sessions of the first 1/5/10
 *   contexts (LongMemEval's session-level recall, "any" form);
 * - `answer_in_top_5`: the answer, case-folded and trimmed, is a substring of the first 5
 *   contexts' text joined and case-folded (averaged: `answer_recall_at_5`);
 * - `score`: Python's `score_retrieval` with the answer as the expected terms: the fraction of the
 *   answer's distinct keyword terms (vector/textAnalysis.ts, stop words dropped unless nothing else is
 *   left) found as substrings of the first k contexts' case-folded text, minus a forbidden-term
 *   penalty that is always 0 here (LongMemEval names no forbidden terms);
 * - `citation_coverage`: contexts whose citation is `eventloom://longmemeval/events/<seq>#<12 hex>`
 *   naming an appended event with that hash prefix, over the contexts returned (1 when none).
 *
 * A backend's summary averages those over the scored questions and adds nearest-rank
 * p50/p95/p99 of `latency_ms`.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fromJs } from "../canonical/mod.ts";
import { type AppendItem } from "../eventloom/append.ts";
import { appendEvents } from "../events/append.ts";
import { batchEventsMax } from "../limits.ts";
import { MemoryService } from "../memory/service.ts";
import { sha256Hex } from "../platform/mod.ts";
import { Bm25Index } from "../retrieval/bm25.ts";
import { keywordTerms, pythonCaseFold, queryTerms, stopWords } from "../vector/textAnalysis.ts";
import { isAbstention, type LongMemEvalQuestion } from "./longmemevalDataset.ts";
import { percentile, round } from "./measure.ts";

export const longMemEvalReportSchema = "zaxy.bench.longmemeval.v1";
export const checkoutBackend = "zaxy-checkout";
export const bm25Backend = "bm25";
/** The Eventloom session every question's haystack is written to (one fresh root per question). */
export const benchSessionId = "longmemeval";
/** Contexts asked for: recall is reported up to 10. */
const contextsMin = 10;

export interface LongMemEvalBenchOptions {
  questions: LongMemEvalQuestion[];
  datasetPath: string;
  datasetSha256: string;
  topK: number;
  workDir?: string;
  progress?: (message: string) => void;
}

export interface BackendQuestionResult {
  /** Haystack session of each returned context, best first (null: not a haystack turn). */
  retrieved_session_ids: (string | null)[];
  hit_at_1: boolean;
  hit_at_5: boolean;
  hit_at_10: boolean;
  answer_in_top_5: boolean;
  score: number;
  citation_coverage: number;
  latency_ms: number;
  project_ms?: number;
}

export interface QuestionResult {
  question_id: string;
  question_type: string;
  answer_session_ids: string[];
  turns: number;
  backends: Record<string, BackendQuestionResult>;
}

export interface BackendSummary {
  questions: number;
  mean_score: number;
  answer_recall_at_5: number;
  recall_at_1: number;
  recall_at_5: number;
  recall_at_10: number;
  citation_coverage: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
}

export interface LongMemEvalReport {
  schema: string;
  dataset: { path: string; sha256: string; questions: number; questions_scored: number; questions_skipped_abstention: number };
  top_k: number;
  reader: null;
  note: string;
  backends: Record<string, BackendSummary>;
  per_question: QuestionResult[];
}

/** SHA-256 of the dataset bytes, `sha256:<hex>`, so a report names exactly what it measured. */
export function datasetSha256(bytes: Uint8Array): string {
  return `sha256:${sha256Hex(bytes)}`;
}

/** The answer's distinct keyword terms, stop words dropped unless nothing else is left. */
export function answerTerms(answer: string): string[] {
  const all = [...new Set(keywordTerms(answer))];
  const content = all.filter((term) => !stopWords.has(term));
  if (content.length > 0) return content;
  if (all.length > 0) return all;
  const folded = pythonCaseFold(answer).trim();
  return folded === "" ? [] : [folded];
}

/** `score_retrieval` with the answer as expected terms and no forbidden terms. */
export function answerScore(answer: string, haystackFolded: string): number {
  const terms = answerTerms(answer);
  if (terms.length === 0) return 0;
  const present = terms.filter((term) => haystackFolded.includes(term)).length;
  return round(present / terms.length, 4);
}

interface TurnEvent {
  sessionId: string;
  text: string;
  citation: string;
  hash: string;
}

interface RankedContext {
  seq: number | null;
  citation: string | null;
  text: string;
}

const citationPattern = /^eventloom:\/\/([^/]+)\/events\/([0-9]+)#([0-9a-f]{12})$/;

function validCitation(citation: string | null, turns: Map<number, TurnEvent>): boolean {
  if (citation === null) return false;
  const match = citationPattern.exec(citation);
  if (match === null || match[1] !== benchSessionId) return false;
  const turn = turns.get(Number(match[2]));
  return turn !== undefined && turn.hash.startsWith(match[3]);
}

function scoreContexts(question: LongMemEvalQuestion, contexts: RankedContext[], turns: Map<number, TurnEvent>, topK: number, latencyMs: number): BackendQuestionResult {
  const sessions = contexts.map((c) => (c.seq === null ? null : turns.get(c.seq)?.sessionId ?? null));
  const gold = new Set(question.answerSessionIds);
  const hitAt = (k: number) => sessions.slice(0, k).some((s) => s !== null && gold.has(s));
  const foldedTop = (k: number) => pythonCaseFold(contexts.slice(0, k).map((c) => c.text).join("\n"));
  const topText = foldedTop(topK);
  const answer = pythonCaseFold(question.answer).trim();
  const cited = contexts.filter((c) => validCitation(c.citation, turns)).length;
  return {
    retrieved_session_ids: sessions,
    hit_at_1: hitAt(1),
    hit_at_5: hitAt(5),
    hit_at_10: hitAt(10),
    answer_in_top_5: answer !== "" && foldedTop(5).includes(answer),
    score: answerScore(question.answer, topText),
    citation_coverage: contexts.length === 0 ? 1 : round(cited / contexts.length, 4),
    latency_ms: round(latencyMs, 3),
  };
}

/** Appends the haystack; returns each turn event by seq. */
async function ingestHaystack(root: string, question: LongMemEvalQuestion): Promise<Map<number, TurnEvent>> {
  const items: AppendItem[] = [];
  const meta: { sessionId: string; text: string }[] = [];
  question.haystackSessions.forEach((session, s) => {
    const sessionId = question.haystackSessionIds[s];
    for (const turn of session) {
      items.push({
        type: "transcript.turn",
        actor: turn.role === "user" ? "user" : "assistant",
        payload: fromJs({
          source: sessionId,
          turn_index: items.length + 1,
          role: turn.role,
          content: turn.content,
          haystack_session_id: sessionId,
          haystack_date: question.haystackDates[s] ?? null,
        }),
      });
      meta.push({ sessionId, text: `${turn.role}: ${turn.content}` });
    }
  });
  const turns = new Map<number, TurnEvent>();
  for (let start = 0; start < items.length; start += batchEventsMax) {
    const appended = await appendEvents(root, benchSessionId, items.slice(start, start + batchEventsMax));
    appended.events.forEach((event, i) => {
      turns.set(event.seq, { ...meta[start + i], citation: event.citation, hash: event.hash });
    });
  }
  return turns;
}

async function checkoutContexts(root: string, question: LongMemEvalQuestion, limit: number): Promise<{ contexts: RankedContext[]; projectMs: number; latencyMs: number }> {
  const service = new MemoryService(root);
  const request = { sessionId: benchSessionId, query: question.question, limit, depth: 2, replayFromSeq: 0, maxRecentEvents: 20 };
  const projectStarted = performance.now();
  await service.checkout(request);
  const projectMs = performance.now() - projectStarted;
  const started = performance.now();
  const checkout = await service.checkout(request);
  const latencyMs = performance.now() - started;
  const contexts = checkout.evidence.map((e) => ({ seq: e.event_seq, citation: e.citation, text: e.content }));
  return { contexts, projectMs, latencyMs };
}

function bm25Contexts(question: LongMemEvalQuestion, turns: Map<number, TurnEvent>, limit: number): { contexts: RankedContext[]; latencyMs: number } {
  const index = new Bm25Index({ averageLengthFloor: 1 });
  const seqs: number[] = [];
  for (const [seq, turn] of turns) {
    index.add(turn.text);
    seqs.push(seq);
  }
  const started = performance.now();
  const hits = index.search(queryTerms(question.question), limit);
  const latencyMs = performance.now() - started;
  const contexts = hits.map((hit) => {
    const seq = seqs[hit.docId];
    const turn = turns.get(seq) as TurnEvent;
    return { seq, citation: turn.citation, text: turn.text };
  });
  return { contexts, latencyMs };
}

function mean(values: number[]): number {
  return values.length === 0 ? 0 : round(values.reduce((a, b) => a + b, 0) / values.length, 4);
}

function summarize(rows: QuestionResult[], backend: string): BackendSummary {
  const results = rows.map((r) => r.backends[backend]);
  const rate = (pick: (r: BackendQuestionResult) => boolean) => mean(results.map((r) => (pick(r) ? 1 : 0)));
  const latencies = results.map((r) => r.latency_ms);
  const pct = (p: number) => (latencies.length === 0 ? 0 : round(percentile(latencies, p), 3));
  return {
    questions: results.length,
    mean_score: mean(results.map((r) => r.score)),
    answer_recall_at_5: rate((r) => r.answer_in_top_5),
    recall_at_1: rate((r) => r.hit_at_1),
    recall_at_5: rate((r) => r.hit_at_5),
    recall_at_10: rate((r) => r.hit_at_10),
    citation_coverage: mean(results.map((r) => r.citation_coverage)),
    p50_ms: pct(50),
    p95_ms: pct(95),
    p99_ms: pct(99),
  };
}

/** Runs both backends over every non-abstention question and returns the report. */
export async function runLongMemEvalBench(options: LongMemEvalBenchOptions): Promise<LongMemEvalReport> {
  const progress = options.progress ?? (() => {});
  const scored = options.questions.filter((q) => !isAbstention(q));
  const limit = Math.max(contextsMin, options.topK);
  const workDir = fs.mkdtempSync(path.join(options.workDir ?? os.tmpdir(), "zaxy-longmemeval-"));
  const rows: QuestionResult[] = [];
  try {
    for (const [i, question] of scored.entries()) {
      progress(`question ${i + 1}/${scored.length}: ${question.questionId}`);
      const root = path.join(workDir, `q${i}`);
      fs.mkdirSync(root);
      try {
        const turns = await ingestHaystack(root, question);
        const checkout = await checkoutContexts(root, question, limit);
        const checkoutResult = scoreContexts(question, checkout.contexts, turns, options.topK, checkout.latencyMs);
        checkoutResult.project_ms = round(checkout.projectMs, 3);
        const bm25 = bm25Contexts(question, turns, limit);
        rows.push({
          question_id: question.questionId,
          question_type: question.questionType,
          answer_session_ids: question.answerSessionIds,
          turns: turns.size,
          backends: {
            [checkoutBackend]: checkoutResult,
            [bm25Backend]: scoreContexts(question, bm25.contexts, turns, options.topK, bm25.latencyMs),
          },
        });
      } finally {
        fs.rmSync(root, { recursive: true, force: true });
      }
    }
  } finally {
    fs.rmSync(workDir, { recursive: true, force: true });
  }
  return {
    schema: longMemEvalReportSchema,
    dataset: {
      path: options.datasetPath,
      sha256: options.datasetSha256,
      questions: options.questions.length,
      questions_scored: scored.length,
      questions_skipped_abstention: options.questions.length - scored.length,
    },
    top_k: options.topK,
    reader: null,
    note: "offline retrieval-side proxy: no LLM reader or judge; not comparable to LongMemEval QA accuracy",
    backends: { [checkoutBackend]: summarize(rows, checkoutBackend), [bm25Backend]: summarize(rows, bm25Backend) },
    per_question: rows,
  };
}
