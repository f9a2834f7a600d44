/**
 * Conservative producers of inferred-edge events (DESIGN §4; Python `inference.py`). They look
 * at one sealed event and return the events to append after it, by actor `zaxy-inference`.
 * Evidence first: nothing is produced unless the source event explicitly cites what the edge
 * claims (a decision's seq and hash, the contradicted inference's seq and hash). The payloads are
 * what Python writes, key for key and in the same order, so both implementations append the same
 * facts; they are projected later through the ordinary extractors.
 */
import type { JsonObject, JsonValue } from "../canonical/mod.ts";
import { isCausalDerived, outcomeExplainedCausalEdge } from "../events/outcomeExplained.ts";
import type { EventRecord } from "../eventloom/envelope.ts";
import { eventHash, firstTruthy, integer, object, text } from "../events/payload.ts";
import type { GeneratedEvent, PlainObject } from "../events/generatedEvent.ts";

export const inferenceActor = "zaxy-inference";
const taskDecisionConfidence = 0.86;
const taskDecisionMethod = "task_completed_decision_citation_v1";
const taskDecisionReason = "task.completed explicitly cited a decision Eventloom event";
const retractionMethod = "contradicting_evidence_retraction_v1";

/** A positive integer from an int or integer string (Python `_positive_int`). */
function positive(value: JsonValue | undefined): number | undefined {
  const n = integer(value);
  return n !== undefined && n > 0 ? n : undefined;
}

/** `{name, entity_type[, summary]}` of a payload entity reference, or undefined. */
function entityRef(value: JsonValue | undefined): PlainObject | undefined {
  const mapping = object(value);
  if (mapping === undefined) return undefined;
  const name = text(mapping.get("name"));
  const entityType = text(mapping.get("entity_type"));
  if (name === undefined || entityType === undefined) return undefined;
  const out: PlainObject = { name, entity_type: entityType };
  const summary = text(mapping.get("summary"));
  if (summary !== undefined) out.summary = summary;
  return out;
}

function taskCompletedDecision(record: EventRecord): GeneratedEvent | undefined {
  const p: JsonObject = record.payload;
  const task = text(firstTruthy(p, "taskId", "task_id", "task"));
  const decision = text(firstTruthy(p, "decision", "decision_name"));
  const decisionSeq = positive(p.get("decision_event_seq"));
  const decisionHash = eventHash(p.get("decision_event_hash"));
  if (task === undefined || decision === undefined || decisionSeq === undefined || decisionHash === undefined) return undefined;
  const source: PlainObject = { name: task, entity_type: "task" };
  const summary = text(p.get("summary"));
  if (summary !== undefined) source.summary = summary;
  return {
    type: "inference.edge.generated",
    actor: inferenceActor,
    payload: {
      source,
      target: { name: decision, entity_type: "decision" },
      relation_type: "likely_implemented_decision",
      confidence: taskDecisionConfidence,
      inference_method: taskDecisionMethod,
      evidence: {
        source_event_seq: record.seq,
        source_event_hash: record.hash,
        decision_event_seq: decisionSeq,
        decision_event_hash: decisionHash,
        reason: taskDecisionReason,
      },
    },
  };
}

function contradictionRetraction(record: EventRecord): GeneratedEvent | undefined {
  const p = record.payload;
  const source = entityRef(p.get("source"));
  const target = entityRef(p.get("target"));
  const relationType = text(p.get("relation_type"));
  const validFrom = text(p.get("valid_from"));
  const originalSeq = positive(p.get("original_event_seq"));
  const originalHash = eventHash(p.get("original_event_hash"));
  const reason = text(p.get("reason"));
  if (
    source === undefined || target === undefined || relationType === undefined || validFrom === undefined ||
    originalSeq === undefined || originalHash === undefined || reason === undefined
  ) {
    return undefined;
  }
  return {
    type: "inference.edge.retracted",
    actor: inferenceActor,
    payload: {
      source,
      target,
      relation_type: relationType,
      valid_from: validFrom,
      valid_to: record.timestamp,
      // Python writes 0.0; a caller converting with `fromJs` gets the int 0, which every reader
      // (ours and Python's) accepts as the same confidence.
      confidence: 0,
      inference_method: retractionMethod,
      evidence: {
        source_event_seq: record.seq,
        source_event_hash: record.hash,
        original_event_seq: originalSeq,
        original_event_hash: originalHash,
        reason,
      },
    },
  };
}

/**
 * The events to append because of `record`: an `inference.edge.generated` for a
 * `task.completed` that cites its decision's event, an `inference.edge.retracted` for an
 * `inference.edge.contradicted`, a `causal.edge.generated` for an `outcome.explained` that cites
 * its evidence (src/causal), else nothing. Events by `zaxy-inference` or `zaxy-causal` (and
 * inferred and causal edges themselves) never generate more, so generation cannot feed on itself.
 *
 * @example
 * ```ts
 * generatedEvents(taskCompleted)[0].payload.relation_type; // "likely_implemented_decision"
 * ```
 */
export function generatedEvents(record: EventRecord): GeneratedEvent[] {
  if (record.actor === inferenceActor || record.type === "inference.edge.generated" || isCausalDerived(record)) return [];
  let generated: GeneratedEvent | undefined;
  if (record.type === "task.completed") generated = taskCompletedDecision(record);
  else if (record.type === "inference.edge.contradicted") generated = contradictionRetraction(record);
  else generated = outcomeExplainedCausalEdge(record);
  return generated === undefined ? [] : [generated];
}
