/**
 * `memory_feeling_of_knowing` (reference §6 row 8): a cheap pre-check of whether memory is likely
 * to answer a query, before an agent pays for a full checkout. It runs one retrieval (the same
 * lanes `memory_query` uses, a handful of results) and reads its signals:
 *
 * - `coverage`: the share of the query's keyword terms (and of the cues' values) that the best
 *   current result's content contains;
 * - `current_results`: results whose validity is open (current facts), `result_count`, the lanes
 *   that answered, and the top score.
 *
 * `likely`: a current result covers at least 60 % of the terms; `possible`: some result shares a
 * term; `unlikely`: nothing does (or the session has no log). The prediction is recorded as
 * `metacognition.fok.predicted` `{query, prediction, confidence, signals[, cues]}` by actor
 * `zaxy-metacognition`, so predictions can later be scored against what checkout found. It is
 * experimental, as in Python: a heuristic, never a substitute for the checkout.
 *
 * @example
 * await feelingOfKnowing(".eventloom", "default", { query: "which database did we choose?" });
 * // { prediction: "likely", confidence: 0.83, signals: { coverage: 0.83, ... }, event: { seq: 9, ... } }
 */
import * as fs from "node:fs";
import { fromJs } from "../canonical/mod.ts";
import { inputError } from "../errors.ts";
import { appendedEventJson, type AppendedEventJson } from "../eventloom/append.ts";
import { sessionLogPath } from "../eventloom/root.ts";
import type { PlainJson } from "../projection/types.ts";
import { keywordTerms, queryTerms } from "../vector/textAnalysis.ts";
import { recordEvents } from "../recording/record.ts";
import { sharedMemoryService } from "./service.ts";

export const fokEventType = "metacognition.fok.predicted";
export const fokActor = "zaxy-metacognition";
export const fokPredictions = ["likely", "possible", "unlikely"] as const;
export type FokPrediction = (typeof fokPredictions)[number];

/** Share of the terms a current result must contain for `likely`. */
export const fokLikelyCoverage = 0.6;
/** Results the pre-check retrieves: enough to see the lanes, few enough to stay cheap. */
const fokResultsMax = 5;

export interface FokRequest {
  query: unknown;
  cues?: unknown;
}

export interface FokSignals {
  [key: string]: PlainJson;
  session_exists: boolean;
  terms: string[];
  coverage: number;
  result_count: number;
  current_results: number;
  top_score: number | null;
  source_lanes: string[];
}

export interface FokResult {
  session_id: string;
  query: string;
  prediction: FokPrediction;
  confidence: number;
  signals: FokSignals;
  event: AppendedEventJson;
  warnings?: string[];
}

function cuesOf(value: unknown): { [key: string]: string } | undefined {
  if (value === undefined) return undefined;
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw inputError("invalid_request", "cues must be an object of strings ({\"file\": \"src/auth.ts\", ...})", { field: "cues", expected: "an object whose values are strings" });
  }
  const out: { [key: string]: string } = {};
  for (const [key, cue] of Object.entries(value)) {
    if (typeof cue !== "string") throw inputError("invalid_request", `cues.${key} must be a string`, { field: `cues.${key}`, expected: "a string" });
    out[key] = cue;
  }
  return out;
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}

export async function feelingOfKnowing(root: string, sessionId: string, request: FokRequest): Promise<FokResult> {
  if (typeof request.query !== "string" || request.query.trim() === "") {
    throw inputError("invalid_request", "query must be a non-empty string", { field: "query", expected: "a non-empty string" });
  }
  const query = request.query;
  const cues = cuesOf(request.cues);
  const terms = [...new Set([...queryTerms(query), ...Object.values(cues ?? {}).flatMap(keywordTerms)])];
  let results: Array<{ [key: string]: PlainJson }> = [];
  let lanes: string[] = [];
  // A query of a session without a log answers empty; the pre-check reports that it has none.
  const sessionExists = fs.existsSync(sessionLogPath(root, sessionId, "read"));
  if (sessionExists) {
    const answer = await sharedMemoryService(root).query({ sessionId, query, limit: fokResultsMax, depth: 1, replayFromSeq: 1, maxRecentEvents: 0 });
    results = (answer.results as Array<{ [key: string]: PlainJson }>) ?? [];
    const laneCounts = (answer.diagnostics as { source_lanes?: { [lane: string]: number } } | null)?.source_lanes ?? {};
    lanes = Object.entries(laneCounts).filter(([, count]) => count > 0).map(([lane]) => lane).sort();
  }
  const coverageOf = (content: PlainJson): number => {
    if (terms.length === 0 || typeof content !== "string") return 0;
    const present = new Set(keywordTerms(content));
    return terms.filter((term) => present.has(term)).length / terms.length;
  };
  const current = results.filter((result) => result.valid_to === null);
  const bestCurrent = Math.max(0, ...current.map((result) => coverageOf(result.content)));
  const bestAny = Math.max(0, ...results.map((result) => coverageOf(result.content)));
  const prediction: FokPrediction = bestCurrent >= fokLikelyCoverage ? "likely" : bestAny > 0 ? "possible" : "unlikely";
  // How sure the pre-check is of its own call: the coverage for a positive call, its complement
  // for `unlikely` (an empty session is as sure as it gets).
  const confidence = round3(prediction === "likely" ? bestCurrent : prediction === "possible" ? Math.max(bestAny, 0.2) * 0.8 : sessionExists ? 1 - bestAny : 1);
  const topScore = results.length === 0 ? null : Math.max(...results.map((result) => (typeof result.score === "number" ? result.score : 0)));
  const signals: FokSignals = {
    session_exists: sessionExists,
    terms,
    coverage: round3(Math.max(bestCurrent, bestAny)),
    result_count: results.length,
    current_results: current.length,
    top_score: topScore === null ? null : round3(topScore),
    source_lanes: lanes,
  };
  const payload: { [key: string]: PlainJson } = { query, prediction, confidence, signals };
  if (cues !== undefined) payload.cues = cues;
  const recorded = await recordEvents(root, sessionId, [{ type: fokEventType, actor: fokActor, payload: fromJs(payload) }]);
  return {
    session_id: sessionId,
    query,
    prediction,
    confidence,
    signals,
    event: appendedEventJson(recorded.events[0]),
    ...(recorded.warnings.length > 0 ? { warnings: recorded.warnings } : {}),
  };
}
