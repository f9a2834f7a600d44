/** What replay.ts's command does: imported when the command runs, so start-up loads only the command tree. */
import { eventView, handoffSummary, replayLog, sessionLogPath, verifyLog } from "../../eventloom/mod.ts";
import { validateWindow, windowEvents } from "../../eventloom/replay.ts";
import { inputError } from "../../errors.ts";
import { regularFileProblem } from "../../platform/mod.ts";
import { intOption } from "../args.ts";
import { booleanOption, type CommandContext } from "../command.ts";
import { eventTableLines } from "../eventTable.ts";
import { emit, NdjsonWriter } from "../output.ts";

/**
 * `--ndjson`: the window's events, one JSON object per line (the `events[]` items of --json,
 * `verified` included), streamed: constant memory at any log size. A broken chain still streams
 * the window (forensics), with the warning on stderr and exit 1, as without --ndjson.
 */
async function replayNdjson(ctx: CommandContext, log: string, window: { fromSeq?: number; toSeq?: number }): Promise<number> {
  validateWindow(window);
  const problem = regularFileProblem(log);
  if (problem !== undefined) throw inputError("unreadable_log", `Cannot replay ${log}: ${problem}`, { field: "LOG", expected: "a regular file" });
  const integrity = await verifyLog(log);
  const verifiedThroughSeq = integrity.ok ? integrity.total_events : Math.max(0, (integrity.broken_at_seq ?? 1) - 1);
  if (!integrity.ok) {
    ctx.io.stderr(`zaxy: warning: the chain is broken at seq ${integrity.broken_at_seq} (${integrity.broken_reason}): events from seq ${verifiedThroughSeq + 1} on are unverified\n`);
  }
  // Events past an interrupted append are not part of the log.
  const committed = integrity.interrupted_append?.state === "partial" ? integrity.total_events : undefined;
  const toSeq = committed === undefined ? window.toSeq : Math.min(window.toSeq ?? committed, committed);
  const writer = new NdjsonWriter(ctx.io);
  if (toSeq === undefined || toSeq >= (window.fromSeq ?? 1)) {
    for (const event of windowEvents(log, { fromSeq: window.fromSeq, toSeq })) await writer.write({ ...eventView(event), verified: event.seq <= verifiedThroughSeq });
  }
  await writer.flush();
  return integrity.ok ? 0 : 1;
}

export async function runReplay(ctx: CommandContext): Promise<number> {
  const fromSeq = intOption(ctx, "from-seq", 1);
  const toSeq = intOption(ctx, "to-seq", 1);
  const log = ctx.positionals[0] ?? sessionLogPath(ctx.global.eventloomPath, ctx.global.sessionId, "replay");
  if (booleanOption(ctx, "ndjson")) return await replayNdjson(ctx, log, { fromSeq, toSeq });
  const result = await replayLog(log, { fromSeq, toSeq });
  const { integrity } = result;
  // Events before the first failure are sealed and linked; from it on nothing can be trusted.
  const verifiedThroughSeq = integrity.ok ? integrity.total_events : Math.max(0, (integrity.broken_at_seq ?? 1) - 1);
  const verified = result.events.filter((e) => e.seq <= verifiedThroughSeq);
  const events = result.events.map((e) => ({ ...eventView(e), verified: e.seq <= verifiedThroughSeq }));
  const unverifiedCount = events.length - verified.length;
  const handoff = integrity.ok ? result.handoff : handoffSummary(verified);
  const warnings = integrity.ok
    ? []
    : [`the chain is broken at seq ${integrity.broken_at_seq} (${integrity.broken_reason}): events from seq ${verifiedThroughSeq + 1} on are unverified (${unverifiedCount} in this window); the handoff covers verified events only`];
  for (const warning of warnings) ctx.io.stderr(`zaxy: warning: ${warning}\n`);
  const doc = { integrity, verified_through_seq: verifiedThroughSeq, total_events: result.total_events, events, handoff, warnings };
  emit(ctx, "zaxy.replay.v1", doc, () => {
    const lines = [
      integrity.ok
        ? `integrity: OK (${integrity.total_events} events)`
        : `integrity: BROKEN at seq ${integrity.broken_at_seq}: ${integrity.broken_reason}`,
    ];
    lines.push(...eventTableLines(events, ctx.io));
    lines.push(
      `handoff${integrity.ok ? "" : ` (verified events through seq ${verifiedThroughSeq})`}: ${handoff.event_count} events; goals: ${handoff.goals.length > 0 ? handoff.goals.join("; ") : "none"}; open tasks: ${handoff.open_tasks.length}; last: ${handoff.last_actor ?? "-"} at ${handoff.last_timestamp ?? "-"}`,
    );
    return lines.join("\n");
  });
  return integrity.ok ? 0 : 1;
}
