/**
 * `zaxy memory log [--limit N]`: the latest events of the session, newest last, after verifying
 * the whole chain. A log that does not verify shows nothing (exit 1, `integrity_failure`, like
 * checkout): a forged event must never be printed as what happened. Verification streams the
 * log in bounded memory; only the shown window is parsed into events.
 */
import * as fs from "node:fs";
import { displayJson } from "../../../canonical/mod.ts";
import { eventView, type IntegrityReport, readEvents, sessionLogPath, verifyLog } from "../../../eventloom/mod.ts";
import { checkLogNotDirectory } from "../../../eventloom/root.ts";
import { checkError } from "../../../errors.ts";
import { intOption } from "../../args.ts";
import { defineCommand } from "../../command.ts";
import { emit } from "../../output.ts";

/** The report of a session that has no log yet: nothing to verify, nothing broken. */
function emptyIntegrity(): IntegrityReport {
  return { ok: true, total_events: 0, broken_at_seq: null, broken_reason: null, code: null, line: null, torn_tail: false, errors: [], bytes: 0 };
}

export const memoryLogCommand = defineCommand({
  name: "log",
  summary: "Show the latest events of the session (after verifying its chain)",
  description:
    "Verifies the session's log, then prints its last --limit events, newest last, under an\n" +
    "`integrity: OK (N events)` line. A broken chain prints no events and exits 1\n" +
    "(integrity_failure; `zaxy verify` names the broken event, `zaxy replay` shows it marked).\n" +
    "--json prints {session_id, integrity{ok, total_events, ...}, total_events, events[...]}.",
  options: {
    limit: { type: "string", valueName: "N", description: "How many events (1..1000, default 20)" },
  },
  positionals: [],
  examples: ["zaxy memory log --limit 5", "zaxy memory log --session-id agent-1 --json"],
  async run(ctx) {
    const limit = intOption(ctx, "limit", 1, 1000) ?? 20;
    const sessionId = ctx.global.sessionId;
    const file = sessionLogPath(ctx.global.eventloomPath, sessionId, "read");
    checkLogNotDirectory(file, sessionId);
    const integrity = fs.existsSync(file) ? await verifyLog(file) : emptyIntegrity();
    if (!integrity.ok) {
      throw checkError(
        "integrity_failure",
        `Cannot show the log of session ${JSON.stringify(sessionId)}: it fails verification at seq ${integrity.broken_at_seq} (${integrity.broken_reason}); no events shown`,
        { line: integrity.line ?? undefined, hint: `run \`zaxy verify ${file}\` for the full report, \`zaxy replay ${file}\` to inspect the events` },
      );
    }
    // Only what verification covered: an append landing after it waits for the next read.
    const total = integrity.total_events;
    const { events } = total > 0 ? readEvents(file, { fromSeq: Math.max(1, total - limit + 1), toSeq: total }) : { events: [] };
    const shown = events.map(eventView);
    emit(ctx, "zaxy.memory.log.v1", { session_id: sessionId, integrity, total_events: total, events: shown }, () =>
      shown.length === 0
        ? `Session ${JSON.stringify(sessionId)} has no events.`
        : [`integrity: OK (${total} events)`, ...shown.map((e) => `${String(e.seq).padStart(6)}  ${e.timestamp}  ${e.type}  ${e.actor}  ${displayJson(e.payload)}`)].join("\n"),
    );
    return 0;
  },
});
