/**
 * `zaxy memory status [--graph]`: the session's log and how far its projection has come, without
 * changing anything (no catch-up). `--graph` also opens the Kuzu store for its counts (loads Kuzu);
 * no read brings that store up to date (`zaxy graph sync` does), so it says how far behind it is.
 */
import { defineCommand } from "../../command.ts";

export const memoryStatusCommand = defineCommand({
  name: "status",
  summary: "Log integrity and projection state of the session (read-only)",
  description:
    "Verifies the session's log and reports the read model's and the projection's heads, how\n" +
    "many events each is behind, the entity and relation counts (from the read model) and the\n" +
    "vector index. A read folds up to 1000 events past the read model in memory; a read past\n" +
    "that (or zaxy reproject) catches the projection up and rewrites the read model; status\n" +
    "never does. --graph also reports the Kuzu graph store's head, counts and how far behind\n" +
    "the log it is (no read answers from it or updates it; zaxy graph sync does).\n" +
    "invalid_derived_events lists sealed causal.edge.generated events their producer would\n" +
    "never write (appended by Python or an older zaxy); they are not projected.\n" +
    "unauthorised_governance_events lists governance records no governance command would have\n" +
    "written: on a fleet thread, fleet events whose actor lacked the authority; in a session, a\n" +
    "rollback, forget or rule without the gate decision its command appends with it, or a\n" +
    "fleet event outside a fleet thread.",
  options: { graph: { type: "boolean", description: "Open the Kuzu store and report its counts and head" } },
  positionals: [],
  examples: ["zaxy memory status", "zaxy memory status --graph --json"],
  async run(ctx) {
    const { runMemoryStatus } = await import("./statusRun.ts");
    return await runMemoryStatus(ctx);
  },
});
