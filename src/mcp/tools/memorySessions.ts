/** `memory_sessions`: the root's sessions and fleet threads with their sizes and last events (src/memory/sessions.ts). */
import * as z from "zod";
import { listSessions } from "../../memory/sessions.ts";
import { defineTool } from "../tool.ts";

export const memorySessionsTool = defineTool({
  name: "memory_sessions",
  description:
    "List the sessions (and fleet threads) this server's root holds: session_id, kind, bytes, and the last event's seq, " +
    "type, time and hash as the log's last line states them (a listing, not a verification: memory_verify checks a chain).",
  inputSchema: z.strictObject({}),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(_args, ctx) {
    return listSessions(ctx.eventloomPath);
  },
});
