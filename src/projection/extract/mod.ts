/**
 * Extraction: one sealed event in, the entities and edges it states out (DESIGN §4). A registry
 * keyed by event type picks the extractor; unknown types, and payloads an extractor cannot read,
 * become one generic `event:<type>:<seq>` entity, so extraction never throws and never drops an
 * event. Results carry the source event's seq, hash, prev hash, type and thread.
 *
 * @example
 * ```ts
 * import { extractEvent } from "./src/projection/extract/mod.ts";
 * const result = extractEvent(record); // record: EventRecord of type "goal.created"
 * result.entities.map((e) => `${e.entityType}:${e.name}`); // ["goal:Ship v1", "actor:agent-a"]
 * ```
 */
import type { EventRecord } from "../../eventloom/envelope.ts";
import type { ExtractionResult } from "../types.ts";
import type { Extracted, Extractor } from "./build.ts";
import { consolidationExtractors } from "./consolidation.ts";
import { coordinationExtractors } from "./coordination.ts";
import { extractFallback } from "./fallback.ts";
import { fleetExtractors } from "./fleet.ts";
import { indexingExtractors } from "./indexing.ts";
import { inferredExtractors } from "./inferred.ts";
import { learningExtractors } from "./learning.ts";
import { lifecycleExtractors } from "./lifecycle.ts";
import { memoryExtractors } from "./memory.ts";
import { skillExtractors } from "./skills.ts";
import { workflowExtractors } from "./workflow.ts";

export { type Extracted, type Extractor, MalformedPayload } from "./build.ts";
export { extractFallback, fallbackPayloadSummary } from "./fallback.ts";

const registry = new Map<string, Extractor>(
  Object.entries({
    ...workflowExtractors,
    ...skillExtractors,
    ...memoryExtractors,
    ...learningExtractors,
    ...lifecycleExtractors,
    ...indexingExtractors,
    ...inferredExtractors,
    ...consolidationExtractors,
    ...coordinationExtractors,
    ...fleetExtractors,
  }),
);

/** Installs (or replaces: last writer wins) the extractor for an event type. */
export function registerExtractor(eventType: string, extractor: Extractor): void {
  registry.set(eventType, extractor);
}

/** The dedicated extractor for an event type, if any (otherwise the event takes the fallback). */
export function extractorFor(eventType: string): Extractor | undefined {
  return registry.get(eventType);
}

/** The event types with a dedicated extractor, sorted. */
export function registeredEventTypes(): string[] {
  return [...registry.keys()].sort();
}

function extractedBy(record: EventRecord): Extracted {
  const extractor = registry.get(record.type);
  if (extractor === undefined) return extractFallback(record);
  try {
    return extractor(record);
  } catch {
    // A payload the rule cannot read is still an event in the log; keep it searchable.
    return extractFallback(record);
  }
}

/**
 * The entities and edges one event states, with its provenance. Never throws for any payload.
 *
 * @example
 * ```ts
 * extractEvent(record).edges[0].relationType; // "created_goal" for a goal.created event
 * ```
 */
export function extractEvent(record: EventRecord): ExtractionResult {
  const { entities, edges } = extractedBy(record);
  return {
    entities,
    edges,
    sourceEventSeq: record.seq,
    sourceEventHash: record.hash,
    sourceEventPrevHash: record.prevHash,
    sourceEventType: record.type,
    sourceThread: record.thread,
  };
}
