/** What graph.ts's command does: imported when the command runs, so start-up loads only the command tree. */
import type { CommandContext } from "../command.ts";
import * as path from "node:path";
import { sessionIdOfPath, sessionLogsUnderRoot } from "../../eventloom/root.ts";
import { ExitCode, isZaxyError } from "../../errors.ts";
import { booleanOption } from "../command.ts";
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


export async function runGraphSync(ctx: CommandContext): Promise<number> {
  const root = ctx.global.eventloomPath;
  const { assertSessionLogExists, projectSession } = await import("../../projection/projector.ts");
  const { readModelBaseRows } = await import("../../readmodel/readModelRows.ts");
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
      const projected = await projectSession(root, sessionId, { graphStore: "sync", onStoreFailure: "throw", warn, onProgress, baseRows: readModelBaseRows }).finally(() => display.done());
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
}
