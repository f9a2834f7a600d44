/** `memory_forget` (reference §6 row 14): cryptographic erasure of one event's content (src/memory/forget.ts). */
import * as z from "zod";
import { forgetMemory } from "../../memory/forget.ts";
import { actorSchema } from "../eventSchemas.ts";
import { resolveSessionId, sessionIdSchema } from "../sessionArgument.ts";
import { defineTool } from "../tool.ts";

export const memoryForgetTool = defineTool({
  name: "memory_forget",
  description:
    "Forget an event's content for good (verified forgetting; the root must have forgetting_enabled): the evolution gate " +
    "decides op forget (confidence default 1.0), the cell's key is destroyed, memory.forgotten is appended, and every " +
    "reader and projection shows [FORGOTTEN] from then on. The hash chain stays valid; nothing can bring the content back.",
  inputSchema: z.strictObject({
    target: z.string().min(1).optional().describe("The event to forget, as its citation eventloom://<session>/events/<seq>#<hash prefix> (instead of target_seq/target_hash)"),
    target_seq: z.number().int().min(1).optional().describe("Or its seq (optional with target_hash)"),
    target_hash: z.string().regex(/^[0-9a-f]{12,64}$/).optional().describe("Or its hash: 64 lowercase hex, or a unique prefix of at least 12 (a citation's #part)"),
    reason: z.string().min(1).describe("Why it is forgotten"),
    actor: actorSchema.optional().describe("Who forgets it (default zaxy-forgetter)"),
    confidence: z.number().min(0).max(1).optional().describe("The gate's confidence (default 1.0)"),
    session_id: sessionIdSchema.optional(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  async run(args, ctx) {
    return await forgetMemory(ctx.eventloomPath, resolveSessionId(ctx, args.session_id), {
      targetSeq: args.target_seq,
      targetHash: args.target_hash,
      target: args.target,
      reason: args.reason,
      actor: args.actor,
      confidence: args.confidence,
    });
  },
});
