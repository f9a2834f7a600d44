/** `fleet_enroll`: enroll an agent (steward-only once the fleet has agents). */
import * as z from "zod";
import { createActorDefault, enrollAgent } from "../../fleet/membership.ts";
import { defineTool } from "../tool.ts";
import { agentIdField, fleetIdField, optionalCoordinatorField, trustTierField } from "./fleetSchemas.ts";

export const fleetEnrollTool = defineTool({
  name: "fleet_enroll",
  description:
    "Enroll an agent in a fleet with a trust tier (default config.json fleet_default_trust_tier, member). Only a steward may enroll once the fleet has agents; " +
    "re-enrolling never changes a tier (already_enrolled: true; use fleet_assign_trust). A refusal is refused: true and writes nothing.",
  inputSchema: z.strictObject({
    fleet_id: fleetIdField,
    agent_id: agentIdField,
    trust_tier: trustTierField.optional().describe("Initial tier (default: config.json fleet_default_trust_tier, itself default member)"),
    actor: optionalCoordinatorField,
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(args, ctx) {
    return await enrollAgent(ctx.eventloomPath, {
      fleetId: args.fleet_id,
      agentId: args.agent_id,
      actor: args.actor ?? createActorDefault,
      trustTier: args.trust_tier,
    });
  },
});
