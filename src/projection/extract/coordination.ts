/**
 * Multi-agent coordination: a mission, its workers, their assignments and findings, the
 * coordinator's reviews, promotions, conflicts, decisions and the final handoff. Each event
 * emits the thing it creates; the mission, worker or finding it hangs off is only referenced.
 */
import type { EventRecord } from "../../eventloom/envelope.ts";
import type { ExtractedEdge } from "../types.ts";
import { actorEntity, actorRef, edge, entity, type Extracted, extracted, type Extractor, ref } from "./build.ts";
import { boundedFloat, compact, firstText, joinSummary, plain, stringList, text } from "../../events/payload.ts";

function missionId(record: EventRecord): string {
  return firstText(record.payload, "mission_id", "parent_session_id") ?? (record.thread.trim() || "default");
}

function workerId(record: EventRecord): string {
  return firstText(record.payload, "worker_id", "worker_session_id") ?? "worker";
}

function findingId(record: EventRecord): string {
  return text(record.payload.get("finding_id")) ?? `${workerId(record)}:finding:${record.seq}`;
}

function missionCreated(record: EventRecord): Extracted {
  const mission = entity(record, missionId(record), "mission", text(record.payload.get("objective")) ?? null, {
    status: text(record.payload.get("status")) ?? "active",
  });
  return extracted([mission, actorEntity(record)], [edge(record, actorRef(record), mission, "started_mission")]);
}

function workerCreated(record: EventRecord): Extracted {
  const mission = missionId(record);
  const worker = entity(record, workerId(record), "worker", null, { mission_id: mission, status: text(record.payload.get("status")) ?? "active" });
  return extracted([worker], [edge(record, ref(mission, "mission"), worker, "mission_has_worker")]);
}

function assignmentCreated(record: EventRecord): Extracted {
  const mission = missionId(record);
  const worker = workerId(record);
  const assignment = entity(
    record,
    text(record.payload.get("assignment_id")) ?? `${mission}:${worker}:assignment:${record.seq}`,
    "assignment",
    text(record.payload.get("assignment")) ?? null,
    { status: text(record.payload.get("status")) ?? "assigned", mission_id: mission, worker_id: worker },
  );
  return extracted([assignment], [edge(record, ref(worker, "worker"), assignment, "worker_has_assignment")]);
}

function findingReported(record: EventRecord): Extracted {
  const p = record.payload;
  const worker = workerId(record);
  const evidence = p.get("evidence");
  const finding = entity(
    record,
    findingId(record),
    "finding",
    text(p.get("summary")) ?? null,
    compact({
      status: text(p.get("status")) ?? "pending",
      mission_id: missionId(record),
      worker_id: worker,
      evidence_count: Array.isArray(evidence) ? evidence.length : 0,
      confidence: boundedFloat(p.get("confidence")),
      claim_key: text(p.get("claim_key")),
      claim_value: text(p.get("claim_value")),
    }),
  );
  return extracted([finding], [edge(record, ref(worker, "worker"), finding, "worker_reported_finding")]);
}

function findingReviewed(record: EventRecord): Extracted {
  const mission = missionId(record);
  const finding = findingId(record);
  const status = text(record.payload.get("status")) ?? "reviewed";
  const review = entity(record, `${mission}:${finding}:review:${record.seq}`, "finding_review", joinSummary(status, record.payload.get("rationale")), {
    status,
    mission_id: mission,
    worker_id: workerId(record),
  });
  const findingRef = ref(finding, "finding");
  return extracted([review, actorEntity(record)], [
    edge(record, actorRef(record), findingRef, "coordinator_reviewed_finding"),
    edge(record, review, findingRef, "reviews_finding"),
  ]);
}

function findingPromoted(record: EventRecord): Extracted {
  const p = record.payload;
  const mission = missionId(record);
  const finding = findingId(record);
  const sourceSeq = p.get("source_event_seq");
  const promotion = entity(
    record,
    `${mission}:${finding}:promotion:${record.seq}`,
    "promotion",
    text(p.get("summary")) ?? null,
    compact({
      status: text(p.get("status")) ?? "accepted",
      mission_id: mission,
      worker_id: text(p.get("worker_id")),
      finding_id: finding,
      source_event_seq: sourceSeq === undefined ? undefined : plain(sourceSeq),
      source_event_hash: text(p.get("source_event_hash")),
      claim_key: text(p.get("claim_key")),
      claim_value: text(p.get("claim_value")),
    }),
  );
  return extracted([promotion], [
    edge(record, ref(finding, "finding"), promotion, "finding_promoted_to_parent"),
    edge(record, ref(mission, "mission"), promotion, "mission_has_promotion"),
  ]);
}

function conflictDetected(record: EventRecord): Extracted {
  const p = record.payload;
  const mission = missionId(record);
  const findings = stringList(p.get("finding_ids"));
  const conflict = entity(
    record,
    text(p.get("conflict_id")) ?? `${mission}:conflict:${record.seq}`,
    "conflict",
    text(p.get("summary")) ?? null,
    compact({
      mission_id: mission,
      claim_key: text(p.get("claim_key")),
      conflict_type: text(p.get("conflict_type")) ?? "exact_claim",
      reason: text(p.get("reason")),
      source_reference: text(p.get("source_reference")),
      finding_count: findings.length,
    }),
  );
  const edges: ExtractedEdge[] = [edge(record, ref(mission, "mission"), conflict, "mission_has_conflict")];
  for (const finding of findings) edges.push(edge(record, ref(finding, "finding"), conflict, "finding_conflicts_with"));
  return extracted([conflict], edges);
}

function decisionRecorded(record: EventRecord): Extracted {
  const mission = missionId(record);
  const decision = entity(
    record,
    text(record.payload.get("decision_id")) ?? `${mission}:decision:${record.seq}`,
    "decision",
    joinSummary(record.payload.get("decision"), record.payload.get("rationale")),
    { mission_id: mission },
  );
  return extracted([decision], [edge(record, ref(mission, "mission"), decision, "mission_has_decision")]);
}

function handoffCreated(record: EventRecord): Extracted {
  const p = record.payload;
  const mission = missionId(record);
  const handoff = entity(
    record,
    text(p.get("handoff_id")) ?? `${mission}:handoff:${record.seq}`,
    "handoff",
    joinSummary(p.get("summary"), p.get("next_steps"), p.get("risks")),
    { mission_id: mission, status: "created" },
  );
  return extracted([handoff], [edge(record, ref(mission, "mission"), handoff, "mission_has_handoff")]);
}

export const coordinationExtractors: Record<string, Extractor> = {
  "coordination.mission.created": missionCreated,
  "coordination.worker.created": workerCreated,
  "coordination.assignment.created": assignmentCreated,
  "coordination.finding.reported": findingReported,
  "coordination.finding.reviewed": findingReviewed,
  "coordination.finding.promoted": findingPromoted,
  "coordination.conflict.detected": conflictDetected,
  "coordination.decision.recorded": decisionRecorded,
  "coordination.handoff.created": handoffCreated,
};
