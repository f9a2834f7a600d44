/**
 * `explain_outcome` (DESIGN §7; reference §3.4, Python `ReasoningOps.explain_outcome`): the
 * causal predecessors of an outcome, or, when it has none, the cited evidence of a Memory
 * Checkout for the outcome text (`fallback_used: true`). The document:
 *   {primitive: "explain_outcome", phase, session_id, outcome, depth, fallback_used,
 *    result_count, results, evidence}
 * `results` are causal query results, or `{source: "checkout", content, citation}` items in the
 * fallback; `evidence` has one cited item per result.
 *
 * Python also appends a `reasoning.primitive.called` observation event on every call; its
 * payload is not part of the reference this port follows, so this read appends nothing.
 *
 * It lives with the read front (memory/), not in causal/: it composes a causal query with a
 * Memory Checkout, and a feature never imports the checkout orchestrator.
 */
import { queryCausal, validateCausalQuery } from "../causal/causalQuery.ts";
import type { CausalQueryResult } from "../causal/traversal.ts";
import type { EvidenceItem } from "../checkout/mod.ts";
import { sortedChoices } from "../events/causalTaxonomy.ts";
import { inputError } from "../errors.ts";
import type { PlainJson } from "../projection/types.ts";
import { limitMax, validateMemoryRequest } from "./request.ts";
import type { MemoryService } from "./service.ts";

export const reasoningPhases = ["planning", "execution", "review", "reflection"] as const;
export type ReasoningPhase = (typeof reasoningPhases)[number];
export const defaultReasoningPhase: ReasoningPhase = "planning";

export interface ExplainOutcomeInput {
  sessionId: string;
  outcome: unknown;
  phase?: unknown;
  depth?: unknown;
}

export interface ExplainOutcomeRequest {
  sessionId: string;
  outcome: string;
  phase: ReasoningPhase;
  depth: number;
}

export type ExplainFieldNames = Partial<Record<"outcome" | "phase" | "depth", string>>;

export function validateReasoningPhase(value: unknown, field = "phase"): ReasoningPhase {
  if (value === undefined) return defaultReasoningPhase;
  if (typeof value !== "string" || !(reasoningPhases as readonly string[]).includes(value.trim())) {
    throw inputError("invalid_phase", `${field} must be one of: ${sortedChoices(reasoningPhases)}; got ${JSON.stringify(value)}`, {
      field,
      expected: `one of ${sortedChoices(reasoningPhases)}`,
      actual: String(value),
    });
  }
  return value.trim() as ReasoningPhase;
}

export function validateExplainOutcome(input: ExplainOutcomeInput, names: ExplainFieldNames = {}): ExplainOutcomeRequest {
  const query = validateCausalQuery(
    { sessionId: input.sessionId, direction: "predecessors", entityName: input.outcome, depth: input.depth },
    { entity_name: names.outcome ?? "outcome", depth: names.depth ?? "depth" },
  );
  return { sessionId: query.sessionId, outcome: query.entityName, phase: validateReasoningPhase(input.phase, names.phase ?? "phase"), depth: query.depth };
}

/** A `results[]` item: a causal query result, or in the checkout fallback a cited evidence item. */
export type ExplainOutcomeResult = CausalQueryResult | { source: "checkout"; content: string; citation: string };

/** A cited `evidence[]` item (citation, content and source first). */
type ReasoningEvidence = { citation: string; content: string; source: string; [key: string]: PlainJson };

/** The `explain_outcome` document (see the module header). */
export type ExplainOutcomeDocument = {
  primitive: "explain_outcome";
  phase: ReasoningPhase;
  session_id: string;
  outcome: string;
  depth: number;
  fallback_used: boolean;
  result_count: number;
  results: ExplainOutcomeResult[];
  evidence: ReasoningEvidence[];
};

/** Python `_causal_result_reasoning_evidence`. */
function causalEvidenceItem(result: CausalQueryResult): ReasoningEvidence {
  const summary = result.evidence.summary;
  return {
    citation: result.citation,
    content: typeof summary === "string" && summary !== "" ? summary : `${result.source.name} ${result.relation_type} ${result.target.name}`,
    source: "causal_predecessor",
    confidence: result.confidence,
    review_status: result.review_status,
    authority_status: result.authority_status,
  };
}

/** Python `_checkout_reasoning_evidence`: citation, content, source and the scalar identity keys. */
function checkoutEvidenceItem(item: EvidenceItem): ReasoningEvidence {
  const out: ReasoningEvidence = {
    citation: item.citation,
    content: String(item.content ?? ""),
    source: typeof item.source === "string" && item.source !== "" ? item.source : "checkout",
  };
  // Python's list of identity keys, looked up by name: an item has only some of them.
  const fields: { readonly [key: string]: unknown } = { ...item };
  for (const key of ["entity_name", "entity_type", "event_type", "event_seq", "event_hash", "source_event_seq", "source_event_hash", "authority_status", "review_status"]) {
    const value = fields[key];
    if ((typeof value === "string" && value !== "") || typeof value === "number" || typeof value === "boolean") out[key] = value;
  }
  return out;
}

/**
 * @example
 * ```ts
 * const doc = await explainOutcome(new MemoryService(".eventloom"), validateExplainOutcome({ sessionId: "default", outcome: "deploy failed" }));
 * doc.fallback_used; // false when "deploy failed" has causal predecessors
 * ```
 */
export async function explainOutcome(service: MemoryService, request: ExplainOutcomeRequest): Promise<ExplainOutcomeDocument> {
  const causal = await queryCausal(service, {
    sessionId: request.sessionId,
    direction: "predecessors",
    entityName: request.outcome,
    depth: request.depth,
  });
  let results: ExplainOutcomeResult[] = causal.map((result) => ({ ...result }));
  let evidence = causal.map(causalEvidenceItem);
  const fallbackUsed = results.length === 0;
  if (fallbackUsed) {
    const checkout = await service.checkout(validateMemoryRequest({
      sessionId: request.sessionId,
      query: request.outcome,
      limit: Math.max(1, Math.min(limitMax, request.depth * 2)),
    }));
    evidence = checkout.evidence.map(checkoutEvidenceItem);
    results = evidence.map((item) => ({ source: "checkout", content: item.content, citation: item.citation }));
  }
  return {
    primitive: "explain_outcome",
    phase: request.phase,
    session_id: request.sessionId,
    outcome: request.outcome,
    depth: request.depth,
    fallback_used: fallbackUsed,
    result_count: results.length,
    results,
    evidence,
  };
}
