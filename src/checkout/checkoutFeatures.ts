/**
 * Checkout features, in one registry: the interface a feature implements (it looks at the
 * session's folds and the retrieved contexts and may add one diagnostics section, trust and
 * ignore guidance lines, and prompt lines under "Checkout Diagnostics"), how contributions
 * combine, the features this build runs (causal context, consolidation candidates) and their
 * order. DESIGN §6: a section appears only when it has content, so a checkout without a feature
 * is byte-identical to one from a build without it.
 *
 * A feature reads only what layers below checkout/ hold (the session folds in folds/, event
 * rules in events/), so it lives here with the interface and never imports causal/,
 * consolidation/ or the service in memory/: layers only point down.
 *
 * Adding a feature: write its `CheckoutFeature` below and list it in `checkoutFeatures`.
 *
 * @example
 * const contributions = checkoutFeatureContributions({ sessionId, folds, retrieval }, checkoutFeatures);
 * contributions.extraDiagnostics.causal_context; // present only when the feature had something to say
 */
import type { PlainJson } from "../projection/types.ts";
import type { SessionFolds } from "../retrieval/sessionIndex.ts";
import type { RetrievalResult, RetrievedContext } from "../retrieval/types.ts";
import type { ExtraGuidance } from "./promptAssembly.ts";
import { formatPythonFloat } from "../canonical/mod.ts";
import type { CausalEdge } from "../folds/causalEdges.ts";
import { nonAuthoritative as causalNonAuthoritative } from "../events/causalTaxonomy.ts";
import { nonAuthoritative as candidateNonAuthoritative } from "../events/consolidationEvents.ts";
import { candidateStanding } from "../events/candidateStanding.ts";
import { candidateValidTo, isCandidateStale } from "../folds/consolidationStatus.ts";

// ---------------------------------------------------------------------------
/* The interface, and how contributions combine. */
export interface CheckoutFeatureInput {
  sessionId: string;
  /**
   * The session's whole-history folds at the log head (causal edges, consolidation candidates);
   * from the log folded in memory when the projection is degraded, so a feature sees the same
   * folds either way.
   */
  folds: SessionFolds;
  /** What retrieval returned for the checkout's query (current and superseded contexts). */
  retrieval: RetrievalResult;
}

export interface CheckoutFeatureOutput {
  /** The diagnostics section's value; omitted from the checkout when empty. */
  diagnostics: PlainJson;
  trust: readonly string[];
  ignore: readonly string[];
  /** Prompt lines without the leading "- ", e.g. `Causal context: contexts=1, edges=2, ...`. */
  promptLines: readonly string[];
}

export interface CheckoutFeature {
  /** The `diagnostics` key the feature owns, e.g. `causal_context`. */
  key: string;
  /** Null when the feature has nothing to say about this checkout. */
  contribute(input: CheckoutFeatureInput): CheckoutFeatureOutput | null;
}

export interface CheckoutFeatureContributions {
  extraDiagnostics: { [key: string]: PlainJson };
  extraGuidance: ExtraGuidance;
  extraDiagnosticLines: string[];
}

/** What `features` add to a checkout, in the order given (the order their sections appear). */
export function checkoutFeatureContributions(input: CheckoutFeatureInput, features: readonly CheckoutFeature[]): CheckoutFeatureContributions {
  const extraDiagnostics: { [key: string]: PlainJson } = {};
  const trust: string[] = [];
  const ignore: string[] = [];
  const extraDiagnosticLines: string[] = [];
  for (const feature of features) {
    const output = feature.contribute(input);
    if (output === null) continue;
    extraDiagnostics[feature.key] = output.diagnostics;
    trust.push(...output.trust);
    ignore.push(...output.ignore);
    extraDiagnosticLines.push(...output.promptLines);
  }
  return { extraDiagnostics, extraGuidance: { trust, ignore }, extraDiagnosticLines };
}

// ---------------------------------------------------------------------------
/*
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
    let line = `Causal context: contexts=${contextCount}, edges=${counted.length}, average_trust=${formatPythonFloat(averageTrust)}, authority=${causalNonAuthoritative}`;
    if (relationTypes.length > 0) line += `, relations=${relationTypes.join(", ")}`;
    if (methods.length > 0) line += `, methods=${methods.join(", ")}`;
    return {
      diagnostics: {
        context_count: contextCount,
        edge_count: counted.length,
        relation_types: relationTypes,
        methods,
        average_trust: averageTrust,
        authority_status: causalNonAuthoritative,
      },
      trust: [causalTrustLine],
      ignore: [causalIgnoreLine],
      promptLines: [line],
    };
  },
};

// ---------------------------------------------------------------------------
/*
 * Checkout diagnostics for consolidation candidates (seed 000 task 5, seed 001 task 7). When
 * retrieval for the checkout's query found consolidation candidates (current or not: a candidate
 * the log marks stale is projected closed and never a current fact, but it is counted here), the
 * checkout gains
 * `diagnostics.consolidation_candidates = {candidate_count, candidate_types, pending_count,
 * accepted_count, rejected_count, conflicted_count, stale_count, superseded_count,
 * authority_status: "non_authoritative"}`, a trust and an ignore line, and the prompt line
 * `Consolidation candidates: candidates=N, pending=N, accepted=N, rejected=N, conflicted=N,
 * stale=N, superseded=N, authority=non_authoritative[, types=a, b]`.
 *
 * Each candidate id counts once. Statuses come from the replay (`candidateStanding`: only review
 * events decide, so a rolled-back review no longer counts and a creation payload declaring itself
 * accepted is pending); stale = the created payload sets `valid_to` or `stale: true`, or a
 * `memory.invalidated` closed the candidate; superseded = it names `superseded_by` (the design's
 * `consolidation_candidate_diagnostics`).
 * Without candidates nothing is added and the checkout stays byte-identical.
 */
export const consolidationTrustLine = "Use consolidation candidates as cited summaries that still require review.";
/** The design's wording (seed 000): an accepted review is a disposition, not a promotion. */
export const consolidationIgnoreLine = "Do not treat consolidation candidates as authoritative memory without a separate promotion event.";

function isCandidateContext(context: RetrievedContext): boolean {
  return context.entityType === "consolidation_candidate" || (context.entityName ?? "").startsWith("consolidation:");
}

function metadataText(context: RetrievedContext, key: string): string | undefined {
  const value: PlainJson | undefined = context.metadata[key];
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

interface CandidateCounts {
  pending: number;
  accepted: number;
  rejected: number;
  conflicted: number;
  stale: number;
  superseded: number;
}

export const consolidationCheckoutFeature: CheckoutFeature = {
  key: "consolidation_candidates",
  contribute(input): CheckoutFeatureOutput | null {
    const seen = new Set<string>();
    const contexts = input.retrieval.contexts.filter((context) => {
      if (!isCandidateContext(context)) return false;
      const key = context.entityName ?? context.citation ?? context.content;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    if (contexts.length === 0) return null;
    const candidates = input.folds.consolidationCandidates();
    const types: string[] = [];
    const counts: CandidateCounts = { pending: 0, accepted: 0, rejected: 0, conflicted: 0, stale: 0, superseded: 0 };
    for (const context of contexts) {
      const candidate = candidates.get(context.entityName ?? "");
      const type = candidate?.candidateType ?? metadataText(context, "candidate_type") ??
        /^consolidation:([^:]+):/.exec(context.entityName ?? "")?.[1] ?? "unknown";
      if (!types.includes(type)) types.push(type);
      const status = candidate === undefined ? (metadataText(context, "review_status") ?? "").toLowerCase() : candidateStanding(candidate).review_status;
      if (status === "pending") counts.pending++;
      if (status === "accepted") counts.accepted++;
      if (status === "rejected") counts.rejected++;
      if (status === "conflicted") counts.conflicted++;
      // A candidate outside this session's replay has only what its context's metadata says.
      const stale = candidate === undefined
        ? context.metadata.stale === true || metadataText(context, "valid_to") !== undefined
        : isCandidateStale(candidate) || candidateValidTo(candidate) !== null;
      if (stale) counts.stale++;
      if (candidate?.supersededBy != null) counts.superseded++;
    }
    const diagnostics = {
      candidate_count: contexts.length,
      candidate_types: types,
      pending_count: counts.pending,
      accepted_count: counts.accepted,
      rejected_count: counts.rejected,
      conflicted_count: counts.conflicted,
      stale_count: counts.stale,
      superseded_count: counts.superseded,
      authority_status: candidateNonAuthoritative,
    };
    const typesPart = types.length === 0 ? "" : `, types=${types.join(", ")}`;
    return {
      diagnostics,
      trust: [consolidationTrustLine],
      ignore: [consolidationIgnoreLine],
      promptLines: [
        `Consolidation candidates: candidates=${contexts.length}, pending=${counts.pending}, accepted=${counts.accepted}, ` +
        `rejected=${counts.rejected}, conflicted=${counts.conflicted}, stale=${counts.stale}, superseded=${counts.superseded}, ` +
        `authority=${candidateNonAuthoritative}${typesPart}`,
      ],
    };
  },
};

/** The features this build runs, in the order their sections appear. */
export const checkoutFeatures: readonly CheckoutFeature[] = [causalCheckoutFeature, consolidationCheckoutFeature];
