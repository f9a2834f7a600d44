/**
 * The `causal.edge.generated` event (DESIGN §7; reference §3.2). Its payload is, key for key and
 * in Python's order:
 *   {source: {name, entity_type}, target: {name, entity_type}, relation_type, graph_relation_type,
 *    confidence, causal_method, review_status: "proposed", authority_status: "non_authoritative",
 *    evidence: {source_event_seq, source_event_hash, ...}}
 * A causal edge is proposed, non-authoritative evidence: it is only built when it cites the
 * Eventloom event that justifies it, and a caller cannot choose another review or authority
 * status. Every check fails with a message naming the field (`source.name`,
 * `evidence.source_event_hash`, ...), the same words Python's `CausalEdge` uses.
 */
import { inputError } from "../errors.ts";
import type { GeneratedEvent } from "./generatedEvent.ts";
import type { PlainJson } from "../canonical/mod.ts";
import {
  causalAuthorityStatuses,
  causalGraphLabel,
  causalReviewStatuses,
  defaultCausalReviewStatus,
  nonAuthoritative,
  sortedChoices,
} from "./causalTaxonomy.ts";

export const causalEdgeEventType = "causal.edge.generated";

export interface CausalEntityRef {
  name: string;
  entity_type: string;
}

export interface CausalEdgeInput {
  actor: unknown;
  sessionId: unknown;
  source: unknown;
  target: unknown;
  relationType: unknown;
  confidence: unknown;
  method: unknown;
  evidence: unknown;
}

const eventHashPattern = /^[0-9a-f]{64}$/;

function invalid(field: string, message: string): never {
  throw inputError("invalid_causal_edge", message, { field });
}

function isPlainObject(value: unknown): value is { [key: string]: PlainJson } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function nonBlank(value: unknown): value is string {
  return typeof value === "string" && value.trim() !== "";
}

/** A copy of `{name, entity_type}` (nothing else survives); the caller's object is not kept. */
export function causalEntityRef(value: unknown, field: string): CausalEntityRef {
  if (!isPlainObject(value)) invalid(field, `${field} must be an entity reference mapping`);
  for (const key of ["name", "entity_type"]) {
    if (!nonBlank(value[key])) invalid(`${field}.${key}`, `${field}.${key} must be a non-empty string`);
  }
  return { name: value.name as string, entity_type: value.entity_type as string };
}

/** A confidence is a number (not a boolean, not a numeric string) in [0, 1]. */
export function causalConfidence(value: unknown): number {
  if (typeof value !== "number" || !Number.isFinite(value)) invalid("confidence", "confidence must be a number between 0.0 and 1.0");
  if (value < 0 || value > 1) invalid("confidence", "confidence must be between 0.0 and 1.0");
  return value;
}

/** The evidence must cite its event: a positive integer seq and a 64-lowercase-hex hash. */
export function causalEvidence(value: unknown): { [key: string]: PlainJson } {
  if (!isPlainObject(value)) invalid("evidence", "evidence must be a mapping");
  const seq = value.source_event_seq;
  if (typeof seq !== "number" || !Number.isSafeInteger(seq)) invalid("evidence.source_event_seq", "evidence.source_event_seq must be an integer");
  if (seq <= 0) invalid("evidence.source_event_seq", "evidence.source_event_seq must be a positive integer");
  const hash = value.source_event_hash;
  if (typeof hash !== "string" || !eventHashPattern.test(hash)) {
    invalid("evidence.source_event_hash", "evidence.source_event_hash must be exactly 64 lowercase hex characters");
  }
  return structuredClone(value);
}

export function validateCausalReviewStatus(value: unknown): string {
  if (typeof value !== "string" || !causalReviewStatuses.has(value)) {
    invalid("review_status", `review_status must be one of: ${sortedChoices(causalReviewStatuses)}`);
  }
  return value;
}

export function validateCausalAuthorityStatus(value: unknown): string {
  if (typeof value !== "string" || !causalAuthorityStatuses.has(value)) {
    invalid("authority_status", `authority_status must be one of: ${sortedChoices(causalAuthorityStatuses)}`);
  }
  return value;
}

/**
 * The `causal.edge.generated` event to append, after validating every field.
 *
 * @example
 * ```ts
 * buildCausalEdgeEvent({
 *   actor: "zaxy-causal", sessionId: "default",
 *   source: { name: "missing index", entity_type: "cause" }, target: { name: "slow deploy", entity_type: "outcome" },
 *   relationType: "caused", confidence: 0.8, method: "explicit_outcome_explanation_v1",
 *   evidence: { source_event_seq: 3, source_event_hash: "ab".repeat(32) },
 * }).payload.graph_relation_type; // "causal_caused"
 * ```
 */
export function buildCausalEdgeEvent(input: CausalEdgeInput): GeneratedEvent {
  if (typeof input.actor !== "string" || input.actor === "") invalid("actor", "actor must be a non-empty string");
  if (typeof input.sessionId !== "string" || input.sessionId === "") invalid("session_id", "session_id must be a non-empty string");
  const source = causalEntityRef(input.source, "source");
  const target = causalEntityRef(input.target, "target");
  if (typeof input.relationType !== "string") invalid("relation_type", "relation_type must be a string");
  const graphRelationType = causalGraphLabel(input.relationType, "relation_type");
  const confidence = causalConfidence(input.confidence);
  if (!nonBlank(input.method)) invalid("causal_method", "causal method must be a non-empty string");
  const evidence = causalEvidence(input.evidence);
  return {
    type: causalEdgeEventType,
    actor: input.actor,
    payload: {
      source: { ...source },
      target: { ...target },
      relation_type: input.relationType,
      graph_relation_type: graphRelationType,
      confidence,
      causal_method: input.method,
      review_status: defaultCausalReviewStatus,
      authority_status: nonAuthoritative,
      evidence,
    },
  };
}
