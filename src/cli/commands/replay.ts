/** `zaxy replay LOG [--from-seq N] [--to-seq N]`: integrity, the events of a window, a handoff. */
import { displayJson } from "../../canonical/mod.ts";
import { eventView, replayLog } from "../../eventloom/mod.ts";
import { intOption } from "../args.ts";
import { defineCommand } from "../command.ts";
import { emit } from "../output.ts";

export const replayCommand = defineCommand({
  name: "replay",
  summary: "Replay a log: integrity report, events of a window, handoff summary",
  description:
    "Verifies LOG, then prints the events with from-seq <= seq <= to-seq and a handoff summary\n" +
    "(goals, open tasks, last actor). Exit 1 when the chain is broken (events are still shown).",
  options: {
    "from-seq": { type: "string", valueName: "N", description: "First seq of the window (default 1)" },
    "to-seq": { type: "string", valueName: "N", description: "Last seq of the window (default: the end)" },
  },
  positionals: [{ name: "LOG", description: "Log file to replay", required: true }],
  examples: ["zaxy replay .eventloom/default.jsonl --from-seq 10 --json"],
  async run(ctx) {
    const fromSeq = intOption(ctx, "from-seq", 1);
    const toSeq = intOption(ctx, "to-seq", 1);
    const result = await replayLog(ctx.positionals[0], { fromSeq, toSeq });
    const events = result.events.map(eventView);
    const doc = { integrity: result.integrity, total_events: result.total_events, events, handoff: result.handoff };
    emit(ctx, "zaxy.replay.v1", doc, () => {
      const lines = [
        result.integrity.ok
          ? `integrity: OK (${result.integrity.total_events} events)`
          : `integrity: BROKEN at seq ${result.integrity.broken_at_seq}: ${result.integrity.broken_reason}`,
      ];
      for (const e of events) lines.push(`${String(e.seq).padStart(6)}  ${e.timestamp}  ${e.type}  ${e.actor}  ${displayJson(e.payload)}`);
      const h = result.handoff;
      lines.push(
        `handoff: ${h.event_count} events; goals: ${h.goals.length > 0 ? h.goals.join("; ") : "none"}; open tasks: ${h.open_tasks.length}; last: ${h.last_actor ?? "-"} at ${h.last_timestamp ?? "-"}`,
      );
      return lines.join("\n");
    });
    return result.integrity.ok ? 0 : 1;
  },
});
