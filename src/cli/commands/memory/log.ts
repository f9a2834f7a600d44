/** `zaxy memory log [--limit N]`: the latest events of the session, newest last. */
import * as fs from "node:fs";
import { displayJson } from "../../../canonical/mod.ts";
import { countLogEvents, eventView, readEvents, sessionLogPath } from "../../../eventloom/mod.ts";
import { intOption } from "../../args.ts";
import { defineCommand } from "../../command.ts";
import { emit } from "../../output.ts";

export const memoryLogCommand = defineCommand({
  name: "log",
  summary: "Show the latest events of the session",
  options: {
    limit: { type: "string", valueName: "N", description: "How many events (1..1000, default 20)" },
  },
  positionals: [],
  examples: ["zaxy memory log --limit 5", "zaxy memory log --session-id agent-1 --json"],
  async run(ctx) {
    const limit = intOption(ctx, "limit", 1, 1000) ?? 20;
    const file = sessionLogPath(ctx.global.eventloomPath, ctx.global.sessionId, "read");
    // Count first (no parsing), then parse only the window.
    const total = fs.existsSync(file) ? countLogEvents(file) : 0;
    const { events } = total > 0 ? readEvents(file, { fromSeq: Math.max(1, total - limit + 1) }) : { events: [] };
    const shown = events.slice(-limit).map(eventView);
    emit(ctx, "zaxy.memory.log.v1", { session_id: ctx.global.sessionId, total_events: total, events: shown }, () =>
      shown.length === 0
        ? `Session "${ctx.global.sessionId}" has no events.`
        : shown.map((e) => `${String(e.seq).padStart(6)}  ${e.timestamp}  ${e.type}  ${e.actor}  ${displayJson(e.payload)}`).join("\n"),
    );
    return 0;
  },
});
