/**
 * Deterministic fleet identifiers (reference §5.4). What must never change: a promotion id is
 * `fleetpromo:` + the first 24 hex of SHA-256 over the Python-canonical JSON (sorted keys, no
 * whitespace, ASCII escapes) of `{fleet_id, kind, origin_session, source_events}` — it does not
 * depend on the actor, confidence, scope or text, so the same evidence promoted twice is the
 * same promotion, from this binary or from Python. A fleet rule id is Python's outcome-learning
 * `_rule_id`: `rule:` + 24 hex of SHA-256 of canonical `{rule, trigger, source_events}`.
 *
 * @example
 * fleetPromotionId("fleetbench", "outcome", "fleet-agent-000", [{ seq: 1, hash: "376a…" }]);
 * // "fleetpromo:5f68f0accd2f9972a87693b9"
 */
import { canonicalJson, type JsonObject, type JsonValue } from "../canonical/mod.ts";
import { inputError } from "../errors.ts";
import { type SourceEventRef, sourceEventsJson, validateSessionId } from "../eventloom/root.ts";
import { sessionIdCharsMax } from "../limits.ts";
import { sha256Hex } from "../platform/mod.ts";
import { globalFleetId, type PromotionKind } from "./vocabulary.ts";

/** Hex characters of the SHA-256 kept in promotion and rule ids. */
export const fleetIdHexChars = 24;
export const promotionIdPrefix = "fleetpromo:";
export const promotionIdPattern = /^fleetpromo:[0-9a-f]{24}$/;

/** The log thread of a fleet: `fleet.<fleet_id>`. */
export function fleetThread(fleetId: string): string {
  return fleetThreadPrefix + fleetId;
}

export const fleetThreadPrefix = "fleet.";
/** A fleet id is what is left of a session id after the `fleet.` prefix. */
export const fleetIdCharsMax = sessionIdCharsMax - fleetThreadPrefix.length;
const fleetIdPattern = new RegExp(`^[A-Za-z0-9_.-]{1,${fleetIdCharsMax}}$`);

/**
 * A fleet id must make `fleet.<id>` a valid session id (DESIGN §2.1): 1-122 of A-Z a-z 0-9 . _ -
 * (`:` and path separators are refused), and, as for session ids, not `.` or `..` (the id names
 * a file, `fleet.<id>.jsonl`). The one rule for every front door. Throws `invalid_fleet_id` (exit 2).
 */
export function validateFleetId(value: unknown, field = "fleet_id"): string {
  if (typeof value !== "string" || !fleetIdPattern.test(value) || value === "." || value === "..") {
    throw inputError("invalid_fleet_id", `${field} ${value === undefined ? "is missing" : JSON.stringify(value) + " is not a fleet id"}: fleet ids are 1-${fleetIdCharsMax} of A-Z a-z 0-9 . _ -`, {
      field,
      expected: fleetIdPattern.source,
    });
  }
  if (value === globalFleetId) {
    throw inputError("reserved_fleet_id", `${field} "global" is reserved: fleet.global is the deployment-wide thread of visibility_scope global (one Eventloom root), not an ordinary fleet`, {
      field,
      expected: "a fleet id other than global",
      hint: "choose another fleet id; publish deployment-wide with visibility_scope global",
    });
  }
  validateSessionId(fleetThread(value));
  return value;
}

function shortDigest(identity: JsonObject): string {
  return sha256Hex(canonicalJson(identity)).slice(0, fleetIdHexChars);
}

/** `fleetpromo:<24 hex>`; source order matters, as it does in Python. */
export function fleetPromotionId(fleetId: string, kind: PromotionKind, originSession: string, sourceEvents: readonly SourceEventRef[]): string {
  return promotionIdPrefix + shortDigest(new Map<string, JsonValue>([
    ["fleet_id", fleetId],
    ["kind", kind],
    ["origin_session", originSession],
    ["source_events", sourceEventsJson(sourceEvents)],
  ]));
}

/** `rule:<24 hex>`, Python's `_rule_id(rule, trigger, source_events)`: one implementation, outcome learning's. */
export { ruleId as fleetRuleId } from "../governance/outcomeLearning.ts";
