/** `zaxy repair [LOG] --truncate-torn-tail`: the explicit fix for a crash mid-write. */
import { defineCommand } from "../command.ts";

export const repairCommand = defineCommand({
  name: "repair",
  store: "files-only",
  summary: "Remove a torn last line left by a crash mid-write (explicit, with a backup)",
  description:
    "With --truncate-torn-tail, removes the bytes after the last newline of LOG (default: the\n" +
    "current session's log) when they are not a complete JSON line, after saving them to\n" +
    "LOG.torn-tail-<ms>.bak. First, an append a crash interrupted (LOG.intent present) is\n" +
    "finished: a partial batch is rolled back whole to the log's length before it (its bytes\n" +
    "saved to LOG.interrupted-append-<ms>.bak), a complete one is kept. A backup is written in\n" +
    "full and fsynced before anything is removed; if it cannot be (a full disk), nothing changes.\n" +
    "Nothing else in the log is ever changed.",
  options: {
    "truncate-torn-tail": { type: "boolean", description: "Remove a torn last line (required: repair does nothing else)" },
  },
  positionals: [{ name: "LOG", description: "Log file (default: the session's log)" }],
  examples: ["zaxy repair --truncate-torn-tail", "zaxy repair .eventloom/agent-1.jsonl --truncate-torn-tail --json"],
  async run(ctx) {
    const { runRepair } = await import("./repairRun.ts");
    return await runRepair(ctx);
  },
});
