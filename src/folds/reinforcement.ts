/**
 * Net feedback per entity from `memory_feedback` (reference §6 row 5), replayed from the verified
 * log: nothing is stored outside the log, so a projection rebuild, an older projection or a
 * degraded read all count the same.
 *
 * - `memory.reinforced` (feedback `used` or `helpful`) counts +1 for its `entity_type`/`entity_name`;
 * - `memory.feedback` whose `feedback` is `irrelevant` counts −1.
 * Entity defaults follow the projection's (`memory:<seq>` / `memory`), so the count lands on the
 * entity the event names. What a net count does to a ranking is retrieval's (retrieval/reinforcement.ts).
 *
 * @example
 * reinforcementFold.apply(reinforcementFold.empty(), wholeLogTail(sessionId, rows, events))
 *   .get(reinforcementKey("symptom", "stale connection pool")) // 2
 */
import type { EventRecord } from "../eventloom/envelope.ts";
import { pythonStrip } from "../canonical/pythonText.ts";
import { pythonCaseFold } from "../vector/textAnalysis.ts";
import type { SessionFold } from "./sessionFold.ts";

/** Python's `feedback.casefold().strip()`: how a feedback value is compared. */
export function normalizeFeedback(value: string): string {
  return pythonStrip(pythonCaseFold(value));
}

export const reinforcedEventType = "memory.reinforced";
export const feedbackEventType = "memory.feedback";

/** The key an entity's reinforcement is kept under: its type and name. */
export function reinforcementKey(entityType: string, name: string): string {
  return `${entityType}\x1f${name}`;
}

function payloadText(event: EventRecord, key: string, fallback: string): string {
  const value = event.payload.get(key);
  return typeof value === "string" && value.trim() !== "" ? value : fallback;
}

/**
 * Net feedback per entity (`reinforcementKey`), continued over a tail. A key keeps the position
 * of the first event that touched it, even when its net comes back to 0, so a continuation gives
 * the entries of the whole log in the same order.
 */
export const reinforcementFold: SessionFold<ReadonlyMap<string, number>> = {
  name: "reinforcement",
  empty: () => new Map(),
  apply(base, tail) {
    const net = new Map<string, number>(base);
    for (const event of tail.events) {
      let delta = 0;
      if (event.type === reinforcedEventType) delta = 1;
      else if (event.type === feedbackEventType && normalizeFeedback(payloadText(event, "feedback", "")) === "irrelevant") delta = -1;
      if (delta === 0) continue;
      const key = reinforcementKey(payloadText(event, "entity_type", "memory"), payloadText(event, "entity_name", `memory:${event.seq}`));
      net.set(key, (net.get(key) ?? 0) + delta);
    }
    return net;
  },
  readsEvent: (event) => event.type === reinforcedEventType || event.type === feedbackEventType,
};
