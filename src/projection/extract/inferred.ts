/**
 * Inferred and causal edges. These events carry only an edge between entities they name by
 * `{name, entity_type}`; the entities' content belongs to other events, so none are emitted.
 * Every edge here is `inferred` with a method and a confidence in [0, 1]. A payload that lacks
 * one of them is malformed and the event is kept as a generic entity instead.
 */
import type { JsonObject, JsonValue } from "../../canonical/mod.ts";
import { derivedEventIssues } from "../../events/derivedEventRules.ts";
import type { EventRecord } from "../../eventloom/envelope.ts";
import type { EntityRef } from "../types.ts";
import { type Extracted, extracted, type Extractor, inferredEdge, MalformedPayload, nonAuthoritative, ref } from "./build.ts";
import { confidence, object, plainObject, strictText, text, unitNumber } from "../../events/payload.ts";

function required<T>(value: T | undefined, field: string, record: EventRecord): T {
  if (value === undefined) throw new MalformedPayload(`${record.type} event ${record.seq} missing required ${field}`);
  return value;
}

function entityRef(value: JsonValue | undefined, role: string, record: EventRecord): EntityRef {
  const mapping = required(object(value), `${role} entity`, record);
  return ref(required(text(mapping.get("name")), `${role}.name`, record), required(text(mapping.get("entity_type")), `${role}.entity_type`, record));
}

function evidenceOf(payload: JsonObject) {
  const evidence = object(payload.get("evidence"));
  return evidence === undefined ? {} : plainObject(evidence);
}

/** The inferred edge a payload states, over the given validity window. */
function statedInferredEdge(record: EventRecord, validFrom: string, validTo: string | null): Extracted {
  const p = record.payload;
  return extracted([], [
    inferredEdge({
      source: entityRef(p.get("source"), "source", record),
      target: entityRef(p.get("target"), "target", record),
      relationType: required(text(p.get("relation_type")), "relation_type", record),
      validFrom,
      validTo,
      confidence: required(confidence(p.get("confidence")), "confidence in [0, 1]", record),
      inferenceMethod: required(text(p.get("inference_method")), "inference_method", record),
      evidence: evidenceOf(p),
    }),
  ]);
}

function inferenceGenerated(record: EventRecord): Extracted {
  return statedInferredEdge(record, record.timestamp, null);
}

/** A closed interval for the contradicted edge; the fold closes the matching active edge. */
function inferenceRetracted(record: EventRecord): Extracted {
  const p = record.payload;
  return statedInferredEdge(record, required(text(p.get("valid_from")), "valid_from", record), required(text(p.get("valid_to")), "valid_to", record));
}

function causalGenerated(record: EventRecord): Extracted {
  const p = record.payload;
  // The same rule append refuses by and the audits report by (events/derivedEventRules.ts): a
  // causal claim is only projected when it cites the event that justifies it.
  const issues = derivedEventIssues(record.type, p);
  if (issues.length > 0) throw new MalformedPayload(`${record.type} event ${record.seq}: ${issues.map((issue) => issue.message).join("; ")}`);
  const relation = required(text(p.get("relation_type")), "relation_type", record);
  const evidence = required(object(p.get("evidence")), "evidence", record);
  const declaredStatus = p.get("review_status");
  const reviewStatus = typeof declaredStatus === "string" ? declaredStatus : "proposed";
  return extracted([], [
    inferredEdge({
      source: entityRef(p.get("source"), "source", record),
      target: entityRef(p.get("target"), "target", record),
      relationType: `causal_${relation}`,
      validFrom: record.timestamp,
      validTo: null,
      confidence: required(unitNumber(p.get("confidence")), "numeric confidence in [0, 1]", record),
      inferenceMethod: required(strictText(p.get("causal_method")), "causal_method", record),
      evidence: { ...plainObject(evidence), causal_relation_type: relation, review_status: reviewStatus, authority_status: nonAuthoritative },
    }),
  ]);
}

export const inferredExtractors: Record<string, Extractor> = {
  "inference.edge.generated": inferenceGenerated,
  "inference.edge.retracted": inferenceRetracted,
  "causal.edge.generated": causalGenerated,
};
