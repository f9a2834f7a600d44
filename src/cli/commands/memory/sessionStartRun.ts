/** What sessionStart.ts's command does: imported when the command runs, so start-up loads only the command tree. */
import type { CommandContext } from "../../command.ts";
import { displayJson } from "../../../canonical/mod.ts";
import { intOption } from "../../args.ts";
import { stringOption } from "../../command.ts";
import { emit } from "../../output.ts";

export async function runMemoryVerbatim(ctx: CommandContext): Promise<number> {
  const { verbatimChunks } = await import("../../../memory/sessionStart.ts");
  const result = await verbatimChunks(ctx.global.eventloomPath, ctx.global.sessionId, { query: ctx.positionals[0], limit: intOption(ctx, "limit", 1, 100) });
  emit(ctx, "zaxy.memory.verbatim.v1", result, () =>
    result.results.length === 0 ? "No recorded event matches." : result.results.map((r) => `${r.citation}  ${r.score.toFixed(3)}  ${r.event_type}  ${r.actor}  ${displayJson(r.payload)}`).join("\n"));
  return 0;
}

export async function runMemoryBootstrap(ctx: CommandContext): Promise<number> {
  const { sessionBootstrap } = await import("../../../memory/sessionStart.ts");
  const packet = await sessionBootstrap(ctx.global.eventloomPath, ctx.global.sessionId, { currentTask: stringOption(ctx, "current-task"), source: "cli" });
  emit(ctx, "zaxy.memory.bootstrap.v1", packet, () => {
    const lines = [
      `session ${packet.session_id}: ${packet.total_events} events${packet.session_exists ? "" : " (no log yet)"}`,
      `goals: ${packet.handoff.goals.length > 0 ? packet.handoff.goals.join("; ") : "none"}; open tasks: ${packet.handoff.open_tasks.length}; last: ${packet.handoff.last_actor ?? "-"}`,
      ...packet.recent_events.map((e) => `${String(e.seq).padStart(6)}  ${e.timestamp}  ${e.type}  ${e.actor}`),
      ...packet.guidance.map((g) => `- ${g}`),
    ];
    const prompt = packet.checkout?.prompt;
    if (typeof prompt === "string") lines.push("", prompt);
    return lines.join("\n");
  });
  return 0;
}

export async function runMemoryAfterTurn(ctx: CommandContext): Promise<number> {
  const { contextAfterTurn } = await import("../../../memory/sessionStart.ts");
  const result = await contextAfterTurn(ctx.global.eventloomPath, ctx.global.sessionId, {
    role: stringOption(ctx, "role"),
    content: stringOption(ctx, "content"),
    query: stringOption(ctx, "query"),
    source: stringOption(ctx, "source") ?? "cli",
    limit: intOption(ctx, "limit", 1, 100),
    maxRecentEvents: intOption(ctx, "max-recent-events", 0, 1000),
  });
  emit(ctx, "zaxy.memory.after_turn.v1", result, () => String((result.context as { prompt?: unknown }).prompt ?? ""));
  return 0;
}
