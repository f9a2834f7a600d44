/**
 * `memory_edit` (reference §6 row 12): a cited correction (`memory.corrected`) of what an event
 * stated; checkout then serves the correction as the current fact (src/memory/edit.ts).
 */
import * as z from "zod";
import { editMemory } from "../../memory/edit.ts";
import { actorSchema } from "../eventSchemas.ts";
import { resolveSessionId, sessionIdSchema } from "../sessionArgument.ts";
import { defineTool } from "../tool.ts";

export const memoryEditTool = defineTool({
  name: "memory_edit",
  description:
    "Correct what an event stated: appends memory.corrected citing the event (target, its citation, or target_hash with or without target_seq) with the new " +
    "content; the event is never changed, and checkout serves the correction as the fact's current content from then on. " +
    "memory_rollback of the correction restores the earlier content.",
  inputSchema: z.strictObject({
    target: z.string().min(1).optional().describe("The event whose statement is wrong, as its citation eventloom://<session>/events/<seq>#<hash prefix> (instead of target_seq/target_hash)"),
    target_seq: z.number().int().min(1).optional().describe("Or its seq (optional with target_hash)"),
    target_hash: z.string().regex(/^[0-9a-f]{12,64}$/).optional().describe("Or its hash: 64 lowercase hex, or a unique prefix of at least 12 (a citation's #part)"),
    new_content: z.string().min(1).describe("What it should say"),
    reason: z.string().min(1).describe("Why it is corrected"),
    actor: actorSchema.optional().describe("Who corrects it (default zaxy-editor)"),
    confidence: z.number().min(0).max(1).optional().describe("How sure the correction is (recorded)"),
    session_id: sessionIdSchema.optional(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(args, ctx) {
    return await editMemory(ctx.eventloomPath, resolveSessionId(ctx, args.session_id), {
      targetSeq: args.target_seq,
      targetHash: args.target_hash,
      target: args.target,
      newContent: args.new_content,
      reason: args.reason,
      actor: args.actor,
      confidence: args.confidence,
    });
  },
});
