/** `zaxy fleet assign-trust ID --agent-id A --trust-tier T --actor S [--rationale R]`: steward-only tier change. */
import { defineCommand, stringOption } from "../../command.ts";
import { actorOption, emitDecision, fleetIdArgument, fleetIdPositional, requiredOption } from "./fleetArgs.ts";

export const fleetAssignTrustCommand = defineCommand({
  name: "assign-trust",
  writesRoot: true,
  summary: "Change an enrolled agent's trust tier (steward only)",
  description:
    "Appends fleet.trust.assigned {fleet_id, agent_id, trust_tier, prior_tier[, rationale]}. The\n" +
    "actor must be a steward (else exit 1, nothing written); the agent must be enrolled (else\n" +
    "exit 2). --json prints {fleet_id, thread, refused, reason, agent_id, trust_tier, prior_tier,\n" +
    "actor, events}.",
  options: {
    "agent-id": { type: "string", valueName: "A", description: "Enrolled agent (required)", aliases: ["agent"] },
    "trust-tier": { type: "string", valueName: "T", description: "untrusted, member, trusted or steward (required)" },
    actor: actorOption,
    rationale: { type: "string", valueName: "TEXT", description: "Why" },
  },
  positionals: fleetIdPositional,
  examples: ["zaxy fleet assign-trust alpha --agent-id worker-1 --trust-tier trusted --actor coordinator --rationale 'clean record'"],
  async run(ctx) {
    const fleetId = await fleetIdArgument(ctx);
    const agentId = requiredOption(ctx, "agent-id");
    const { parseTrustTier } = await import("../../../fleet/vocabulary.ts");
    const trustTier = parseTrustTier(requiredOption(ctx, "trust-tier"), "--trust-tier");
    const actor = requiredOption(ctx, "actor");
    const { assignTrust } = await import("../../../fleet/membership.ts");
    const doc = await assignTrust(ctx.global.eventloomPath, { fleetId, agentId, trustTier, actor, rationale: stringOption(ctx, "rationale") });
    return emitDecision(ctx, "zaxy.fleet.assign_trust.v1", doc, () => `${agentId} in ${fleetId}: ${doc.prior_tier} -> ${doc.trust_tier}`);
  },
});
