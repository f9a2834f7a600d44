/**
 * Directed causal traversal (DESIGN §7; reference §3.4, Python `search_causal_neighbors`).
 *
 * Successors follow edges source → target (effects); predecessors follow them target → source
 * (causes): a true reverse traversal, so the predecessors of an effect are its causes and never
 * its effects. Breadth-first from every current entity version named `entityName` (and of
 * `entityType` when given), up to `depth` hops; the start versions are never results; the first
 * discovery of a node wins, so each result carries a shortest path. A result is the edge that
 * discovered its node (`source -> target` as stored), with the path's relation labels and
 * citations in its evidence. Results come in discovery order: nearer first.
 */
import type { PlainJson } from "../projection/types.ts";
import type { CausalEdge } from "../folds/causalEdges.ts";
import type { CausalRelationType } from "../events/causalTaxonomy.ts";

export type CausalDirection = "successors" | "predecessors";

export interface CausalTraversal {
  direction: CausalDirection;
  entityName: string;
  entityType?: string;
  /** Only edges of this bare type are followed. */
  relationType?: CausalRelationType;
  /** 1..5 hops (validated by the caller). */
  depth: number;
}

/** One result, keys in Python's `CausalQueryResult.to_dict()` order. */
export interface CausalQueryResult {
  source: { name: string; entity_type: string };
  target: { name: string; entity_type: string };
  relation_type: string;
  graph_relation_type: string;
  confidence: number;
  method: string;
  citation: string;
  review_status: string;
  authority_status: string;
  evidence: { [key: string]: PlainJson };
  path_length: number;
}

interface Step {
  node: string;
  edge: CausalEdge;
}

function result(edge: CausalEdge, pathRelationTypes: string[], pathCitations: string[]): CausalQueryResult {
  const evidence: { [key: string]: PlainJson } = { ...edge.evidence };
  evidence.source_event_seq ??= edge.relation.sourceEventSeq;
  evidence.source_event_hash ??= edge.relation.sourceEventHash;
  evidence.path_relation_types = pathRelationTypes;
  evidence.path_citations = pathCitations;
  return {
    source: { name: edge.source.name, entity_type: edge.source.entityType },
    target: { name: edge.target.name, entity_type: edge.target.entityType },
    relation_type: edge.relationType,
    graph_relation_type: edge.graphRelationType,
    confidence: edge.confidence,
    method: edge.method,
    citation: edge.citation,
    review_status: edge.reviewStatus,
    authority_status: edge.authorityStatus,
    evidence,
    path_length: pathRelationTypes.length,
  };
}

/**
 * @example
 * ```ts
 * // edges: "missing index" -caused-> "slow query" -caused-> "timeout"
 * traverseCausal(edges, { direction: "predecessors", entityName: "timeout", depth: 2 })
 *   .map((r) => r.source.name); // ["slow query", "missing index"]
 * ```
 */
export function traverseCausal(edges: readonly CausalEdge[], traversal: CausalTraversal): CausalQueryResult[] {
  const forward = traversal.direction === "successors";
  const adjacency = new Map<string, Step[]>();
  const starts: string[] = [];
  const startSet = new Set<string>();
  const addStart = (key: string, name: string, entityType: string) => {
    if (name !== traversal.entityName || (traversal.entityType !== undefined && entityType !== traversal.entityType)) return;
    if (startSet.has(key)) return;
    startSet.add(key);
    starts.push(key);
  };
  for (const edge of edges) {
    if (traversal.relationType !== undefined && edge.relationType !== traversal.relationType) continue;
    addStart(edge.source.nodeKey, edge.source.name, edge.source.entityType);
    addStart(edge.target.nodeKey, edge.target.name, edge.target.entityType);
    const from = forward ? edge.source.nodeKey : edge.target.nodeKey;
    const to = forward ? edge.target.nodeKey : edge.source.nodeKey;
    const steps = adjacency.get(from);
    if (steps === undefined) adjacency.set(from, [{ node: to, edge }]);
    else steps.push({ node: to, edge });
  }
  const seen = new Set(startSet);
  const paths = new Map<string, { relationTypes: string[]; citations: string[] }>(starts.map((key) => [key, { relationTypes: [], citations: [] }]));
  const results: CausalQueryResult[] = [];
  let frontier = starts;
  for (let hop = 0; hop < traversal.depth && frontier.length > 0; hop++) {
    const next: string[] = [];
    for (const current of frontier) {
      const path = paths.get(current)!;
      for (const step of adjacency.get(current) ?? []) {
        if (seen.has(step.node)) continue;
        seen.add(step.node);
        const relationTypes = [...path.relationTypes, step.edge.graphRelationType];
        const citations = [...path.citations, step.edge.citation];
        paths.set(step.node, { relationTypes, citations });
        results.push(result(step.edge, relationTypes, citations));
        next.push(step.node);
      }
    }
    frontier = next;
  }
  return results;
}
