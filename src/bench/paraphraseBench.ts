/**
 * `zaxy bench retrieval --paraphrase`: recall of facts asked about in other words
 * (paraphraseSet.ts), for the lanes without the semantic model ("lexical": exact, hash vector,
 * keyword, traversal, verbatim), the semantic lane alone (the model's ranking, no threshold) and
 * the fused result (`memory query` as it answers by default). Also the calibration of the semantic threshold:
 * the true fact's similarity for each question, the best similarity of each unrelated question,
 * and what checkout answers to the unrelated questions with the semantic lane on.
 *
 * The facts and distractors are appended, shuffled with a fixed seed, as `decision.made` events
 * to one session of a temporary root, then every question goes through `MemoryService` as
 * `zaxy memory query|checkout` does.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fromJs } from "../canonical/mod.ts";
import { appendEvents } from "../events/append.ts";
import { parseCitationUri } from "../eventloom/root.ts";
import { validateMemoryRequest } from "../memory/request.ts";
import { MemoryService } from "../memory/service.ts";
import { semanticCentredSimilarityMin, semanticEvidenceSimilarityMin, semanticLane, SemanticVectorCache, unlimitedEmbedBudget } from "../retrieval/semanticLane.ts";
import { sharedSemanticEmbedder } from "../semantic/semanticEmbedder.ts";
import { type BenchMachine, benchMachine, latencySummary, type LatencySummary, round, seededRandom, shuffled } from "./measure.ts";
import { paraphraseDistractors, paraphraseFacts, unrelatedQuestions } from "./paraphraseSet.ts";

const sessionId = "paraphrase-bench";
const limit = 10;

export interface ParaphraseRecall {
  recall_at_1: number;
  recall_at_5: number;
  recall_at_10: number;
}

export interface ParaphraseBenchResult {
  machine: BenchMachine;
  model: { id: string; weights_sha256: string | null };
  facts: number;
  distractors: number;
  questions: number;
  unrelated_questions: number;
  lexical: ParaphraseRecall;
  semantic_only: ParaphraseRecall;
  fused: ParaphraseRecall;
  threshold: {
    /** The centred similarity a fact needs to be ranked by the lane. */
    centred_similarity_min: number;
    /** The similarity from which a semantic hit counts as match evidence in a checkout. */
    evidence_similarity_min: number;
    /** The true fact's similarity to its question: p10, p50, p90. */
    true_fact_similarity: [number, number, number];
    /** The best fact's similarity to an unrelated question: p50, p90, max. */
    unrelated_best_similarity: [number, number, number];
    /** Shares of true facts and of unrelated questions' best matches at or above the evidence threshold. */
    true_facts_at_or_above: number;
    unrelated_at_or_above: number;
  };
  /** Checkout with the semantic lane: unrelated questions not answered `ask_user` (want 0). */
  unrelated_not_ask_user: number;
  /** Checkout with the semantic lane: questions whose fact is served as a current fact. */
  related_fact_served: number;
  latency: { lexical: LatencySummary | null; fused: LatencySummary | null };
  misses: Array<{ question: string; fact: string; fused_rank: number | null }>;
}

function recallOf(ranks: readonly (number | null)[]): ParaphraseRecall {
  const at = (k: number) => round(ranks.filter((rank) => rank !== null && rank <= k).length / ranks.length, 3);
  return { recall_at_1: at(1), recall_at_5: at(5), recall_at_10: at(10) };
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted.length === 0 ? 0 : round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))], 3);
}

/** Rank (1-based) of the first result citing `seq`, or null. */
function rankOf(results: Array<{ citation: string | null }>, seq: number): number | null {
  const at = results.findIndex((result) => result.citation !== null && parseCitationUri(result.citation)?.seq === seq);
  return at < 0 ? null : at + 1;
}

export async function runParaphraseBench(options: { workDir?: string; progress?: (message: string) => void } = {}): Promise<ParaphraseBenchResult> {
  const workDir = options.workDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "zaxy-bench-paraphrase-"));
  const root = path.join(workDir, ".eventloom");
  try {
    const distractors = paraphraseDistractors();
    const texts = shuffled([...paraphraseFacts.map((fact) => fact.text), ...distractors], seededRandom(7));
    options.progress?.(`appending ${texts.length} facts`);
    const appended = await appendEvents(root, sessionId, texts.map((text) => ({ type: "decision.made", actor: "architect", payload: fromJs({ decision: text }) })));
    const seqOf = new Map(texts.map((text, i) => [text, appended.records[i].seq]));
    const asked = paraphraseFacts.flatMap((fact) => fact.questions.map((question) => ({ question, fact })));

    const service = new MemoryService(root);
    const embedder = await sharedSemanticEmbedder();
    const cache = new SemanticVectorCache(embedder.receipt.id, root);
    const session = await service.readSession(sessionId);
    // Every fact embedded and on disk first (as `zaxy memory embed` does), so no read is partial.
    await semanticLane(sessionId, session.index, "", embedder, cache, { limit: 1, embedBudget: unlimitedEmbedBudget });
    const positionOfSeq = new Map<number, number>();
    for (let position = 0; position < session.index.entityCount; position++) {
      const entity = session.index.entity(position);
      if (entity.entityType === "decision") positionOfSeq.set(entity.sourceEventSeq, position);
    }

    const lexicalRanks: Array<number | null> = [];
    const fusedRanks: Array<number | null> = [];
    const semanticRanks: Array<number | null> = [];
    const trueSimilarities: number[] = [];
    const lexicalMs: number[] = [];
    const fusedMs: number[] = [];
    const misses: ParaphraseBenchResult["misses"] = [];
    let served = 0;
    for (const [i, { question, fact }] of asked.entries()) {
      if (i % 20 === 0) options.progress?.(`question ${i + 1}/${asked.length}`);
      const seq = seqOf.get(fact.text)!;
      let started = performance.now();
      const lexical = await service.query(validateMemoryRequest({ sessionId, query: question, limit, semantic: false }));
      lexicalMs.push(performance.now() - started);
      lexicalRanks.push(rankOf(lexical.results as Array<{ citation: string | null }>, seq));
      started = performance.now();
      const fused = await service.query(validateMemoryRequest({ sessionId, query: question, limit }));
      fusedMs.push(performance.now() - started);
      const fusedRank = rankOf(fused.results as Array<{ citation: string | null }>, seq);
      fusedRanks.push(fusedRank);
      if ((fusedRank === null || fusedRank > 5) && misses.length < 12) misses.push({ question, fact: fact.text, fused_rank: fusedRank });
      const ranking = await semanticLane(sessionId, session.index, question, embedder, cache, { limit: session.index.entityCount, centredMin: -2, embedBudget: unlimitedEmbedBudget });
      const at = ranking.hits.findIndex((hit) => hit.position === positionOfSeq.get(seq));
      semanticRanks.push(at < 0 ? null : at + 1);
      trueSimilarities.push(at < 0 ? -1 : ranking.hits[at].similarity);
      const checkout = await service.checkout(validateMemoryRequest({ sessionId, query: question, limit }));
      if (checkout.current_facts.some((item) => item.citation !== null && parseCitationUri(item.citation)?.seq === seq)) served++;
    }

    const unrelatedBest: number[] = [];
    let unrelatedAnswered = 0;
    for (const question of unrelatedQuestions) {
      const ranking = await semanticLane(sessionId, session.index, question, embedder, cache, { limit: 1, centredMin: -2, embedBudget: unlimitedEmbedBudget });
      unrelatedBest.push(ranking.hits[0]?.similarity ?? -1);
      const checkout = await service.checkout(validateMemoryRequest({ sessionId, query: question, limit }));
      if (checkout.quality.answerability !== "ask_user") unrelatedAnswered++;
    }
    const trueSorted = [...trueSimilarities].sort((a, b) => a - b);
    const unrelatedSorted = [...unrelatedBest].sort((a, b) => a - b);
    return {
      machine: benchMachine(),
      model: { id: embedder.receipt.id, weights_sha256: embedder.receipt.weights_sha256 },
      facts: paraphraseFacts.length,
      distractors: distractors.length,
      questions: asked.length,
      unrelated_questions: unrelatedQuestions.length,
      lexical: recallOf(lexicalRanks),
      semantic_only: recallOf(semanticRanks),
      fused: recallOf(fusedRanks),
      threshold: {
        centred_similarity_min: semanticCentredSimilarityMin,
        evidence_similarity_min: semanticEvidenceSimilarityMin,
        true_fact_similarity: [quantile(trueSorted, 0.1), quantile(trueSorted, 0.5), quantile(trueSorted, 0.9)],
        unrelated_best_similarity: [quantile(unrelatedSorted, 0.5), quantile(unrelatedSorted, 0.9), round(unrelatedSorted.at(-1) ?? 0, 3)],
        true_facts_at_or_above: round(trueSimilarities.filter((s) => s >= semanticEvidenceSimilarityMin).length / trueSimilarities.length, 3),
        unrelated_at_or_above: round(unrelatedBest.filter((s) => s >= semanticEvidenceSimilarityMin).length / unrelatedBest.length, 3),
      },
      unrelated_not_ask_user: unrelatedAnswered,
      related_fact_served: served,
      latency: { lexical: latencySummary(lexicalMs), fused: latencySummary(fusedMs.slice(1)) },
      misses,
    };
  } finally {
    if (options.workDir === undefined) fs.rmSync(workDir, { recursive: true, force: true });
  }
}
