/**
 * `zaxy memory verbatim QUERY`, `zaxy memory bootstrap`, `zaxy memory after-turn`: the CLI twins
 * of MCP memory_verbatim, memory_bootstrap and context_after_turn (src/memory/sessionStart.ts).
 */
import { displayJson } from "../../../canonical/mod.ts";
import { intOption } from "../../args.ts";
import { defineCommand, stringOption } from "../../command.ts";
import { emit } from "../../output.ts";

export const memoryVerbatimCommand = defineCommand({
  name: "verbatim",
  summary: "Exact recorded events matching QUERY, by BM25, with citations (as MCP memory_verbatim)",
  description:
    "Ranks the session's events by BM25 over their raw text (type, actor, payload) and prints the\n" +
    "best --limit (1..100, default 10) as sealed, each with its citation. --json prints\n" +
    "{session_id, query, result_count, results[{citation, seq, hash, event_type, actor,\n" +
    "timestamp, score, text, payload}]}.",
  options: { limit: { type: "string", valueName: "N", description: "Events to return (1..100, default 10)" } },
  positionals: [{ name: "QUERY", description: "Words to find in the recorded events", required: true }],
  examples: ["zaxy memory verbatim 'npm test exit code' --json"],
  async run(ctx) {
    const { verbatimChunks } = await import("../../../memory/sessionStart.ts");
    const result = await verbatimChunks(ctx.global.eventloomPath, ctx.global.sessionId, { query: ctx.positionals[0], limit: intOption(ctx, "limit", 1, 100) });
    emit(ctx, "zaxy.memory.verbatim.v1", result, () =>
      result.results.length === 0 ? "No recorded event matches." : result.results.map((r) => `${r.citation}  ${r.score.toFixed(3)}  ${r.event_type}  ${r.actor}  ${displayJson(r.payload)}`).join("\n"));
    return 0;
  },
});

export const memoryBootstrapCommand = defineCommand({
  name: "bootstrap",
  writesRoot: true,
  summary: "The session-start packet: handoff, latest events, guidance (as MCP memory_bootstrap)",
  description:
    "Verifies the session's log and prints the handoff (goals, open tasks, last actor), the\n" +
    "latest 10 events, guidance, and with --current-task a cited checkout for it; records\n" +
    "memory.bootstrap.shown. --json prints {session_id, current_task, session_exists,\n" +
    "total_events, handoff, recent_events, checkout, guidance, event}.",
  options: { "current-task": { type: "string", valueName: "TEXT", description: "What you are about to work on" } },
  positionals: [],
  examples: ["zaxy memory bootstrap --current-task 'fix the flaky deploy test' --json"],
  async run(ctx) {
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
  },
});

export const memoryAfterTurnCommand = defineCommand({
  name: "after-turn",
  writesRoot: true,
  summary: "Record a conversation turn and assemble context for it (as MCP context_after_turn)",
  description:
    "Appends transcript.turn {role, content, source} (actor: the role) and assembles context\n" +
    "for --query (default: the content). --json prints {session_id, turn{event_type, seq, hash,\n" +
    "citation}, context} (context as `context_assemble`); text mode prints the prompt.",
  options: {
    role: { type: "string", valueName: "ROLE", description: "Who spoke: user, assistant, tool, ... (required)" },
    content: { type: "string", valueName: "TEXT", description: "What was said (required)" },
    query: { type: "string", valueName: "TEXT", description: "What to assemble context for (default: the content)" },
    source: { type: "string", valueName: "S", description: "Where the turn comes from (default cli)" },
    limit: { type: "string", valueName: "N", description: "Contexts to retrieve (1..100, default 10)" },
    "max-recent-events": { type: "string", valueName: "N", description: "Recent events in the prompt (default 20)" },
  },
  positionals: [],
  examples: ["zaxy memory after-turn --role user --content 'why did the deploy fail?' --json"],
  async run(ctx) {
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
  },
});
