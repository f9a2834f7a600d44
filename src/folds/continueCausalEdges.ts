/**
 * The causal edges of a session continued over a tail of events: from the edges at a base head
 * (what the read model stores) and what the tail changed in the graph, the edges `causalEdges`
 * gives over the whole log at the new head — the same edges, objects and order.
 *
 * Why the base edges are enough state: an edge's conditions (causalEdges.ts) are fixed by its
 * relation row, except that the relation and both endpoint versions must be current. A tail can
 * only close rows, never reopen one (a restated entity gets a new version), so a base relation
 * that made no edge at the base never makes one later, and a base edge stays until the tail
 * closes its relation or one of its versions. The fold appends relations in order, so the
 * tail's new relations come after every base relation: their edges go last, in relation order.
 */
import type { EventRecord } from "../eventloom/envelope.ts";
import type { EntityRow, GraphDiff } from "../projection/types.ts";
import { type CausalEdge, causalEdgeOf } from "./causalEdges.ts";
import { causalRelationOfLabel } from "../events/causalTaxonomy.ts";

/** What a tail changed in the graph (a `GraphDiff` of the tail folded on the base rows). */
export type TailGraphChanges = Pick<GraphDiff, "newEntities" | "closedEntities" | "newRelations" | "closedRelations">;

/** Rows and events of the log at the new head that a continuation may need, read on demand. */
export interface TailFoldLookups {
  /** The base version with this node key as stored at the base head (its base `validTo`), or undefined. */
  baseEntity(nodeKey: string): EntityRow | undefined;
  /** The event with this seq in the log at the new head, base or tail, or undefined. */
  event(seq: number): EventRecord | undefined;
}

/**
 * @example
 * const fold = new GraphFold(sessionId, rowsAtBase);
 * for (const event of tail) fold.apply(event, extractEvent(event));
 * continueCausalEdges(sessionId, manifest.folds.causal_edges, fold.diff()!, lookups)
 */
export function continueCausalEdges(
  sessionId: string,
  base: readonly CausalEdge[],
  changes: TailGraphChanges,
  lookups: TailFoldLookups,
): CausalEdge[] {
  const closedEntityKeys = new Set(changes.closedEntities.map((closed) => closed.nodeKey));
  const closedRelationKeys = new Set(changes.closedRelations.map((closed) => closed.relKey));
  const edges = closedEntityKeys.size === 0 && closedRelationKeys.size === 0 ? [...base] : base.filter((edge) =>
    !closedRelationKeys.has(edge.relation.relKey) && !closedEntityKeys.has(edge.source.nodeKey) && !closedEntityKeys.has(edge.target.nodeKey)
  );
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
}
