/**
 * How a prompt shows a projected entity, where its projected text reads badly. A context's
 * `content` stays `<name> (<type>): <summary>`, the projected summary being Python's
 * (`_join_summary` joins a decision's rationale and alternatives with spaces), because JSON
 * documents, the vector index and consolidation compare it; only the prompt line is re-punctuated,
 * from the entity's source event:
 *
 *   decision.made      `Upgrade to PostgreSQL 16 (decision): <rationale>; alternatives: A, B`
 *   memory.corrected   `Upgrade to PostgreSQL 16.4 (decision; corrected, was: Upgrade to PostgreSQL 16)`
 *                      (`<name> (<type>; corrected): <new content>` when the name is an id)
 *   an unknown type    `error.occurred by claude-agent: <payload message, title, summary, text...>`
 *
 * Undefined when the content already reads well. What must never change: the display says what
 * the content says (the same words, other punctuation), so a prompt never claims more than the
 * projection does.
 */
import type { EventRecord } from "../eventloom/envelope.ts";
import { fallbackPayloadSummary } from "../projection/extract/fallback.ts";
import { joinSummary, stringList, text } from "../events/payload.ts";
import type { EntityRow } from "../projection/types.ts";

/**
 * Payload fields that carry an unknown event's message, in the order they are looked for: its
 * `message`, then the text fields the recent-events line shows (assembleContext.ts).
 */
const messageKeys = ["message", "title", "summary", "content", "text", "decision", "task"] as const;

function decisionDisplay(entity: EntityRow, event: EventRecord): string | undefined {
  const p = event.payload;
  const rationale = joinSummary(p.get("summary"), p.get("rationale"));
  const alternativesValue = p.get("alternatives_considered");
  const single = text(alternativesValue);
  const alternatives = Array.isArray(alternativesValue) ? stringList(alternativesValue) : single === undefined ? [] : [single];
  // Only a re-punctuation of the very summary the projection stored (a later fold may differ).
  if (joinSummary(p.get("summary"), p.get("rationale"), alternativesValue) !== entity.summary) return undefined;
  if (alternatives.length === 0) return undefined;
  const parts = [...(rationale === null ? [] : [rationale]), `alternatives: ${alternatives.join(", ")}`];
  return `${entity.name} (decision): ${parts.join("; ")}`;
}

/**
 * A corrected entity keeps its name, and a decision is named by its original text, so its
 * projected line reads `<old text> (decision): <new text>`; the new text leads here.
 */
function correctedDisplay(entity: EntityRow): string | undefined {
  if (entity.summary === null || entity.entityType === "memory_correction") return undefined;
  if (/\s/.test(entity.name)) return `${entity.summary} (${entity.entityType}; corrected, was: ${entity.name})`;
  return `${entity.name} (${entity.entityType}; corrected): ${entity.summary}`;
}

/** An event nobody registered (`extractFallback`): what happened, by whom, and its message. */
function fallbackDisplay(entity: EntityRow, event: EventRecord): string | undefined {
  if (entity.name !== `event:${event.type}:${event.seq}`) return undefined;
  const head = `${event.type} by ${event.actor === "" ? "unknown" : event.actor}`;
  let message: string | undefined;
  for (const key of messageKeys) message ??= text(event.payload.get(key));
  message ??= fallbackPayloadSummary(event) ?? undefined;
  return message === undefined ? head : `${head}: ${message}`;
}

/**
 * The prompt line of a projected entity whose source event is `event`, when it differs from
 * its content.
 *
 * @example
 * entityDisplay(decisionRow, decisionMadeEvent);
 * // "Upgrade to PostgreSQL 16 (decision): Zero-downtime upgrade; alternatives: Upgrade to MySQL 8.0, Move to Aurora"
 */
export function entityDisplay(entity: EntityRow, event: EventRecord | undefined): string | undefined {
  if (event === undefined || event.seq !== entity.sourceEventSeq) return undefined;
  if (event.type === "memory.corrected") return correctedDisplay(entity);
  if (entity.entityType === "decision" && event.type === "decision.made") return decisionDisplay(entity, event);
  if (entity.entityType === "event") return fallbackDisplay(entity, event);
  return undefined;
}
