/**
 * `memory_rollback`: reverse an evolution event of the session with a cited `memory.rolled_back`
 * (for a consolidation review: only the candidate's latest review, once; a rule leaves checkout),
 * preceded by its `update` gate decision.
 */
import * as z from "zod";
import { rollbackableEventTypes } from "../../governance/rollbackPlan.ts";
import { rollbackEvolution } from "../../governance/rollback.ts";
import { actorSchema } from "../eventSchemas.ts";
import { resolveSessionId, sessionIdSchema } from "../sessionArgument.ts";
import { defineTool } from "../tool.ts";
import { textField } from "./memoryConsolidationSchemas.ts";

export const memoryRollbackTool = defineTool({
  name: "memory_rollback",
  description:
    "Reverse an evolution event of the session by appending memory.rolled_back citing it (nothing is deleted). " +
    `Rollbackable: ${rollbackableEventTypes.join(", ")}. A rolled-back consolidation review no longer counts: the ` +
    "candidate returns to its previous status; a rolled-back rule leaves checkout. Only a candidate's latest review may be " +
    "rolled back. An evolution.gate.evaluated (op update) is appended first as the audit record; the result carries it as gate.",
  inputSchema: z.strictObject({
    target: z.string().min(1).optional().describe("The event to reverse, as its citation eventloom://<session>/events/<seq>#<hash prefix> (instead of target_seq/target_hash)"),
    target_seq: z.number().int().min(1).optional().describe("Or its seq (optional with target_hash)"),
    target_hash: z.string().regex(/^[0-9a-f]{12,64}$/).optional().describe("Or its hash: 64 lowercase hex, or a unique prefix of at least 12 (a citation's #part)"),
    reason: textField("Why"),
    actor: actorSchema.optional().describe("Who rolls back (default zaxy-editor)"),
    confidence: z.number().min(0).max(1).optional()
      .describe("Confidence for the update gate decision recorded before the rollback (default 1.0)"),
    session_id: sessionIdSchema.optional(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(args, ctx) {
    return await rollbackEvolution(
      ctx.eventloomPath,
      resolveSessionId(ctx, args.session_id),
      { targetSeq: args.target_seq, targetHash: args.target_hash, target: args.target, reason: args.reason },
      { actor: args.actor, confidence: args.confidence },
    );
  },
});
