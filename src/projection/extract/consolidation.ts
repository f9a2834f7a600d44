/**
 * Consolidation candidates: cited, review-pending proposals to merge memories. They never gain
 * authority here. The candidate's graph version is the one its creation event states (title,
 * summary, citing the creation), with the standing it has when created: `pending`, whatever the
 * payload declares (`candidateStanding`). A review is its own entity linked to the candidate; it
 * does not restate the candidate, so the candidate keeps its title, summary and citation, and its
 * current review status is read from the replay (folds/consolidationStatus.ts), which retrieval
 * puts in each candidate context's metadata.
 */
import type { EventRecord } from "../../eventloom/envelope.ts";
import { candidateStanding } from "../../events/candidateStanding.ts";
import { edge, entity, type Extracted, extracted, type Extractor, MalformedPayload, nonAuthoritative, ref } from "./build.ts";
import { citationProperties, strictText, unitNumber } from "../../events/payload.ts";

function requiredText(record: EventRecord, key: string): string {
  const value = strictText(record.payload.get(key));
  if (value === undefined) throw new MalformedPayload(`${record.type} needs a non-empty ${key}`);
  return value;
}

function candidateCreated(record: EventRecord): Extracted {
  const p = record.payload;
  const candidateId = requiredText(record, "candidate_id");
  const candidateType = requiredText(record, "candidate_type");
  if (!candidateId.startsWith(`consolidation:${candidateType}:`)) throw new MalformedPayload("candidate_id must match candidate_type");
  const citations = citationProperties(p.get("source_events"));
  if (citations.source_event_count === 0) throw new MalformedPayload("a consolidation candidate must cite its source events");
  const purpose = strictText(p.get("purpose"));
  // A candidate the log marks stale or superseded is projected closed (graphFold.ts).
  const stale = p.get("stale") === true;
  const supersededBy = strictText(p.get("superseded_by"));
  const candidate = entity(record, candidateId, "consolidation_candidate", requiredText(record, "summary"), {
    candidate_type: candidateType,
    title: requiredText(record, "title"),
    ...(unitNumber(p.get("confidence")) === undefined ? {} : { confidence: unitNumber(p.get("confidence"))! }),
    method: strictText(p.get("method")) ?? "unknown",
    ...candidateStanding(null),
    ...citations,
    ...(purpose === undefined ? {} : { purpose }),
    ...(stale ? { stale } : {}),
    ...(supersededBy === undefined ? {} : { superseded_by: supersededBy }),
  });
  return extracted([candidate]);
}

/**
 * The review is its own entity with an edge to the candidate. The candidate gets no new version:
 * one carrying only the review's status would replace its title and summary and cite the review
 * instead of the creation (an edge endpoint lands on the candidate's latest version).
 */
function candidateReviewed(record: EventRecord): Extracted {
  const candidateId = requiredText(record, "candidate_id");
  const status = requiredText(record, "status");
  const rationale = requiredText(record, "rationale");
  const review = entity(record, `consolidation_review:${candidateId}:${record.seq}`, "consolidation_review", rationale, {
    candidate_id: candidateId,
    status,
    authority_status: nonAuthoritative,
    rationale,
  });
  return extracted([review], [edge(record, review, ref(candidateId, "consolidation_candidate"), "reviewed_consolidation_candidate")]);
}

export const consolidationExtractors: Record<string, Extractor> = {
  "consolidation.candidate.created": candidateCreated,
  "consolidation.candidate.reviewed": candidateReviewed,
};
