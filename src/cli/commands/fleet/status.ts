/** `zaxy fleet status ID`: the fleet's state, a pure replay of its thread. */
import type { PlainJson } from "../../../fleet/replay.ts";
import { defineCommand } from "../../command.ts";
import { emit } from "../../output.ts";
import { textTable } from "../../textTable.ts";
import { fleetIdArgument, fleetIdPositional } from "./fleetArgs.ts";

const text = (value: PlainJson) => (value === null ? "-" : String(value));

/**
 * The readable rendering: counts, agents, one row per promotion. Promotion ids are printed in
 * full (aligned, never cut): `fleet review` and `fleet rollback` take them.
 */
export function renderFleetStatus(doc: { [key: string]: PlainJson }): string {
  const lines = [`Fleet ${doc.fleet_id}: ${doc.summary ?? ""}`, `Thread: ${doc.thread} (${doc.event_count} events)`];
  const agents = doc.agents as Array<{ agent_id: string; trust_tier: string }>;
  lines.push(`Agents: ${agents.map((a) => `${a.agent_id} (${a.trust_tier})`).join(", ")}`);
  lines.push(`Active promotions: ${doc.active_promotion_count}`);
  const promotions = doc.promotions as Array<{ [key: string]: PlainJson }>;
  if (promotions.length > 0) {
    lines.push("");
    lines.push(...textTable([
      ["PROMOTION", "KIND", "STATUS", "SCOPE", "CONF", "ORIGIN", "SUMMARY"],
      ...promotions.map((p) => [
        text(p.promotion_id), text(p.kind), text(p.review_status), text(p.visibility_scope), text(p.confidence), text(p.origin_actor),
        `${p.summary}${p.keystone === true ? " [keystone]" : ""}`,
      ]),
    ]));
  }
  return lines.join("\n");
}

export const fleetStatusCommand = defineCommand({
  name: "status",
  summary: "Show a fleet's agents and promotions (replayed from its thread)",
  description:
    "Replays <root>/fleet.<ID>.jsonl (verified first; a broken chain is exit 1) and prints the\n" +
    "agents, `Active promotions: N` and one row per promotion. --json prints {fleet_id, thread,\n" +
    "summary, created_actor, event_count, head, agents[{agent_id, trust_tier}], agent_count,\n" +
    "promotion_count, active_promotion_count, status_counts, promotions[...]} ('zaxy help --topic fleet').",
  options: {},
  positionals: fleetIdPositional,
  examples: ["zaxy fleet status alpha", "zaxy fleet status alpha --json"],
  async run(ctx) {
    const fleetId = await fleetIdArgument(ctx);
    const { fleetStatus } = await import("../../../fleet/status.ts");
    const doc = await fleetStatus(ctx.global.eventloomPath, fleetId);
    emit(ctx, "zaxy.fleet.status.v1", doc, () => renderFleetStatus(doc));
    return 0;
  },
});
