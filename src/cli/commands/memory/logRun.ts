/** What log.ts's command does: imported when the command runs, so start-up loads only the command tree. */
import type { CommandContext } from "../../command.ts";
import * as fs from "node:fs";
import { eventView, sessionLogPath, verifyLog } from "../../../eventloom/mod.ts";
import { windowEvents } from "../../../eventloom/replay.ts";
import { checkLogNotDirectory, unknownSessionError } from "../../../eventloom/root.ts";
import { checkError } from "../../../errors.ts";
import { intOption } from "../../args.ts";
import { booleanOption } from "../../command.ts";
import { emit, NdjsonWriter } from "../../output.ts";
import { eventTableLines } from "../../eventTable.ts";

export async function runMemoryLog(ctx: CommandContext): Promise<number> {
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
}
