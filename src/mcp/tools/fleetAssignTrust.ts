/** `fleet_assign_trust`: change an enrolled agent's tier (steward only); the prior tier is recorded. */
import * as z from "zod";
import { assignTrust } from "../../fleet/membership.ts";
import { defineTool } from "../tool.ts";
import { agentIdField, fleetActorField, fleetIdField, fleetTextField, trustTierField } from "./fleetSchemas.ts";

export const fleetAssignTrustTool = defineTool({
  name: "fleet_assign_trust",
  description:
    "Assign an enrolled agent a trust tier (steward only): appends fleet.trust.assigned with the prior tier. " +
    "A tier caps the scope the agent may propose. A refusal is refused: true and writes nothing.",
  inputSchema: z.strictObject({
    fleet_id: fleetIdField,
    agent_id: agentIdField,
    trust_tier: trustTierField,
    actor: fleetActorField("The steward making the change"),
    rationale: fleetTextField("Why").optional(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(args, ctx) {
    return await assignTrust(ctx.eventloomPath, {
      fleetId: args.fleet_id,
      agentId: args.agent_id,
      trustTier: args.trust_tier,
      actor: args.actor,
      rationale: args.rationale,
    });
  },
});
