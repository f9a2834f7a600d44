/** `zaxy store import FILE... [--session-id S]`: verified, byte-exact copies of log files into the store. */
import * as path from "node:path";
import { inputError } from "../../../errors.ts";
import { defineCommand } from "../../command.ts";
import { emit } from "../../output.ts";
import { commandProgress } from "../../progress.ts";
import { withStoreClient } from "./storeArgs.ts";

export const storeImportCommand = defineCommand({
  name: "import",
  store: "self",
  summary: "Import log files into the store (verified first, byte-exact)",
  description:
    "Verifies each FILE and refuses a broken chain (exit 1, nothing written), then copies its\n" +
    "lines byte for byte into the store as one session, in one transaction under the thread's\n" +
    "lock. The session id is --session-id (one FILE only) or the file name without .jsonl. A\n" +
    "session the store already has must hold exactly the file's first events: then only the\n" +
    "rest is added (re-importing the same file changes nothing); otherwise it is refused (exit 2).\n" +
    "--json prints {store, imports[{session_id, file, events, bytes, already_present, imported}]}.",
  options: {},
  positionals: [{ name: "FILE", description: "Eventloom JSONL log file(s)", required: true, variadic: true }],
  examples: ["zaxy store import .eventloom/*.jsonl --store postgres://zaxy@db.internal/zaxy", "zaxy store import agent.jsonl --session-id agent-1"],
  async run(ctx) {
    if (ctx.global.sessionIdExplicit && ctx.positionals.length > 1) {
      throw inputError("usage", `${ctx.commandPath}: --session-id names the session of one FILE; got ${ctx.positionals.length} files (each is imported as its file name without .jsonl)`, { field: "--session-id" });
    }
    const doc = await withStoreClient(ctx, async (client) => {
      const { importLogFile } = await import("../../../store/transfer.ts");
      const imports = [];
      for (const file of ctx.positionals) {
        const sessionId = ctx.global.sessionIdExplicit ? ctx.global.sessionId : path.basename(file).replace(/\.jsonl$/, "");
        const progress = commandProgress(ctx, `store import ${path.basename(file)}`);
        let result;
        try {
          result = await importLogFile(client, file, sessionId, progress);
        } finally {
          progress.done();
        }
        for (const warning of result.warnings) ctx.io.stderr(`zaxy: warning: ${warning}\n`);
        imports.push(result);
      }
      return { store: client.url.redacted, imports };
    });
    emit(ctx, "zaxy.store.import.v1", doc, () =>
      doc.imports.map((i) => `${i.file} -> session ${i.session_id}: ${i.imported} events imported${i.already_present > 0 ? `, ${i.already_present} already there` : ""} (${i.events} in all)`).join("\n"));
    return 0;
  },
});
