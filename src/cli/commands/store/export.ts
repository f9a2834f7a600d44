/** `zaxy store export --session-id S [--output FILE]`: the session's log, byte-identical, verified. */
import { defineCommand, stringOption } from "../../command.ts";
import { emit } from "../../output.ts";
import { commandProgress } from "../../progress.ts";
import { withStoreClient } from "./storeArgs.ts";

export const storeExportCommand = defineCommand({
  name: "export",
  store: "self",
  summary: "Export a session from the store as a JSONL log file (verified, byte-identical)",
  description:
    "Writes the session's lines in seq order, each with its newline: byte for byte the log the\n" +
    "file store would hold (ref_verify.py verifies it). The rows are verified first; a broken\n" +
    "chain is refused (exit 1, nothing written). --output FILE is written atomically (a\n" +
    "temporary file renamed into place); without it the log goes to stdout. With --output,\n" +
    "--json prints {store, session_id, output, events, bytes}.",
  options: {
    output: { type: "string", valueName: "FILE", description: "Write the log here (default: stdout)" },
  },
  positionals: [],
  examples: ["zaxy store export --session-id agent-1 --output agent-1.jsonl", "zaxy store export --session-id agent-1 | python3 ref_verify.py /dev/stdin"],
  async run(ctx) {
    const output = stringOption(ctx, "output");
    const sessionId = ctx.global.sessionId;
    const doc = await withStoreClient(ctx, async (client) => {
      const { exportThread, mirrorLogOf } = await import("../../../store/transfer.ts");
      // The rows are verified JSON lines, so valid UTF-8: decoding them (across chunk edges) and
      // writing the text back gives the same bytes.
      const decoder = new TextDecoder("utf-8", { fatal: true });
      const target = output !== undefined ? { output } : { write: async (chunk: Uint8Array) => ctx.io.stdout(decoder.decode(chunk, { stream: true })) };
      const progress = commandProgress(ctx, `store export ${sessionId}`);
      try {
        // A root that read the session before exports only rows that still begin with what it verified.
        const result = await exportThread(client, sessionId, target, ctx.global.localRoot, progress, mirrorLogOf(ctx.global.localRoot, client.url, sessionId));
        return { store: client.url.redacted, session_id: sessionId, output: output ?? null, events: result.events, bytes: result.bytes };
      } finally {
        progress.done();
      }
      // The export checks the schema itself, in its first statement.
    }, { schema: false });
    if (output !== undefined) emit(ctx, "zaxy.store.export.v1", doc, () => `Exported session ${sessionId}: ${doc.events} events, ${doc.bytes} bytes -> ${output}`);
    return 0;
  },
});
