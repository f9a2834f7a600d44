/**
 * `memory_evolution_gate`: evaluate the governed-autonomy policy for one evolution op and record
 * the decision as `evolution.gate.evaluated` (reference MCP table row 10).
 */
import * as z from "zod";
import { fullHashChars, resolveEventTarget } from "../../eventloom/eventTarget.ts";
import { autonomyTiers, type CandidateRef, evolutionOps } from "../../governance/evolutionGate.ts";
import { evaluateGate } from "../../governance/operations.ts";
import { actorSchema } from "../eventSchemas.ts";
import { resolveSessionId, sessionIdSchema } from "../sessionArgument.ts";
import { defineTool } from "../tool.ts";

/**
 * candidate_ref with the gated event's full hash when a citation or a hash prefix names it; any
 * other ref (an id, a name, a bare seq, a full hash) is recorded as given, as it always was.
 */
async function candidateRefOf(root: string, sessionId: string, ref: CandidateRef | undefined, citation: string | undefined): Promise<CandidateRef | undefined> {
  if (citation === undefined && (ref?.hash === undefined || ref.hash === null || ref.hash.length === fullHashChars)) return ref;
  const target = await resolveEventTarget(root, sessionId, { seq: ref?.seq ?? undefined, hash: ref?.hash ?? undefined, citation }, {
    fields: { seq: "candidate_ref.seq", hash: "candidate_ref.hash", citation: "candidate" },
  });
  return { ...ref, seq: target.seq, hash: target.hash };
}

export const memoryEvolutionGateTool = defineTool({
  name: "memory_evolution_gate",
  description:
    "Decide whether an evolution op (consolidate, update, forget, rule_generate, promote) may auto-apply at a confidence, " +
    "and record the decision as a non-authoritative evolution.gate.evaluated event. auto_with_rollback (default) " +
    "auto-applies when confidence >= threshold (default 0.85); propose_only and require_review always hold for review. " +
    "Policy: tier/threshold arguments (this op), else ZAXY_EVOLUTION_* env, else config.json evolution_* keys. " +
    "Name the gated event by candidate (its citation) or candidate_ref.hash (a 12+ hex prefix works); the full hash is recorded.",
  inputSchema: z.strictObject({
    op: z.enum(evolutionOps).describe("consolidate, update, forget, rule_generate or promote"),
    confidence: z.number().min(0).max(1).describe("Confidence of the evolution, 0..1"),
    candidate_ref: z.strictObject({
      candidate_id: z.string().min(1).optional().describe("Id of what is gated"),
      seq: z.number().int().min(1).optional().describe("Seq of the event gated (optional with hash)"),
      hash: z.string().regex(/^[0-9a-f]{12,64}$/).optional().describe("Its hash: 64 lowercase hex, or a unique prefix of at least 12 (a citation's #part); the full hash is recorded"),
      name: z.string().min(1).optional().describe("Entity name gated"),
      entity_type: z.string().min(1).optional().describe("Its entity type"),
    }).optional().describe("What the decision is about; at least one key"),
    candidate: z.string().min(1).optional().describe("The event gated, as its citation eventloom://<session>/events/<seq>#<hash prefix> (instead of candidate_ref.seq/hash)"),
    tier: z.enum(autonomyTiers).optional().describe("Tier for this op only (overrides env and config.json)"),
    threshold: z.number().min(0).max(1).optional().describe("Auto-apply threshold for this op only"),
    actor: actorSchema.optional().describe("Who asks (default zaxy-evolution)"),
    session_id: sessionIdSchema.optional(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(args, ctx) {
    const sessionId = resolveSessionId(ctx, args.session_id);
    return await evaluateGate(ctx.eventloomPath, sessionId, {
      op: args.op,
      confidence: args.confidence,
      tier: args.tier,
      threshold: args.threshold,
      candidateRef: await candidateRefOf(ctx.eventloomPath, sessionId, args.candidate_ref, args.candidate),
      actor: args.actor,
    });
  },
});
