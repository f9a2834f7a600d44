/** `zaxy fleet enroll ID --agent-id A [--trust-tier member] --actor S`: steward-only enrolment. */
import { defineCommand, stringOption } from "../../command.ts";
import { actorOption, emitDecision, fleetIdArgument, fleetIdPositional, requiredOption } from "./fleetArgs.ts";

export const fleetEnrollCommand = defineCommand({
  name: "enroll",
  writesRoot: true,
  summary: "Enroll an agent (steward only; an empty fleet trusts its first enrolment)",
  description:
    "Appends fleet.agent.enrolled {fleet_id, agent_id, trust_tier}. Only a steward may enroll once\n" +
    "the fleet has agents (else exit 1, nothing written). Re-enrolling an agent never changes its\n" +
    "tier (already_enrolled: true, nothing written; use assign-trust). --json prints {fleet_id,\n" +
    "thread, refused, reason, agent_id, trust_tier, already_enrolled, actor, events}.",
  options: {
    "agent-id": { type: "string", valueName: "A", description: "Agent to enroll (required)", aliases: ["agent"] },
    "trust-tier": { type: "string", valueName: "T", description: "untrusted, member, trusted or steward (default: config.json fleet_default_trust_tier, else member)" },
    actor: actorOption,
  },
  positionals: fleetIdPositional,
  examples: ["zaxy fleet enroll alpha --agent-id worker-1 --actor coordinator"],
  async run(ctx) {
    const fleetId = await fleetIdArgument(ctx);
    const agentId = requiredOption(ctx, "agent-id");
    const actor = requiredOption(ctx, "actor");
    const { parseTrustTier } = await import("../../../fleet/vocabulary.ts");
    const tierText = stringOption(ctx, "trust-tier");
    const trustTier = tierText === undefined ? undefined : parseTrustTier(tierText, "--trust-tier");
    const { enrollAgent } = await import("../../../fleet/membership.ts");
    const doc = await enrollAgent(ctx.global.eventloomPath, { fleetId, agentId, actor, trustTier });
    return emitDecision(ctx, "zaxy.fleet.enroll.v1", doc, () => (doc.already_enrolled ? `${doc.reason}` : `Enrolled ${agentId} in ${fleetId} as ${doc.trust_tier}`));
  },
});
