/** What verify.ts's command does: imported when the command runs, so start-up loads only the command tree. */
import * as path from "node:path";
// The modules themselves, not the eventloom barrel, which would load every eventloom module.
import { sessionLogPath, sessionLogsUnderRoot } from "../../eventloom/root.ts";
import { type IntegrityReport, verifyLog } from "../../eventloom/verify.ts";
import { inputError } from "../../errors.ts";
import { resolveStoreUrl } from "../../store/storeUrl.ts";
import { booleanOption, type CommandContext, stringOption } from "../command.ts";
import { withStoreClient } from "./store/storeArgs.ts";
import { emit } from "../output.ts";
import { paint } from "../textTable.ts";
import { commandProgress } from "../progress.ts";

function selectLogs(ctx: CommandContext): string[] {
  if (booleanOption(ctx, "all")) {
    if (ctx.positionals.length > 0) throw inputError("usage", "zaxy verify: give LOG paths or --all, not both", { field: "--all" });
    return sessionLogsUnderRoot(ctx.global.eventloomPath);
  }
  if (ctx.positionals.length > 0) return ctx.positionals;
  // Shown as the user would write it: relative to the working directory, like --all paths.
  const file = sessionLogPath(ctx.global.eventloomPath, ctx.global.sessionId, "verify");
  return [path.relative(ctx.io.cwd, file) || file];
}

/**
 * With a store and no LOG: verifies the store's own rows (every hash recomputed from `line`,
 * seqs without gaps, head rows agreeing), the session's or, with --all, every thread's.
 * Reported as `store:<thread>`.
 */
async function verifyFromStore(ctx: CommandContext, allErrors: boolean): Promise<number> {
  const results = await withStoreClient(ctx, async (client) => {
    const { mirrorLogOf, readHeads, verifyStoreThread } = await import("../../store/transfer.ts");
    const threads = booleanOption(ctx, "all") ? (await readHeads(client)).map((head) => head.thread) : [ctx.global.sessionId];
    const out: Array<{ path: string; store: string; session_id: string } & IntegrityReport> = [];
    for (const thread of threads) {
      const progress = commandProgress(ctx, `verify store:${thread}`);
      let report;
      try {
        // A root that read the thread before holds the rows it verified: the store must still have them.
        const anchor = mirrorLogOf(ctx.global.localRoot, client.url, thread);
        ({ report } = await verifyStoreThread(client, thread, { allErrors, progress, env: ctx.io.env, anchor }));
      } finally {
        progress.done();
      }
      out.push({ path: `store:${thread}`, store: client.url.redacted, session_id: thread, ...report });
    }
    return out;
    // One thread's verify checks the schema in its first statement; --all reads the heads first.
  }, { schema: booleanOption(ctx, "all") });
  const ok = results.every((r) => r.ok);
  emit(ctx, "zaxy.verify.v1", { ok, logs: results }, () =>
    results.length === 0 ? "No threads in the store." : results.map((r) => renderReport(r.path, r, paint(ctx.io))).join("\n"),
  );
  return ok ? 0 : 1;
}

function renderReport(file: string, report: IntegrityReport, colour: ReturnType<typeof paint>): string {
  if (report.ok) return `${colour("green", "OK")}      ${file}  ${report.total_events} events`;
  const lines = [`${colour("red", "BROKEN")}  ${file}  ${report.broken_reason} (seq ${report.broken_at_seq}, line ${report.line})`];
  for (const issue of report.errors.slice(1)) lines.push(`        ${issue.reason} (seq ${issue.seq}, line ${issue.line})`);
  if (report.torn_tail) lines.push("        hint: the last line was cut mid-write; run 'zaxy repair --truncate-torn-tail' on this log");
  return lines.join("\n");
}

export async function runVerify(ctx: CommandContext): Promise<number> {
  const allErrors = booleanOption(ctx, "all-errors");
  const store = ctx.positionals.length === 0 ? resolveStoreUrl(stringOption(ctx, "store"), ctx.io.env, ctx.global.localRoot) : undefined;
  if (store !== undefined) return await verifyFromStore(ctx, allErrors);
  const files = selectLogs(ctx);
  const results: Array<{ path: string } & IntegrityReport> = [];
  for (const file of files) {
    const progress = commandProgress(ctx, `verify ${path.basename(file)}`);
    progress.phase("hash chain", undefined, "bytes");
    let report;
    try {
      report = await verifyLog(file, { allErrors, onProgress: (done, total) => progress.update(done, total) });
    } finally {
      progress.done();
    }
    const interrupted = report.interrupted_append;
    if (interrupted !== undefined) {
      const effect = interrupted.state === "partial"
        ? "its bytes are not committed and were not verified; the next append or 'zaxy repair --truncate-torn-tail' rolls them back"
        : interrupted.state === "conflict"
        ? "appends to this log are refused until it is resolved; run 'zaxy repair --truncate-torn-tail' for the choices"
        : "the next append or 'zaxy repair --truncate-torn-tail' removes the leftover intent";
      ctx.io.stderr(`zaxy: warning: ${file}: ${interrupted.message}; ${effect}\n`);
    }
    results.push({ path: file, ...report });
  }
  const ok = results.every((r) => r.ok);
  emit(ctx, "zaxy.verify.v1", { ok, logs: results }, () =>
    results.length === 0 ? "No logs found." : results.map((r) => renderReport(r.path, r, paint(ctx.io))).join("\n"),
  );
  return ok ? 0 : 1;
}
