/**
 * `zaxy memory log [--limit N] [--after-seq N] [--ndjson]`: the session's events after verifying
 * the whole chain: the latest --limit, newest last, or with --after-seq the next --limit after a
 * seq (a cursor: `next_after_seq` is where the next page starts). A log that does not verify
 * shows nothing (exit 1, `integrity_failure`, like checkout): a forged event must never be
 * printed as what happened. An unknown session is exit 2 (`unknown_session`), as for every read.
 * Verification streams the log in bounded memory; only the shown window is parsed into events,
 * and --ndjson streams them one per line.
 */
import { defineCommand } from "../../command.ts";

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
    const { runMemoryLog } = await import("./logRun.ts");
    return await runMemoryLog(ctx);
  },
});
