/**
 * `zaxy memory rollback --target CITATION --reason TEXT` (or `--target-hash H` with or without
 * `--target-seq N`): append a cited
 * `memory.rolled_back` that reverses an evolution event of this session (a consolidation
 * review — then only the candidate's latest review, once — or a rule, which leaves checkout;
 * gate decisions, fleet reviews and corrections are recorded as audit markers), preceded by
 * its `update` gate decision. Nothing is deleted.
 */
import { intOption, requiredOption } from "../../args.ts";
import { defineCommand, stringOption } from "../../command.ts";
import { emit } from "../../output.ts";

export const memoryRollbackCommand = defineCommand({
  name: "rollback",
  writesRoot: true,
  summary: "Reverse an evolution event (e.g. the latest review of a candidate) with memory.rolled_back",
  description:
    "Appends memory.rolled_back {rollback_id, target{seq, hash}, reason, authority_status,\n" +
    "reverts{event_type[, candidate_id, to_status]}}. The target must be an event of this\n" +
    "session with exactly that hash, of a rollbackable type (consolidation.candidate.reviewed,\n" +
    "evolution.gate.evaluated, fleet.promotion.reviewed, memory.corrected,\n" +
    "memory.rule.generated, memory.rule.proposed). For a consolidation review only the\n" +
    "candidate's latest review may be rolled back; the candidate returns to its previous status.\n" +
    "A rolled-back rule is rolled_back and leaves checkout (reverts.rule_id names it). The\n" +
    "rollback is an update evolution: evolution.gate.evaluated (op update, --confidence, default\n" +
    "1.0) is appended first, in the same batch, as an audit record. --json prints {session_id,\n" +
    "rollback_id, rollback_event{seq, hash}, citation, target, reverts, gate, gate_event{seq, hash},\n" +
    "rule?{rule_id, previous_review_status, review_status, rollback_window_seconds,\n" +
    "within_rollback_window}}.",
  options: {
    target: { type: "string", valueName: "CITATION", description: "The event to reverse, as its citation eventloom://<session>/events/<seq>#<hash>" },
    "target-seq": { type: "string", valueName: "N", description: "Or its seq (optional with --target-hash)" },
    "target-hash": { type: "string", valueName: "HASH", description: "Or its hash: 64 hex, or a unique prefix of at least 12" },
    reason: { type: "string", valueName: "TEXT", description: "Why (required)" },
    actor: { type: "string", valueName: "A", description: "Who rolls back (default zaxy-editor)" },
    confidence: { type: "string", valueName: "C", description: "Confidence for the update gate decision, 0..1 (default 1.0)" },
  },
  positionals: [],
  examples: [
    "zaxy memory rollback --target eventloom://default/events/12#5f0c9e2a71b4 --reason 'accepted by mistake' --json",
    "zaxy memory rollback --target-seq 12 --target-hash <64 hex> --reason 'accepted by mistake'",
  ],
  async run(ctx) {
    const targetSeq = intOption(ctx, "target-seq", 1);
    const targetHash = stringOption(ctx, "target-hash");
    const target = stringOption(ctx, "target");
    const reason = requiredOption(ctx, "reason");
    const { rollbackEvolution } = await import("../../../governance/rollback.ts");
    const doc = await rollbackEvolution(ctx.global.eventloomPath, ctx.global.sessionId, { targetSeq, targetHash, target, reason }, {
      actor: stringOption(ctx, "actor"),
      confidence: stringOption(ctx, "confidence"),
      env: ctx.io.env,
      fieldNames: { confidence: "--confidence", actor: "--actor", targetSeq: "--target-seq", targetHash: "--target-hash", target: "--target" },
    });
    const reverts = doc.reverts as { event_type: string; candidate_id?: string; to_status?: string; rule_id?: string };
    emit(ctx, "zaxy.memory.rollback.v1", doc, () =>
      `Rolled back seq ${(doc.target as { seq: number }).seq} (${reverts.event_type})` +
      (reverts.candidate_id === undefined ? "" : `: ${reverts.candidate_id} is ${reverts.to_status} again`) +
      (reverts.rule_id === undefined ? "" : `: rule ${reverts.rule_id} is rolled_back`) +
      ` — memory.rolled_back as seq ${(doc.rollback_event as { seq: number }).seq}  ${doc.citation}`);
    return 0;
  },
});
