/** `zaxy memory consolidation status`: candidate and review state by replay of the log. */
import { defineCommand } from "../../../command.ts";
import { emit } from "../../../output.ts";
import { textTable } from "../../../textTable.ts";

export const memoryConsolidationStatusCommand = defineCommand({
  name: "status",
  summary: "Candidates and review counts by replay (rolled-back reviews do not count)",
  description:
    "Replays the session: the first creation of a candidate id wins, the latest surviving\n" +
    "review decides its status, and a memory.rolled_back of a review cancels it. --json prints\n" +
    "{session_id, candidate_count, review_count, duplicate_candidate_count, rollback_count,\n" +
    "pending_count, accepted_count, rejected_count, deferred_count, conflicted_count,\n" +
    "stale_count, superseded_count, valid_to_count, review_status_counts,\n" +
    "authority_status_counts, candidate_type_counts, candidates[]}.",
  options: {},
  positionals: [],
  examples: ["zaxy memory consolidation status", "zaxy memory consolidation status --session-id agent-1 --json"],
  async run(ctx) {
    const { readConsolidationStatus } = await import("../../../../consolidation/operations.ts");
    const { statusLine } = await import("../../../../folds/consolidationStatus.ts");
    const doc = await readConsolidationStatus(ctx.global.eventloomPath, ctx.global.sessionId);
    // The text lists every candidate with its full id: `consolidation review` takes it.
    const candidates = doc.candidates as Array<{ [key: string]: unknown }>;
    emit(ctx, "zaxy.memory.consolidation.status.v1", doc, () =>
      [
        statusLine(doc),
        ...(candidates.length === 0 ? [] : ["", ...textTable([
          ["CANDIDATE", "TYPE", "STATUS", "CREATED"],
          ...candidates.map((c) => [String(c.candidate_id), String(c.candidate_type), String(c.review_status), `seq ${c.created_seq}`]),
        ])]),
      ].join("\n"));
    return 0;
  },
});
