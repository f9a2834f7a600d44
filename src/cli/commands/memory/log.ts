/**
 * `zaxy memory log [--limit N] [--after-seq N] [--ndjson]`: the session's events after verifying
 * the whole chain: the latest --limit, newest last, or with --after-seq the next --limit after a
 * seq (a cursor: `next_after_seq` is where the next page starts). A log that does not verify
 * shows nothing (exit 1, `integrity_failure`, like checkout): a forged event must never be
 * printed as what happened. An unknown session is exit 2 (`unknown_session`), as for every read.
 * Verification streams the log in bounded memory; only the shown window is parsed into events,
 * and --ndjson streams them one per line.
 */
import * as fs from "node:fs";
import { eventView, sessionLogPath, verifyLog } from "../../../eventloom/mod.ts";
import { windowEvents } from "../../../eventloom/replay.ts";
import { checkLogNotDirectory } from "../../../eventloom/root.ts";
import { unknownSessionError } from "../../../eventloom/session.ts";
import { checkError } from "../../../errors.ts";
import { intOption } from "../../args.ts";
import { booleanOption, defineCommand } from "../../command.ts";
import { emit, NdjsonWriter } from "../../output.ts";
import { eventTableLines } from "../../eventTable.ts";

export const memoryLogCommand = defineCommand({
  name: "log",
  summary: "Show the session's events (after verifying its chain): the latest, or a page after a seq",
  description:
    "Verifies the session's log, then prints its last --limit events, newest last, under an\n" +
    "`integrity: OK (N events)` line; with --after-seq N, the --limit events after seq N instead\n" +
    "(page through any log: the next page starts after next_after_seq, null at the end).\n" +
    "A broken chain prints no events and exits 1 (integrity_failure; `zaxy verify` names the\n" +
    "broken event, `zaxy replay` shows it marked). An unknown session is exit 2 (unknown_session).\n" +
    "--json prints {session_id, integrity{ok, total_events, ...}, total_events, events[...],\n" +
    "next_after_seq}. --ndjson prints the events one per line (with --after-seq and no --limit:\n" +
    "every event after N, streamed in constant memory).",
  options: {
    limit: { type: "string", valueName: "N", description: "How many events (1..1000, default 20; with --ndjson and --after-seq: all)" },
    "after-seq": { type: "string", valueName: "N", description: "Show the events after seq N, oldest first (a cursor; 0: from the start)" },
    ndjson: { type: "boolean", description: "One event per line (JSON), streamed" },
  },
  positionals: [],
  examples: ["zaxy memory log --limit 5", "zaxy memory log --session-id agent-1 --json", "zaxy memory log --after-seq 1000 --limit 1000 --json", "zaxy memory log --after-seq 0 --ndjson > events.ndjson"],
  async run(ctx) {
    const ndjson = booleanOption(ctx, "ndjson");
    const afterSeq = intOption(ctx, "after-seq", 0);
    const limitGiven = intOption(ctx, "limit", 1, 1000);
    const limit = limitGiven ?? (ndjson && afterSeq !== undefined ? Number.POSITIVE_INFINITY : 20);
    const sessionId = ctx.global.sessionId;
    const file = sessionLogPath(ctx.global.eventloomPath, sessionId, "read");
    checkLogNotDirectory(file, sessionId);
    if (!fs.existsSync(file)) throw unknownSessionError(sessionId, file);
    const integrity = await verifyLog(file);
    if (!integrity.ok) {
      throw checkError(
        "integrity_failure",
        `Cannot show the log of session ${JSON.stringify(sessionId)}: it fails verification at seq ${integrity.broken_at_seq} (${integrity.broken_reason}); no events shown`,
        { line: integrity.line ?? undefined, hint: `run \`zaxy verify ${file}\` for the full report, \`zaxy replay ${file}\` to inspect the events` },
      );
    }
    // Only what verification covered: an append landing after it waits for the next read.
    const total = integrity.total_events;
    const fromSeq = afterSeq !== undefined ? afterSeq + 1 : Math.max(1, total - (limit as number) + 1);
    const toSeq = Math.min(total, afterSeq !== undefined ? afterSeq + limit : total);
    const walk = fromSeq <= toSeq ? windowEvents(file, { fromSeq, toSeq }) : undefined;
    if (ndjson) {
      const writer = new NdjsonWriter(ctx.io);
      if (walk !== undefined) for (let step = walk.next(); !step.done; step = walk.next()) await writer.write(eventView(step.value));
      await writer.flush();
      return 0;
    }
    const shown: Array<ReturnType<typeof eventView>> = [];
    if (walk !== undefined) for (let step = walk.next(); !step.done; step = walk.next()) shown.push(eventView(step.value));
    const lastShown = shown.length > 0 ? shown[shown.length - 1].seq : afterSeq ?? total;
    const nextAfterSeq = lastShown < total ? lastShown : null;
    emit(ctx, "zaxy.memory.log.v1", { session_id: sessionId, integrity, total_events: total, events: shown, next_after_seq: nextAfterSeq }, () =>
      shown.length === 0
        ? `Session ${JSON.stringify(sessionId)}: no events${afterSeq !== undefined ? ` after seq ${afterSeq}` : ""} (${total} in all).`
        : [
          `integrity: OK (${total} events)`,
          ...eventTableLines(shown, ctx.io),
          ...(nextAfterSeq !== null && afterSeq !== undefined ? [`more: zaxy memory log --after-seq ${nextAfterSeq}`] : []),
        ].join("\n"),
    );
    return 0;
  },
});
