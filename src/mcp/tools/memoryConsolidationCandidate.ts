/**
 * `memory_consolidation_candidate`: append one review-pending, non-authoritative candidate
 * citing events of the session (the MCP form of `zaxy memory consolidation propose`).
 */
import * as z from "zod";
import { proposeCandidate } from "../../consolidation/operations.ts";
import { proposeActorDefault } from "../../consolidation/actors.ts";
import { resolveSourceEvents } from "../../eventloom/eventTarget.ts";
import { actorSchema } from "../eventSchemas.ts";
import { resolveSessionId, sessionIdSchema } from "../sessionArgument.ts";
import { defineTool } from "../tool.ts";
import { candidateTypeField, sourceEventsField, textField } from "./memoryConsolidationSchemas.ts";

export const memoryConsolidationCandidateTool = defineTool({
  name: "memory_consolidation_candidate",
  description:
    "Append a consolidation candidate (episode, claim or procedure) citing sealed events of the session ({seq, hash} with " +
    "a full hash or a 12+ hex prefix, or a citation). It is created " +
    "review-pending and non-authoritative; its id is consolidation:<type>:<16 hex over type, title and sources>.",
  inputSchema: z.strictObject({
    candidate_type: candidateTypeField,
    title: textField("Title (part of the candidate id)"),
    summary: textField("What the candidate summarises"),
    source_events: sourceEventsField,
    confidence: z.number().min(0).max(1).describe("Confidence 0..1"),
    method: textField("How the candidate was derived"),
    purpose: textField("What the candidate is for").optional(),
    session_id: sessionIdSchema.optional(),
    actor: actorSchema.optional().describe(`Who proposes it (default ${proposeActorDefault})`),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(args, ctx) {
    const sessionId = resolveSessionId(ctx, args.session_id);
    return await proposeCandidate(
      ctx.eventloomPath,
      sessionId,
      {
        candidateType: args.candidate_type,
        title: args.title,
        summary: args.summary,
        sourceEvents: await resolveSourceEvents(ctx.eventloomPath, sessionId, args.source_events, { field: "source_events" }),
        confidence: args.confidence,
        method: args.method,
        purpose: args.purpose,
      },
      args.actor ?? proposeActorDefault,
    );
  },
});
