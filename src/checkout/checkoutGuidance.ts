/**
 * Model-facing trust, ignore, refresh and feedback guidance (Python `build_checkout_guidance`).
 * The texts are part of the contract: agents and evaluations match on them.
 */
/** A cited current fact as far as guidance needs it. */
export interface GuidanceFact {
  content: string;
  source: string;
  score: number;
  citation: string;
  entity_name?: string;
  entity_type?: string;
}

export interface RecommendedCall {
  tool: "memory_checkout";
  query: string;
  reason: string;
}

export interface FeedbackPayload {
  entity_name: string;
  entity_type: string;
  feedback: "used";
  actor: "assistant";
  query: string;
  source: string;
  score: number;
  citation: string;
  importance: number;
}

export interface CheckoutGuidance {
  trust: string[];
  ignore: string[];
  /**
   * Mandatory lines (active fleet keystones, docs/fleet.md): cited, non-authoritative and
   * reversible; present only when there are any, so other checkouts keep their bytes.
   */
  mandatory?: string[];
  recommended_next_call: RecommendedCall;
  feedback: { tool: "memory_feedback"; when: string; payloads: FeedbackPayload[] };
}

/** Extra trust and ignore lines contributed by optional features (causal, consolidation, ...). */
export interface ExtraGuidance {
  trust?: readonly string[];
  ignore?: readonly string[];
  mandatory?: readonly string[];
}

/** At most this many ready-made `memory_feedback` payloads, for the top-ranked facts. */
export const feedbackPayloadsMax = 3;

/** `importance` a checkout suggests for `used` feedback (Python's fixed 0.6). */
const feedbackImportance = 0.6;

/** The refresh query a checkout recommends for `query`. */
export function refreshQuery(query: string): string {
  return `current decisions, blockers, and next actions for: ${query}`;
}

function feedbackPayload(fact: GuidanceFact, query: string): FeedbackPayload {
  return {
    entity_name: fact.entity_name ? fact.entity_name : fact.content,
    entity_type: fact.entity_type ? fact.entity_type : "memory",
    feedback: "used",
    actor: "assistant",
    query,
    source: fact.source,
    score: fact.score,
    citation: fact.citation,
    importance: feedbackImportance,
  };
}

export function checkoutGuidance(options: {
  query: string;
  currentFacts: readonly GuidanceFact[];
  evidenceCount: number;
  supersededExcluded: number;
  extra?: ExtraGuidance;
}): CheckoutGuidance {
  const trust = [
    "Use current_facts as the primary working memory for this turn.",
    "Use cited evidence and provenance when making claims about remembered context.",
  ];
  const ignore = [
    "Do not treat superseded contexts as current facts.",
    "Do not rely on uncited facts without checking memory again or asking the user.",
  ];
  if (options.evidenceCount === 0) trust.push("Treat this checkout as low-confidence because it has no cited evidence.");
  if (options.supersededExcluded > 0) ignore.push("Superseded contexts were excluded from current_facts but remain auditable.");
  trust.push(...(options.extra?.trust ?? []));
  ignore.push(...(options.extra?.ignore ?? []));
  const mandatory = [...(options.extra?.mandatory ?? [])];
  return {
    trust,
    ignore,
    ...(mandatory.length > 0 ? { mandatory } : {}),
    recommended_next_call: {
      tool: "memory_checkout",
      query: refreshQuery(options.query),
      reason: "Refresh memory before major follow-up work, after compaction/resume, or when task scope changes.",
    },
    feedback: {
      tool: "memory_feedback",
      when: "After cited context materially informs a response.",
      payloads: options.currentFacts.slice(0, feedbackPayloadsMax).map((fact) => feedbackPayload(fact, options.query)),
    },
  };
}
