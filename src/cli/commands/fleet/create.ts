/** `zaxy fleet create ID --summary S [--actor coordinator]`: a new fleet; the creator is its first steward. */
import { defineCommand, stringOption } from "../../command.ts";
import { emitDecision, fleetIdArgument, fleetIdPositional, requiredOption } from "./fleetArgs.ts";

export const fleetCreateCommand = defineCommand({
  name: "create",
  writesRoot: true,
  summary: "Create a fleet; the creator is enrolled as its first steward",
  description:
    "Appends fleet.created {fleet_id, summary} and fleet.agent.enrolled {agent_id: <actor>,\n" +
    "trust_tier: steward} to <root>/fleet.<ID>.jsonl in one batch. An existing fleet is refused\n" +
    "(exit 1, nothing written). --json prints {fleet_id, thread, refused, reason, summary, actor,\n" +
    "events[{event_type, seq, hash, citation}]}.",
  options: {
    summary: { type: "string", valueName: "TEXT", description: "What the fleet is for (required)" },
    actor: { type: "string", valueName: "A", description: "The creator, enrolled as steward (default coordinator)" },
  },
  positionals: fleetIdPositional,
  examples: ["zaxy fleet create alpha --summary 'auth workers' --json"],
  async run(ctx) {
    const fleetId = await fleetIdArgument(ctx);
    const summary = requiredOption(ctx, "summary");
    const { createFleet } = await import("../../../fleet/membership.ts");
    const doc = await createFleet(ctx.global.eventloomPath, { fleetId, summary, actor: stringOption(ctx, "actor") });
    return emitDecision(ctx, "zaxy.fleet.create.v1", doc, () => `Created fleet ${fleetId} (${doc.thread}); ${doc.actor} is steward`);
  },
});
