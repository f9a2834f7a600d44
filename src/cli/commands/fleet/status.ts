/** `zaxy fleet status ID`: the fleet's state, a pure replay of its thread. */
import type { PlainJson } from "../../../fleet/replay.ts";
import { defineCommand } from "../../command.ts";
import { emit } from "../../output.ts";
import { fleetIdArgument, fleetIdPositional } from "./fleetArgs.ts";

function cell(value: PlainJson, width: number): string {
  const text = value === null ? "-" : String(value);
  return text.length > width ? text.slice(0, width - 1) + "…" : text.padEnd(width);
}

/** The readable rendering: counts, agents, one row per promotion. */
export function renderFleetStatus(doc: { [key: string]: PlainJson }): string {
  const lines = [`Fleet ${doc.fleet_id}: ${doc.summary ?? ""}`, `Thread: ${doc.thread} (${doc.event_count} events)`];
  const agents = doc.agents as Array<{ agent_id: string; trust_tier: string }>;
  lines.push(`Agents: ${agents.map((a) => `${a.agent_id} (${a.trust_tier})`).join(", ")}`);
  lines.push(`Active promotions: ${doc.active_promotion_count}`);
  const promotions = doc.promotions as Array<{ [key: string]: PlainJson }>;
  if (promotions.length > 0) {
    lines.push("");
    lines.push(`${cell("PROMOTION", 34)} ${cell("KIND", 7)} ${cell("STATUS", 11)} ${cell("SCOPE", 6)} ${cell("CONF", 5)} ${cell("ORIGIN", 16)} SUMMARY`);
    for (const p of promotions) {
      const keystone = p.keystone === true ? " [keystone]" : "";
      lines.push(`${cell(p.promotion_id, 34)} ${cell(p.kind, 7)} ${cell(p.review_status, 11)} ${cell(p.visibility_scope, 6)} ${cell(p.confidence, 5)} ${cell(p.origin_actor, 16)} ${p.summary}${keystone}`);
    }
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
    "promotion_count, active_promotion_count, status_counts, promotions[...]} (docs/fleet.md).",
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
