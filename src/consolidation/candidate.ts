/**
 * The consolidation candidate and review contracts (DESIGN §8; reference §2.1–2.2), shared by
 * every producer of candidates (manual `propose`, `propose-from-log`, `merge_concepts`).
 *
 * What must never change: the candidate id is seed 001's `_candidate_id`,
 * `consolidation:<type>:` + the first 16 hex of SHA-256 over the canonical JSON (Python
 * `json.dumps(..., sort_keys=True, separators=(",", ":"))`, ASCII-escaped) of
 * `{candidate_type, title, source_events}` — it does not depend on actor, session, summary,
 * confidence, method or purpose, so the same proposal from Python and from this binary is the
 * same candidate. Earlier builds of this binary cut the same digest at 24 hex; those ids stay in
 * their logs, so every place that takes a candidate id accepts both lengths, and a re-run of
 * `propose-from-log` recognises a candidate recorded under its 24-hex id. Every candidate and
 * review carries `authority_status: "non_authoritative"`: a review is a disposition, never a
 * promotion.
 *
 * @example
 * const payload = consolidationCandidatePayload({
 *   candidateType: "claim", title: "Tests pass after the fix", summary: "…",
 *   sourceEvents: [{ seq: 3, hash: "ab…" }], confidence: 0.62, method: "manual_review_v1",
 * });
 * payload.candidate_id; // "consolidation:claim:<16 hex>"
 */
import { canonicalJson, fromJs, JsonNumber, type JsonObject, type JsonValue } from "../canonical/mod.ts";
import { inputError } from "../errors.ts";
import type { AppendItem } from "../eventloom/append.ts";
import { type SourceEventRef, sourceEventsJson } from "../eventloom/root.ts";
import { sha256Hex } from "../platform/mod.ts";
import type { PlainJson } from "../projection/types.ts";
import { isPythonBlank } from "../canonical/pythonText.ts";
import { candidateCreatedType, candidateReviewedType, consolidationInitialReviewStatus, nonAuthoritative } from "../events/consolidationEvents.ts";

export type { SourceEventRef } from "../eventloom/root.ts";

export const consolidationCandidateTypes = ["episode", "claim", "procedure"] as const;
export type ConsolidationCandidateType = (typeof consolidationCandidateTypes)[number];

/** Outcomes a review may record. `pending` is the state before any review, not an outcome. */
export const consolidationReviewStatuses = ["accepted", "rejected", "deferred", "conflicted"] as const;
export type ConsolidationReviewStatus = (typeof consolidationReviewStatuses)[number];

/** Hex characters of the SHA-256 kept in a candidate id (seed 001: `hexdigest()[:16]`). */
export const candidateIdHexChars = 16;
/** What earlier builds of this binary kept; their ids stay valid wherever an id is taken. */
export const legacyCandidateIdHexChars = 24;

/** Both id lengths; the type is then checked against the taxonomy. */
const candidateIdPattern = /^consolidation:([a-z_]+):([0-9a-f]{16}|[0-9a-f]{24})$/;
const eventHashPattern = /^[0-9a-f]{64}$/;

/** The candidate-id rule as a JSON-Schema pattern (MCP input schemas). */
export const candidateIdSchemaPattern = "^consolidation:(episode|claim|procedure):([0-9a-f]{16}|[0-9a-f]{24})$";

function invalid(code: string, field: string, message: string, expected: string): never {
  throw inputError(code, message, { field, expected });
}

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean" || value === null) return String(value);
  return Array.isArray(value) ? "an array" : `a ${typeof value}`;
}

/** Python's `_validate_non_empty_string`: a string that is not empty after `str.strip()`. */
export function requireText(value: unknown, field: string, code = "invalid_consolidation_candidate"): string {
  if (typeof value !== "string" || isPythonBlank(value)) {
    invalid(code, field, `${field} must be a non-empty string (got ${describe(value)})`, "a non-empty string");
  }
  return value;
}

export function isCandidateType(value: unknown): value is ConsolidationCandidateType {
  return typeof value === "string" && (consolidationCandidateTypes as readonly string[]).includes(value);
}

export function isReviewStatus(value: unknown): value is ConsolidationReviewStatus {
  return typeof value === "string" && (consolidationReviewStatuses as readonly string[]).includes(value);
}

export function requireCandidateType(value: unknown, field = "candidate_type"): ConsolidationCandidateType {
  if (!isCandidateType(value)) {
    const valid = [...consolidationCandidateTypes].sort().join(", ");
    invalid("invalid_consolidation_candidate", field, `${field} must be one of: ${valid} (got ${describe(value)})`, valid);
  }
  return value;
}

export function requireReviewStatus(value: unknown, field = "status"): ConsolidationReviewStatus {
  if (!isReviewStatus(value)) {
    const valid = [...consolidationReviewStatuses].sort().join(", ");
    invalid("invalid_consolidation_review", field, `${field} must be one of: ${valid} (got ${describe(value)})`, valid);
  }
  return value;
}

/** A number in [0, 1]; booleans and numeric strings are refused, as Python refuses them. */
export function requireConfidence(value: unknown, field = "confidence"): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > 1) {
    invalid("invalid_consolidation_candidate", field, `${field} must be a number between 0.0 and 1.0 (got ${describe(value)})`, "a number in 0..1");
  }
  return value;
}

/**
 * Validates and snapshots cited source events: a non-empty array of `{seq, hash}` with seq a
 * positive integer (not a boolean, not "1") and hash 64 lowercase hex. Returns fresh objects,
 * so later changes to the caller's array do not reach the candidate.
 */
export function requireSourceEvents(value: unknown, field = "source_events"): SourceEventRef[] {
  if (!Array.isArray(value)) invalid("invalid_consolidation_candidate", field, `${field} must be a non-empty array of {seq, hash} citations`, "[{seq, hash}, ...]");
  if (value.length === 0) invalid("invalid_consolidation_candidate", field, `${field} must be non-empty`, "at least one {seq, hash} citation");
  return value.map((item: unknown, index) => {
    const at = `${field}[${index}]`;
    if (item === null || typeof item !== "object" || Array.isArray(item)) {
      invalid("invalid_consolidation_candidate", at, `${at} must be a {seq, hash} citation (got ${describe(item)})`, "{seq, hash}");
    }
    const seq = (item as { seq?: unknown }).seq;
    const hash = (item as { hash?: unknown }).hash;
    if (typeof seq !== "number" || !Number.isSafeInteger(seq)) {
      invalid("invalid_consolidation_candidate", `${at}.seq`, `${at}.seq must be an integer (got ${describe(seq)})`, "an integer >= 1");
    }
    if (seq <= 0) invalid("invalid_consolidation_candidate", `${at}.seq`, `${at}.seq must be a positive integer (got ${seq})`, "an integer >= 1");
    if (typeof hash !== "string" || !eventHashPattern.test(hash)) {
      invalid("invalid_consolidation_candidate", `${at}.hash`, `${at}.hash must be exactly 64 lowercase hex characters (got ${describe(hash)})`, "64 lowercase hex");
    }
    return { seq, hash };
  });
}

function candidateIdentityDigest(candidateType: ConsolidationCandidateType, title: string, sourceEvents: readonly SourceEventRef[]): string {
  const identity: JsonObject = new Map<string, JsonValue>([
    ["candidate_type", candidateType],
    ["title", title],
    ["source_events", sourceEventsJson(sourceEvents)],
  ]);
  return sha256Hex(canonicalJson(identity));
}

/**
 * The deterministic candidate id (seed 001 `_candidate_id`). `sourceEvents` must already be
 * valid (see `requireSourceEvents`); their order matters, as it does in Python.
 *
 * @example
 * consolidationCandidateId("episode", "Episode 000001-000003", [{ seq: 1, hash: "a".repeat(64) }])
 * // "consolidation:episode:<16 hex>"
 */
export function consolidationCandidateId(candidateType: ConsolidationCandidateType, title: string, sourceEvents: readonly SourceEventRef[]): string {
  return `consolidation:${candidateType}:${candidateIdentityDigest(candidateType, title, sourceEvents).slice(0, candidateIdHexChars)}`;
}

/**
 * The id earlier builds of this binary gave the same candidate (the digest cut at 24 hex), so a
 * candidate they recorded is recognised instead of being proposed a second time.
 *
 * @example
 * legacyConsolidationCandidateId("episode", "Episode 000001-000003", [{ seq: 1, hash: "a".repeat(64) }])
 * // "consolidation:episode:<24 hex>", starting with the 16 hex of consolidationCandidateId
 */
export function legacyConsolidationCandidateId(candidateType: ConsolidationCandidateType, title: string, sourceEvents: readonly SourceEventRef[]): string {
  return `consolidation:${candidateType}:${candidateIdentityDigest(candidateType, title, sourceEvents).slice(0, legacyCandidateIdHexChars)}`;
}

/**
 * Returns the id's candidate type when it is a candidate id — 16 hex (seed 001) or 24 hex (what
 * earlier builds wrote); throws `invalid_candidate_id` (exit 2) for anything else (uppercase,
 * another length, unknown type, a suffix).
 */
export function validateConsolidationCandidateId(id: string, field = "candidate_id"): ConsolidationCandidateType {
  const match = typeof id === "string" ? candidateIdPattern.exec(id) : null;
  if (match === null || !isCandidateType(match[1])) {
    throw inputError("invalid_candidate_id", `${field} ${describe(id)} is not a consolidation candidate id`, {
      field,
      expected: "consolidation:<episode|claim|procedure>:<16 lowercase hex> (or 24, as earlier builds wrote)",
    });
  }
  return match[1];
}

export interface CandidateInput {
  candidateType: string;
  title: string;
  summary: string;
  sourceEvents: readonly SourceEventRef[];
  confidence: number;
  method: string;
  purpose?: string;
}

/**
 * The validated payload of `consolidation.candidate.created`, keys in Python's order:
 * `candidate_id, candidate_type, title, summary, source_events, confidence, method,
 * review_status ("pending"), authority_status ("non_authoritative")[, purpose]`.
 * Throws a `ZaxyError` (exit 2) naming the first bad field.
 */
export function consolidationCandidatePayload(input: CandidateInput): { [key: string]: PlainJson } {
  const candidateType = requireCandidateType(input.candidateType);
  const title = requireText(input.title, "title");
  const summary = requireText(input.summary, "summary");
  const sourceEvents = requireSourceEvents(input.sourceEvents);
  const confidence = requireConfidence(input.confidence);
  const method = requireText(input.method, "method");
  const purpose = input.purpose === undefined ? undefined : requireText(input.purpose, "purpose");
  const payload: { [key: string]: PlainJson } = {
    candidate_id: consolidationCandidateId(candidateType, title, sourceEvents),
    candidate_type: candidateType,
    title,
    summary,
    source_events: sourceEvents.map((ref) => ({ seq: ref.seq, hash: ref.hash })),
    confidence,
    method,
    review_status: consolidationInitialReviewStatus,
    authority_status: nonAuthoritative,
  };
  if (purpose !== undefined) payload.purpose = purpose;
  return payload;
}

/**
 * A payload from `consolidationCandidatePayload` as the lossless value the appender takes.
 * Confidence stays a float (`1.0`, not `1`), as Python writes it.
 */
export function candidatePayloadJson(payload: { [key: string]: PlainJson }): JsonObject {
  const out = fromJs(payload) as JsonObject;
  if (typeof payload.confidence === "number") out.set("confidence", JsonNumber.float(payload.confidence));
  return out;
}

/** The append item for a candidate payload. */
export function candidateCreatedItem(actor: string, payload: { [key: string]: PlainJson }): AppendItem {
  return { type: candidateCreatedType, actor, payload: candidatePayloadJson(payload) };
}

export interface ReviewInput {
  candidateId: string;
  status: string;
  rationale: string;
}

/**
 * The validated payload of `consolidation.candidate.reviewed`:
 * `{candidate_id, status, authority_status: "non_authoritative", rationale}`.
 */
export function consolidationReviewPayload(input: ReviewInput): { [key: string]: PlainJson } {
  validateConsolidationCandidateId(input.candidateId);
  const status = requireReviewStatus(input.status);
  const rationale = requireText(input.rationale, "rationale", "invalid_consolidation_review");
  return { candidate_id: input.candidateId, status, authority_status: nonAuthoritative, rationale };
}

export function candidateReviewedItem(actor: string, payload: { [key: string]: PlainJson }): AppendItem {
  return { type: candidateReviewedType, actor, payload: fromJs(payload) };
}
