/**
 * `zaxy memory feedback ENTITY --entity-type T --feedback used|helpful|irrelevant`: tell memory
 * whether a memory was used, helpful or irrelevant (the CLI door of MCP `memory_feedback`).
 * Appends `memory.reinforced` (used, helpful) or `memory.feedback` (irrelevant); retrieval
 * replays them into a ranking nudge for that entity (docs/checkout.md).
 */
import { defineCommand, stringOption } from "../../command.ts";
import { emit } from "../../output.ts";
import type { FeedbackResult } from "../../../memory/feedback.ts";

const decimalPattern = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;

/** The flag's text as a number when it is one; otherwise the text, which validation refuses by name. */
function numberOption(value: string | undefined): number | string | undefined {
  return value === undefined ? undefined : decimalPattern.test(value) ? Number(value) : value;
}

function render(result: FeedbackResult): string {
  return `Recorded ${result.feedback} feedback for ${result.entity_name} (${result.entity_type}) as ${result.event_type} seq ${result.seq}  ${result.citation}`;
}

export const memoryFeedbackCommand = defineCommand({
  name: "feedback",
  writesRoot: true,
  summary: "Record whether a memory was used, helpful or irrelevant; reinforcement changes its ranking",
  description:
    "Appends memory.reinforced {entity_name, entity_type, source, ...} for --feedback used or\n" +
    "helpful, memory.feedback {..., feedback: irrelevant} for irrelevant (Python's contract;\n" +
    "history is never changed). Retrieval then scales the entity's score by 1 + 0.1 x (reinforcements\n" +
    "- irrelevant feedback), within 0.5..1.5, so it rises or falls in the next query and checkout.\n" +
    "--json prints {session_id, status, entity_name, entity_type, feedback, event_type, seq, hash, citation}.",
  options: {
    "entity-type": { type: "string", valueName: "T", description: "The memory's entity type, e.g. decision (required)" },
    feedback: { type: "string", valueName: "F", description: "used, helpful or irrelevant (required)" },
    query: { type: "string", valueName: "Q", description: "The query the memory was retrieved for" },
    reason: { type: "string", valueName: "R", description: "Why (recorded as the feedback's summary)" },
    citation: { type: "string", valueName: "URI", description: "The citation the memory was served with" },
    score: { type: "string", valueName: "X", description: "The score it was served with" },
    importance: { type: "string", valueName: "X", description: "0..1, recorded on used/helpful" },
    outcome: { type: "string", valueName: "O", description: "Outcome label recorded with the feedback" },
    source: { type: "string", valueName: "S", description: "Where the feedback comes from (default cli)" },
    actor: { type: "string", valueName: "A", description: "Who gives it (default zaxy)" },
  },
  positionals: [{ name: "ENTITY", description: "The memory's entity name", required: true }],
  examples: [
    "zaxy memory feedback 'Use Postgres for invoices' --entity-type decision --feedback helpful --query 'invoice storage'",
    "zaxy memory feedback 'Rotate credentials monthly' --entity-type decision --feedback irrelevant --reason 'not about billing' --json",
  ],
  async run(ctx) {
    const { recordFeedback } = await import("../../../memory/feedback.ts");
    const result = await recordFeedback(ctx.global.eventloomPath, ctx.global.sessionId, {
      entityName: ctx.positionals[0],
      entityType: stringOption(ctx, "entity-type"),
      feedback: stringOption(ctx, "feedback"),
      query: stringOption(ctx, "query"),
      reason: stringOption(ctx, "reason"),
      citation: stringOption(ctx, "citation"),
      score: numberOption(stringOption(ctx, "score")),
      importance: numberOption(stringOption(ctx, "importance")),
      outcome: stringOption(ctx, "outcome"),
      source: stringOption(ctx, "source"),
      actor: stringOption(ctx, "actor"),
      fieldNames: {
        entity_name: "ENTITY",
        entity_type: "--entity-type",
        feedback: "--feedback",
        query: "--query",
        reason: "--reason",
        citation: "--citation",
        score: "--score",
        importance: "--importance",
        outcome: "--outcome",
        source: "--source",
        actor: "--actor",
      },
    }, { source: "cli" });
    for (const warning of result.warnings ?? []) ctx.io.stderr(`zaxy: warning: ${warning}\n`);
    emit(ctx, "zaxy.memory.feedback.v1", { ...result }, () => render(result));
    return 0;
  },
});
