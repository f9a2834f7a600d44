/**
 * `zaxy graph sync [--all]`: bring the Kuzu graph store (`<root>/projections/embedded.kuzu`) up to
 * the sessions' log heads. No read answers from the store (retrieval reads the read model and
 * the vector index), so reads leave it behind; this is the command that brings it
 * up to date, incrementally from the store's own head, or by a rebuild of the session when that
 * head is not an event of the verified log or its rows do not add up to it. `zaxy memory status
 * --graph` reports how far behind it is without changing it.
 */
import { defineCommand, defineGroup } from "../command.ts";

export const graphSyncCommand = defineCommand({
  name: "sync",
  writesRoot: true,
  summary: "Bring the Kuzu graph store up to the log head (reads leave it behind)",
  description:
    "Brings the session's rows in the Kuzu graph store (<root>/projections/embedded.kuzu) up to\n" +
    "its verified log (--all: every session under the root): the events after the store's head\n" +
    "are folded and bulk-loaded; a session whose stored head is not an event of the log, or\n" +
    "whose rows do not add up to it, is rebuilt (with a warning). No read answers from the\n" +
    "store, so reads and zaxy reproject (without --graph-store) leave it behind. Exit 1 when a\n" +
    "log fails verification (it is not projected).",
  options: {
    all: { type: "boolean", description: "Every session (*.jsonl) under the Eventloom root (overrides --session-id)" },
  },
  positionals: [],
  examples: ["zaxy graph sync", "zaxy graph sync --all --json"],
  async run(ctx) {
    const { runGraphSync } = await import("./graphRun.ts");
    return await runGraphSync(ctx);
  },
});

export const graphGroup = defineGroup({
  name: "graph",
  summary: "The Kuzu graph store: bring it up to the log head",
  children: [graphSyncCommand],
});
