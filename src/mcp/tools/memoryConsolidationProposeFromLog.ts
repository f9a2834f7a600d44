/** `memory_consolidation_propose_from_log`: idempotent candidates from the session's actionable events. */
import * as z from "zod";
import { proposeFromLog } from "../../consolidation/operations.ts";
import { windowSizeDefault } from "../../consolidation/segments.ts";
import { proposeFromLogActorDefault } from "../../consolidation/actors.ts";
import { actorSchema } from "../eventSchemas.ts";
import { resolveSessionId, sessionIdSchema } from "../sessionArgument.ts";
import { defineTool } from "../tool.ts";
import { textField, windowSizeField } from "./memoryConsolidationSchemas.ts";

export const memoryConsolidationProposeFromLogTool = defineTool({
  name: "memory_consolidation_propose_from_log",
  description:
    "Propose review-pending episode/claim/procedure candidates from consecutive windows of the session's actionable " +
    "events (tool calls, commands, file edits, tasks, coordination), window_size events each (default 8). The " +
    "session log is the unit: its events count whatever thread they carry, and threads_seen lists those threads. " +
    "Re-running creates nothing new: existing candidate ids are skipped and listed in skipped_existing_candidate_ids.",
  inputSchema: z.strictObject({
    session_id: sessionIdSchema.optional(),
    actor: actorSchema.optional().describe(`Who proposes them (default ${proposeFromLogActorDefault})`),
    purpose: textField("Recorded on every candidate").optional(),
    window_size: windowSizeField,
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(args, ctx) {
    // Design 000: no argument is required; the session defaults to the server's.
    return await proposeFromLog(ctx.eventloomPath, resolveSessionId(ctx, args.session_id), {
      windowSize: args.window_size ?? windowSizeDefault,
      purpose: args.purpose,
      actor: args.actor,
    });
  },
});
