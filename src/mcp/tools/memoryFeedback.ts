/**
 * `memory_feedback` (reference §6 row 5): record whether a memory was used, helpful or
 * irrelevant. `used`/`helpful` append `memory.reinforced`, `irrelevant` appends `memory.feedback`;
 * retrieval replays them into a ranking nudge for the entity (src/memory/feedback.ts). Takes the
 * ready-made payloads a checkout's `guidance.feedback.payloads` carries, as they are.
 */
import * as z from "zod";
import { feedbackValues, recordFeedback } from "../../memory/feedback.ts";
import { actorSchema } from "../eventSchemas.ts";
import { resolveSessionId, sessionIdSchema } from "../sessionArgument.ts";
import { defineTool } from "../tool.ts";

const textField = z.string().min(1);

export const memoryFeedbackTool = defineTool({
  name: "memory_feedback",
  description:
    "Record feedback on a memory you were given (e.g. a payload from memory_checkout guidance.feedback.payloads): used or " +
    "helpful appends memory.reinforced, irrelevant appends memory.feedback; history is never changed. Retrieval scales the " +
    "entity's score by 1 + 0.1 x (reinforcements - irrelevant feedback), within 0.5..1.5, from the next query on.",
  inputSchema: z.strictObject({
    entity_name: textField.describe("The memory's entity name (current_facts[].entity_name)"),
    entity_type: textField.describe("Its entity type (current_facts[].entity_type)"),
    feedback: z.string().describe(`${feedbackValues.join(", ")} (case-insensitive)`),
    actor: actorSchema.optional().describe("Who gives the feedback (default zaxy)"),
    session_id: sessionIdSchema.optional(),
    query: textField.optional().describe("The query the memory was retrieved for"),
    source: textField.optional().describe("Where the memory came from or the feedback comes from (default mcp)"),
    score: z.number().optional().describe("The score the memory was served with"),
    citation: textField.optional().describe("The citation the memory was served with"),
    reason: textField.optional().describe("Why (the feedback's summary)"),
    purpose: z.union([textField, z.record(z.string(), z.unknown())]).optional().describe("Purpose profile name or object"),
    outcome: textField.optional().describe("Outcome label"),
    importance: z.number().min(0).max(1).optional().describe("0..1, recorded on used/helpful"),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(args, ctx) {
    return await recordFeedback(ctx.eventloomPath, resolveSessionId(ctx, args.session_id), {
      entityName: args.entity_name,
      entityType: args.entity_type,
      feedback: args.feedback,
      actor: args.actor,
      query: args.query,
      source: args.source,
      score: args.score,
      citation: args.citation,
      reason: args.reason,
      purpose: args.purpose,
      outcome: args.outcome,
      importance: args.importance,
    }, { source: "mcp" });
  },
});
