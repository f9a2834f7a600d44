/** `memory_export` (reference §6 row 33): a portable, optionally Ed25519-signed bundle of a session's events (src/memory/exportBundle.ts). */
import * as z from "zod";
import { exportEventsMax, exportSession } from "../../memory/exportBundle.ts";
import { resolveSessionId, sessionIdSchema } from "../sessionArgument.ts";
import { defineTool } from "../tool.ts";

export const memoryExportTool = defineTool({
  name: "memory_export",
  description:
    "Export a session's events as a portable bundle (zaxy.export.v1): each selected event's exact log line, so its seal " +
    "can be recomputed anywhere; filters by seq and time window, event types and sensitivity; sign=true signs it with the " +
    "root's Ed25519 export key. `zaxy memory verify-export` checks a bundle.",
  inputSchema: z.strictObject({
    session_id: sessionIdSchema.optional(),
    since_seq: z.number().int().min(1).optional(),
    max_seq: z.number().int().min(1).optional(),
    since_time: z.string().min(1).optional().describe("ISO-8601 with an offset"),
    until_time: z.string().min(1).optional().describe("ISO-8601 with an offset"),
    kinds: z.array(z.string().min(1)).max(256).optional().describe("Event types to include (default all)"),
    exclude_sensitivities: z.array(z.string().min(1)).max(16).optional().describe("Sensitivities to leave out, e.g. [\"restricted\"]"),
    limit: z.number().int().min(1).max(exportEventsMax).optional().describe(`Events at most, earliest first (default ${exportEventsMax})`),
    sign: z.boolean().optional().describe("Sign with the root's Ed25519 export key (default false)"),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    return await exportSession(ctx.eventloomPath, resolveSessionId(ctx, args.session_id), {
      sinceSeq: args.since_seq,
      maxSeq: args.max_seq,
      sinceTime: args.since_time,
      untilTime: args.until_time,
      kinds: args.kinds,
      excludeSensitivities: args.exclude_sensitivities,
      limit: args.limit,
    }, { sign: args.sign === true });
  },
});
