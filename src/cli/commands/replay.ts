/**
 * `zaxy replay LOG [--from-seq N] [--to-seq N]`: integrity, the events of a window, a handoff.
 * Replay is the forensic view, so a broken chain still shows the window, but every event from
 * the broken one on is marked unverified (text `UNVERIFIED`, JSON `verified: false`), a warning
 * says so, the handoff summarises verified events only, and the exit code is 1.
 */
import { defineCommand } from "../command.ts";

export const replayCommand = defineCommand({
  name: "replay",
  summary: "Replay a log: integrity report, events of a window, handoff summary",
  description:
    "Verifies LOG (default: the session's log, from the store with --store), then prints the events with from-seq <= seq <= to-seq and a handoff summary\n" +
    "(goals, open tasks, last actor). Exit 1 when the chain is broken: the events are still shown\n" +
    "for inspection, those from the broken seq on marked UNVERIFIED (--json: verified false,\n" +
    "verified_through_seq), and the handoff covers verified events only.",
  options: {
    "from-seq": { type: "string", valueName: "N", description: "First seq of the window (default 1)" },
    "to-seq": { type: "string", valueName: "N", description: "Last seq of the window (default: the end)" },
    ndjson: { type: "boolean", description: "One event per line (JSON), streamed in constant memory; no handoff" },
  },
  positionals: [{ name: "LOG", description: "Log file to replay (default: the session's log)" }],
  examples: ["zaxy replay .eventloom/default.jsonl --from-seq 10 --json", "zaxy replay --session-id agent-1 --ndjson | jq -c 'select(.type == \"decision.made\")'"],
  async run(ctx) {
    const { runReplay } = await import("./replayRun.ts");
    return await runReplay(ctx);
  },
});
