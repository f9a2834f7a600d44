/**
 * `zaxy memory evolution-gate OP --confidence C`: ask the evolution policy whether OP may
 * auto-apply at confidence C, record the decision as `evolution.gate.evaluated`, print it.
 * Both decisions exit 0 (the gate answered); bad input exits 2 and writes nothing.
 */
import { inputError } from "../../../errors.ts";
import { intOption, requiredOption } from "../../args.ts";
import { defineCommand, stringOption } from "../../command.ts";
import { emit } from "../../output.ts";

export const memoryEvolutionGateCommand = defineCommand({
  name: "evolution-gate",
  writesRoot: true,
  summary: "Evaluate the evolution gate for an op (auto_apply or requires_review) and record the decision",
  description:
    "OP is consolidate, update, forget, rule_generate or promote. The tier and threshold come from\n" +
    "--tier/--threshold (this op only), else ZAXY_EVOLUTION_* env, else config.json evolution_* keys,\n" +
    "else auto_with_rollback / 0.85 / 86400 s ('zaxy help governance'). auto_with_rollback auto-applies\n" +
    "when confidence >= threshold; propose_only and require_review always hold for review.\n" +
    "Appends evolution.gate.evaluated (non_authoritative; candidate_ref from --candidate-id and the\n" +
    "gated event: --candidate CITATION, or --candidate-hash (full, or a unique prefix of 12+ hex)\n" +
    "with or without --candidate-seq; the full hash is recorded). --json prints {session_id, op,\n" +
    "tier, confidence, threshold, decision, auto_apply, requires_review, rollback_window_seconds,\n" +
    "reason, candidate_ref?, gate_event{seq, hash}, citation}. Exit 0 for either decision, 2 for\n" +
    "bad input.",
  options: {
    confidence: { type: "string", valueName: "C", description: "Confidence of the evolution, 0..1 (required)" },
    tier: { type: "string", valueName: "T", description: "Tier for this op: propose_only, auto_with_rollback or require_review" },
    threshold: { type: "string", valueName: "X", description: "Auto-apply threshold for this op, 0..1" },
    "candidate-id": { type: "string", valueName: "ID", description: "Id of what is being gated (candidate_ref.candidate_id)" },
    candidate: { type: "string", valueName: "CITATION", description: "The event being gated, as its citation eventloom://<session>/events/<seq>#<hash prefix>" },
    "candidate-seq": { type: "string", valueName: "N", description: "Or its seq (with --candidate-hash)" },
    "candidate-hash": { type: "string", valueName: "HASH", description: "Or its hash: 64 hex, or a unique prefix of 12+ (with or without --candidate-seq)" },
    actor: { type: "string", valueName: "A", description: "Who asks (default zaxy-evolution)" },
  },
  positionals: [{ name: "OP", description: "consolidate, update, forget, rule_generate or promote", required: true }],
  examples: [
    "zaxy memory evolution-gate rule_generate --confidence 0.9 --json",
    "zaxy memory evolution-gate promote --confidence 0.95 --tier require_review --candidate-id skill:deploy",
  ],
  async run(ctx) {
    const op = ctx.positionals[0];
    const confidence = requiredOption(ctx, "confidence");
    const candidateSeq = intOption(ctx, "candidate-seq", 1);
    const candidateHash = stringOption(ctx, "candidate-hash");
    const candidateId = stringOption(ctx, "candidate-id");
    const { evaluateGate } = await import("../../../governance/operations.ts");
    const { resolveEventTarget } = await import("../../../eventloom/eventTarget.ts");
    const ref = await resolveEventTarget(ctx.global.eventloomPath, ctx.global.sessionId, { seq: candidateSeq, hash: candidateHash, citation: stringOption(ctx, "candidate") }, {
      fields: { seq: "--candidate-seq", hash: "--candidate-hash", citation: "--candidate" },
      required: false,
    });
    if (candidateId !== undefined && candidateId.trim() === "") {
      throw inputError("invalid_candidate_ref", "--candidate-id must be a non-empty string", { field: "--candidate-id" });
    }
    const candidateRef = candidateId === undefined && ref === undefined ? undefined : { candidate_id: candidateId, seq: ref?.seq, hash: ref?.hash };
    const doc = await evaluateGate(ctx.global.eventloomPath, ctx.global.sessionId, {
      op,
      confidence,
      tier: stringOption(ctx, "tier"),
      threshold: stringOption(ctx, "threshold"),
      candidateRef,
      actor: stringOption(ctx, "actor"),
      fieldNames: { op: "OP", confidence: "--confidence", tier: "--tier", threshold: "--threshold" },
      env: ctx.io.env,
    });
    const event = doc.gate_event as { seq: number };
    emit(ctx, "zaxy.memory.evolution_gate.v1", doc, () => `${doc.decision}: ${doc.reason}\nevolution.gate.evaluated as seq ${event.seq}  ${doc.citation}`);
    return 0;
  },
});
