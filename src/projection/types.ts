/**
 * The projection's data model (DESIGN §4). Extraction turns one sealed event into entities and
 * edges; the fold (`graphFold.ts`) applies them with temporal validity and produces rows; the
 * Kuzu store persists the rows. Every row carries its source event's seq and hash.
 */
import type { PlainJson } from "../canonical/mod.ts";
import { sha256Hex } from "../platform/mod.ts";

// Defined in canonical/ so that the event schemas below the projection can name it too.
export type { PlainJson };

export interface ExtractedEntity {
  name: string;
  entityType: string;
  /** The source event's timestamp. */
  observedAt: string;
  summary: string | null;
  /** Sorted-key JSON of these is `properties_json`; two versions differ iff summary or it differs. */
  properties: { [key: string]: PlainJson };
}

/** An edge endpoint: the active version of (session, entityType, name) when the edge is applied. */
export interface EntityRef {
  name: string;
  entityType: string;
}

export interface ExtractedEdge {
  source: EntityRef;
  target: EntityRef;
  relationType: string;
  validFrom: string;
  /** Set only by retractions: closes the matching active edge. */
  validTo: string | null;
  inferred: boolean;
  /** 0..1; 1.0 for observed edges. */
  confidence: number;
  /** Required when inferred, null otherwise. */
  inferenceMethod: string | null;
  evidence: { [key: string]: PlainJson };
}

export interface ExtractionResult {
  entities: ExtractedEntity[];
  edges: ExtractedEdge[];
  sourceEventSeq: number;
  sourceEventHash: string;
  sourceEventPrevHash: string | null;
  sourceEventType: string;
  sourceThread: string;
}

/** One version of an entity (Kuzu `Entity`). */
export interface EntityRow {
  /** `session \x1f` 24 hex of SHA-256 over (type, name, source_event_seq); see `entityNodeKey`. */
  nodeKey: string;
  sessionId: string;
  name: string;
  entityType: string;
  summary: string | null;
  propertiesJson: string;
  validFrom: string;
  /** Null while current; the superseding version's observedAt once closed. */
  validTo: string | null;
  sourceEventSeq: number;
  sourceEventHash: string;
  /** 0-based ordinal of the version within its session; the key in the session's vector index. */
  vectorKey: number;
}

/** One relation version (Kuzu `RELATES`). */
export interface RelationRow {
  /** `session \x1f source_event_seq \x1f ordinal within the event`. */
  relKey: string;
  sessionId: string;
  sourceKey: string;
  targetKey: string;
  relationType: string;
  validFrom: string;
  validTo: string | null;
  inferred: boolean;
  confidence: number;
  inferenceMethod: string | null;
  sourceEventSeq: number;
  sourceEventHash: string;
  evidenceJson: string;
}

/** The event spine (Kuzu `Event`, linked by `NEXT_EVENT`). */
export interface EventRow {
  /** `session \x1f seq`. */
  eventKey: string;
  sessionId: string;
  seq: number;
  hash: string;
  prevHash: string | null;
  eventType: string;
  sourceThread: string;
}

/**
 * The last event a session's projection reflects (Kuzu `ProjectionHead`) and the rows it covers.
 * The counts are what a reader checks the stored rows against: a store or read model whose rows
 * do not add up to its head's counts lost or gained rows behind the head's back (an interrupted
 * write, a truncated file) and is rebuilt, never served.
 */
export interface ProjectionHead {
  sessionId: string;
  seq: number;
  hash: string;
  eventCount: number;
  /** Entity versions, current and closed. */
  entityCount: number;
  /** Entity versions with `validTo` null. */
  currentEntityCount: number;
  /** Relation versions, current and closed. */
  relationCount: number;
  /** Relation versions with `validTo` null. */
  currentRelationCount: number;
}

/**
 * What applying events changed. A full reproject is the diff from the empty graph. Rows in
 * `newEntities`/`newRelations` already carry their final `validTo`; `closedEntities` and
 * `closedRelations` only name rows that existed before the diff.
 */
export interface GraphDiff {
  sessionId: string;
  newEntities: EntityRow[];
  closedEntities: Array<{ nodeKey: string; validTo: string }>;
  newRelations: RelationRow[];
  closedRelations: Array<{ relKey: string; validTo: string }>;
  newEvents: EventRow[];
  /** The head before the diff (null for a full reproject) and after it. */
  previousHead: ProjectionHead | null;
  head: ProjectionHead;
}

/** A session's projected graph as read back from the store: every version of everything. */
export interface SessionGraphRows {
  entities: EntityRow[];
  relations: RelationRow[];
  head: ProjectionHead | null;
}

export const keySeparator = "\x1f";

/**
 * A version's key: the session and 24 hex of SHA-256 over (type, name, source seq). Python keys
 * nodes by the plain `session \x1f type \x1f name \x1f seq`; a short fixed-length key makes
 * kuzu-wasm's primary-key lookups while bulk-loading relations ~30 % faster (names can be whole
 * sentences), and 96 bits make a collision practically impossible (the fold checks anyway).
 */
export function entityNodeKey(sessionId: string, entityType: string, name: string, seq: number): string {
  return sessionId + keySeparator + sha256Hex(entityType + keySeparator + name + keySeparator + String(seq)).slice(0, nodeKeyHashChars);
}

export const nodeKeyHashChars = 24;

export function relationKey(sessionId: string, seq: number, ordinal: number): string {
  return [sessionId, String(seq), String(ordinal)].join(keySeparator);
}

export function eventKey(sessionId: string, seq: number): string {
  return [sessionId, String(seq)].join(keySeparator);
}
