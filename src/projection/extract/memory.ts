/**
 * Memory lifecycle events: reinforcement, feedback, human corrections and rollbacks, plus the
 * model-facing activity markers. Corrections and rollbacks are cited, non-authoritative records;
 * the events they refer to are never changed.
 */
import type { JsonObject } from "../../canonical/mod.ts";
import type { EventRecord } from "../../eventloom/envelope.ts";
import type { ExtractedEntity } from "../types.ts";
import { extractFallback } from "./fallback.ts";
import { actorEntity, actorRef, edge, entity, type Extracted, extracted, type Extractor, nonAuthoritative, ref } from "./build.ts";
import { compact, firstTruthy, object, type Properties, positiveInt, retentionProperties, text } from "../../events/payload.ts";

const purposeKeys: Array<[string, string]> = [
  ["profile", "purpose_profile"],
  ["role", "purpose_role"],
  ["task", "purpose_task"],
  ["risk", "purpose_risk"],
  ["expected_action", "purpose_expected_action"],
  ["evidence_policy", "purpose_evidence_policy"],
  ["retention_policy", "purpose_retention_policy"],
];

/** Purpose and authority metadata feedback carries (Python `_feedback_purpose_properties`). */
function purposeProperties(payload: JsonObject): Properties {
  const out: Properties = {};
  const purpose = payload.get("purpose");
  const purposeObject = object(purpose);
  if (purposeObject !== undefined) {
    for (const [from, to] of purposeKeys) {
      const value = text(purposeObject.get(from));
      if (value !== undefined) out[to] = value;
    }
  } else {
    const profile = text(purpose);
    if (profile !== undefined) out.purpose_profile = profile;
  }
  for (const key of ["authority", "authority_scope", "coordination_status", "finding_id", "mission_id", "outcome", "worker_id"]) {
    const value = text(payload.get(key));
    if (value !== undefined) out[key] = value;
  }
  const stale = payload.get("stale");
  if (typeof stale === "boolean") out.stale = stale;
  return out;
}

/** The memory an event is about: `entity_name` / `entity_type`, defaulting like Python. */
function targetMemory(record: EventRecord): { name: string; entityType: string } {
  return {
    name: text(record.payload.get("entity_name")) ?? `memory:${record.seq}`,
    entityType: text(record.payload.get("entity_type")) ?? "memory",
  };
}

/**
 * A reinforcement restates the memory only when it carries a summary; otherwise it is just an
 * edge, so reinforcing a memory never blanks the summary its own event gave it.
 */
function memoryReinforced(record: EventRecord): Extracted {
  const p = record.payload;
  const target = targetMemory(record);
  const entities = [actorEntity(record)];
  const summary = text(p.get("summary"));
  if (summary !== undefined) {
    entities.unshift(
      entity(record, target.name, target.entityType, summary, {
        ...retentionProperties(p),
        ...purposeProperties(p),
        last_reinforced_at: record.timestamp,
        reinforcement_count: positiveInt(p.get("reinforcement_count"), 1),
      }),
    );
  }
  return extracted(entities, [edge(record, actorRef(record), ref(target.name, target.entityType), "reinforced_memory")]);
}

/** Feedback is its own per-event entity pointing at the memory; the memory is not rewritten. */
function memoryFeedback(record: EventRecord): Extracted {
  const p = record.payload;
  const target = targetMemory(record);
  const feedback = text(p.get("feedback")) ?? "unknown";
  const note = entity(
    record,
    `${target.entityType}:${target.name}:feedback:${record.seq}`,
    "memory_feedback",
    text(p.get("reason")) ?? `${feedback} feedback for ${target.name}`,
    compact({ ...purposeProperties(p), feedback, citation: text(p.get("citation")), last_feedback_at: record.timestamp }),
  );
  return extracted([note, actorEntity(record)], [
    edge(record, actorRef(record), note, "recorded_memory_feedback"),
    edge(record, note, ref(target.name, target.entityType), "feedback_about_memory"),
  ]);
}

/** `target_seq`, `target_hash` and `target_ref` of a `{seq, hash}` citation. */
function targetCitation(payload: JsonObject): Properties {
  const target = object(payload.get("target")) ?? new Map();
  const seq = positiveInt(target.get("seq"), 0);
  const hash = text(target.get("hash"));
  const out: Properties = {};
  if (seq > 0) out.target_seq = seq;
  if (hash !== undefined) {
    out.target_hash = hash;
    out.target_ref = `${seq}:${hash}`;
  }
  return out;
}

function authorityStatus(payload: JsonObject): string {
  return text(payload.get("authority_status")) ?? nonAuthoritative;
}

/**
 * A correction is recorded as its own `memory_correction` entity; when it names the fact it
 * corrects (`entity_name`, `entity_type`: memory_edit writes them) the fact gets a new version
 * whose summary is the corrected content, so checkout serves the correction as the current fact.
 */
function memoryCorrected(record: EventRecord): Extracted {
  const p = record.payload;
  const id = text(p.get("correction_id")) ?? `correction:${record.seq}`;
  const citation = targetCitation(p);
  const properties = compact({ correction_id: id, reason: text(p.get("reason")), authority_status: authorityStatus(p), ...citation });
  const content = text(p.get("content"));
  const correction = entity(record, id, "memory_correction", content ?? null, properties);
  const name = text(p.get("entity_name"));
  const entityType = text(p.get("entity_type"));
  if (name === undefined || entityType === undefined || content === undefined) return extracted([correction]);
  const fact = entity(record, name, entityType, content, { corrected: true, correction_id: id, ...citation });
  return extracted([correction, fact], [edge(record, correction, fact, "corrects")]);
}

function memoryRolledBack(record: EventRecord): Extracted {
  const p = record.payload;
  const id = text(p.get("rollback_id")) ?? `rollback:${record.seq}`;
  const reason = text(p.get("reason"));
  const reverts = object(p.get("reverts")) ?? new Map();
  const revertsType = text(reverts.get("event_type"));
  // A rolled-back consolidation review changes no candidate version: reviews never restate the
  // candidate (extract/consolidation.ts), and the replay returns it to its earlier status.
  const entities: ExtractedEntity[] = [];
  const properties = compact({
    rollback_id: id,
    reason,
    reverts_event_type: revertsType,
    authority_status: authorityStatus(p),
    ...targetCitation(p),
  });
  // Rolling back a correction that was still the fact's latest statement restores what the fact said before.
  const restoredName = text(reverts.get("entity_name"));
  const restoredType = text(reverts.get("entity_type"));
  if (revertsType === "memory.corrected" && restoredName !== undefined && restoredType !== undefined && reverts.has("restore_content")) {
    entities.push(entity(record, restoredName, restoredType, text(reverts.get("restore_content")) ?? null, { correction_rolled_back: true, rollback_id: id }));
  }
  entities.push(entity(record, id, "memory_rollback", reason ?? null, properties));
  return extracted(entities);
}

function memoryActivity(record: EventRecord): Extracted {
  const p = record.payload;
  const activity = text(p.get("activity")) ?? record.type.replace(/^memory\./, "").replaceAll(".", "_");
  const source = text(p.get("source")) ?? record.actor;
  const query = text(p.get("query"));
  const properties: Properties = { activity, source, session_id: record.thread, ...(query === undefined ? {} : { query }) };
  return extracted([
    entity(record, `${record.thread}:memory:${activity}:${record.seq}`, "memory_activity", `${activity} memory activity from ${source}`, properties),
  ]);
}

function memoryReminderSuggested(record: EventRecord): Extracted {
  const p = record.payload;
  const trigger = text(p.get("trigger")) ?? "unknown";
  const tool = text(p.get("recommended_tool")) ?? "memory_checkout";
  const query = text(firstTruthy(p, "query"));
  const properties: Properties = { trigger, recommended_tool: tool, session_id: record.thread, ...(query === undefined ? {} : { query }) };
  return extracted([
    entity(record, `${record.thread}:memory-reminder:${record.seq}`, "memory_reminder", `Memory reminder suggested after ${trigger}: call ${tool}`, properties),
  ]);
}

/**
 * `memory.invalidated` (memory_invalidate): a closing version of the fact, observed at
 * `invalid_at` and marked stale, so the fold ends the current version's validity there and
 * leaves the fact with no current version (graphFold's retirement rule). Nothing is removed.
 */
function memoryInvalidated(record: EventRecord): Extracted {
  const p = record.payload;
  const name = text(p.get("entity_name"));
  const entityType = text(p.get("entity_type"));
  const invalidAt = text(p.get("invalid_at"));
  if (name === undefined || entityType === undefined || invalidAt === undefined) return extractFallback(record);
  const reason = text(p.get("reason"));
  const properties: Properties = { stale: true, invalidated: true, invalid_at: invalidAt, ...(reason === undefined ? {} : { invalidation_reason: reason }) };
  const target: ExtractedEntity = { ...entity(record, name, entityType, null, properties), observedAt: invalidAt };
  return extracted([actorEntity(record), target], [edge(record, actorRef(record), ref(name, entityType), "invalidated")]);
}

export const memoryExtractors: Record<string, Extractor> = {
  "memory.reinforced": memoryReinforced,
  "memory.feedback": memoryFeedback,
  "memory.corrected": memoryCorrected,
  "memory.rolled_back": memoryRolledBack,
  "memory.invalidated": memoryInvalidated,
  // Salience bookkeeping for the reinforcement ledger; as graph entities it would leak into ranking.
  "memory.reinforcement": () => extracted([]),
  // A feeling-of-knowing prediction repeats its query: as an entity it would answer that query.
  "metacognition.fok.predicted": () => extracted([]),
  "memory.bootstrap.shown": memoryActivity,
  "memory.checkout.completed": memoryActivity,
  "memory.feedback.recorded": memoryActivity,
  "memory.reminder.suggested": memoryReminderSuggested,
};
