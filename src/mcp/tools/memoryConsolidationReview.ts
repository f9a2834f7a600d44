/** `memory_consolidation_review`: record a disposition of a candidate; it stays non-authoritative. */
import * as z from "zod";
import { reviewCandidate } from "../../consolidation/operations.ts";
import { reviewActorDefault } from "../../consolidation/actors.ts";
import { actorSchema } from "../eventSchemas.ts";
import { resolveSessionId, sessionIdSchema } from "../sessionArgument.ts";
import { defineTool } from "../tool.ts";
import { candidateIdField, reviewStatusField, textField } from "./memoryConsolidationSchemas.ts";

export const memoryConsolidationReviewTool = defineTool({
  name: "memory_consolidation_review",
  description:
    "Review a consolidation candidate of the session: accepted, rejected, deferred or conflicted, with a rationale. " +
    "Only the review status changes; the candidate never becomes authoritative. memory_rollback reverses the latest review.",
  inputSchema: z.strictObject({
    candidate_id: candidateIdField,
    status: reviewStatusField,
    rationale: textField("Why"),
    session_id: sessionIdSchema.optional(),
    actor: actorSchema.optional().describe(`Who reviews (default ${reviewActorDefault})`),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(args, ctx) {
    return await reviewCandidate(ctx.eventloomPath, resolveSessionId(ctx, args.session_id), {
      candidateId: args.candidate_id,
      status: args.status,
      rationale: args.rationale,
      actor: args.actor ?? reviewActorDefault,
    });
  },
});
