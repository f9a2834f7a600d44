/**
 * What a derived event zaxy produces itself must look like (design 001: "a causal edge is only
 * built when it cites the event that justifies it"). Today one type: `causal.edge.generated`,
 * written only by the causal producer (`outcomeExplained.ts`) through `buildCausalEdgeEvent`.
 *
 * One rule, three readers, so they can never disagree:
 * - append (`derivedEventRule`, which every append applies through `events/append.ts`): a raw
 *   event of this type that breaks the rule is refused, exit 2, nothing written;
 * - projection (`projection/extract/inferred.ts`): such an event is not projected as an edge;
 * - audit (`memory status`, `compact --audit`): such an event already sealed in a log (written
 *   by Python's unvalidated `append_event`, or by an older zaxy) is reported as an invalid
 *   derived event, never silently skipped.
 *
 * The rule is the projector's (lenient text as Python reads it, strict numbers): `source` and
 * `target` are `{name, entity_type}` with non-blank text; `relation_type` is one of the causal
 * taxonomy; `graph_relation_type`, when present, is `causal_<relation_type>`; `confidence` is a
 * JSON number in [0, 1]; `causal_method` is a non-blank string; `evidence` cites its event with
 * `source_event_seq` (integer >= 1) and `source_event_hash` (64 lowercase hex); `review_status`,
 * when present, is a causal review status; `authority_status`, when present, is
 * `non_authoritative`. Every problem is reported, not just the first.
 *
 * @example
 * derivedEventIssues("causal.edge.generated", payload)
 * // [{ field: "relation_type", message: "relation_type must be one of: ...; got \"correlated\"" }]
 */
import { isJsonObject, type JsonObject, type JsonValue, parseJsonBytes } from "../canonical/mod.ts";
import type { EventRule } from "../eventloom/append.ts";
import { type EventRecord, recordFromLine } from "../eventloom/envelope.ts";
import { readLogLines } from "../eventloom/lines.ts";
import { eventHash, integer, object, strictText, text, unitNumber } from "./payload.ts";
import { causalRelationTypes, causalReviewStatuses, defaultCausalReviewStatus, nonAuthoritative, sortedChoices } from "./causalTaxonomy.ts";

export const causalEdgeGeneratedType = "causal.edge.generated";

/** Derived event types whose only producer is zaxy, and so are held to their producer's rule. */
export const ruledDerivedEventTypes: ReadonlySet<string> = new Set([causalEdgeGeneratedType]);

/** Said with every refusal: where a valid event of this kind comes from. */
export const derivedEventHint = "causal edges are written by zaxy's causal producer; append a cited outcome.explained instead";

export interface DerivedEventIssue {
  /** Payload key path, e.g. `evidence.source_event_hash`. */
  field: string;
  message: string;
}

function entityRefIssues(value: JsonValue | undefined, role: string, issues: DerivedEventIssue[]): void {
  const mapping = object(value);
  if (mapping === undefined) {
    issues.push({ field: role, message: `${role} must be an entity reference {name, entity_type}` });
    return;
  }
  for (const key of ["name", "entity_type"]) {
    if (text(mapping.get(key)) === undefined) issues.push({ field: `${role}.${key}`, message: `${role}.${key} must be a non-empty string` });
  }
}

function causalEdgeIssues(payload: JsonObject): DerivedEventIssue[] {
  const issues: DerivedEventIssue[] = [];
  entityRefIssues(payload.get("source"), "source", issues);
  entityRefIssues(payload.get("target"), "target", issues);
  const relation = text(payload.get("relation_type"));
  if (relation === undefined || !causalRelationTypes.has(relation)) {
    const got = payload.get("relation_type");
    issues.push({
      field: "relation_type",
      message: `relation_type must be one of: ${sortedChoices(causalRelationTypes)}; got ${got === undefined ? "nothing" : JSON.stringify(typeof got === "string" ? got : String(got))}`,
    });
  } else {
    const declared = payload.get("graph_relation_type");
    if (declared !== undefined && declared !== `causal_${relation}`) {
      issues.push({ field: "graph_relation_type", message: `graph_relation_type must be "causal_${relation}" to match relation_type` });
    }
  }
  if (unitNumber(payload.get("confidence")) === undefined) {
    issues.push({ field: "confidence", message: "confidence must be a number between 0.0 and 1.0" });
  }
  if (strictText(payload.get("causal_method")) === undefined) {
    issues.push({ field: "causal_method", message: "causal_method must be a non-empty string" });
  }
  const evidence = object(payload.get("evidence"));
  if (evidence === undefined) {
    issues.push({ field: "evidence", message: "evidence must cite the justifying event as {source_event_seq, source_event_hash}" });
  } else {
    const seq = integer(evidence.get("source_event_seq"));
    if (seq === undefined || seq < 1) {
      issues.push({ field: "evidence.source_event_seq", message: "evidence.source_event_seq must be an integer >= 1" });
    }
    const hash = evidence.get("source_event_hash");
    if (typeof hash !== "string" || eventHash(hash) !== hash) {
      issues.push({ field: "evidence.source_event_hash", message: "evidence.source_event_hash must be exactly 64 lowercase hex characters" });
    }
  }
  const reviewStatus = payload.get("review_status") ?? defaultCausalReviewStatus;
  if (typeof reviewStatus !== "string" || !causalReviewStatuses.has(reviewStatus)) {
    issues.push({ field: "review_status", message: `review_status must be one of: ${sortedChoices(causalReviewStatuses)}` });
  }
  const authorityStatus = payload.get("authority_status") ?? nonAuthoritative;
  if (authorityStatus !== nonAuthoritative) {
    issues.push({ field: "authority_status", message: `authority_status must be "${nonAuthoritative}": a causal edge never becomes authoritative` });
  }
  return issues;
}

/** Every way the payload breaks its type's producer rule; empty for a valid event or an unruled type. */
export function derivedEventIssues(type: string, payload: JsonObject): DerivedEventIssue[] {
  return type === causalEdgeGeneratedType ? causalEdgeIssues(payload) : [];
}

/**
 * The derived-event rule as appends enforce it (src/events/append.ts): each issue named by its
 * payload path and the event type, with the hint saying where a valid event comes from.
 *
 * @example
 * derivedEventRule("causal.edge.generated", payload)
 * // [{ field: "payload.confidence", message: "causal.edge.generated payload.confidence must be …", hint: "causal edges are written by …" }]
 */
export const derivedEventRule: EventRule = (type, payload) =>
  derivedEventIssues(type, payload).map((issue) => ({ field: `payload.${issue.field}`, message: `${type} payload.${issue.message}`, hint: derivedEventHint }));

/** A sealed event that breaks its producer rule, as `memory status` and `compact --audit` list it. */
export interface InvalidDerivedEvent {
  seq: number;
  hash: string;
  type: string;
  /** The issues joined with "; ". */
  reason: string;
}

/** The event as an invalid derived event, or undefined when it keeps its producer rule. */
export function invalidDerivedEvent(event: EventRecord): InvalidDerivedEvent | undefined {
  if (!ruledDerivedEventTypes.has(event.type)) return undefined;
  const issues = derivedEventIssues(event.type, event.payload);
  if (issues.length === 0) return undefined;
  return { seq: event.seq, hash: event.hash, type: event.type, reason: issues.map((issue) => issue.message).join("; ") };
}

/**
 * The events of a log that break their producer rule, in seq order.
 *
 * @example
 * invalidDerivedEvents(events) // [{ seq: 4, hash: "…", type: "causal.edge.generated", reason: "confidence must be …" }]
 */
export function invalidDerivedEvents(events: Iterable<EventRecord>): InvalidDerivedEvent[] {
  const found: InvalidDerivedEvent[] = [];
  for (const event of events) {
    const invalid = invalidDerivedEvent(event);
    if (invalid !== undefined) found.push(invalid);
  }
  return found;
}

function* logRecords(logPath: string): Generator<EventRecord> {
  for (const { bytes, position } of readLogLines(logPath)) {
    const parsed = parseJsonBytes(bytes);
    if (isJsonObject(parsed)) yield recordFromLine(parsed, position);
  }
}

/**
 * The invalid derived events of a log already verified by the caller, streamed line by line.
 *
 * @example
 * invalidDerivedEventsInLog(".eventloom/default.jsonl") // [] for any log zaxy wrote
 */
export function invalidDerivedEventsInLog(logPath: string): InvalidDerivedEvent[] {
  return invalidDerivedEvents(logRecords(logPath));
}
