/**
 * `zaxy memory outcome OUTCOME --summary S`: record how recalled memory worked out
 * (`memory.outcome.recorded`); a failure or partial with --lesson proposes a preventive rule
 * through the evolution gate (op rule_generate): `memory.rule.generated` when auto-applied,
 * `memory.rule.proposed` (pending, kept out of checkout) when held for review.
 */
import { intOption, requiredOption } from "../../args.ts";
import { defineCommand, stringOption } from "../../command.ts";
import { emit } from "../../output.ts";

function render(doc: Record<string, unknown>): string {
  const event = doc.outcome_event as { seq: number };
  const lines = [`Recorded ${doc.outcome} outcome as seq ${event.seq}  ${doc.citation}`];
  const rule = doc.rule as { event_type: string; seq: number; rule_id: string; review_status: string } | undefined;
  const gate = doc.gate as { reason: string } | undefined;
  if (gate !== undefined) lines.push(`gate: ${gate.reason}`);
  if (rule !== undefined) lines.push(`${rule.event_type} ${rule.rule_id} as seq ${rule.seq} (review_status ${rule.review_status})`);
  return lines.join("\n");
}

export const memoryOutcomeCommand = defineCommand({
  name: "outcome",
  writesRoot: true,
  summary: "Record an outcome (success, failure, partial); a failure/partial with --lesson proposes a rule through the gate",
  description:
    "Appends memory.outcome.recorded {outcome, summary, authority_status, target?, task_id?, prior?,\n" +
    "prediction_error?}. --target (a citation) or --target-hash (64 hex or a unique prefix of at\n" +
    "least 12, with or without --target-seq) names the sealed event of this session it is about.\n" +
    "A failure or partial with --lesson then appends, in the same batch, the rule_generate gate\n" +
    "decision (confidence --confidence, else failure 0.9, partial 0.7) and the rule:\n" +
    "memory.rule.generated (review_status active) when auto-applied, else memory.rule.proposed\n" +
    "(pending; excluded from checkout). Rule id: rule:<24 hex of sha256(canonical {rule, trigger,\n" +
    "source_events})>, trigger defaults to the summary. --json prints {outcome, outcome_event{seq,\n" +
    "hash}, rule?{event_type, seq, auto_applied, review_status, hash, rule_id, citation}, session_id,\n" +
    "citation, target?, prediction_error?, gate?}.",
  options: {
    summary: { type: "string", valueName: "S", description: "What happened (required)" },
    target: { type: "string", valueName: "CITATION", description: "The recalled event the outcome is about, as its citation" },
    "target-seq": { type: "string", valueName: "N", description: "Or its seq (with --target-hash)" },
    "target-hash": { type: "string", valueName: "HASH", description: "Or its hash: 64 hex, or a unique prefix of at least 12" },
    lesson: { type: "string", valueName: "L", description: "The preventive rule to learn (failure/partial only)" },
    trigger: { type: "string", valueName: "T", description: "When the rule applies (default: the summary)" },
    confidence: { type: "string", valueName: "C", description: "Rule confidence 0..1 (default failure 0.9, partial 0.7)" },
    "task-id": { type: "string", valueName: "ID", description: "Task the outcome belongs to" },
    prior: { type: "string", valueName: "P", description: "Prior confidence 0..1 that the memory would succeed; records prediction_error" },
    actor: { type: "string", valueName: "A", description: "Who reports (default zaxy-agent)" },
  },
  positionals: [{ name: "OUTCOME", description: "success, failure or partial", required: true }],
  examples: [
    "zaxy memory outcome failure --summary 'deploy broke prod' --lesson 'run the migration dry-run first' --json",
    "zaxy memory outcome success --summary 'fix held' --target eventloom://default/events/12#5f0c9e2a71b4 --prior 0.4",
  ],
  async run(ctx) {
    const outcome = ctx.positionals[0];
    const summary = requiredOption(ctx, "summary");
    const { recordOutcome } = await import("../../../governance/operations.ts");
    const doc = await recordOutcome(ctx.global.eventloomPath, ctx.global.sessionId, {
      outcome,
      summary,
      targetSeq: intOption(ctx, "target-seq", 1),
      targetHash: stringOption(ctx, "target-hash"),
      target: stringOption(ctx, "target"),
      lesson: stringOption(ctx, "lesson"),
      trigger: stringOption(ctx, "trigger"),
      confidence: stringOption(ctx, "confidence"),
      taskId: stringOption(ctx, "task-id"),
      prior: stringOption(ctx, "prior"),
      actor: stringOption(ctx, "actor"),
      fieldNames: {
        outcome: "OUTCOME",
        summary: "--summary",
        targetSeq: "--target-seq",
        targetHash: "--target-hash",
        target: "--target",
        lesson: "--lesson",
        trigger: "--trigger",
        confidence: "--confidence",
        taskId: "--task-id",
        prior: "--prior",
        actor: "--actor",
      },
      env: ctx.io.env,
    });
    emit(ctx, "zaxy.memory.outcome.v1", doc, () => render(doc));
    return 0;
  },
});
