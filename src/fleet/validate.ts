/** Input checks shared by the fleet operations: each failure is bad input (exit 2) naming the field. */
import { inputError } from "../errors.ts";
import type { SourceEventRef } from "../eventloom/root.ts";
import { eventTextCharsMax } from "../limits.ts";

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean" || value === null) return String(value);
  return Array.isArray(value) ? "an array" : `a ${typeof value}`;
}

/** A string that is not blank. */
export function requireFleetText(value: unknown, field: string): string {
  if (typeof value !== "string" || value.trim().length === 0) {
    throw inputError("invalid_fleet_request", `${field} must be a non-empty string (got ${describe(value)})`, { field, expected: "a non-empty string" });
  }
  return value;
}

const controlChars = /[\u0000-\u001f\u007f-\u009f]/;

/** An agent or actor id: what an event's actor may be (non-empty, no control characters, ≤ 256). */
export function requireAgentId(value: unknown, field: string): string {
  const text = requireFleetText(value, field);
  if (text.length > eventTextCharsMax || controlChars.test(text)) {
    throw inputError("invalid_fleet_request", `${field} must be at most ${eventTextCharsMax} characters without control characters (got ${describe(value)})`, {
      field,
      expected: "an agent id",
    });
  }
  return text;
}

const hashPattern = /^[0-9a-f]{64}$/;

/** A non-empty array of `{seq, hash}` (seq a positive integer, hash 64 lowercase hex), copied. */
export function requireSourceRefs(value: unknown, field = "source_events"): SourceEventRef[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw inputError("missing_source_events", `${field} must cite at least one source event as {seq, hash}`, { field, expected: "[{seq, hash}, ...]" });
  }
  return value.map((item: unknown, index) => {
    const at = `${field}[${index}]`;
    const seq = (item as { seq?: unknown } | null)?.seq;
    const hash = (item as { hash?: unknown } | null)?.hash;
    if (typeof seq !== "number" || !Number.isSafeInteger(seq) || seq < 1) {
      throw inputError("invalid_source_event", `${at}.seq must be an integer >= 1 (got ${describe(seq)})`, { field: `${at}.seq`, expected: "an integer >= 1" });
    }
    if (typeof hash !== "string" || !hashPattern.test(hash)) {
      throw inputError("invalid_source_event", `${at}.hash must be 64 lowercase hex characters (got ${describe(hash)})`, { field: `${at}.hash`, expected: "64 lowercase hex" });
    }
    return { seq, hash };
  });
}
