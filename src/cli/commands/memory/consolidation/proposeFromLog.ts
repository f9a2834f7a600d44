/**
 * `zaxy memory consolidation propose-from-log`: deterministic episode/claim/procedure
 * candidates from the session's actionable events. Idempotent: candidates already in the log
 * are skipped and reported; the new ones are appended in one batch.
 */
import { consolidationWindowSizeMax as windowSizeMax } from "../../../../limits.ts";
import { intOption } from "../../../args.ts";
import { defineCommand, stringOption } from "../../../command.ts";
import { emit } from "../../../output.ts";

// Mirrors src/consolidation/segments.ts (kept literal so --help does not load the library).
const windowSizeDefault = 8;

export const memoryConsolidationProposeFromLogCommand = defineCommand({
  name: "propose-from-log",
  writesRoot: true,
  summary: "Propose review-pending candidates from the session's actionable events (idempotent)",
  description:
    "Cuts the session's actionable events (tool calls, commands, file edits, tasks,\n" +
    "coordination; not checkout/query/feedback) into consecutive windows of --window-size\n" +
    "events (default 8) and proposes per window an episode (confidence 0.68), a claim (0.62,\n" +
    "when the window has at least two events) and a procedure (0.58,\n" +
    "when it has >= 2 tool calls, or an edit plus a tool call, command or task). Candidates\n" +
    "already in the log are skipped. The session's log is the unit: its events count whatever\n" +
    "thread they carry (Python logs often name another thread than their file); threads_seen\n" +
    "lists them. --json prints {session_id, segment_count, candidate_count,\n" +
    "skipped_existing_count, skipped_existing_candidate_ids, threads_seen, events[{event_type,\n" +
    "seq, hash, candidate_id, candidate_type}]}.",
  options: {
    "window-size": { type: "string", valueName: "N", description: `Actionable events per window (1..${windowSizeMax}, default ${windowSizeDefault})` },
    purpose: { type: "string", valueName: "TEXT", description: "Recorded on every candidate" },
    actor: { type: "string", valueName: "A", description: "Who proposes them (default zaxy-consolidation)" },
  },
  positionals: [],
  examples: ["zaxy memory consolidation propose-from-log --json", "zaxy memory consolidation propose-from-log --window-size 8 --purpose release-notes"],
  async run(ctx) {
    const windowSize = intOption(ctx, "window-size", 1, windowSizeMax) ?? windowSizeDefault;
    const { proposeFromLog } = await import("../../../../consolidation/operations.ts");
    const doc = await proposeFromLog(ctx.global.eventloomPath, ctx.global.sessionId, {
      windowSize,
      purpose: stringOption(ctx, "purpose"),
      actor: stringOption(ctx, "actor"),
    });
    emit(ctx, "zaxy.memory.consolidation.propose_from_log.v1", doc, () => {
      const events = doc.events as { seq: number; candidate_id: string }[];
      const otherThreads = (doc.threads_seen as string[]).filter((thread) => thread !== doc.session_id);
      return [
        `Proposed ${doc.candidate_count} consolidation candidates from ${doc.segment_count} segments of ${doc.session_id} (skipped ${doc.skipped_existing_count} existing)`,
        ...(otherThreads.length === 0 ? [] : [
          `  note: events of this session carry thread ${otherThreads.map((thread) => JSON.stringify(thread)).join(", ")}, not ${JSON.stringify(doc.session_id)}; the session log is the unit, so they were included`,
        ]),
        ...events.map((event) => `  seq ${event.seq}  ${event.candidate_id}`),
      ].join("\n");
    });
    return 0;
  },
});
