/**
 * `zaxy graph sync [--all]`: bring the Kuzu graph store (`<root>/projections/embedded.kuzu`) up to
 * the sessions' log heads. No read answers from the store (retrieval reads the row cache, the
 * read model and the vector index), so reads leave it behind; this is the command that brings it
 * up to date, incrementally from the store's own head, or by a rebuild of the session when that
 * head is not an event of the verified log or its rows do not add up to it. `zaxy memory status
 * --graph` reports how far behind it is without changing it.
 */
import * as path from "node:path";
import { sessionIdOfPath, sessionLogsUnderRoot } from "../../eventloom/session.ts";
import { ExitCode, isZaxyError } from "../../errors.ts";
import { booleanOption, defineCommand, defineGroup } from "../command.ts";
import { emit } from "../output.ts";
import { commandProgress, phaseCallback } from "../progress.ts";

interface SyncReport {
  session_id: string;
  ok: boolean;
  /** `store` (already at the head), `caught_up` or `rebuilt`. */
  source?: string;
  events_applied?: number;
  head_seq?: number;
  entity_versions?: number;
  relations?: number;
  seconds?: number;
  error?: { code: string; message: string };
}

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
    const root = ctx.global.eventloomPath;
    const { assertSessionLogExists, projectSession } = await import("../../projection/projector.ts");
    const all = booleanOption(ctx, "all");
    if (!all) assertSessionLogExists(root, ctx.global.sessionId);
    const sessions = all ? sessionLogsUnderRoot(root).map(sessionIdOfPath) : [ctx.global.sessionId];
    const warn = (m: string) => ctx.io.stderr(`zaxy: warning: ${m}\n`);
    const reports: SyncReport[] = [];
    for (const sessionId of sessions) {
      const started = performance.now();
      const display = commandProgress(ctx, `graph sync ${sessionId}`);
      display.phase("reading the log and the store");
      try {
        const onProgress = phaseCallback(display, { write: "graph store" }, { write: "rows" });
        const projected = await projectSession(root, sessionId, { graphStore: "sync", onStoreFailure: "throw", warn, onProgress }).finally(() => display.done());
        const rows = projected.rows!;
        reports.push({
          session_id: sessionId,
          ok: true,
          source: projected.source,
          events_applied: projected.eventsApplied,
          head_seq: rows.head?.seq ?? 0,
          entity_versions: rows.entities.length,
          relations: rows.relations.length,
          seconds: Math.round(performance.now() - started) / 1000,
        });
      } catch (error) {
        if (!isZaxyError(error) || error.exitCode === ExitCode.ioError) throw error;
        reports.push({ session_id: sessionId, ok: false, error: { code: error.code, message: error.message } });
      }
    }
    const ok = reports.every((r) => r.ok);
    emit(ctx, "zaxy.graph.sync.v1", { ok, root: path.resolve(root), sessions: reports }, () =>
      reports.length === 0
        ? "No sessions to sync."
        : reports
          .map((r) =>
            !r.ok
              ? `${r.session_id}: NOT synced: ${r.error?.message}`
              : r.source === "store"
              ? `${r.session_id}: graph store already at seq ${r.head_seq}`
              : `${r.session_id}: graph store ${r.source === "rebuilt" ? "rebuilt" : "caught up"} to seq ${r.head_seq} (${r.events_applied} events, ${r.seconds} s)`
          )
          .join("\n"),
    );
    return ok ? 0 : 1;
  },
});

export const graphGroup = defineGroup({
  name: "graph",
  summary: "The Kuzu graph store: bring it up to the log head",
  children: [graphSyncCommand],
});
