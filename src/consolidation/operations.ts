/**
 * The consolidation operations the CLI and MCP share: each reads the session's verified log
 * (an unknown session is exit 2, a log that fails verification exit 1 and is never used),
 * validates everything, and only then appends — one batch, all or nothing — through
 * `recordEvents`. A refused request writes nothing.
 */
import { inputError } from "../errors.ts";
import { appendedEventJson, type EventRecord, sessionLogPath } from "../eventloom/mod.ts";
import { recordEvents } from "../recording/record.ts";
import type { PlainJson } from "../projection/types.ts";
import {
  type CandidateInput,
  candidateCreatedItem,
  candidatePayloadJson,
  candidateReviewedItem,
  consolidationCandidatePayload,
  consolidationReviewPayload,
  legacyConsolidationCandidateId,
  requireText,
  validateConsolidationCandidateId,
} from "./candidate.ts";
import { generateConsolidationProposals, proposalPayload } from "./proposals.ts";
import { requireWindowSize, selectConsolidationSegments, threadsSeen } from "./segments.ts";
import { consolidationStatus, replayConsolidation } from "../folds/consolidationStatus.ts";

export { proposeActorDefault, proposeFromLogActorDefault, reviewActorDefault } from "./actors.ts";
import { proposeActorDefault, proposeFromLogActorDefault, reviewActorDefault } from "./actors.ts";

/** The session's verified events (unknown session: exit 2; broken chain: exit 1). */
export async function sessionEvents(root: string, sessionId: string): Promise<EventRecord[]> {
  sessionLogPath(root, sessionId, "read");
  const { readVerifiedLog } = await import("../projection/projector.ts");
  return (await readVerifiedLog(root, sessionId)).events;
}

/** Appends one manual candidate; returns where it landed and the payload written. */
export async function proposeCandidate(root: string, sessionId: string, input: CandidateInput, actor: string = proposeActorDefault): Promise<{ [key: string]: unknown }> {
  const payload = consolidationCandidatePayload(input);
  requireText(actor, "actor");
  const events = await sessionEvents(root, sessionId);
  for (const [index, ref] of input.sourceEvents.entries()) {
    const cited = events[ref.seq - 1];
    if (cited === undefined || cited.hash !== ref.hash) {
      throw inputError("uncited_source_event", `source_events[${index}] (${ref.seq}:${ref.hash.slice(0, 12)}…) is not an event of session ${JSON.stringify(sessionId)}`, {
        field: `source_events[${index}]`,
        expected: "the seq and hash of a sealed event of this session",
      });
    }
  }
  const { events: appended } = await recordEvents(root, sessionId, [candidateCreatedItem(actor, payload)]);
  return {
    session_id: sessionId,
    ...appendedEventJson(appended[0]),
    candidate_id: payload.candidate_id,
    candidate_type: payload.candidate_type,
    review_status: payload.review_status,
    authority_status: payload.authority_status,
    // The payload as written (confidence stays a float, e.g. 1.0).
    payload: candidatePayloadJson(payload),
  };
}

export interface ProposeFromLogOptions {
  windowSize: number;
  purpose?: string;
  actor?: string;
}

/**
 * Proposes candidates from the session's actionable events. Idempotent: candidate ids already
 * created in the log (under the 16-hex id, or the 24-hex id earlier builds gave the same
 * candidate) are skipped and reported as recorded; the new ones are appended in one batch.
 * Output keys are Python's: `session_id, segment_count, candidate_count,
 * skipped_existing_count, skipped_existing_candidate_ids, events[{event_type, seq, hash,
 * candidate_id, candidate_type}]`, plus `threads_seen`: the threads the session's events carry,
 * which may differ from `session_id` in a Python log (all of them are consolidated).
 */
export async function proposeFromLog(root: string, sessionId: string, options: ProposeFromLogOptions): Promise<{ [key: string]: PlainJson }> {
  const windowSize = requireWindowSize(options.windowSize);
  const purpose = options.purpose === undefined ? undefined : requireText(options.purpose, "purpose");
  const actor = requireText(options.actor ?? proposeFromLogActorDefault, "actor");
  const events = await sessionEvents(root, sessionId);
  const segments = selectConsolidationSegments(events, sessionId, windowSize);
  const existing = new Set(replayConsolidation(events).candidates.keys());
  const skipped: string[] = [];
  const payloads: { [key: string]: PlainJson }[] = [];
  for (const proposal of generateConsolidationProposals(segments, purpose)) {
    const payload = proposalPayload(proposal);
    const candidateId = payload.candidate_id as string;
    // A candidate an earlier build recorded under its 24-hex id is the same candidate.
    const legacyId = legacyConsolidationCandidateId(proposal.candidateType, proposal.title, proposal.sourceEvents);
    const recorded = existing.has(candidateId) ? candidateId : existing.has(legacyId) ? legacyId : undefined;
    if (recorded !== undefined) {
      skipped.push(recorded);
      continue;
    }
    existing.add(candidateId);
    payloads.push(payload);
  }
  const appended = payloads.length === 0 ? [] : (await recordEvents(root, sessionId, payloads.map((payload) => candidateCreatedItem(actor, payload)))).events;
  return {
    session_id: sessionId,
    segment_count: segments.length,
    candidate_count: appended.length,
    skipped_existing_count: skipped.length,
    skipped_existing_candidate_ids: skipped,
    threads_seen: threadsSeen(events),
    events: appended.map((event, i) => ({
      event_type: event.event_type,
      seq: event.seq,
      hash: event.hash,
      candidate_id: payloads[i].candidate_id,
      candidate_type: payloads[i].candidate_type,
    })),
  };
}

export interface ReviewOptions {
  candidateId: string;
  status: string;
  rationale: string;
  actor?: string;
}

/** Records a review of a candidate created in this session; changes only its review status. */
export async function reviewCandidate(root: string, sessionId: string, options: ReviewOptions): Promise<{ [key: string]: PlainJson }> {
  const payload = consolidationReviewPayload(options);
  const actor = requireText(options.actor ?? reviewActorDefault, "actor");
  const events = await sessionEvents(root, sessionId);
  const replay = replayConsolidation(events);
  const candidate = replay.candidates.get(options.candidateId);
  if (candidate === undefined) {
    throw inputError("unknown_candidate", `Unknown consolidation candidate ${JSON.stringify(options.candidateId)} in session ${JSON.stringify(sessionId)}`, {
      field: "candidate_id",
      expected: "the id of a candidate created in this session",
      hint: "list candidates with `zaxy memory consolidation status --json`",
    });
  }
  const { events: appended } = await recordEvents(root, sessionId, [candidateReviewedItem(actor, payload)]);
  return {
    session_id: sessionId,
    ...appendedEventJson(appended[0]),
    candidate_id: options.candidateId,
    candidate_type: validateConsolidationCandidateId(options.candidateId),
    status: payload.status,
    authority_status: payload.authority_status,
    payload,
  };
}

/** The status document by replay of the verified log. */
export async function readConsolidationStatus(root: string, sessionId: string): Promise<{ [key: string]: PlainJson }> {
  return consolidationStatus(sessionId, await sessionEvents(root, sessionId));
}

