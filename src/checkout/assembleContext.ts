/**
 * Context assembly: recent replay plus retrieved context as one prompt-ready, cited payload
 * (reference §4.2). The JSON shape is the MCP `memory_context` payload and must not change:
 *
 *   {session_id, prompt, contexts[{content, source, score, valid_from, valid_to, citation,
 *    score_explanation, metadata}], replay_event_count, compacted, warnings, assembly_policy,
 *    context_counts{graph, verbatim, replay}, budget?}
 *
 * Prompt line shapes (Python's, exactly):
 *   # Recent Events
 *   [{seq}] {type} by {actor}
 *   {payload title/summary/content/text/decision/task joined by " ", else "{type} by {actor}"}
 *
 *   # Retrieved Context
 *   - {content} ({citation})
 *
 *   # Context Warnings            (only when there are warnings)
 *   - {warning}
 */
import type { EventRecord } from "../eventloom/envelope.ts";
import { withheldRuleEventSeqs } from "../folds/ruleStatus.ts";
import type { PlainJson } from "../projection/types.ts";
import type { RetrievalResult, RetrievedContext } from "../retrieval/types.ts";
import { eventText, joinSections, packPrompt, type PromptBudget, type PromptSection, sectionWeights } from "./checkoutPrompt.ts";

export interface AssembleInput {
  sessionId: string;
  query: string;
  retrieval: RetrievalResult;
  /** The replay window to show, oldest first; already cut to the most recent events. */
  recentEvents: EventRecord[];
  replayEventCount: number;
  /** Whether the replay window was cut (older events exist that are not shown). */
  compacted: boolean;
  /** Most retrieved contexts to put in the prompt. */
  limit: number;
  /** Token budget for the prompt; absent means unbudgeted. */
  maxTokens?: number;
  /**
   * Rebuilds and repairs of the projection done for this answer (a damaged read model, vector
   * index or graph store, an interrupted write): each becomes a warning, so an answer given
   * right after a repair says so.
   */
  projectionRepairs?: readonly string[];
}

export interface AssembledContext {
  content: string;
  source: string;
  score: number;
  valid_from: string | null;
  valid_to: string | null;
  citation: string | null;
  score_explanation: { [key: string]: PlainJson } | null;
  metadata: { [key: string]: PlainJson };
}

export interface AssemblyPolicy {
  verbatim_enabled: boolean;
  verbatim_slots: number;
  packet_memory_enabled: boolean;
  packet_memory_slots: number;
}

export interface ContextCounts {
  graph: number;
  verbatim: number;
  replay: number;
}

export interface ContextAssembly {
  session_id: string;
  prompt: string;
  contexts: AssembledContext[];
  replay_event_count: number;
  compacted: boolean;
  warnings: string[];
  assembly_policy: AssemblyPolicy;
  context_counts: ContextCounts;
  budget?: PromptBudget;
}

/**
 * Retrieved-context slots reserved for the verbatim lane (Python `CONTEXT_VERBATIM_SLOTS`), so
 * raw source text survives even when projected entities outrank it.
 */
export const verbatimSlots = 1;

const assemblyPolicy: AssemblyPolicy = {
  verbatim_enabled: true,
  verbatim_slots: verbatimSlots,
  // There is no packet-memory lane in this implementation; said so rather than omitted, so
  // clients written against the Python payload read the same keys.
  packet_memory_enabled: false,
  packet_memory_slots: 0,
};

/** Longest context text quoted in a warning, in code points (Python `_warning_label`). */
const warningLabelChars = 80;

/** Everything assembly derives, for `assembleContext` and for Memory Checkout. */
export interface AssemblyParts {
  /** The contexts that made it into the prompt, in retrieval rank order. */
  selected: RetrievedContext[];
  warnings: string[];
  /** `recent_events`, `retrieved_context`, and `context_warnings` when there are warnings. */
  sections: PromptSection[];
  /** The recent events `recent_events` shows (withheld rules left out), oldest first. */
  shownEvents: readonly EventRecord[];
  contextCounts: ContextCounts;
  assemblyPolicy: AssemblyPolicy;
}

/** Citation, qualified by entity for graph contexts (one event can state several entities). */
function dedupeKey(context: RetrievedContext): string {
  if (context.citation && context.entityName !== undefined) return `citation:${context.citation}|${context.entityType}|${context.entityName}`;
  if (context.citation) return `citation:${context.citation}`;
  return `content:${context.content.split(/\s+/).filter((part) => part !== "").join(" ").toLowerCase()}`;
}

function isVerbatim(context: RetrievedContext): boolean {
  return context.source === "verbatim";
}

/**
 * The contexts for the prompt: de-duplicated by citation (else normalised content), at most
 * `limit`, in rank order, with `verbatimSlots` kept for the verbatim lane when it has hits.
 */
export function selectContexts(contexts: readonly RetrievedContext[], limit: number): RetrievedContext[] {
  if (limit <= 0) return [];
  const seen = new Set<string>();
  const unique = contexts.filter((context) => {
    const key = dedupeKey(context);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const reserved = Math.min(verbatimSlots, limit, unique.filter(isVerbatim).length);
  const otherCap = limit - reserved;
  const selected: RetrievedContext[] = [];
  let otherCount = 0;
  for (const context of unique) {
    if (selected.length >= limit) break;
    if (isVerbatim(context)) {
      selected.push(context);
    } else if (otherCount < otherCap) {
      selected.push(context);
      otherCount += 1;
    }
  }
  return selected;
}

function isCompactedContext(context: RetrievedContext): boolean {
  const source = (context.source as string).toLowerCase();
  if (source === "projection" || source === "compaction" || source === "compacted") return true;
  const metadata = context.metadata;
  return isTruthyPlain(metadata.compacted) || isTruthyPlain(metadata.projection_id) || isTruthyPlain(metadata.compaction_projection);
}

function isTruthyPlain(value: PlainJson | undefined): boolean {
  if (value === undefined || value === null || value === false || value === 0 || value === "") return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return Object.keys(value).length > 0;
  return true;
}

function hasSourceSupport(context: RetrievedContext): boolean {
  return Boolean(context.citation) || isTruthyPlain(context.metadata.citation) || isTruthyPlain(context.metadata.citations);
}

function warningLabel(content: string): string {
  const compact = content.split(/\s+/).filter((part) => part !== "").join(" ");
  const codePoints = Array.from(compact);
  return codePoints.length <= warningLabelChars ? compact : `${codePoints.slice(0, warningLabelChars - 3).join("")}...`;
}

function contextWarnings(selected: readonly RetrievedContext[], input: AssembleInput): string[] {
  const warnings: string[] = [];
  for (const context of selected) {
    if (isCompactedContext(context) && !hasSourceSupport(context)) {
      warnings.push(`${context.source} context '${warningLabel(context.content)}' lacks source-level citation`);
    }
  }
  if (input.compacted && !selected.some(hasSourceSupport)) {
    warnings.push("recent replay was truncated and no retrieved source context was available");
  }
  if (input.retrieval.degraded) {
    const reason = input.retrieval.degradedReason ?? "no reason reported";
    warnings.push(`retrieval was degraded (${reason}); retrieved context may be incomplete`);
  }
  for (const repair of input.projectionRepairs ?? []) warnings.push(`projection repaired: ${repair}`);
  warnings.push(...(input.retrieval.warnings ?? []));
  return warnings;
}

function promptSections(
  selected: readonly RetrievedContext[],
  events: readonly EventRecord[],
  warnings: readonly string[],
): PromptSection[] {
  const recent = ["# Recent Events"];
  for (const event of events) recent.push(`[${event.seq}] ${event.type} by ${event.actor}`, eventText(event));
  const retrieved = ["# Retrieved Context"];
  for (const context of selected) retrieved.push(`- ${context.content}${context.citation ? ` (${context.citation})` : ""}`);
  const sections: PromptSection[] = [
    { id: "recent_events", text: recent.join("\n"), mandatory: false, weight: sectionWeights.recent_events },
    { id: "retrieved_context", text: retrieved.join("\n"), mandatory: false, weight: sectionWeights.retrieved_context },
  ];
  if (warnings.length > 0) {
    // Warnings say which context not to trust; a budget must never strip them from the assembly.
    const text = ["# Context Warnings", ...warnings.map((warning) => `- ${warning}`)].join("\n");
    sections.push({ id: "context_warnings", text, mandatory: true, weight: sectionWeights.context_warnings });
  }
  return sections;
}

function withoutWithheldRules(events: readonly EventRecord[]): readonly EventRecord[] {
  const withheld = withheldRuleEventSeqs(events);
  return withheld.size === 0 ? events : events.filter((event) => !withheld.has(event.seq));
}

/** Selection, warnings, and prompt sections for an assembly input. */
export function assemblyParts(input: AssembleInput): AssemblyParts {
  const selected = selectContexts(input.retrieval.contexts, input.limit);
  const warnings = contextWarnings(selected, input);
  const verbatim = selected.filter(isVerbatim).length;
  // A pending or rolled-back rule must not reach the prompt through Recent Events either; its
  // rollback always follows it, so the recent slice alone decides.
  const shownEvents = withoutWithheldRules(input.recentEvents);
  return {
    selected,
    warnings,
    sections: promptSections(selected, shownEvents, warnings),
    shownEvents,
    contextCounts: { graph: selected.length - verbatim, verbatim, replay: input.replayEventCount },
    assemblyPolicy: { ...assemblyPolicy },
  };
}

function assembledContext(context: RetrievedContext): AssembledContext {
  const lane = isVerbatim(context) ? "verbatim" : "graph";
  return {
    content: context.content,
    source: context.source,
    score: context.score,
    valid_from: context.validFrom,
    valid_to: context.validTo,
    citation: context.citation,
    score_explanation: Object.keys(context.scoreExplanation).length > 0 ? context.scoreExplanation : null,
    metadata: { ...context.metadata, assembly_lane: lane },
  };
}

/**
 * Assembles recent events and retrieved context into a cited prompt.
 *
 * @example
 * const assembly = assembleContext({
 *   sessionId: "default", query: "release plan", retrieval, recentEvents: events.slice(-20),
 *   replayEventCount: Math.min(events.length, 20), compacted: events.length > 20, limit: 10,
 * });
 * assembly.prompt.startsWith("# Recent Events"); // true
 */
export function assembleContext(input: AssembleInput): ContextAssembly {
  const parts = assemblyParts(input);
  const packed = input.maxTokens === undefined ? undefined : packPrompt(parts.sections, input.maxTokens);
  const assembly: ContextAssembly = {
    session_id: input.sessionId,
    prompt: packed === undefined ? joinSections(parts.sections) : packed.prompt,
    contexts: parts.selected.map(assembledContext),
    replay_event_count: input.replayEventCount,
    compacted: input.compacted,
    warnings: parts.warnings,
    assembly_policy: parts.assemblyPolicy,
    context_counts: parts.contextCounts,
  };
  if (packed !== undefined) assembly.budget = packed.budget;
  return assembly;
}
