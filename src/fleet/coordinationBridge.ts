/**
 * The coordination bridge (reference §5.3 `escalate_finding_to_fleet`): a finding a mission
 * coordinator accepted and promoted (`coordination.finding.promoted` in the mission's thread,
 * which is named after the mission id) becomes a fleet promotion, so what one mission learned
 * reaches every agent of the fleet.
 *
 * - Only an accepted promotion is escalated: no `coordination.finding.promoted` event for the
 *   finding in the mission's verified log is bad input (exit 2), and nothing is written.
 * - The promoted event is the only source event; origin_session is the mission, origin_actor the
 *   finding's worker (the agent that learned it), actor the enrolled agent escalating it.
 * - Confidence: the explicit value, else the finding's, else 1.0.
 * - Default kind outcome (`outcome` success unless given, summary and claim_key from the
 *   finding); `asSkill` promotes skill `finding:<finding_id>` at version "1".
 * The promotion itself is the fleet library's `promote`: trust check, idempotency, the gate,
 * keystone holds and supersession all apply unchanged.
 *
 * @example
 * const r = await escalateFindingToFleet(".eventloom", { fleetId: "platform", missionId: "release-42",
 *   findingId: "worker-api:finding:1", actor: "coordinator" });
 * r.kind; r.review_status; r.finding_event.citation; // "outcome", "active", "eventloom://release-42/events/7#…"
 */
import { JsonNumber } from "../canonical/mod.ts";
import { inputError } from "../errors.ts";
import { citationUri, validateSessionId } from "../eventloom/root.ts";
import type { EventRecord } from "../eventloom/envelope.ts";
import { readVerifiedSession } from "./fleetLog.ts";
import { type FleetWriteOptions, promote, type PromotionResult } from "./promote.ts";
import type { PlainJson } from "./replay.ts";
import { requireAgentId, requireFleetText } from "./validate.ts";

export const findingPromotedEventType = "coordination.finding.promoted";

/** Confidence of a finding that states none (Python's fallback). */
export const escalationConfidenceDefault = 1.0;

/** Version of a skill escalated from a finding. */
export const escalatedSkillVersion = "1";

export interface EscalateFindingInput {
  fleetId: string;
  /** The mission id, which is also its thread. */
  missionId: string;
  findingId: string;
  /** The enrolled agent escalating it (default coordinator). */
  actor?: string;
  /** Default: the finding's confidence, else 1.0. */
  confidence?: number;
  /** fleet (default) or global. */
  visibilityScope?: string;
  /** Promote as skill `finding:<finding_id>` instead of an outcome. */
  asSkill?: boolean;
  /** Outcome promotions: success (default), failure or partial. */
  outcome?: string;
}

export interface EscalationResult extends PromotionResult {
  mission_id: string;
  finding_id: string;
  finding_event: { seq: number; hash: string; citation: string };
}

export const escalateActorDefault = "coordinator";

function payloadText(event: EventRecord, key: string): string | undefined {
  const value = event.payload.get(key);
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}

function payloadConfidence(event: EventRecord): number | undefined {
  const value = event.payload.get("confidence");
  if (!(value instanceof JsonNumber)) return undefined;
  const number = value.toNumber();
  return Number.isFinite(number) && number >= 0 && number <= 1 ? number : undefined;
}

/**
 * The finding's latest `coordination.finding.promoted` event in the mission's verified log.
 * Unknown mission or no accepted promotion: bad input (exit 2); broken chain: exit 1.
 */
export async function promotedFindingEvent(root: string, missionId: string, findingId: string): Promise<EventRecord> {
  const events = await readVerifiedSession(root, missionId);
  if (events === undefined) {
    throw inputError("unknown_mission", `Mission ${JSON.stringify(missionId)} has no log under ${root}: a mission's findings live in thread <mission id>`, {
      field: "mission",
      expected: "a mission id with a log under the Eventloom root",
    });
  }
  let promoted: EventRecord | undefined;
  for (const event of events) {
    if (event.type === findingPromotedEventType && payloadText(event, "finding_id") === findingId) promoted = event;
  }
  if (promoted === undefined) {
    throw inputError(
      "no_accepted_promotion",
      `Finding ${JSON.stringify(findingId)} of mission ${JSON.stringify(missionId)} has no accepted promotion ` +
        `(no ${findingPromotedEventType} event for it); only accepted, promoted findings can be escalated to a fleet`,
      { field: "finding_id", hint: "review the finding as accepted and promote it in the mission first" },
    );
  }
  return promoted;
}

/**
 * Escalates an accepted mission finding to a fleet as an outcome (or skill) promotion citing
 * the `coordination.finding.promoted` event. A trust rejection is returned with `rejected: true`
 * and writes nothing, as `promote` does.
 */
export async function escalateFindingToFleet(root: string, input: EscalateFindingInput, options: FleetWriteOptions = {}): Promise<EscalationResult> {
  const missionId = requireFleetText(input.missionId, "mission");
  validateSessionId(missionId, "read mission");
  const findingId = requireFleetText(input.findingId, "finding_id");
  const actor = requireAgentId(input.actor ?? escalateActorDefault, "actor");
  const event = await promotedFindingEvent(root, missionId, findingId);
  const sourceEvents = [{ seq: event.seq, hash: event.hash }];
  const originActor = payloadText(event, "worker_id") ?? event.actor;
  const confidence = input.confidence ?? payloadConfidence(event) ?? escalationConfidenceDefault;
  const common = {
    fleetId: input.fleetId,
    actor,
    originSession: missionId,
    originActor,
    sourceEvents,
    confidence,
    visibilityScope: input.visibilityScope,
  };
  // The source was just read from the mission's verified log; checking it again would re-read it.
  const promoteOptions = { ...options, verifySources: false };
  const result = input.asSkill === true
    ? await promote(root, "skill", { ...common, skillId: `finding:${findingId}`, skillVersion: escalatedSkillVersion }, promoteOptions)
    : await promote(root, "outcome", {
      ...common,
      outcome: input.outcome ?? "success",
      summary: payloadText(event, "summary") ?? findingId,
      claimKey: payloadText(event, "claim_key"),
    }, promoteOptions);
  const findingEvent: { [key: string]: PlainJson } & EscalationResult["finding_event"] = {
    seq: event.seq,
    hash: event.hash,
    citation: citationUri(missionId, event.seq, event.hash),
  };
  return { ...result, mission_id: missionId, finding_id: findingId, finding_event: findingEvent };
}
