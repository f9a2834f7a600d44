/**
 * `zaxy reproject [--all] [--reset-projection] [--graph-store]`: rebuild sessions' projections
 * from their logs: the folded rows, their vector indexes and read models, and with
 * `--graph-store` the Kuzu graph store by bulk loading (after the others: its memory is never
 * given back). The log is verified first; a log that fails
 * verification is not projected (exit 1). Progress goes to stderr when it is a terminal.
 */
import { defineCommand } from "../command.ts";

export const reprojectCommand = defineCommand({
  name: "reproject",
  writesRoot: true,
  summary: "Rebuild the graph projection and vector index from the log",
  description:
    "Rebuilds the session's projection from scratch (--all: every session under the root):\n" +
    "verify, extract, fold with temporal validity, then build the session's read model and vector\n" +
    "index (postings of the hash embeddings) from the folded rows. --graph-store also bulk-loads the rows into the\n" +
    "Kuzu graph store (<root>/projections/embedded.kuzu), which no read answers from and which\n" +
    "is otherwise brought up to date only by `zaxy graph sync`.\n" +
    "--reset-projection deletes everything under <root>/projections first (a corrupt or\n" +
    "outdated store). Exit 1 when a log fails verification (it is not projected).",
  options: {
    all: { type: "boolean", description: "Every session (*.jsonl) under the Eventloom root (overrides --session-id)" },
    "graph-store": { type: "boolean", description: "Also rebuild the session in the Kuzu graph store (bulk load)" },
    "reset-projection": { type: "boolean", description: "Delete <root>/projections before rebuilding" },
  },
  positionals: [],
  examples: ["zaxy reproject", "zaxy reproject --all --reset-projection --json", "zaxy reproject --graph-store"],
  async run(ctx) {
    const { runReproject } = await import("./reprojectRun.ts");
    return await runReproject(ctx);
  },
});
