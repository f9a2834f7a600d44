/**
 * Reinforcement from `memory_feedback` (reference §6 row 5), replayed from the verified log at
 * read time: nothing is stored outside the log, so a projection rebuild, an older projection or
 * a degraded read all rank the same.
 *
 * - `memory.reinforced` (feedback `used` or `helpful`) counts +1 for its `entity_type`/`entity_name`;
 * - `memory.feedback` whose `feedback` is `irrelevant` counts −1.
 * The net count scales the fused score of every version of that entity:
 * `factor = clamp(1 + reinforcementStep × net, reinforcementFactorMin, reinforcementFactorMax)`.
 * The bounds keep feedback a nudge among near-equal answers: a memory the query does not match
 * cannot be lifted over one it matches well, and no memory is ever hidden by feedback alone.
 *
 * What must never change without a note in docs/checkout.md: these rules and constants, since
 * agents learn to give feedback by what it does to the next ranking.
 *
 * @example
 * reinforcementFactor(2) // 1.2
 * reinforcementFactor(-9) // 0.5
 */
import type { EventRecord } from "../eventloom/envelope.ts";
import { pythonStrip } from "../canonical/pythonText.ts";
import { pythonCaseFold } from "../vector/caseFold.ts";

/** Python's `feedback.casefold().strip()`: how a feedback value is compared. */
export function normalizeFeedback(value: string): string {
  return pythonStrip(pythonCaseFold(value));
}

/** Score change per net feedback event. */
export const reinforcementStep = 0.1;
/** Lowest factor: five or more net `irrelevant` halve the score, never more. */
export const reinforcementFactorMin = 0.5;
/** Highest factor: five or more net `used`/`helpful` raise the score by half, never more. */
export const reinforcementFactorMax = 1.5;

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
 * Net feedback per entity (`reinforcementKey`) over `events`. Entity defaults follow the
 * projection's (`memory:<seq>` / `memory`), so the count lands on the entity the event names.
 */
export function reinforcementByEntity(events: readonly EventRecord[]): Map<string, number> {
  return continueReinforcement([], events);
}

/**
 * The net feedback over a log whose first events gave `base` (`reinforcementByEntity` of them,
 * as the read model stores it) and whose remaining events are `tail`: equal to
 * `reinforcementByEntity` of the whole log, entries and their order included (a key keeps the
 * position of the first event that touched it, even when its net comes back to 0).
 *
 * @example
 * continueReinforcement([...reinforcementByEntity(events.slice(0, k))], events.slice(k))
 */
export function continueReinforcement(base: Iterable<readonly [string, number]>, tail: readonly EventRecord[]): Map<string, number> {
  const net = new Map<string, number>(base);
  for (const event of tail) {
    let delta = 0;
    if (event.type === reinforcedEventType) delta = 1;
    else if (event.type === feedbackEventType && normalizeFeedback(payloadText(event, "feedback", "")) === "irrelevant") delta = -1;
    if (delta === 0) continue;
    const key = reinforcementKey(payloadText(event, "entity_type", "memory"), payloadText(event, "entity_name", `memory:${event.seq}`));
    net.set(key, (net.get(key) ?? 0) + delta);
  }
  return net;
}

export function reinforcementFactor(net: number): number {
  return Math.min(reinforcementFactorMax, Math.max(reinforcementFactorMin, 1 + reinforcementStep * net));
}
