/**
 * The causal edges of a projected session, as every causal read sees them (DESIGN §7; reference
 * §3.4, Python `_causal_edge_rows` / `_causal_edge_metadata_from_row`).
 *
 * An edge counts when all of these hold, and is otherwise ignored (never traversed, never shown):
 * - the relation is current (`valid_to` null) and both endpoints are current entity versions;
 * - its label is `causal_<type>` for a type of the taxonomy (other `causal_*` labels are ignored);
 * - its confidence is a number in [0, 1] and its evidence a non-empty object;
 * - its review status (evidence `review_status`, default `proposed`) is a known status and its
 *   authority (evidence `authority_status`, default `non_authoritative`) is non-authoritative;
 * - it can be cited: its source event's seq >= 1 and 64-hex hash give a citation matching
 *   `eventloom://<thread>/events/<seq>#<12 hex>` (thread not `unknown`, no `/` or space).
 */
import { citationUri } from "../eventloom/citation.ts";
import type { EventRecord } from "../eventloom/envelope.ts";
import type { EntityRow, PlainJson, RelationRow, SessionGraphRows } from "../projection/types.ts";
import { causalAuthorityStatuses, type CausalRelationType, causalRelationOfLabel, causalReviewStatuses, defaultCausalReviewStatus, nonAuthoritative } from "../events/causalTaxonomy.ts";

export interface CausalEdge {
  relation: RelationRow;
  source: EntityRow;
  target: EntityRow;
  relationType: CausalRelationType;
  /** `causal_<relationType>`. */
  graphRelationType: string;
  confidence: number;
  method: string;
  citation: string;
  reviewStatus: string;
  authorityStatus: string;
  /** The edge's evidence object as projected (sorted keys). */
  evidence: { [key: string]: PlainJson };
}

/** Python's `_EVENTLOOM_CAUSAL_CITATION_RE`: what a causal result's citation must look like. */
export const causalCitationPattern = /^eventloom:\/\/(?!unknown\/)[^/\s]+\/events\/[1-9][0-9]*#[0-9a-f]{12}$/;
const eventHashPattern = /^[0-9a-f]{64}$/;

function evidenceObject(json: string): { [key: string]: PlainJson } | undefined {
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === "object" && value !== null && !Array.isArray(value) && Object.keys(value).length > 0
      ? value as { [key: string]: PlainJson }
      : undefined;
  } catch {
    return undefined;
  }
}

function statusOf(evidence: { [key: string]: PlainJson }, key: string, fallback: string): unknown {
  const value = evidence[key];
  return value === undefined || value === null || value === "" ? fallback : value;
}

/**
 * The session's causal edges in projection order.
 *
 * @param events the session's verified events: the citation names the thread of the relation's
 *   source event (as retrieval's citations do), falling back to `sessionId`.
 */
export function causalEdges(sessionId: string, rows: SessionGraphRows, events: readonly EventRecord[]): CausalEdge[] {
  // Checkout calls this on every read: most sessions have no causal relation, so look for one
  // before indexing the entities.
  const candidates: Array<{ relation: RelationRow; relationType: CausalRelationType }> = [];
  for (const relation of rows.relations) {
    if (relation.validTo !== null) continue;
    const relationType = causalRelationOfLabel(relation.relationType);
    if (relationType !== undefined) candidates.push({ relation, relationType });
  }
  if (candidates.length === 0) return [];
  const currentEntities = new Map<string, EntityRow>();
  for (const entity of rows.entities) if (entity.validTo === null) currentEntities.set(entity.nodeKey, entity);
  const edges: CausalEdge[] = [];
  const eventAt = (seq: number): EventRecord | undefined => events[seq - 1];
  for (const { relation, relationType } of candidates) {
    const source = currentEntities.get(relation.sourceKey);
    const target = currentEntities.get(relation.targetKey);
    if (source === undefined || target === undefined) continue;
    const edge = causalEdgeOf(sessionId, relation, relationType, source, target, eventAt);
    if (edge !== undefined) edges.push(edge);
  }
  return edges;
}

/**
 * The edge a current `causal_*` relation between two current versions makes, or undefined when
 * the relation's own fields rule it out (confidence, evidence, statuses, citation).
 *
 * @param eventAt the event with this seq in the session's log (its thread names the citation).
 */
export function causalEdgeOf(
  sessionId: string,
  relation: RelationRow,
  relationType: CausalRelationType,
  source: EntityRow,
  target: EntityRow,
  eventAt: (seq: number) => EventRecord | undefined,
): CausalEdge | undefined {
  if (!Number.isFinite(relation.confidence) || relation.confidence < 0 || relation.confidence > 1) return undefined;
  const evidence = evidenceObject(relation.evidenceJson);
  if (evidence === undefined) return undefined;
  const reviewStatus = statusOf(evidence, "review_status", defaultCausalReviewStatus);
  const authorityStatus = statusOf(evidence, "authority_status", nonAuthoritative);
  if (typeof reviewStatus !== "string" || !causalReviewStatuses.has(reviewStatus)) return undefined;
  if (typeof authorityStatus !== "string" || !causalAuthorityStatuses.has(authorityStatus)) return undefined;
  if (!Number.isSafeInteger(relation.sourceEventSeq) || relation.sourceEventSeq < 1 || !eventHashPattern.test(relation.sourceEventHash)) return undefined;
  const event = eventAt(relation.sourceEventSeq);
  const thread = event !== undefined && event.hash === relation.sourceEventHash ? event.thread : sessionId;
  const citation = citationUri(thread, relation.sourceEventSeq, relation.sourceEventHash);
  if (!causalCitationPattern.test(citation)) return undefined;
  return {
    relation,
    source,
    target,
    relationType,
    graphRelationType: relation.relationType,
    confidence: relation.confidence,
    method: relation.inferenceMethod || "unknown",
    citation,
    reviewStatus,
    authorityStatus,
    evidence,
  };
}
