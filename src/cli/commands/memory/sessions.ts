/** `zaxy memory sessions`: the root's sessions and fleet threads (as MCP memory_sessions). */
import { defineCommand } from "../../command.ts";
import { emit } from "../../output.ts";

export const memorySessionsCommand = defineCommand({
  name: "sessions",
  readsEveryThread: true,
  summary: "List the root's sessions and fleet threads (as MCP memory_sessions)",
  description:
    "Every *.jsonl log under the root: session_id, kind (session or fleet), bytes, and the last\n" +
    "event's seq, type, time and hash as its last line states them. A listing, not a\n" +
    "verification (`zaxy verify --all` checks the chains). With --store: every thread of the\n" +
    "store. --json prints {root, session_count, sessions[...]}.",
  options: {},
  positionals: [],
  examples: ["zaxy memory sessions", "zaxy memory sessions --json"],
  async run(ctx) {
    const { listSessions } = await import("../../../memory/sessions.ts");
    const result = listSessions(ctx.global.eventloomPath);
    emit(ctx, "zaxy.memory.sessions.v1", result, () => {
      if (result.sessions.length === 0) return `No sessions under ${result.root}.`;
      const width = Math.max(10, ...result.sessions.map((s) => s.session_id.length));
      return result.sessions
        .map((s) => `${s.session_id.padEnd(width)}  ${s.kind.padEnd(7)}  ${String(s.events ?? "-").padStart(8)} events  ${String(s.bytes).padStart(10)} bytes  ${s.last_event_at ?? "-"}  ${s.last_event_type ?? "-"}`)
        .join("\n");
    });
    return 0;
  },
});
