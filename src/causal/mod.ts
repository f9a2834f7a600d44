/**
 * Causal memory (DESIGN §7): cited, non-authoritative cause-and-effect edges between entities.
 * An explicit `outcome.explained` event that cites its evidence becomes a `causal.edge.generated`
 * event (actor `zaxy-causal`), projected as the inferred graph relation `causal_<type>`; reads
 * walk those relations forward (successors: effects) or in true reverse (predecessors: causes),
 * shortest path first, each result carrying its citation and its path's labels and citations.
 *
 * @example
 * ```ts
 * import { MemoryService } from "../memory/service.ts";
 * import { queryCausal, validateCausalQuery } from "./mod.ts";
 * const service = new MemoryService(".eventloom");
 * const causes = await queryCausal(service, validateCausalQuery({ sessionId: "default", direction: "predecessors", entityName: "deploy failed" }));
 * causes.map((r) => `${r.source.name} -${r.relation_type}-> ${r.target.name} (${r.citation})`);
 * ```
 */
export * from "./taxonomy.ts";
export * from "./causalEdge.ts";
export * from "./outcomeExplained.ts";
export * from "./causalEdges.ts";
export * from "./traversal.ts";
export * from "./causalQuery.ts";
export * from "./explainOutcome.ts";
export * from "./checkoutFeature.ts";
export * from "./benchmarkScore.ts";
