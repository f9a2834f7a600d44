/**
 * `zaxy memory verbatim QUERY`, `zaxy memory bootstrap`, `zaxy memory after-turn`: the CLI twins
 * of MCP memory_verbatim, memory_bootstrap and context_after_turn (src/memory/sessionStart.ts).
 */
import { defineCommand } from "../../command.ts";

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
    const { runMemoryVerbatim } = await import("./sessionStartRun.ts");
    return await runMemoryVerbatim(ctx);
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
    const { runMemoryBootstrap } = await import("./sessionStartRun.ts");
    return await runMemoryBootstrap(ctx);
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
    const { runMemoryAfterTurn } = await import("./sessionStartRun.ts");
    return await runMemoryAfterTurn(ctx);
  },
});
