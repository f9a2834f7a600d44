/**
 * `memory_outcome`: record an outcome on recalled memory; a failure/partial with a lesson
 * proposes a preventive rule through the evolution gate (reference MCP table row 11).
 */
import * as z from "zod";
import { outcomes } from "../../governance/outcomeLearning.ts";
import { recordOutcome } from "../../governance/operations.ts";
import { actorSchema } from "../eventSchemas.ts";
import { resolveSessionId, sessionIdSchema } from "../sessionArgument.ts";
import { defineTool } from "../tool.ts";

export const memoryOutcomeTool = defineTool({
  name: "memory_outcome",
  description:
    "Record an outcome (success, failure, partial) as memory.outcome.recorded, optionally about a sealed event " +
    "(target, a citation, or target_hash with or without target_seq). A failure or partial with a lesson runs the rule_generate gate (confidence, default " +
    "failure 0.9, partial 0.7) and appends memory.rule.generated (active) when auto-applied, else memory.rule.proposed " +
    "(pending, kept out of checkout). Outcome, gate decision and rule are appended in one batch.",
  inputSchema: z.strictObject({
    outcome: z.enum(outcomes).describe("success, failure or partial"),
    summary: z.string().min(1).describe("What happened"),
    target: z.string().min(1).optional().describe("The recalled event the outcome is about, as its citation eventloom://<session>/events/<seq>#<hash prefix> (instead of target_seq/target_hash)"),
    target_seq: z.number().int().min(1).optional().describe("Or its seq (with target_hash)"),
    target_hash: z.string().regex(/^[0-9a-f]{12,64}$/).optional().describe("Or its hash: 64 lowercase hex, or a unique prefix of at least 12 (a citation's #part)"),
    lesson: z.string().min(1).optional().describe("Preventive rule to learn (failure/partial)"),
    trigger: z.string().min(1).optional().describe("When the rule applies (default: summary)"),
    confidence: z.number().min(0).max(1).optional().describe("Rule confidence (default failure 0.9, partial 0.7)"),
    prior: z.number().min(0).max(1).optional().describe("Prior confidence the memory would succeed; records prediction_error"),
    task_id: z.string().min(1).optional().describe("Task the outcome belongs to"),
    actor: actorSchema.optional().describe("Who reports (default zaxy-agent)"),
    session_id: sessionIdSchema.optional(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(args, ctx) {
    return await recordOutcome(ctx.eventloomPath, resolveSessionId(ctx, args.session_id), {
      outcome: args.outcome,
      summary: args.summary,
      targetSeq: args.target_seq,
      targetHash: args.target_hash,
      target: args.target,
      lesson: args.lesson,
      trigger: args.trigger,
      confidence: args.confidence,
      taskId: args.task_id,
      prior: args.prior,
      actor: args.actor,
    });
  },
});
