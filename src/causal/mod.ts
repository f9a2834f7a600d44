/**
 * Causal memory (DESIGN §7): cited, non-authoritative cause-and-effect edges between entities.
 * An explicit `outcome.explained` event that cites its evidence becomes a `causal.edge.generated`
 * event (actor `zaxy-causal`), projected as the inferred graph relation `causal_<type>`; reads
 * walk those relations forward (successors: effects) or in true reverse (predecessors: causes),
 * shortest path first, each result carrying its citation and its path's labels and citations.
 * `explain_outcome`, which falls back to a Memory Checkout, is a front operation over this
 * module and checkout: memory/explainOutcome.ts.
 *
 * @example
 * ```ts
 * import { MemoryService } from "../memory/service.ts";
 * import { queryCausal, validateCausalQuery } from "./mod.ts";
 * const reader = new MemoryService(".eventloom"); // any SessionReader (retrieval/readSession.ts)
 * const causes = await queryCausal(reader, validateCausalQuery({ sessionId: "default", direction: "predecessors", entityName: "deploy failed" }));
 * causes.map((r) => `${r.source.name} -${r.relation_type}-> ${r.target.name} (${r.citation})`);
 * ```
 */
export * from "../events/causalTaxonomy.ts";
export * from "../events/causalEdge.ts";
export * from "../events/outcomeExplained.ts";
export * from "../folds/causalEdges.ts";
export * from "./traversal.ts";
export * from "./causalQuery.ts";
