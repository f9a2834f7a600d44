/**
 * `memory_replay`: the events of an inclusive `[from_seq, to_seq]` window of one session, at most
 * `replayEventsMax` of them, with the integrity report of the whole log and a handoff summary of
 * the returned events. `truncated` says the window held more; continue from the last seq + 1.
 */
import * as z from "zod";
import { eventView, handoffSummary, replayLog } from "../../eventloom/mod.ts";
import { inputError } from "../../errors.ts";
import { replayEventsMax } from "../../limits.ts";
import { integrityDocument } from "../integrityDocument.ts";
import { existingSessionLog, resolveSessionId, sessionIdSchema } from "../sessionArgument.ts";
import { defineTool } from "../tool.ts";

const seqSchema = z.number().int().min(1);

export const memoryReplayTool = defineTool({
  name: "memory_replay",
  description:
    `Replay a session's events in the inclusive window [from_seq, to_seq] (at most ${replayEventsMax} per call; ` +
    "truncated=true means more follow). Includes the log's integrity report and a handoff summary " +
    "(goals, open tasks, last actor).",
  inputSchema: z.strictObject({
    session_id: sessionIdSchema.optional(),
    from_seq: seqSchema.default(1).describe("First seq to return (1-based, inclusive)"),
    to_seq: seqSchema.optional().describe("Last seq to return (inclusive); default: the end of the log"),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    const fromSeq = args.from_seq ?? 1;
    const toSeq = args.to_seq;
    if (toSeq !== undefined && fromSeq > toSeq) {
      throw inputError("invalid_window", `from_seq ${fromSeq} is after to_seq ${toSeq}`, {
        field: "from_seq",
        hint: "Pass from_seq <= to_seq (the window is inclusive).",
      });
    }
    const logPath = existingSessionLog(ctx, resolveSessionId(ctx, args.session_id), "replay");
    // One event past the cap tells a full window from a truncated one.
    const replay = await replayLog(logPath, { fromSeq, toSeq, limit: replayEventsMax + 1 });
    const truncated = replay.events.length > replayEventsMax;
    const events = truncated ? replay.events.slice(0, replayEventsMax) : replay.events;
    return {
      integrity: integrityDocument(replay.integrity),
      events: events.map(eventView),
      truncated,
      total_events: replay.total_events,
      // replayLog summarised the capped-plus-one list; summarise exactly what is returned.
      handoff: truncated ? handoffSummary(events) : replay.handoff,
    };
  },
});

