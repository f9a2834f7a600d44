/**
 * Procedural skills: a `skill:<id>` entity and one `skill:<id>:v<version>` entity per version,
 * whose `status` follows its lifecycle (proposed, validated, revised, deprecated, contradicted).
 * Applications and outcomes are their own per-event entities that point at the version.
 */
import type { EventRecord } from "../../eventloom/envelope.ts";
import { actorEntity, actorRef, edge, entity, type Extracted, extracted, type Extractor, MalformedPayload, ref } from "./build.ts";
import { boundedFloat, compact, joinSummary, stringList, text } from "../../events/payload.ts";

function skillId(record: EventRecord): string {
  const id = text(record.payload.get("skill_id"));
  if (id === undefined) throw new MalformedPayload(`${record.type} needs a skill_id`);
  return id;
}

function skillVersion(record: EventRecord): string {
  return text(record.payload.get("version")) ?? "1";
}

function versionEntity(record: EventRecord, id: string, version: string, status: string) {
  const p = record.payload;
  return entity(
    record,
    `skill:${id}:v${version}`,
    "skill_version",
    text(p.get("summary")) ?? null,
    compact({
      skill_id: id,
      version,
      procedure: stringList(p.get("procedure")),
      applicability: stringList(p.get("applicability")),
      citations: stringList(p.get("citations")),
      failure_modes: stringList(p.get("failure_modes")),
      rollback: text(p.get("rollback")),
      contradiction_reason: text(p.get("contradiction_reason")),
      evidence: stringList(p.get("evidence")),
      status,
    }),
  );
}

function skillLifecycle(status: string): Extractor {
  return (record) => {
    const id = skillId(record);
    const version = versionEntity(record, id, skillVersion(record), status);
    const skill = ref(`skill:${id}`, "skill");
    const entities = [version, actorEntity(record)];
    // The skill's display name is its summary; a later event without a name must not blank
    // it out, so the skill entity is emitted when it is created or renamed.
    const name = text(record.payload.get("name"));
    if (name !== undefined || status === "proposed") {
      entities.unshift(entity(record, skill.name, "skill", name ?? id, { skill_id: id }));
    }
    return extracted(entities, [edge(record, skill, version, "has_version"), edge(record, actorRef(record), version, `${status}_skill`)]);
  };
}

function skillApplied(record: EventRecord): Extracted {
  const p = record.payload;
  const id = skillId(record);
  const version = skillVersion(record);
  const versionRef = ref(`skill:${id}:v${version}`, "skill_version");
  const application = entity(
    record,
    `${versionRef.name}:application:${record.seq}`,
    "skill_application",
    joinSummary(p.get("task"), p.get("summary")),
    compact({
      skill_id: id,
      version,
      task: text(p.get("task")),
      task_id: text(p.get("task_id")) ?? text(p.get("taskId")),
      context: text(p.get("context")),
    }),
  );
  return extracted([application], [edge(record, versionRef, application, "applied_to_task")]);
}

function skillOutcomeRecorded(record: EventRecord): Extracted {
  const p = record.payload;
  const id = skillId(record);
  const version = skillVersion(record);
  const versionRef = ref(`skill:${id}:v${version}`, "skill_version");
  const outcome = entity(
    record,
    `${versionRef.name}:outcome:${record.seq}`,
    "skill_outcome",
    joinSummary(p.get("task"), p.get("feedback")),
    compact({
      skill_id: id,
      version,
      task: text(p.get("task")),
      success_score: boundedFloat(p.get("success_score")),
      feedback: text(p.get("feedback")),
      evidence: stringList(p.get("evidence")),
    }),
  );
  return extracted([outcome], [edge(record, versionRef, outcome, "recorded_outcome")]);
}

export const skillExtractors: Record<string, Extractor> = {
  "skill.proposed": skillLifecycle("proposed"),
  "skill.validated": skillLifecycle("validated"),
  "skill.revised": skillLifecycle("revised"),
  "skill.deprecated": skillLifecycle("deprecated"),
  "skill.contradicted": skillLifecycle("contradicted"),
  "skill.applied": skillApplied,
  "skill.outcome_recorded": skillOutcomeRecorded,
};
