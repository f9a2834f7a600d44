/**
 * The alpha.2 consolidation guardrail scorer (reference §2.11; Python
 * `zaxy_benchmarks/consolidation_benchmark.py`). A case names the candidate type and the
 * source events a generated candidate must cite; a row scores one candidate on four axes, each
 * 0..1, and their mean:
 * - `type_match`: the candidate has the case's type;
 * - `source_event_fidelity`: |required ∩ cited| / |required| (malformed citations score 0);
 * - `authority_boundary`: the candidate is `non_authoritative`;
 * - `review_gate`: its review status is `pending` or a review outcome.
 * Values are rounded to 4 places as Python's `round` does (half to even).
 */
import { pythonRound4 } from "../canonical/pythonRound.ts";
import { inputError } from "../errors.ts";
import { consolidationReviewStatuses, isCandidateType, type SourceEventRef } from "../consolidation/candidate.ts";
import { consolidationInitialReviewStatus, nonAuthoritative } from "../events/consolidationEvents.ts";

export interface GuardrailCase {
  case_id: string;
  candidate_type: string;
  required_source_events: SourceEventRef[];
}

export interface GuardrailRow {
  case_id: string;
  type_match: number;
  source_event_fidelity: number;
  authority_boundary: number;
  review_gate: number;
  score: number;
}

export interface GuardrailSummary {
  case_count: number;
  mean_type_match: number;
  mean_source_event_fidelity: number;
  mean_authority_boundary: number;
  mean_review_gate: number;
  mean_score: number;
}

const eventHashPattern = /^[0-9a-f]{64}$/;
const validReviewStatuses: readonly string[] = [consolidationInitialReviewStatus, ...consolidationReviewStatuses];

/** `seq:hash` of every citation, or null when any is malformed. */
function citationKeys(events: unknown): string[] | null {
  if (!Array.isArray(events)) return null;
  const keys: string[] = [];
  for (const event of events) {
    if (event === null || typeof event !== "object" || Array.isArray(event)) return null;
    const { seq, hash } = event as { seq?: unknown; hash?: unknown };
    if (typeof seq !== "number" || !Number.isSafeInteger(seq) || seq <= 0) return null;
    if (typeof hash !== "string" || !eventHashPattern.test(hash)) return null;
    keys.push(`${seq}:${hash}`);
  }
  return keys;
}

/** Validates a case as Python's `ConsolidationGuardrailCase` does; throws exit 2 naming the field. */
export function validateGuardrailCase(value: unknown, index: number): GuardrailCase {
  const at = `cases[${index}]`;
  const item = (value ?? {}) as Partial<GuardrailCase>;
  if (typeof item.case_id !== "string" || item.case_id.trim() === "") {
    throw inputError("invalid_guardrail_case", `${at}.case_id must be a non-empty string`, { field: `${at}.case_id` });
  }
  if (!isCandidateType(item.candidate_type)) {
    throw inputError("invalid_guardrail_case", `${at}.candidate_type must be episode, claim or procedure`, { field: `${at}.candidate_type` });
  }
  const keys = citationKeys(item.required_source_events);
  if (keys === null || keys.length === 0) {
    throw inputError("invalid_guardrail_case", `${at}.required_source_events must be a non-empty array of {seq, hash}`, {
      field: `${at}.required_source_events`,
    });
  }
  return { case_id: item.case_id, candidate_type: item.candidate_type, required_source_events: item.required_source_events! };
}

/** Scores one candidate (`{candidate_type, source_events, authority_status, review_status}`). */
export function evaluateGuardrail(guardrailCase: GuardrailCase, candidate: { [key: string]: unknown }): GuardrailRow {
  const typeMatch = candidate.candidate_type === guardrailCase.candidate_type ? 1 : 0;
  const required = new Set(citationKeys(guardrailCase.required_source_events) ?? []);
  const cited = citationKeys(candidate.source_events);
  const fidelity = cited === null || required.size === 0 ? 0 : [...required].filter((key) => cited.includes(key)).length / required.size;
  const authorityBoundary = candidate.authority_status === nonAuthoritative ? 1 : 0;
  const reviewGate = typeof candidate.review_status === "string" && validReviewStatuses.includes(candidate.review_status) ? 1 : 0;
  return {
    case_id: guardrailCase.case_id,
    type_match: typeMatch,
    source_event_fidelity: pythonRound4(fidelity),
    authority_boundary: authorityBoundary,
    review_gate: reviewGate,
    score: pythonRound4((typeMatch + fidelity + authorityBoundary + reviewGate) / 4),
  };
}

function mean(rows: readonly GuardrailRow[], key: keyof Omit<GuardrailRow, "case_id">): number {
  let total = 0;
  for (const row of rows) total += row[key];
  return pythonRound4(total / rows.length);
}

/** Means over the rows, 4 places; all zeros for no rows. */
export function summarizeGuardrail(rows: readonly GuardrailRow[]): GuardrailSummary {
  if (rows.length === 0) {
    return { case_count: 0, mean_type_match: 0, mean_source_event_fidelity: 0, mean_authority_boundary: 0, mean_review_gate: 0, mean_score: 0 };
  }
  return {
    case_count: rows.length,
    mean_type_match: mean(rows, "type_match"),
    mean_source_event_fidelity: mean(rows, "source_event_fidelity"),
    mean_authority_boundary: mean(rows, "authority_boundary"),
    mean_review_gate: mean(rows, "review_gate"),
    mean_score: mean(rows, "score"),
  };
}
