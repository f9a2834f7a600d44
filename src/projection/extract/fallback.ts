/**
 * The extraction of an event type nobody registered: the event itself becomes one `event` entity
 * named `event:<type>:<seq>`, so unknown events stay searchable and replayable without a rule.
 */
import type { EventRecord } from "../../eventloom/envelope.ts";
import { entity, type Extracted } from "./build.ts";
import { joinSummary, retentionProperties, sortedKeys, stringList, text } from "../../events/payload.ts";

/** Keys whose values are never copied into a summary (compared case-insensitively). */
const secretKeys = new Set(["secret", "token", "password", "api_key", "access_token"]);

/** Payload keys reserved for Zaxy's own metadata (security block and the like). */
const reservedKeyPrefix = "__zaxy_";

/**
 * Searchable text from a payload's top-level scalars (`key=value`) and scalar list items, in
 * code-point key order; nested objects and secret-looking keys are skipped.
 */
export function fallbackPayloadSummary(record: EventRecord): string | null {
  const parts: string[] = [];
  for (const key of sortedKeys(record.payload)) {
    if (secretKeys.has(key.toLowerCase()) || key.startsWith(reservedKeyPrefix)) continue;
    const value = record.payload.get(key);
    if (Array.isArray(value)) {
      parts.push(...stringList(value));
      continue;
    }
    const t = text(value);
    if (t !== undefined) parts.push(`${key}=${t}`);
  }
  return parts.length > 0 ? parts.join(" ") : null;
}

export function extractFallback(record: EventRecord): Extracted {
  const actor = record.actor === "" ? "unknown" : record.actor;
  const summary = joinSummary(`${actor} emitted ${record.type}`, fallbackPayloadSummary(record));
  return {
    entities: [entity(record, `event:${record.type}:${record.seq}`, "event", summary, retentionProperties(record.payload))],
    edges: [],
  };
}
