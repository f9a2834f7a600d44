/**
 * `memory_evolution_gate`: evaluate the governed-autonomy policy for one evolution op and record
 * the decision as `evolution.gate.evaluated` (reference MCP table row 10).
 */
import * as z from "zod";
import { autonomyTiers, evolutionOps } from "../../governance/evolutionGate.ts";
import { evaluateGate } from "../../governance/operations.ts";
import { actorSchema } from "../eventSchemas.ts";
import { resolveSessionId, sessionIdSchema } from "../sessionArgument.ts";
import { defineTool } from "../tool.ts";

export const memoryEvolutionGateTool = defineTool({
  name: "memory_evolution_gate",
  description:
    "Decide whether an evolution op (consolidate, update, forget, rule_generate, promote) may auto-apply at a confidence, " +
    "and record the decision as a non-authoritative evolution.gate.evaluated event. auto_with_rollback (default) " +
    "auto-applies when confidence >= threshold (default 0.85); propose_only and require_review always hold for review. " +
    "Policy: tier/threshold arguments (this op), else ZAXY_EVOLUTION_* env, else config.json evolution_* keys.",
  inputSchema: z.strictObject({
    op: z.enum(evolutionOps).describe("consolidate, update, forget, rule_generate or promote"),
    confidence: z.number().min(0).max(1).describe("Confidence of the evolution, 0..1"),
    candidate_ref: z.strictObject({
      candidate_id: z.string().min(1).optional().describe("Id of what is gated"),
      seq: z.number().int().min(1).optional().describe("Seq of the event gated"),
      hash: z.string().regex(/^[0-9a-f]{64}$/).optional().describe("Its 64-hex hash"),
      name: z.string().min(1).optional().describe("Entity name gated"),
      entity_type: z.string().min(1).optional().describe("Its entity type"),
    }).optional().describe("What the decision is about; at least one key"),
    tier: z.enum(autonomyTiers).optional().describe("Tier for this op only (overrides env and config.json)"),
    threshold: z.number().min(0).max(1).optional().describe("Auto-apply threshold for this op only"),
    actor: actorSchema.optional().describe("Who asks (default zaxy-evolution)"),
    session_id: sessionIdSchema.optional(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(args, ctx) {
    return await evaluateGate(ctx.eventloomPath, resolveSessionId(ctx, args.session_id), {
      op: args.op,
      confidence: args.confidence,
      tier: args.tier,
      threshold: args.threshold,
      candidateRef: args.candidate_ref,
      actor: args.actor,
    });
  },
});
