/**
 * `fleet_promote`: propose a skill, outcome or rule to a fleet. One flat schema (MCP tools take
 * an object); the kind-specific fields are checked by the library, which names the missing one.
 */
import * as z from "zod";
import { resolveSourceEvents } from "../../eventloom/eventTarget.ts";
import { promote } from "../../fleet/promote.ts";
import { defineTool } from "../tool.ts";
import {
  agentIdField,
  confidenceField,
  fleetActorField,
  fleetIdField,
  fleetSourceEventsField,
  fleetTextField,
  promotionKindField,
  promotionOutcomeField,
  promotionScopeField,
} from "./fleetSchemas.ts";

export const fleetPromoteTool = defineTool({
  name: "fleet_promote",
  description:
    "Promote what an agent learned to its fleet, citing sealed events of origin_session ({seq, hash} with a full hash or a " +
    "12+ hex prefix, or a citation). kind skill needs skill_id and " +
    "skill_version; outcome needs outcome and summary (claim_key optional); rule needs rule and trigger. The actor must be " +
    "enrolled with a tier that may propose the scope; otherwise the result is rejected: true and nothing is written. " +
    "Passes the evolution gate (op promote): review_status active when auto-applied, else pending; a conflict with an " +
    "active keystone is held pending; other conflicts are superseded additively. Always non-authoritative. " +
    "A trust refusal is recorded as fleet.promotion.refused in session_id (default origin_session), never in the fleet thread.",
  inputSchema: z.strictObject({
    fleet_id: fleetIdField,
    kind: promotionKindField,
    actor: fleetActorField("The enrolled agent proposing it"),
    origin_session: fleetTextField("The session whose sealed events justify it"),
    source_events: fleetSourceEventsField,
    confidence: confidenceField,
    origin_actor: agentIdField.optional().describe("The agent that learned it (default actor)"),
    visibility_scope: promotionScopeField.optional(),
    keystone: z.boolean().optional().describe("Skill and rule promotions: a keystone is never superseded automatically"),
    skill_id: fleetTextField("Skill promotions: the skill id").optional(),
    skill_version: fleetTextField("Skill promotions: the version").optional(),
    outcome: promotionOutcomeField.optional(),
    summary: fleetTextField("Outcome promotions: what happened").optional(),
    claim_key: fleetTextField("Outcome promotions: the claim it settles (conflicts are keyed by it)").optional(),
    rule: fleetTextField("Rule promotions: the rule text").optional(),
    trigger: fleetTextField("Rule promotions: when it applies (conflicts are keyed by it)").optional(),
    session_id: fleetTextField("The proposer's own session, where a trust refusal is recorded (default origin_session)").optional(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(args, ctx) {
    return await promote(ctx.eventloomPath, args.kind, {
      fleetId: args.fleet_id,
      actor: args.actor,
      originSession: args.origin_session,
      originActor: args.origin_actor,
      sourceEvents: await resolveSourceEvents(ctx.eventloomPath, args.origin_session, args.source_events, {
        field: "source_events",
        role: { noun: "the origin session", field: "origin_session" },
      }),
      confidence: args.confidence,
      visibilityScope: args.visibility_scope,
      keystone: args.keystone,
      skillId: args.skill_id,
      skillVersion: args.skill_version,
      outcome: args.outcome,
      summary: args.summary,
      claimKey: args.claim_key,
      rule: args.rule,
      trigger: args.trigger,
    }, { refusalSessionId: args.session_id });
  },
});
