/**
 * The fleet plane: fleets, enrolled agents with trust tiers, and promotions of skills, rules and
 * outcomes across sessions. Every promotion is one `fleet_promotion` entity named by its
 * `promotion_id` (`fleetpromo:…`); reviews, supersessions and rollbacks give it a new version
 * with the new `review_status`. Nothing here is authoritative, and every promotion cites sources.
 */
import type { EventRecord } from "../../eventloom/envelope.ts";
import { actorEntity, actorRef, edge, entity, type Extracted, extracted, type Extractor, MalformedPayload, nonAuthoritative, ref } from "./build.ts";
import { boundedFloat, citationProperties, compact, object, plainObject, type Properties, text } from "../../events/payload.ts";

function requiredText(record: EventRecord, key: string): string {
  const value = text(record.payload.get(key));
  if (value === undefined) throw new MalformedPayload(`${record.type} event ${record.seq} missing required ${key}`);
  return value;
}

function fleetRef(fleetId: string) {
  return ref(`fleet:${fleetId}`, "fleet");
}

function fleetCreated(record: EventRecord): Extracted {
  const fleetId = requiredText(record, "fleet_id");
  const fleet = entity(record, fleetRef(fleetId).name, "fleet", text(record.payload.get("summary")) ?? null, {
    fleet_id: fleetId,
    authority_status: nonAuthoritative,
  });
  return extracted([fleet, actorEntity(record)], [edge(record, actorRef(record), fleet, "created_fleet")]);
}

/**
 * An agent's membership, whose summary and properties state its current trust tier: enrolling
 * and later trust assignments are versions of the same `fleet:<fleet>:agent:<agent>` entity.
 */
function fleetMember(record: EventRecord, relationType: string): Extracted {
  const fleetId = requiredText(record, "fleet_id");
  const agentId = requiredText(record, "agent_id");
  const tier = text(record.payload.get("trust_tier")) ?? "member";
  const member = entity(record, `fleet:${fleetId}:agent:${agentId}`, "fleet_agent", `agent ${agentId} in fleet ${fleetId} with trust ${tier}`, {
    fleet_id: fleetId,
    agent_id: agentId,
    trust_tier: tier,
    authority_status: nonAuthoritative,
  });
  return extracted([member, actorEntity(record)], [
    edge(record, fleetRef(fleetId), member, "fleet_has_agent"),
    edge(record, actorRef(record), member, relationType),
  ]);
}

function promotion(kind: string, summaryOf: (record: EventRecord) => string | null, extraOf: (record: EventRecord) => Properties): Extractor {
  return (record) => {
    const p = record.payload;
    const promotionId = requiredText(record, "promotion_id");
    const fleetId = requiredText(record, "fleet_id");
    const authorityStatus = text(p.get("authority_status")) ?? nonAuthoritative;
    const gate = object(p.get("gate_event"));
    const citations = citationProperties(p.get("source_events"));
    const properties = compact({
      promotion_id: promotionId,
      fleet_id: fleetId,
      kind,
      review_status: text(p.get("review_status")) ?? "pending",
      visibility_scope: text(p.get("visibility_scope")) ?? "fleet",
      authority_status: authorityStatus,
      non_authoritative: authorityStatus === nonAuthoritative,
      confidence: boundedFloat(p.get("confidence")),
      origin_actor: text(p.get("origin_actor")),
      origin_session: text(p.get("origin_session")),
      keystone: p.get("keystone") === true,
      gate_event: gate === undefined ? undefined : plainObject(gate),
      source_event_refs: citations.source_event_refs,
      source_events: citations.source_events,
      ...extraOf(record),
    });
    const promoted = entity(record, promotionId, "fleet_promotion", summaryOf(record), properties);
    return extracted([promoted], [edge(record, fleetRef(fleetId), promoted, `fleet_promoted_${kind}`)]);
  };
}

const skillPromoted = promotion(
  "skill",
  (record) => {
    const skillId = text(record.payload.get("skill_id"));
    return skillId === undefined ? text(record.payload.get("summary")) ?? null : `skill ${skillId}@${text(record.payload.get("skill_version")) ?? "None"}`;
  },
  (record) => compact({ skill_id: text(record.payload.get("skill_id")), skill_version: text(record.payload.get("skill_version")) }),
);

const rulePropagated = promotion(
  "rule",
  (record) => text(record.payload.get("rule")) ?? null,
  (record) => compact({ rule_id: text(record.payload.get("rule_id")), rule: text(record.payload.get("rule")), trigger: text(record.payload.get("trigger")) }),
);

const outcomePropagated = promotion(
  "outcome",
  (record) => text(record.payload.get("summary")) ?? null,
  (record) => compact({ outcome: text(record.payload.get("outcome")), claim_key: text(record.payload.get("claim_key")) }),
);

/** A new version of the promotion carrying only its new review status (as in Python). */
function statusUpdate(idKey: string, statusOf: (record: EventRecord) => string): Extractor {
  return (record) => {
    const promotionId = requiredText(record, idKey);
    return extracted([
      entity(record, promotionId, "fleet_promotion", null, { review_status: statusOf(record), authority_status: nonAuthoritative }),
    ]);
  };
}

const reviewStatusByDecision = new Map([["accepted", "active"], ["rejected", "rejected"], ["deferred", "deferred"]]);

export const fleetExtractors: Record<string, Extractor> = {
  "fleet.created": fleetCreated,
  "fleet.agent.enrolled": (record) => fleetMember(record, "enrolled_fleet_agent"),
  "fleet.trust.assigned": (record) => fleetMember(record, "assigned_fleet_trust"),
  "fleet.skill.promoted": skillPromoted,
  "fleet.rule.propagated": rulePropagated,
  "fleet.outcome.propagated": outcomePropagated,
  "fleet.promotion.reviewed": statusUpdate("promotion_id", (record) => reviewStatusByDecision.get(text(record.payload.get("decision")) ?? "") ?? "pending"),
  "fleet.memory.superseded": statusUpdate("superseded_promotion_id", () => "superseded"),
  "fleet.promotion.rolled_back": statusUpdate("promotion_id", () => "rolled_back"),
};
