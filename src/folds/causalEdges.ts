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
import { citationUri } from "../eventloom/root.ts";
import type { EventRecord } from "../eventloom/envelope.ts";
import type { EntityRow, PlainJson, RelationRow, SessionGraphRows } from "../projection/types.ts";
import { causalAuthorityStatuses, type CausalRelationType, causalRelationOfLabel, causalReviewStatuses, defaultCausalReviewStatus, nonAuthoritative } from "../events/causalTaxonomy.ts";
import { type SessionFold, wholeLogTail } from "./sessionFold.ts";

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
 * The session's causal edges in projection order: the causal-edge fold over the whole log.
 *
 * @param events the session's verified events: the citation names the thread of the relation's
 *   source event (as retrieval's citations do), falling back to `sessionId`.
 * @example
 * causalEdges("default", rows, events).map((edge) => edge.citation)
 */
export function causalEdges(sessionId: string, rows: SessionGraphRows, events: readonly EventRecord[]): readonly CausalEdge[] {
  return causalEdgesFold.apply(causalEdgesFold.empty(), wholeLogTail(sessionId, rows, events));
}

/**
 * The causal edges continued over a tail: from the edges at a base head and what the tail
 * changed in the graph, the edges at the new head — the same edges, objects and order as over
 * the whole log.
 *
 * Why the base edges are enough state: an edge's conditions are fixed by its relation row,
 * except that the relation and both endpoint versions must be current. A tail can only close
 * rows, never reopen one (a restated entity gets a new version), so a base relation that made no
 * edge at the base never makes one later, and a base edge stays until the tail closes its
 * relation or one of its versions. The projection appends relations in order, so the tail's new
 * relations come after every base relation: their edges go last, in relation order.
 */
export const causalEdgesFold: SessionFold<readonly CausalEdge[]> = {
  name: "causal_edges",
  empty: () => [],
  apply(base, { sessionId, changes, lookups }) {
    const closedEntityKeys = new Set(changes.closedEntities.map((closed) => closed.nodeKey));
    const closedRelationKeys = new Set(changes.closedRelations.map((closed) => closed.relKey));
    const edges = closedEntityKeys.size === 0 && closedRelationKeys.size === 0 ? [...base] : base.filter((edge) =>
      !closedRelationKeys.has(edge.relation.relKey) && !closedEntityKeys.has(edge.source.nodeKey) && !closedEntityKeys.has(edge.target.nodeKey)
    );
    // Checkout continues this on every read: most sessions have no causal relation, so the new
    // versions are indexed only once a causal relation needs its endpoints.
    let newEntities: Map<string, EntityRow> | undefined;
    const currentVersion = (nodeKey: string): EntityRow | undefined => {
      newEntities ??= new Map(changes.newEntities.map((entity) => [entity.nodeKey, entity]));
      const created = newEntities.get(nodeKey);
      if (created !== undefined) return created.validTo === null ? created : undefined;
      if (closedEntityKeys.has(nodeKey)) return undefined;
      const stored = lookups.baseEntity(nodeKey);
      return stored?.validTo === null ? stored : undefined;
    };
    const eventAt = (seq: number) => lookups.event(seq);
    for (const relation of changes.newRelations) {
      if (relation.validTo !== null) continue;
      const relationType = causalRelationOfLabel(relation.relationType);
      if (relationType === undefined) continue;
      const source = currentVersion(relation.sourceKey);
      const target = currentVersion(relation.targetKey);
      if (source === undefined || target === undefined) continue;
      const edge = causalEdgeOf(sessionId, relation, relationType, source, target, eventAt);
      if (edge !== undefined) edges.push(edge);
    }
    return edges;
  },
  // Events are reached by seq, through `lookups`, for the relations' citations.
  readsEvent: () => false,
};

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
