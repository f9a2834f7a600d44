/**
 * `zaxy memory consolidation review`: record a disposition of a candidate of this session.
 * A review changes only the candidate's review status; it never makes it authoritative.
 */
import { requiredOption } from "../../../args.ts";
import { defineCommand, stringOption } from "../../../command.ts";
import { reviewActorDefault } from "../../../../consolidation/actors.ts";
import { emit } from "../../../output.ts";

export const memoryConsolidationReviewCommand = defineCommand({
  name: "review",
  writesRoot: true,
  summary: "Review a candidate: accepted, rejected, deferred or conflicted (stays non-authoritative)",
  description:
    "Appends consolidation.candidate.reviewed {candidate_id, status, authority_status:\n" +
    "non_authoritative, rationale}. The candidate must have been created in this session. The\n" +
    "latest review wins; `zaxy memory rollback` reverses it. --json prints {session_id,\n" +
    "event_type, seq, hash, citation, candidate_id, candidate_type, status, authority_status,\n" +
    "payload}.",
  options: {
    "candidate-id": { type: "string", valueName: "ID", description: "consolidation:<type>:<16 hex> (required; 24-hex ids from earlier builds are accepted)" },
    status: { type: "string", valueName: "STATUS", description: "accepted, rejected, deferred or conflicted (required)" },
    rationale: { type: "string", valueName: "TEXT", description: "Why (required)" },
    actor: { type: "string", valueName: "A", description: `Who reviews (default ${reviewActorDefault})` },
  },
  positionals: [],
  examples: ["zaxy memory consolidation review --candidate-id consolidation:claim:<16 hex> --status accepted --rationale 'checked the cited runs'"],
  async run(ctx) {
    const candidateId = requiredOption(ctx, "candidate-id");
    const status = requiredOption(ctx, "status");
    const rationale = requiredOption(ctx, "rationale");
    const { reviewCandidate } = await import("../../../../consolidation/operations.ts");
    const doc = await reviewCandidate(ctx.global.eventloomPath, ctx.global.sessionId, {
      candidateId,
      status,
      rationale,
      actor: stringOption(ctx, "actor"),
    });
    emit(ctx, "zaxy.memory.consolidation.review.v1", doc, () => `Reviewed ${candidateId} as ${status} (seq ${doc.seq}, still non_authoritative)`);
    return 0;
  },
});
