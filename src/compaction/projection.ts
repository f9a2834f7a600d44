/**
 * Building a compaction projection (Python `build_compaction_projection`): a compacted view of a
 * log made only of REAL source events — never synthetic text — each kept with its event ref,
 * identities and citations, so the projection can route to sources but never replace them.
 *
 * Selection over the purpose plan's authoritative events (projectionPolicy.ts), on hash
 * embeddings of each event's context text:
 * - `medoid`: the one event with the least mean cosine distance to the others (first on ties);
 * - `exemplar` / `purpose_exemplar`: every event (log order) when there are at most
 *   `max_records`; else farthest-point selection starting at the medoid (selection order);
 * - `purpose_preserve_all` / `coordinate_authoritative`: every authoritative event.
 *
 * `projection_id` = sha256 of canonical JSON of {strategy, purpose, consolidation_policy,
 * source_hashes (every event of the log), records (event refs)}: the same log, options and
 * result always give the same id, in Python and here.
 *
 * Every record is `authority_scope: "authoritative"` unless the embedded audit reported
 * `safe: false`; then every record is "non_authoritative" (design 002: a compaction that fails
 * the identity checks only routes to its sources).
 */
import { canonicalJson, JsonNumber, type JsonObject, type JsonValue } from "../canonical/mod.ts";
import { citationUri } from "../eventloom/root.ts";
import type { EventRecord } from "../eventloom/envelope.ts";
import { sha256Hex } from "../platform/mod.ts";
import { farthestPointExemplars, medoidIndex } from "../vector/geometry.ts";
import { defaultEmbeddingDim, embeddingDimMax } from "../vector/mod.ts";
import { AuditVectors } from "./auditVectors.ts";
import { eventContext } from "./eventContext.ts";
import { eventIdentities } from "./identities.ts";
import { auditReportedUnsafe, authoritativeScope, type CompactionProjection, nonAuthoritativeScope, type ProjectionRecord } from "../retrieval/projectionArtifact.ts";
import { type EffectiveStrategy, purposePlan, recordKind, recordPurposeReasons, type RequestedStrategy } from "./projectionPolicy.ts";
import { type PurposeProfile, purposeProfileJson } from "./purpose.ts";

export const projectionStrategies: readonly RequestedStrategy[] = ["medoid", "exemplar"];

/** Python's default `max_records`. */
export const defaultProjectionMaxRecords = 5;

export interface BuildProjectionOptions {
  strategy: RequestedStrategy;
  maxRecords: number;
  purpose: PurposeProfile;
  /** Hash-embedding dimension used for selection (default 1536, Python's default). */
  embeddingDim?: number;
}

/** Python `_is_source_citation`: identities that point back at a source. */
export function isSourceCitation(identity: string): boolean {
  return identity.includes("/") || identity.includes(":turn-") || identity.startsWith("eventloom://");
}

/**
 * One row-major Float32Array of the events' context-text embeddings: `hashEmbedMany`'s rows
 * stored as f32, bit for bit, built sparse through AuditVectors (per-token cache, no f64 row per
 * event) and densified once.
 */
export function contextEmbeddings(events: readonly EventRecord[], dim: number): Float32Array {
  if (!Number.isInteger(dim) || dim < 1 || dim > embeddingDimMax) {
    throw new RangeError(`embedding dimension must be an integer 1..${embeddingDimMax}, got ${dim}`);
  }
  const vectors = new AuditVectors(dim);
  for (const event of events) vectors.addText(eventContext(event));
  return vectors.dense(Array.from(events, (_, i) => i));
}

function selectEvents(events: readonly EventRecord[], strategy: EffectiveStrategy, maxRecords: number, dim: number): EventRecord[] {
  if (events.length === 0) return [];
  if (strategy === "purpose_preserve_all" || strategy === "coordinate_authoritative") return [...events];
  if (strategy !== "medoid" && events.length <= maxRecords) return [...events];
  const vectors = contextEmbeddings(events, dim);
  const medoid = medoidIndex(vectors, events.length, dim);
  if (strategy === "medoid") return [events[medoid]];
  return farthestPointExemplars(vectors, events.length, dim, maxRecords, medoid).map((index) => events[index]);
}

/** Python's `_event_identities`: the event ref first, then the content identities. */
export function allEventIdentities(event: EventRecord): string[] {
  const { eventRef, content } = eventIdentities(event);
  return [eventRef, ...content];
}

function projectionRecord(event: EventRecord, kind: string, reasons: string[], authorityScope: string): ProjectionRecord {
  const identities = allEventIdentities(event);
  return {
    kind,
    event_seq: event.seq,
    event_ref: citationUri(event.thread, event.seq, event.hash),
    text: eventContext(event),
    identities,
    citations: identities.filter(isSourceCitation),
    authority_scope: authorityScope,
    purpose_reasons: reasons,
  };
}

function unique(values: Iterable<string>): string[] {
  return [...new Set(values)];
}

/**
 * Builds the projection of `events` (the whole, verified log). `audit` is the audit report to
 * embed, already in its JSON form.
 *
 * @example
 * const projection = buildProjection(events, audit, { strategy: "exemplar", maxRecords: 3, purpose: purposeProfile("general") });
 * projection.records.map((record) => record.event_ref);
 */
export function buildProjection(events: readonly EventRecord[], audit: JsonObject, options: BuildProjectionOptions): CompactionProjection {
  if (!projectionStrategies.includes(options.strategy)) throw new RangeError(`strategy must be medoid or exemplar, got ${options.strategy}`);
  if (!Number.isSafeInteger(options.maxRecords) || options.maxRecords < 1) throw new RangeError(`maxRecords must be an integer >= 1, got ${options.maxRecords}`);
  const dim = options.embeddingDim ?? defaultEmbeddingDim;
  const profile = options.purpose;
  const plan = purposePlan(events, profile, options.strategy, options.maxRecords);
  const selected = selectEvents(plan.authoritative, plan.strategy, plan.effectiveMaxRecords, dim);
  // Design 002: what fails the identity checks is not an authoritative replacement for its sources.
  const authorityScope = auditReportedUnsafe(audit) ? nonAuthoritativeScope : authoritativeScope;
  const records = selected.map((event) => projectionRecord(event, recordKind(event, profile, plan.strategy), recordPurposeReasons(event, profile), authorityScope));
  const policy: JsonObject = new Map(plan.policy);
  policy.set("authoritative_event_seqs", plan.authoritative.map((event) => JsonNumber.int(event.seq)));
  policy.set("diagnostic_event_seqs", plan.diagnostic.map((event) => JsonNumber.int(event.seq)));
  policy.set("diagnostic_identities", unique(plan.diagnostic.flatMap(allEventIdentities)));
  const purpose = new Map(Object.entries(purposeProfileJson(profile))) as JsonObject;
  const identity: JsonObject = new Map<string, JsonValue>([
    ["strategy", plan.strategy],
    ["purpose", purpose],
    ["consolidation_policy", policy],
    ["source_hashes", events.map((event) => event.hash)],
    ["records", records.map((record) => record.event_ref)],
  ]);
  return {
    projection_id: sha256Hex(canonicalJson(identity)),
    strategy: plan.strategy,
    source_event_count: events.length,
    source_identities: unique(events.flatMap(allEventIdentities)),
    records,
    audit,
    purpose,
    consolidation_policy: policy,
  };
}
