/**
 * An event a producer derives from one sealed event, to append to the same session after it
 * (inferred edges, causal edges). Its own module so that the producers in causal/ and the
 * projection's inference can both name it without importing each other.
 */
import type { PlainJson } from "../canonical/mod.ts";

export type PlainObject = { [key: string]: PlainJson };

/** An event to append to the same session as its source. */
export interface GeneratedEvent {
  type: string;
  actor: string;
  payload: PlainObject;
}
