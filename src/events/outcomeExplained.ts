/**
 * The only causal producer (DESIGN §7; reference §3.3, Python `inference.py`): an explicit
 * `outcome.explained` event becomes a `causal.edge.generated` by actor `zaxy-causal`, method
 * `explicit_outcome_explanation_v1`. Nothing is guessed: the payload must name the cause and the
 * effect, a relation of the taxonomy, a numeric confidence in [0, 1], and cite evidence by seq
 * and 64-hex hash; if anything is missing or malformed, no edge is produced.
 *
 * Accepted payload (read the way Python reads it: text fields trimmed, a seq may be an integer
 * string):
 *   {cause: {name, entity_type}, effect: {name, entity_type}, relation_type: "caused",
 *    confidence: 0.8, evidence: {source_event_seq: 3, source_event_hash: "<64 hex>", reason?}}
 */
import type { EventRecord } from "../eventloom/envelope.ts";
import { eventHash, integer, object, text, unitNumber } from "./payload.ts";
import type { GeneratedEvent } from "./generatedEvent.ts";
import type { JsonValue } from "../canonical/mod.ts";
import { buildCausalEdgeEvent, causalEdgeEventType } from "./causalEdge.ts";
import { causalRelationTypeList, isCausalRelationType } from "./causalTaxonomy.ts";

export const outcomeExplainedEventType = "outcome.explained";
export const causalActor = "zaxy-causal";
export const outcomeExplanationMethod = "explicit_outcome_explanation_v1";
export const outcomeExplanationReason = "outcome.explained explicitly cited Eventloom evidence";

function entityRef(value: JsonValue | undefined): { name: string; entity_type: string } | undefined {
  const mapping = object(value);
  if (mapping === undefined) return undefined;
  const name = text(mapping.get("name"));
  const entityType = text(mapping.get("entity_type"));
  return name === undefined || entityType === undefined ? undefined : { name, entity_type: entityType };
}

/**
 * The causal edge an `outcome.explained` event states, or undefined when it does not cite
 * valid evidence (or is not an `outcome.explained`).
 */
export function outcomeExplainedCausalEdge(record: EventRecord): GeneratedEvent | undefined {
  if (record.type !== outcomeExplainedEventType) return undefined;
  const p = record.payload;
  const source = entityRef(p.get("cause"));
  const target = entityRef(p.get("effect"));
  const relationType = text(p.get("relation_type"));
  const confidence = unitNumber(p.get("confidence"));
  const evidence = object(p.get("evidence"));
  if (evidence === undefined) return undefined;
  const seq = integer(evidence.get("source_event_seq"));
  const hash = eventHash(evidence.get("source_event_hash"));
  if (
    source === undefined || target === undefined || !isCausalRelationType(relationType) || confidence === undefined ||
    seq === undefined || seq < 1 || hash === undefined
  ) {
    return undefined;
  }
  try {
    return buildCausalEdgeEvent({
      actor: causalActor,
      sessionId: record.thread,
      source,
      target,
      relationType,
      confidence,
      method: outcomeExplanationMethod,
      evidence: { source_event_seq: seq, source_event_hash: hash, reason: text(evidence.get("reason")) ?? outcomeExplanationReason },
    });
  } catch {
    // The builder refuses what the checks above let through only for an empty thread; a
    // refused edge is simply not produced, as in Python.
    return undefined;
  }
}

/**
 * Why an `outcome.explained` event produces no causal edge, in words a user can act on (the
 * append then says so in `warnings`), or undefined when it produces one.
 */
export function outcomeExplainedProblem(record: EventRecord): string | undefined {
  if (record.type !== outcomeExplainedEventType) return undefined;
  const p = record.payload;
  const problems: string[] = [];
  if (entityRef(p.get("cause")) === undefined) problems.push("cause must be {name, entity_type}");
  if (entityRef(p.get("effect")) === undefined) problems.push("effect must be {name, entity_type}");
  const relationType = text(p.get("relation_type"));
  if (!isCausalRelationType(relationType)) {
    problems.push(`relation_type ${relationType === undefined ? "is missing" : `${JSON.stringify(relationType)} is not one of the taxonomy`} (${causalRelationTypeList.join(", ")})`);
  }
  if (unitNumber(p.get("confidence")) === undefined) problems.push("confidence must be a number from 0 to 1");
  const evidence = object(p.get("evidence"));
  if (evidence === undefined) problems.push("evidence must be {source_event_seq, source_event_hash} citing the event that explains it");
  else {
    const seq = integer(evidence.get("source_event_seq"));
    if (seq === undefined || seq < 1) problems.push("evidence.source_event_seq must be an event seq (integer >= 1)");
    if (eventHash(evidence.get("source_event_hash")) === undefined) problems.push("evidence.source_event_hash must be the cited event's 64-hex hash");
  }
  if (problems.length === 0) return outcomeExplainedCausalEdge(record) === undefined ? "the edge could not be built" : undefined;
  return problems.join("; ");
}

/** Events that must never produce further events (so generation cannot feed on itself). */
export function isCausalDerived(record: EventRecord): boolean {
  return record.actor === causalActor || record.type === causalEdgeEventType;
}
