/**
 * The payload marker by which a log says "this statement is no longer current": `stale: true`,
 * or a non-empty `superseded_by` string naming what replaced it. Python writes both (the
 * state-recovery logs in `../shared/interop/`, e.g. an earlier hypothesis with
 * `{"stale": true, "superseded_by": "state-auth-hidden-cause:2"}`).
 *
 * The graph fold records an entity version that carries the marker as closed at its own
 * `observed_at`, and the verbatim lane gives a marked event a closed validity, so neither is
 * ever served as a current fact (checkout counts them as superseded contexts) while both stay
 * in the graph and the log, auditable.
 */
import type { JsonObject } from "../canonical/mod.ts";
import type { PlainJson } from "./types.ts";

function marks(stale: unknown, supersededBy: unknown): boolean {
  return stale === true || (typeof supersededBy === "string" && supersededBy.trim() !== "");
}

/**
 * Whether extracted entity properties carry the marker.
 *
 * @example
 * propertiesMarkStale({ stale: true }) // true
 * propertiesMarkStale({ superseded_by: "" }) // false
 */
export function propertiesMarkStale(properties: { [key: string]: PlainJson }): boolean {
  return marks(properties.stale, properties.superseded_by);
}

/** Whether an event payload carries the marker. */
export function payloadMarksStale(payload: JsonObject): boolean {
  return marks(payload.get("stale"), payload.get("superseded_by"));
}
