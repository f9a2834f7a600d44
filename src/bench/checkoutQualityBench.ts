/**
 * `zaxy bench checkout-quality`: does Memory Checkout say "answer from memory" only when memory
 * holds the answer? Runs on the committed set of `checkoutQualitySet.ts` (short agent sessions,
 * each with related and unrelated questions), per split (`train`, `held_out`), reported apart.
 *
 * For every session the events are appended to a temporary root through `appendEvents`, as
 * `zaxy memory append` writes them. Every question then goes through `MemoryService.checkout`
 * with the defaults of `zaxy memory checkout QUERY --json`, and through `MemoryService.query`
 * (limit 10, as `zaxy memory query`), the retrieval baseline:
 *
 * - unrelated: how many are answered from memory (`quality.answerability ==
 *   "answer_from_memory"`, target 0) and how many are served any current fact;
 * - related: recall of the expected event's citation among `current_facts`, against its recall
 *   in the query's top 10 (checkout may not lose what retrieval found), and how many are
 *   answered from memory or sent to the user.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fromJs } from "../canonical/mod.ts";
import { appendEvents } from "../events/append.ts";
import { citationUri } from "../eventloom/root.ts";
import type { MemoryCheckout } from "../checkout/mod.ts";
import { validateMemoryRequest } from "../memory/request.ts";
import { MemoryService } from "../memory/service.ts";
import { qualitySplits, type QualitySetSession, type QualitySplit } from "./checkoutQualitySet.ts";
import { atLeast, atMost, type BenchMachine, benchMachine, type BenchTarget, round } from "./measure.ts";

/** Results the retrieval baseline looks at, the default limit of `memory query` and checkout. */
export const queryBaselineLimit = 10;
/** Characters of a served fact kept in a miss. */
const servedFactCharsMax = 160;

export type SplitChoice = QualitySplit | "all";

export interface CheckoutQualityBenchOptions {
  split?: SplitChoice;
  /**
   * The semantic lane: true runs it for every checkout and query (`--semantic`), false never
   * (`--no-semantic`); absent, as `memory checkout` decides per question.
   */
  semantic?: boolean;
  workDir?: string;
  progress?: (message: string) => void;
}

/** A count and its share of the questions asked (4 decimals; null when none were asked). */
export interface Share {
  count: number;
  rate: number | null;
}

export interface ServedFact {
  content: string;
  citation: string;
}

interface MissAnswer {
  session: string;
  question: string;
  answerability: string;
  confidence: number;
  coverage: number | null;
  /** The question's content terms, and those found in the served facts (`diagnostics.query_match`). */
  query_terms: string[];
  matched_terms: string[];
  served_facts: ServedFact[];
}

export type UnrelatedMiss = MissAnswer;

export interface RelatedMiss extends MissAnswer {
  expected_citation: string;
  in_current_facts: boolean;
  in_query_top10: boolean;
}

export interface SplitReport {
  sessions: number;
  events: number;
  unrelated: {
    questions: number;
    answered_from_memory: Share;
    served_current_facts: Share;
    refresh_recommended: Share;
    ask_user: Share;
    /** Unrelated questions answered from memory. */
    misses: UnrelatedMiss[];
  };
  related: {
    questions: number;
    recall_current_facts: Share;
    recall_query_top10: Share;
    answered_from_memory: Share;
    refresh_recommended: Share;
    ask_user: Share;
    /** Related questions whose fact was not served, or that were not answered from memory. */
    misses: RelatedMiss[];
  };
  checkout_ms_total: number;
}

export interface CheckoutQualityBenchResult {
  machine: BenchMachine;
  command: string[];
  split: SplitChoice;
  query_limit: number;
  splits: Partial<Record<QualitySplit, SplitReport>>;
  targets: Record<string, BenchTarget>;
}

function share(count: number, total: number): Share {
  return { count, rate: total === 0 ? null : round(count / total, 4) };
}

function servedFacts(facts: ReadonlyArray<{ content: string; citation: string }>): ServedFact[] {
  return facts.map((fact) => ({
    content: fact.content.length > servedFactCharsMax ? `${fact.content.slice(0, servedFactCharsMax - 1)}…` : fact.content,
    citation: fact.citation,
  }));
}

/** What a miss reports of the checkout that answered its question. */
function missAnswer(session: string, question: string, doc: MemoryCheckout): MissAnswer {
  const match = doc.diagnostics.query_match;
  return {
    session,
    question,
    answerability: doc.quality.answerability,
    confidence: doc.quality.confidence,
    coverage: match.coverage,
    query_terms: match.query_terms,
    matched_terms: match.matched_terms,
    served_facts: servedFacts(doc.current_facts),
  };
}

/** A set that names an event it does not have is a programmer error. */
function checkSession(session: QualitySetSession): void {
  for (const related of session.related) {
    if (!Number.isInteger(related.fact) || related.fact < 0 || related.fact >= session.events.length) {
      throw new Error(`checkout quality set: session "${session.id}" question "${related.question}" names event ${related.fact} of ${session.events.length}`);
    }
  }
}

async function runSplit(root: string, split: QualitySplit, progress: (message: string) => void, semantic: boolean | undefined): Promise<SplitReport> {
  const sessions = qualitySplits[split];
  const service = new MemoryService(root, { warn: (message) => progress(`warning: ${message}`) });
  const unrelatedMisses: UnrelatedMiss[] = [];
  const relatedMisses: RelatedMiss[] = [];
  const u = { questions: 0, answered: 0, served: 0, refresh: 0, askUser: 0 };
  const r = { questions: 0, recall: 0, queryRecall: 0, answered: 0, refresh: 0, askUser: 0 };
  let events = 0;
  let checkoutMs = 0;
  for (const session of sessions) {
    checkSession(session);
    const sessionId = `${split}.${session.id}`;
    progress(`${split}: appending ${session.events.length} events of ${session.id}`);
    const appended = await appendEvents(
      root,
      sessionId,
      session.events.map((event) => ({ type: event.type, actor: "agent", payload: fromJs(event.payload) })),
    );
    events += session.events.length;
    const citations = appended.records.map((record) => citationUri(record.thread, record.seq, record.hash));
    const checkout = async (question: string) => {
      const started = performance.now();
      const doc = await service.checkout(validateMemoryRequest({ sessionId, query: question, semantic }));
      checkoutMs += performance.now() - started;
      return doc;
    };

    progress(`${split}: ${session.related.length + session.unrelated.length} questions on ${session.id}`);
    for (const question of session.unrelated) {
      const doc = await checkout(question);
      u.questions++;
      const answerability = doc.quality.answerability;
      if (doc.current_facts.length > 0) u.served++;
      if (answerability === "refresh_recommended") u.refresh++;
      if (answerability === "ask_user") u.askUser++;
      if (answerability === "answer_from_memory") {
        u.answered++;
        unrelatedMisses.push(missAnswer(session.id, question, doc));
      }
    }
    for (const { question, fact } of session.related) {
      const expected = citations[fact];
      const doc = await checkout(question);
      const answer = await service.query(validateMemoryRequest({ sessionId, query: question, limit: queryBaselineLimit, semantic }));
      const results = (answer.results ?? []) as Array<{ citation?: unknown }>;
      const inFacts = doc.current_facts.some((item) => item.citation === expected);
      const inQuery = results.slice(0, queryBaselineLimit).some((item) => item.citation === expected);
      const answerability = doc.quality.answerability;
      r.questions++;
      if (inFacts) r.recall++;
      if (inQuery) r.queryRecall++;
      if (answerability === "answer_from_memory") r.answered++;
      if (answerability === "refresh_recommended") r.refresh++;
      if (answerability === "ask_user") r.askUser++;
      if (!inFacts || answerability !== "answer_from_memory") {
        // The contract's key order: what was asked and expected first, then the answer.
        const { session: _s, question: _q, ...answer } = missAnswer(session.id, question, doc);
        relatedMisses.push({ session: session.id, question, expected_citation: expected, in_current_facts: inFacts, in_query_top10: inQuery, ...answer });
      }
    }
  }
  return {
    sessions: sessions.length,
    events,
    unrelated: {
      questions: u.questions,
      answered_from_memory: share(u.answered, u.questions),
      served_current_facts: share(u.served, u.questions),
      refresh_recommended: share(u.refresh, u.questions),
      ask_user: share(u.askUser, u.questions),
      misses: unrelatedMisses,
    },
    related: {
      questions: r.questions,
      recall_current_facts: share(r.recall, r.questions),
      recall_query_top10: share(r.queryRecall, r.questions),
      answered_from_memory: share(r.answered, r.questions),
      refresh_recommended: share(r.refresh, r.questions),
      ask_user: share(r.askUser, r.questions),
      misses: relatedMisses,
    },
    checkout_ms_total: round(checkoutMs),
  };
}

function splitTargets(split: QualitySplit, report: SplitReport): Record<string, BenchTarget> {
  const queryRecall = report.related.recall_query_top10.rate;
  return {
    [`${split}_unrelated_answered`]: atMost(0, report.unrelated.answered_from_memory.count, "== 0"),
    [`${split}_recall_vs_query`]: queryRecall === null
      ? atLeast(0, null)
      : atLeast(queryRecall, report.related.recall_current_facts.rate, `>= ${queryRecall.toFixed(3)}`),
  };
}

/**
 * @example
 * const result = await runCheckoutQualityBench({ split: "held_out" });
 * result.splits.held_out?.unrelated.answered_from_memory; // { count: 0, rate: 0 }
 */
export async function runCheckoutQualityBench(options: CheckoutQualityBenchOptions = {}): Promise<CheckoutQualityBenchResult> {
  const split = options.split ?? "all";
  const progress = options.progress ?? (() => {});
  const chosen: QualitySplit[] = split === "all" ? ["train", "held_out"] : [split];
  const workDir = options.workDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "zaxy-bench-checkout-quality-"));
  const root = path.join(workDir, ".eventloom");
  try {
    const splits: Partial<Record<QualitySplit, SplitReport>> = {};
    let targets: Record<string, BenchTarget> = {};
    for (const name of chosen) {
      const report = await runSplit(root, name, progress, options.semantic);
      splits[name] = report;
      targets = { ...targets, ...splitTargets(name, report) };
    }
    return {
      machine: benchMachine(),
      command: ["zaxy", "bench", "checkout-quality", "--split", split === "held_out" ? "held-out" : split],
      split,
      query_limit: queryBaselineLimit,
      splits,
      targets,
    };
  } finally {
    if (options.workDir === undefined) fs.rmSync(workDir, { recursive: true, force: true });
    else progress(`note: sessions kept in ${root}`);
  }
}
