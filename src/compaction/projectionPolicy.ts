/**
 * How a purpose profile shapes a compaction projection (Python `_purpose_consolidation_plan`):
 * which events are candidates (authoritative) and which are only diagnostic, which selection
 * strategy runs, how many records it may keep, and the record kinds and reasons.
 *
 * Coordinate classification (mission parent state must never absorb worker-local rows):
 * - authoritative: `coordination.proof_packet.created|handoff.created|finding.promoted|
 *   finding.accepted`; or status accepted/promoted/approved WITH an authority ref
 *   (`promotion_event_ref`, `review_event_ref`, `source_event_ref`, `handoff_event_ref`, or an
 *   integer `source_event_seq` plus a `source_event_hash`); or `authority_scope: "mission-parent"`;
 * - diagnostic (suppressed): `stale: true`, status pending/rejected/deferred/stale/superseded,
 *   or any other `coordination.*` event;
 * - anything else (not coordination traffic) stays authoritative.
 * Status is the first non-empty of `coordination_status`, `finding_status`, `status`,
 * casefolded, spaces and hyphens as `_`.
 */
import { type JsonObject, type JsonValue, JsonNumber } from "../canonical/mod.ts";
import type { EventRecord } from "../eventloom/envelope.ts";
import { type PurposeProfile, purposeConsolidationRule } from "./purpose.ts";

export type RequestedStrategy = "medoid" | "exemplar";
export type EffectiveStrategy = RequestedStrategy | "purpose_exemplar" | "purpose_preserve_all" | "coordinate_authoritative";

export interface PurposePlan {
  authoritative: EventRecord[];
  diagnostic: EventRecord[];
  strategy: EffectiveStrategy;
  effectiveMaxRecords: number;
  /** `consolidation_policy` before the seq/identity lists are appended. */
  policy: JsonObject;
}

const proofTypes = new Set(["coordination.proof_packet.created", "coordination.handoff.created"]);
const authoritativeTypes = new Set([...proofTypes, "coordination.finding.promoted", "coordination.finding.accepted"]);
const acceptedStatuses = new Set(["accepted", "promoted", "approved"]);
const diagnosticStatuses = new Set(["pending", "rejected", "deferred", "stale", "superseded"]);
const authorityRefKeys = ["promotion_event_ref", "review_event_ref", "source_event_ref", "handoff_event_ref"];

function nonEmptyString(value: JsonValue | undefined): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** Python `_event_status`. */
export function coordinationStatus(event: EventRecord): string | undefined {
  for (const key of ["coordination_status", "finding_status", "status"]) {
    const value = nonEmptyString(event.payload.get(key));
    if (value !== undefined) return value.trim().toLowerCase().replaceAll(" ", "_").replaceAll("-", "_");
  }
  return undefined;
}

function hasAuthorityRef(event: EventRecord): boolean {
  if (authorityRefKeys.some((key) => nonEmptyString(event.payload.get(key)) !== undefined)) return true;
  const seq = event.payload.get("source_event_seq");
  return seq instanceof JsonNumber && !seq.isFloat && nonEmptyString(event.payload.get("source_event_hash")) !== undefined;
}

function isMissionParent(event: EventRecord): boolean {
  return nonEmptyString(event.payload.get("authority_scope")) === "mission-parent";
}

export function isCoordinateAuthoritative(event: EventRecord): boolean {
  if (authoritativeTypes.has(event.type)) return true;
  const status = coordinationStatus(event);
  return (status !== undefined && acceptedStatuses.has(status) && hasAuthorityRef(event)) || isMissionParent(event);
}

export function isCoordinateDiagnostic(event: EventRecord): boolean {
  if (event.payload.get("stale") === true) return true;
  const status = coordinationStatus(event);
  if (status !== undefined && diagnosticStatuses.has(status)) return true;
  return event.type.startsWith("coordination.");
}

function int(value: number): JsonNumber {
  return JsonNumber.int(value);
}

function commonPolicy(profile: PurposeProfile, strategy: string, requested: RequestedStrategy, effectiveMax: number, preserveAll: boolean): Array<[string, JsonValue]> {
  return [
    ["profile", profile.profile],
    ["strategy", strategy],
    ["requested_strategy", requested],
    ["effective_max_records", int(effectiveMax)],
    ["preserve_all", preserveAll],
  ];
}

function listsPolicy(profile: PurposeProfile): Array<[string, JsonValue]> {
  return [
    ["retain", [...profile.retain]],
    ["suppress", [...profile.suppress]],
    ["warnings", [...profile.warnings]],
  ];
}

/**
 * @example
 * purposePlan(events, purposeProfile("security"), "medoid", 1).strategy // "purpose_preserve_all"
 */
export function purposePlan(events: readonly EventRecord[], profile: PurposeProfile, requested: RequestedStrategy, maxRecords: number): PurposePlan {
  const all = [...events];
  if (profile.profile === "general") {
    return {
      authoritative: all,
      diagnostic: [],
      strategy: requested,
      effectiveMaxRecords: maxRecords,
      policy: new Map([
        ...commonPolicy(profile, requested, requested, maxRecords, false),
        ["authoritative_count", int(all.length)],
        ["diagnostic_count", int(0)],
        ["suppressed_count", int(0)],
        ...listsPolicy(profile),
      ]),
    };
  }
  if (profile.profile !== "coordinate") {
    const rule = purposeConsolidationRule(profile);
    const preserveAll = rule?.preserveAll ?? false;
    const effectiveMax = preserveAll ? all.length : Math.max(maxRecords, rule?.minRecords || maxRecords);
    const strategy = rule?.strategy ?? "purpose_exemplar";
    return {
      authoritative: all,
      diagnostic: [],
      strategy,
      effectiveMaxRecords: effectiveMax,
      policy: new Map([
        ...commonPolicy(profile, strategy, requested, effectiveMax, preserveAll),
        ["authoritative_count", int(all.length)],
        ["diagnostic_count", int(0)],
        ["suppressed_count", int(0)],
        ...listsPolicy(profile),
        ["purpose_consolidation_reason", rule?.reason ?? "purpose_retained"],
      ]),
    };
  }
  const authoritative: EventRecord[] = [];
  const diagnostic: EventRecord[] = [];
  for (const event of all) {
    if (isCoordinateAuthoritative(event)) authoritative.push(event);
    else if (isCoordinateDiagnostic(event)) diagnostic.push(event);
    else authoritative.push(event);
  }
  return {
    authoritative,
    diagnostic,
    strategy: "coordinate_authoritative",
    effectiveMaxRecords: authoritative.length,
    policy: new Map([
      ...commonPolicy(profile, "coordinate_authoritative", requested, authoritative.length, true),
      ["max_records_ignored", authoritative.length > maxRecords],
      ["authoritative_count", int(authoritative.length)],
      ["diagnostic_count", int(diagnostic.length)],
      ["suppressed_count", int(diagnostic.length)],
      ...listsPolicy(profile),
    ]),
  };
}

/** Python `_projection_record_kind`. */
export function recordKind(event: EventRecord, profile: PurposeProfile, strategy: EffectiveStrategy): string {
  if (profile.profile === "coordinate") return proofTypes.has(event.type) ? "coordinate_proof" : "coordinate_authoritative";
  if (strategy === "purpose_preserve_all") return `${profile.profile}_retained`;
  if (strategy === "purpose_exemplar") return `${profile.profile}_exemplar`;
  return strategy === "medoid" ? "medoid" : "exemplar";
}

/** Python `_purpose_record_reasons`. */
export function recordPurposeReasons(event: EventRecord, profile: PurposeProfile): string[] {
  if (profile.profile !== "coordinate") {
    const reasons = [...new Set([...profile.retain, ...profile.ontology_lens.slice(0, 2)].filter((value) => value !== ""))];
    return reasons.length > 0 ? reasons : ["purpose_retained"];
  }
  if (proofTypes.has(event.type)) return ["proof_or_handoff"];
  const status = coordinationStatus(event);
  if (status !== undefined && acceptedStatuses.has(status)) return ["accepted_parent_state"];
  if (isMissionParent(event)) return ["mission_parent_authority"];
  return ["coordinate_authoritative"];
}
