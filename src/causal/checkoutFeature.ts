/**
 * Checkout diagnostics for causal memory (DESIGN §6, §7; reference §3.5).
 *
 * What counts: the causal edges of the session (see `causalEdges.ts`: current, registered
 * `causal_<type>` labels only, cited, non-authoritative) with at least one endpoint among the
 * checkout's retrieved current graph contexts (`source: "graph"`, `valid_to` null, matched by the
 * entity version's node key). Raw-event contexts, superseded versions, retracted edges and
 * unknown `causal_*` labels never count. When something counts the checkout gains
 *   diagnostics.causal_context = {context_count, edge_count, relation_types, methods,
 *                                 average_trust, authority_status: "non_authoritative"}
 * - context_count: retrieved contexts that are an endpoint of a counted edge;
 * - edge_count: distinct counted edges (an edge between two retrieved contexts counts once);
 * - relation_types / methods: distinct graph labels and inference methods, in the order the
 *   contexts rank and the edges were projected;
 * - average_trust: the mean edge confidence, rounded to 2 decimals (Python `_round_metric`);
 * a trust and an ignore guidance line, and the prompt line
 *   `Causal context: contexts=N, edges=N, average_trust=X, authority=non_authoritative[, relations=…][, methods=…]`
 * with X printed as Python prints a float (`0.9`, `1.0`). Otherwise nothing is added, so the
 * checkout is byte-identical to one without this feature. Without rows nothing is added; a
 * degraded checkout passes the log folded in memory, so it adds the same section.
 */
import { formatPythonFloat } from "../canonical/mod.ts";
import type { CheckoutFeature, CheckoutFeatureOutput } from "../checkout/checkoutFeature.ts";
import type { CausalEdge } from "../folds/causalEdges.ts";
import { nonAuthoritative } from "../events/causalTaxonomy.ts";

export const causalTrustLine = "Use causal_context as explanatory memory, not as authoritative state.";
export const causalIgnoreLine = "Do not treat proposed causal edges as accepted facts without review status.";

export const causalCheckoutFeature: CheckoutFeature = {
  key: "causal_context",
  contribute(input): CheckoutFeatureOutput | null {
    const contextKeys: string[] = [];
    for (const context of input.retrieval.contexts) {
      const nodeKey = context.metadata.node_key;
      if (context.source === "graph" && context.validTo === null && typeof nodeKey === "string" && !contextKeys.includes(nodeKey)) contextKeys.push(nodeKey);
    }
    if (contextKeys.length === 0) return null;
    const wanted = new Set(contextKeys);
    const edgesByNode = new Map<string, CausalEdge[]>();
    for (const edge of input.folds.causalEdges()) {
      for (const nodeKey of new Set([edge.source.nodeKey, edge.target.nodeKey])) {
        if (!wanted.has(nodeKey)) continue;
        const list = edgesByNode.get(nodeKey);
        if (list === undefined) edgesByNode.set(nodeKey, [edge]);
        else list.push(edge);
      }
    }
    // Insertion-ordered, so an edge touching two retrieved contexts counts once, in rank order.
    const countedSet = new Set<CausalEdge>();
    let contextCount = 0;
    for (const nodeKey of contextKeys) {
      const edges = edgesByNode.get(nodeKey);
      if (edges === undefined) continue;
      contextCount++;
      for (const edge of edges) countedSet.add(edge);
    }
    const counted = [...countedSet];
    if (counted.length === 0) return null;
    const relationTypes = [...new Set(counted.map((edge) => edge.graphRelationType))];
    const methods = [...new Set(counted.map((edge) => edge.method))];
    const averageTrust = Math.round((counted.reduce((sum, edge) => sum + edge.confidence, 0) / counted.length) * 100) / 100;
    let line = `Causal context: contexts=${contextCount}, edges=${counted.length}, average_trust=${formatPythonFloat(averageTrust)}, authority=${nonAuthoritative}`;
    if (relationTypes.length > 0) line += `, relations=${relationTypes.join(", ")}`;
    if (methods.length > 0) line += `, methods=${methods.join(", ")}`;
    return {
      diagnostics: {
        context_count: contextCount,
        edge_count: counted.length,
        relation_types: relationTypes,
        methods,
        average_trust: averageTrust,
        authority_status: nonAuthoritative,
      },
      trust: [causalTrustLine],
      ignore: [causalIgnoreLine],
      promptLines: [line],
    };
  },
};
