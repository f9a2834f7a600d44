/**
 * Consolidation status by replay (DESIGN §8; reference §2.6). A pure function of the session's
 * verified events, and with events/candidateStanding.ts the one place a candidate's standing is
 * decided (`candidateStanding`, `isCandidateCurrent`); every surface (status, checkout diagnostics, the long-horizon tier,
 * retrieval metadata, rollback) reads it from here:
 * - the first `consolidation.candidate.created` of an id wins (later ones are counted as
 *   duplicates); what its payload declares as `review_status` or `authority_status` is never
 *   read: a candidate starts `pending` and is `non_authoritative` whatever the event says;
 * - reviews of known candidates apply in log order, the latest surviving one wins;
 * - a `memory.rolled_back` whose `target{seq, hash}` is a review cancels that review, so the
 *   candidate falls back to its previous surviving review, or to `pending`;
 * - a `memory.invalidated` naming the candidate (`entity_type: "consolidation_candidate"`)
 *   closes its validity window at `invalid_at`, as the projection closes its graph version; a
 *   later creation event of the same id states it again and reopens it, as in the projection.
 *
 * The document's keys and the candidates' key order are Python's (`consolidation_status`).
 */
import { compareCodePoints, intField, isJsonObject, stringField } from "../canonical/mod.ts";
import type { EventRecord } from "../eventloom/envelope.ts";
import type { PlainJson } from "../projection/types.ts";
import { type CandidateReview, candidateStanding } from "../events/candidateStanding.ts";
import { candidateCreatedType, candidateReviewedType } from "../events/consolidationEvents.ts";
import type { SessionFold } from "./sessionFold.ts";

export const rollbackEventType = "memory.rolled_back";
/** memory/invalidate.ts writes it; named here so the replay does not import the write path. */
export const invalidatedEventType = "memory.invalidated";
/** The graph entity type of a candidate: what `memory invalidate --entity-type` names. */
export const candidateEntityType = "consolidation_candidate";

export interface CandidateState {
  candidateId: string;
  candidateType: string | null;
  createdSeq: number;
  createdHash: string;
  /** `stale: true` in the creation payload. */
  stale: boolean;
  supersededBy: string | null;
  /** `valid_to` in the creation payload. */
  validTo: string | null;
  /** `invalid_at` of the surviving `memory.invalidated` of the candidate, and its seq. */
  invalidatedAt: string | null;
  invalidatedSeq: number | null;
  /** Every review of the candidate in log order, rolled back or not. */
  reviews: CandidateReview[];
}

export interface ConsolidationReplay {
  /** In creation order (which is seq order). */
  candidates: Map<string, CandidateState>;
  reviewCount: number;
  duplicateCandidateCount: number;
  rollbackCount: number;
  /** `seq:hash` of every event some `memory.rolled_back` targets. */
  rolledBackTargets: Set<string>;
}

function refKey(seq: number, hash: string): string {
  return `${seq}:${hash}`;
}

/** What one event does to the replay; undefined when it does nothing. */
type ConsolidationStep =
  | { kind: "created"; candidate: CandidateState }
  | { kind: "reviewed"; candidateId: string; review: CandidateReview }
  | { kind: "rolled_back"; target: string }
  | { kind: "invalidated"; candidateId: string; invalidAt: string; seq: number };

function consolidationStepOf(event: EventRecord): ConsolidationStep | undefined {
  const payload = event.payload;
  if (event.type === candidateCreatedType) {
    const candidateId = stringField(payload, "candidate_id");
    if (candidateId === undefined || candidateId === "") return undefined;
    const supersededBy = stringField(payload, "superseded_by");
    const validTo = stringField(payload, "valid_to");
    return {
      kind: "created",
      candidate: {
        candidateId,
        candidateType: stringField(payload, "candidate_type") ?? null,
        createdSeq: event.seq,
        createdHash: event.hash,
        stale: payload.get("stale") === true,
        supersededBy: supersededBy ? supersededBy : null,
        validTo: validTo ? validTo : null,
        invalidatedAt: null,
        invalidatedSeq: null,
        reviews: [],
      },
    };
  }
  if (event.type === candidateReviewedType) {
    return {
      kind: "reviewed",
      candidateId: stringField(payload, "candidate_id") ?? "",
      review: { seq: event.seq, hash: event.hash, status: stringField(payload, "status") ?? null, rolledBack: false },
    };
  }
  if (event.type === rollbackEventType) {
    const target = payload.get("target");
    if (!isJsonObject(target)) return undefined;
    const seq = intField(target, "seq");
    const hash = stringField(target, "hash");
    if (seq === undefined || hash === undefined) return undefined;
    return { kind: "rolled_back", target: refKey(seq, hash) };
  }
  if (event.type === invalidatedEventType && stringField(payload, "entity_type") === candidateEntityType) {
    const candidateId = stringField(payload, "entity_name");
    const invalidAt = stringField(payload, "invalid_at");
    if (!candidateId || !invalidAt) return undefined;
    return { kind: "invalidated", candidateId, invalidAt, seq: event.seq };
  }
  return undefined;
}

/** A duplicate creation states the candidate again: an invalidated one is current again. */
function reopen(candidate: CandidateState): void {
  candidate.invalidatedAt = null;
  candidate.invalidatedSeq = null;
}

function close(candidate: CandidateState, step: { invalidAt: string; seq: number }): void {
  candidate.invalidatedAt = step.invalidAt;
  candidate.invalidatedSeq = step.seq;
}

/**
 * Replays the consolidation events of a session: the candidates are the candidate fold over the
 * whole log; the counts the status document reports are tallied beside it.
 */
export function replayConsolidation(events: readonly EventRecord[]): ConsolidationReplay {
  const candidates = continueConsolidationCandidates([], events);
  const rolledBackTargets = new Set<string>();
  let reviewCount = 0;
  let duplicateCandidateCount = 0;
  let rollbackCount = 0;
  for (const event of events) {
    const step = consolidationStepOf(event);
    if (step?.kind === "created") {
      // The first creation of an id made the candidate; any other one is a duplicate.
      const first = candidates.get(step.candidate.candidateId)!;
      if (first.createdSeq !== event.seq || first.createdHash !== event.hash) duplicateCandidateCount++;
    } else if (step?.kind === "rolled_back") {
      rolledBackTargets.add(step.target);
      rollbackCount++;
    }
  }
  // A review counts when its candidate was known, which is when the fold kept it.
  for (const candidate of candidates.values()) reviewCount += candidate.reviews.length;
  return { candidates, reviewCount, duplicateCandidateCount, rollbackCount, rolledBackTargets };
}

/**
 * The candidates of a log whose first events gave `base` (as the read model stores them),
 * continued over the remaining events (`tail`): equal to the candidates of the whole log, in
 * creation order, reviews and their rollback marks included. `base` is not modified; a candidate
 * the tail changes is copied.
 *
 * The stored candidates are enough state: their reviews carry seq, hash and rollback mark, so a
 * tail rollback of a base review is marked here. A base rollback cannot target a tail review: a
 * tail event's hash covers, through `prev_hash`, the base rollback itself.
 *
 * @example
 * continueConsolidationCandidates(replayConsolidation(events.slice(0, k)).candidates, events.slice(k))
 */
export function continueConsolidationCandidates(base: Iterable<readonly [string, CandidateState]>, tail: readonly EventRecord[]): Map<string, CandidateState> {
  const candidates = new Map<string, CandidateState>(base);
  const copied = new Set<string>();
  const own = (candidate: CandidateState): CandidateState => {
    if (copied.has(candidate.candidateId)) return candidate;
    const copy = { ...candidate, reviews: candidate.reviews.map((review) => ({ ...review })) };
    copied.add(copy.candidateId);
    // Setting an existing key keeps its position: creation order is unchanged.
    candidates.set(copy.candidateId, copy);
    return copy;
  };
  const tailTargets = new Set<string>();
  for (const event of tail) {
    const step = consolidationStepOf(event);
    if (step === undefined) continue;
    if (step.kind === "created") {
      const existing = candidates.get(step.candidate.candidateId);
      if (existing !== undefined) {
        if (existing.invalidatedAt !== null) reopen(own(existing));
        continue;
      }
      candidates.set(step.candidate.candidateId, step.candidate);
      copied.add(step.candidate.candidateId);
    } else if (step.kind === "reviewed") {
      const candidate = candidates.get(step.candidateId);
      if (candidate !== undefined) own(candidate).reviews.push(step.review);
    } else if (step.kind === "invalidated") {
      const candidate = candidates.get(step.candidateId);
      if (candidate === undefined) continue;
      close(own(candidate), step);
    } else {
      tailTargets.add(step.target);
    }
  }
  if (tailTargets.size === 0) return candidates;
  for (const candidate of [...candidates.values()]) {
    if (!candidate.reviews.some((review) => !review.rolledBack && tailTargets.has(refKey(review.seq, review.hash)))) continue;
    for (const review of own(candidate).reviews) if (tailTargets.has(refKey(review.seq, review.hash))) review.rolledBack = true;
  }
  return candidates;
}

/** The consolidation candidates as a session fold, in creation order. */
export const consolidationCandidatesFold: SessionFold<ReadonlyMap<string, CandidateState>> = {
  name: "consolidation_candidates",
  empty: () => new Map(),
  apply: (base, tail) => continueConsolidationCandidates(base, tail.events),
  readsEvent: (event) => consolidationStepOf(event) !== undefined,
};

/** When the candidate's validity window closed: its creation payload's `valid_to`, else its invalidation's `invalid_at`. */
export function candidateValidTo(candidate: CandidateState): string | null {
  return candidate.validTo ?? candidate.invalidatedAt;
}

/** Marked stale by its creation payload, or invalidated (the projection marks that version stale). */
export function isCandidateStale(candidate: CandidateState): boolean {
  return candidate.stale || candidate.invalidatedAt !== null;
}

/** Open validity window: not stale, not superseded, not closed, not invalidated. */
export function isCandidateCurrent(candidate: CandidateState): boolean {
  return !isCandidateStale(candidate) && candidate.supersededBy === null && candidateValidTo(candidate) === null;
}

function candidateJson(candidate: CandidateState): { [key: string]: PlainJson } {
  const out: { [key: string]: PlainJson } = {
    candidate_id: candidate.candidateId,
    candidate_type: candidate.candidateType,
    ...candidateStanding(candidate),
    created_seq: candidate.createdSeq,
    created_hash: candidate.createdHash,
  };
  if (isCandidateStale(candidate)) out.stale = true;
  if (candidate.supersededBy !== null) out.superseded_by = candidate.supersededBy;
  const validTo = candidateValidTo(candidate);
  if (validTo !== null) out.valid_to = validTo;
  if (candidate.invalidatedSeq !== null) out.invalidated_seq = candidate.invalidatedSeq;
  // Python reports the last surviving review event, even one whose status was null.
  const lastSurviving = [...candidate.reviews].reverse().find((review) => !review.rolledBack);
  if (lastSurviving !== undefined) {
    out.reviewed_seq = lastSurviving.seq;
    out.reviewed_hash = lastSurviving.hash;
  }
  const rolledBack = candidate.reviews.filter((review) => review.rolledBack).length;
  if (rolledBack > 0) out.rolled_back_review_count = rolledBack;
  return out;
}

function sortedCounts(counts: Map<string, number>): { [key: string]: number } {
  const out: { [key: string]: number } = {};
  for (const [key, count] of [...counts].sort(([a], [b]) => compareCodePoints(a, b))) out[key] = count;
  return out;
}

function increment(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

/**
 * The `consolidation status` document.
 *
 * @example
 * consolidationStatus("default", events).pending_count
 */
export function consolidationStatus(sessionId: string, events: readonly EventRecord[]): { [key: string]: PlainJson } {
  const replay = replayConsolidation(events);
  const candidates = [...replay.candidates.values()].map(candidateJson);
  const reviewStatusCounts = new Map<string, number>();
  const authorityStatusCounts = new Map<string, number>();
  const typeCounts = new Map<string, number>();
  let staleCount = 0;
  let supersededCount = 0;
  let validToCount = 0;
  for (const candidate of candidates) {
    increment(reviewStatusCounts, String(candidate.review_status));
    increment(authorityStatusCounts, String(candidate.authority_status));
    increment(typeCounts, candidate.candidate_type === null ? "unknown" : String(candidate.candidate_type));
    if (candidate.stale === true || candidate.review_status === "stale") staleCount++;
    if (candidate.superseded_by !== undefined) supersededCount++;
    if (candidate.valid_to !== undefined) validToCount++;
  }
  return {
    session_id: sessionId,
    candidate_count: candidates.length,
    review_count: replay.reviewCount,
    duplicate_candidate_count: replay.duplicateCandidateCount,
    rollback_count: replay.rollbackCount,
    pending_count: reviewStatusCounts.get("pending") ?? 0,
    accepted_count: reviewStatusCounts.get("accepted") ?? 0,
    rejected_count: reviewStatusCounts.get("rejected") ?? 0,
    deferred_count: reviewStatusCounts.get("deferred") ?? 0,
    conflicted_count: reviewStatusCounts.get("conflicted") ?? 0,
    stale_count: staleCount,
    superseded_count: supersededCount,
    valid_to_count: validToCount,
    review_status_counts: sortedCounts(reviewStatusCounts),
    authority_status_counts: sortedCounts(authorityStatusCounts),
    candidate_type_counts: sortedCounts(typeCounts),
    // Candidates are created in log order, so this is already sorted by created_seq.
    candidates,
  };
}

/** The one-line text rendering of a status document. */
export function statusLine(status: { [key: string]: PlainJson }): string {
  return `Consolidation status for ${status.session_id}: pending=${status.pending_count}, accepted=${status.accepted_count}, ` +
    `rejected=${status.rejected_count}, deferred=${status.deferred_count}, conflicted=${status.conflicted_count}`;
}
