/**
 * `memory_verify`: check a session log's hash chain and report the first failure (or, with
 * `all_errors`, every one). A broken chain is a normal result (`ok: false`), not a tool error.
 */
import * as z from "zod";
import { verifyLog } from "../../eventloom/mod.ts";
import { integrityDocument } from "../integrityDocument.ts";
import { existingSessionLog, resolveSessionId, sessionIdSchema } from "../sessionArgument.ts";
import { defineTool } from "../tool.ts";

export const memoryVerifyTool = defineTool({
  name: "memory_verify",
  description:
    "Verify a session's hash chain (seq order, every seal, every prev_hash link, torn last line). Returns " +
    "{ok, total_events, broken_at_seq, broken_reason, code, line, torn_tail, errors}.",
  inputSchema: z.strictObject({
    session_id: sessionIdSchema.optional(),
    all_errors: z.boolean().optional().describe("List every failure instead of stopping at the first"),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    const sessionId = resolveSessionId(ctx, args.session_id);
    const logPath = existingSessionLog(ctx, sessionId, "verify");
    return integrityDocument(await verifyLog(logPath, { allErrors: args.all_errors === true }));
  },
});
