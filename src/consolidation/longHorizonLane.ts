/**
 * The long-horizon two-tier checkout plan (DESIGN §9; reference §4). Opt-in: with it off the
 * checkout never calls this module, so its output is byte-identical to a single-tier checkout.
 *
 * Two tiers: the last `recentWindow` events are the episodic tier (at full detail through the
 * recent-events replay and the retrieval lanes); everything older is reached only through
 * reviewed consolidation candidates, the remote tier. A candidate enters the remote tier when
 * - its replayed review status is `accepted` (or `active`), set by a surviving
 *   `consolidation.candidate.reviewed` event: the created event's own `review_status` is never
 *   trusted (a candidate appended raw as "accepted" is pending), a rolled-back review falls back
 *   to the previous surviving one or to pending; pending, rejected, deferred and conflicted
 *   candidates never enter;
 * - it is current (`isCandidateCurrent`): not `stale`, no `superseded_by`, no `valid_to`, and
 *   not closed by a `memory.invalidated` naming it;
 * - it cites at least one source event, every source is a well-formed `{seq, hash}` whose hash
 *   is the hash of the log's event at that seq, and every source is at or before the horizon
 *   split (`max source seq <= horizon_split_seq`), so the remote tier never summarises what the
 *   episodic tier already shows.
 * Each item is a cited, non-authoritative context (`source: "consolidated"`) scored by the I3
 * span relevance
 *
 *   span_relevance = 0.40·query_overlap + 0.25·span_coverage + 0.20·horizon_proximity
 *                  + 0.15·authoring_prior
 *
 * (query_overlap = |q ∩ item| / |q| over compaction tokens (`projectionTokens`: casefolded
 * runs of `[A-Za-z0-9][A-Za-z0-9_.:/#-]*` longer than one character), span_coverage =
 * min(1, sources / 8),
 * horizon_proximity = min(1, max source seq / split seq), authoring_prior = the candidate's
 * confidence or 0.5), rounded to 6 places, sorted best first (ties keep creation order) and cut
 * to the budget (the checkout's context limit).
 *
 * What must never change: a remote item is never authoritative, always carries the citation of
 * its `consolidation.candidate.created` event and of every source event, and the diagnostics
 * section's keys are reference §4's.
 *
 * @example
 * const plan = buildLongHorizonPlan({ sessionId: "default", events, recentWindow: 50, budget: 10, query: "release" });
 * plan.diagnostics.horizon_split_seq; // null when the whole session fits in the window
 * plan.contexts[0]?.metadata.non_authoritative; // true
 */
import { intField, isJsonObject, JsonNumber, type JsonObject, type JsonValue, pythonRound, stringField } from "../canonical/mod.ts";
import type { CheckoutLane, LaneContext, LaneMergeRule } from "../checkout/lane.ts";
import { projectionTokens } from "../retrieval/projectionSearch.ts";
import { citationUri } from "../eventloom/root.ts";
import type { EventRecord } from "../eventloom/envelope.ts";
import type { PlainJson } from "../projection/types.ts";
import { nonAuthoritative } from "../events/consolidationEvents.ts";
import { candidateStanding } from "../events/candidateStanding.ts";
import { isCandidateCurrent, replayConsolidation } from "../folds/consolidationStatus.ts";

/** Review statuses that admit a candidate to the remote tier (Python: accepted, active). */
export const longHorizonStatuses: ReadonlySet<string> = new Set(["accepted", "active"]);

/** I3 span-relevance weights; they sum to 1, so a score stays in 0..1. */
export const spanRelevanceWeights = {
  query_overlap: 0.4,
  span_coverage: 0.25,
  horizon_proximity: 0.2,
  authoring_prior: 0.15,
} as const;

/** Source events at which span coverage saturates at 1. */
export const spanCoverageSaturation = 8;

/** Authoring prior of a candidate without a usable confidence. */
export const neutralAuthoringPrior = 0.5;

/** The lane, source and tier name of remote items. */
export const consolidatedLane = "consolidated";

export interface LongHorizonInput {
  sessionId: string;
  /** Every verified event of the session, in seq order. */
  events: readonly EventRecord[];
  /** Events in the episodic tier (>= 1). */
  recentWindow: number;
  /** Most remote items to return (the checkout's context limit). */
  budget: number;
  query: string;
}

/** A type, not an interface: a plain JSON object, as a lane's diagnostics must be. */
export type LongHorizonItem = {
  candidate_id: string;
  candidate_type: string | null;
  citation: string;
  source_event_citations: string[];
  source_event_count: number;
  review_status: string;
  confidence: number | null;
  non_authoritative: true;
  authority_status: string;
};

export type LongHorizonDiagnostics = {
  enabled: true;
  recent_window: number;
  episodic_count: number;
  horizon_split_seq: number | null;
  consolidated_count: number;
  items: LongHorizonItem[];
  non_authoritative: true;
};

/** A remote-tier context: a retrieved context from the `consolidated` lane. */
export type ConsolidatedContext = LaneContext<typeof consolidatedLane>;

export interface LongHorizonPlan {
  diagnostics: LongHorizonDiagnostics;
  /** Remote items, best first, at most `budget`. */
  contexts: ConsolidatedContext[];
  /** The line listed under "Checkout Diagnostics" (without "- "). */
  promptLine: string;
}

const sourceHashPattern = /^[0-9a-f]{64}$/;

/** Python's `round(value, 6)` (see `pythonRound`): `round(0.0078125, 6) == 0.007812`. */
export function pythonRound6(value: number): number {
  return pythonRound(value, 6);
}

/** The I3 span relevance of an item's terms, as Python rounds it. */
export function spanRelevance(terms: { query_overlap: number; span_coverage: number; horizon_proximity: number; authoring_prior: number }): number {
  return pythonRound6(
    spanRelevanceWeights.query_overlap * terms.query_overlap +
      spanRelevanceWeights.span_coverage * terms.span_coverage +
      spanRelevanceWeights.horizon_proximity * terms.horizon_proximity +
      spanRelevanceWeights.authoring_prior * terms.authoring_prior,
  );
}


/** The candidate's cited sources, or undefined when any is malformed or not in this log. */
function verifiedSources(payload: JsonObject, events: readonly EventRecord[]): Array<{ seq: number; hash: string }> | undefined {
  const raw = payload.get("source_events");
  if (!Array.isArray(raw) || raw.length === 0) return undefined;
  const sources: Array<{ seq: number; hash: string }> = [];
  for (const item of raw) {
    if (!isJsonObject(item)) return undefined;
    const seq = intField(item, "seq");
    const hash = stringField(item, "hash");
    if (seq === undefined || seq < 1 || hash === undefined || !sourceHashPattern.test(hash)) return undefined;
    // A citation must lead back to the event it names: a hash that is not the log's is no source.
    if (seq > events.length || events[seq - 1].hash !== hash) return undefined;
    sources.push({ seq, hash });
  }
  return sources;
}

function confidenceOf(payload: JsonObject): number | null {
  const value: JsonValue | undefined = payload.get("confidence");
  if (!(value instanceof JsonNumber)) return null;
  const number = value.toNumber();
  return Number.isFinite(number) && number >= 0 && number <= 1 ? number : null;
}

function textOf(payload: JsonObject, key: string): string {
  const value = stringField(payload, key);
  return value === undefined ? "" : value.trim();
}

interface Scored {
  context: ConsolidatedContext;
  item: LongHorizonItem;
  score: number;
  order: number;
}

/**
 * Splits the session into the episodic and the remote tier and scores the remote items.
 *
 * @example
 * buildLongHorizonPlan({ sessionId: "s", events, recentWindow: 50, budget: 10, query: "deploy" }).diagnostics.episodic_count
 */
export function buildLongHorizonPlan(input: LongHorizonInput): LongHorizonPlan {
  const total = input.events.length;
  const window = input.recentWindow;
  const base = { enabled: true as const, recent_window: window };
  if (window <= 0 || total <= window) {
    const diagnostics: LongHorizonDiagnostics = {
      ...base,
      episodic_count: total,
      horizon_split_seq: null,
      consolidated_count: 0,
      items: [],
      non_authoritative: true,
    };
    return { diagnostics, contexts: [], promptLine: promptLine(diagnostics) };
  }
  const splitSeq = input.events[total - window - 1].seq;
  const queryTokens = projectionTokens(input.query);
  const replay = replayConsolidation(input.events);
  const scored: Scored[] = [];
  for (const candidate of replay.candidates.values()) {
    const status = candidateStanding(candidate).review_status;
    if (!longHorizonStatuses.has(status)) continue;
    if (!isCandidateCurrent(candidate)) continue;
    const created = input.events[candidate.createdSeq - 1];
    const sources = verifiedSources(created.payload, input.events);
    if (sources === undefined) continue;
    const maxSourceSeq = Math.max(...sources.map((source) => source.seq));
    if (maxSourceSeq > splitSeq) continue;

    const title = textOf(created.payload, "title");
    const summary = textOf(created.payload, "summary");
    const content = title !== "" && summary !== "" ? `${title}: ${summary}` : title || summary || candidate.candidateId;
    const confidence = confidenceOf(created.payload);
    let shared = 0;
    for (const token of projectionTokens(`${content} ${candidate.candidateType ?? ""}`)) if (queryTokens.has(token)) shared++;
    const terms = {
      query_overlap: queryTokens.size === 0 ? 0 : shared / queryTokens.size,
      span_coverage: Math.min(1, sources.length / spanCoverageSaturation),
      horizon_proximity: splitSeq <= 0 ? 0 : Math.min(1, Math.max(0, maxSourceSeq / splitSeq)),
      authoring_prior: confidence ?? neutralAuthoringPrior,
    };
    const score = spanRelevance(terms);
    const citation = citationUri(input.sessionId, created.seq, created.hash);
    const sourceCitations = sources.map((source) => citationUri(input.sessionId, source.seq, source.hash));
    const relevanceTerms: { [key: string]: PlainJson } = {
      query_overlap: pythonRound6(terms.query_overlap),
      span_coverage: pythonRound6(terms.span_coverage),
      horizon_proximity: pythonRound6(terms.horizon_proximity),
      authoring_prior: pythonRound6(terms.authoring_prior),
      weights: { ...spanRelevanceWeights },
      span_coverage_saturation: spanCoverageSaturation,
      horizon_split_seq: splitSeq,
      max_source_seq: maxSourceSeq,
      source_event_count: sources.length,
    };
    const metadata: { [key: string]: PlainJson } = {
      assembly_lane: consolidatedLane,
      source_lane: consolidatedLane,
      tier: consolidatedLane,
      citation,
      source_event_citations: sourceCitations,
      source_event_count: sources.length,
      non_authoritative: true,
      authority_status: nonAuthoritative,
      review_status: status,
      candidate_id: candidate.candidateId,
      candidate_type: candidate.candidateType,
      confidence,
      entity_type: "consolidation_candidate",
      entity_name: candidate.candidateId,
      relevance_terms: relevanceTerms,
    };
    const context: ConsolidatedContext = {
      content,
      source: consolidatedLane,
      sourceLane: consolidatedLane,
      score,
      validFrom: created.timestamp,
      validTo: null,
      citation,
      eventSeq: created.seq,
      eventHash: created.hash,
      entityName: candidate.candidateId,
      entityType: "consolidation_candidate",
      // The checkout's fact and evidence records carry the score explanation but not the
      // metadata, so the authority boundary is stated here too, on every item.
      scoreExplanation: { span_relevance: score, non_authoritative: true, authority_status: nonAuthoritative, review_status: status },
      metadata,
    };
    const item: LongHorizonItem = {
      candidate_id: candidate.candidateId,
      candidate_type: candidate.candidateType,
      citation,
      source_event_citations: sourceCitations,
      source_event_count: sources.length,
      review_status: status,
      confidence,
      non_authoritative: true,
      authority_status: nonAuthoritative,
    };
    scored.push({ context, item, score, order: scored.length });
  }
  scored.sort((a, b) => b.score - a.score || a.order - b.order);
  const kept = scored.slice(0, Math.max(0, input.budget));
  const diagnostics: LongHorizonDiagnostics = {
    ...base,
    episodic_count: window,
    horizon_split_seq: splitSeq,
    consolidated_count: kept.length,
    items: kept.map((entry) => entry.item),
    non_authoritative: true,
  };
  return { diagnostics, contexts: kept.map((entry) => entry.context), promptLine: promptLine(diagnostics) };
}

function promptLine(diagnostics: LongHorizonDiagnostics): string {
  const split = diagnostics.horizon_split_seq === null ? "none" : String(diagnostics.horizon_split_seq);
  return `Long horizon: recent_window=${diagnostics.recent_window}, episodic=${diagnostics.episodic_count}, ` +
    `horizon_split_seq=${split}, consolidated=${diagnostics.consolidated_count}, authority=${nonAuthoritative}`;
}

/**
 * How remote items join retrieval: by score, and a remote item also goes before a retrieved
 * context for the same candidate (the graph projection of it, possibly a superseded version),
 * so de-duplication by citation keeps the replayed, fully cited remote item. Assembly cuts to
 * the checkout's limit afterwards.
 */
export const longHorizonMergeRule: LaneMergeRule = { contextsMax: null, sameEntityFirst: true };

/**
 * The plan as a checkout lane: its remote items join retrieval as the `consolidated` lane, and
 * its section (`diagnostics.long_horizon`, the "Long horizon" prompt line) is listed whenever
 * long-horizon checkout is on, empty remote tier included.
 */
export function longHorizonLane(plan: LongHorizonPlan): CheckoutLane {
  return {
    name: consolidatedLane,
    contexts: plan.contexts,
    merge: longHorizonMergeRule,
    countedWhenEmpty: false,
    raisesContextLimit: false,
    report: { key: "long_horizon", diagnostics: plan.diagnostics, promptLine: plan.promptLine, mandatoryGuidance: [] },
  };
}
