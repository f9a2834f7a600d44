/**
 * Constructors for extracted entities and edges, and the extractor contract.
 *
 * An entity is emitted only when the event states its content: the fold opens a new version of
 * (type, name) whenever summary or properties differ from the active one, so an entity emitted
 * as a bare endpoint would blank out what an earlier event said about it. Endpoints an event only
 * mentions are `EntityRef`s in the edge. Actors and sessions are the exception: they never carry
 * content, so they are emitted with a null summary and no properties, identical every time.
 */
import type { EventRecord } from "../../eventloom/envelope.ts";
import type { EntityRef, ExtractedEdge, ExtractedEntity } from "../types.ts";
import type { Properties } from "../../events/payload.ts";

/** What one extractor derives from one event; `extractEvent` adds the provenance. */
export interface Extracted {
  entities: ExtractedEntity[];
  edges: ExtractedEdge[];
}

/** Derives entities and edges from one event of the type it is registered for. May throw on a
 * malformed payload: `extractEvent` then falls back to the generic event entity. */
export type Extractor = (record: EventRecord) => Extracted;

/** Marks diagnostic entities that must never be read as authoritative memory. */
export const nonAuthoritative = "non_authoritative";

/** Thrown by extractors when a payload lacks what they need; turns into the fallback entity. */
export class MalformedPayload extends Error {
  readonly code = "malformed_payload";
}

export function entity(
  record: EventRecord,
  name: string,
  entityType: string,
  summary: string | null = null,
  properties: Properties = {},
): ExtractedEntity {
  return { name, entityType, observedAt: record.timestamp, summary, properties };
}

export function ref(name: string, entityType: string): EntityRef {
  return { name, entityType };
}

/** The acting agent's id; an empty actor still needs a name to be an endpoint. */
export function actorName(record: EventRecord): string {
  return record.actor === "" ? "unknown" : record.actor;
}

export function actorRef(record: EventRecord): EntityRef {
  return ref(actorName(record), "actor");
}

/** The actor as a content-free entity: identical on every event, so it never versions. */
export function actorEntity(record: EventRecord): ExtractedEntity {
  return entity(record, actorName(record), "actor");
}

/** A session as a content-free entity (same reasoning as actors). */
export function sessionEntity(record: EventRecord, sessionId: string): ExtractedEntity {
  return entity(record, sessionId, "session");
}

/** An edge the event states directly (not inferred). */
export function edge(
  record: EventRecord,
  source: EntityRef | ExtractedEntity,
  target: EntityRef | ExtractedEntity,
  relationType: string,
): ExtractedEdge {
  return {
    source: ref(source.name, source.entityType),
    target: ref(target.name, target.entityType),
    relationType,
    validFrom: record.timestamp,
    validTo: null,
    inferred: false,
    confidence: 1,
    inferenceMethod: null,
    evidence: {},
  };
}

export interface InferredEdgeFields {
  source: EntityRef;
  target: EntityRef;
  relationType: string;
  validFrom: string;
  validTo: string | null;
  /** Already checked to lie in [0, 1]. */
  confidence: number;
  inferenceMethod: string;
  evidence: Properties;
}

export function inferredEdge(fields: InferredEdgeFields): ExtractedEdge {
  return { ...fields, inferred: true };
}

export function extracted(entities: ExtractedEntity[], edges: ExtractedEdge[] = []): Extracted {
  return { entities, edges };
}

/** The session an event belongs to: the payload's `session_id`, else its thread. */
export function sessionIdOf(record: EventRecord, payloadFirst = true): string {
  const fromPayload = typeof record.payload.get("session_id") === "string" ? (record.payload.get("session_id") as string).trim() : "";
  const thread = record.thread.trim();
  const ordered = payloadFirst ? [fromPayload, thread] : [thread, fromPayload];
  return ordered.find((s) => s !== "") ?? "default";
}
