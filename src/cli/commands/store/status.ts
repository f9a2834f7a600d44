/** `zaxy store status --store URL`: schema version, threads, events and heads. */
import { defineCommand } from "../../command.ts";
import { emit } from "../../output.ts";
import { withStoreClient } from "./storeArgs.ts";

export const storeStatusCommand = defineCommand({
  name: "status",
  store: "self",
  summary: "Show the store's schema version, threads, events and heads",
  description:
    "Lists every thread (session or fleet thread) in the store with its event count, head hash\n" +
    "and last append time, read from the head rows (`zaxy verify --store URL --all` checks the\n" +
    "rows themselves). --json prints {store, schema_version, thread_count, event_count,\n" +
    "threads[{thread, events, head_hash, updated_at}]}.",
  options: {},
  positionals: [],
  examples: ["zaxy store status --store postgres://zaxy@db.internal/zaxy --json"],
  async run(ctx) {
    const doc = await withStoreClient(ctx, async (client) => {
      const { readHeads } = await import("../../../store/transfer.ts");
      const { readSchemaVersion } = await import("../../../store/schema.ts");
      const heads = await readHeads(client);
      return {
        store: client.url.redacted,
        schema_version: await readSchemaVersion(client),
        thread_count: heads.length,
        event_count: heads.reduce((sum, head) => sum + head.seq, 0),
        threads: heads.map((head) => ({ thread: head.thread, events: head.seq, head_hash: head.hash, updated_at: head.updated_at })),
      };
    });
    emit(ctx, "zaxy.store.status.v1", doc, () => {
      const lines = [`store ${doc.store}: schema version ${doc.schema_version}, ${doc.thread_count} threads, ${doc.event_count} events`];
      const width = Math.max(6, ...doc.threads.map((t) => t.thread.length));
      for (const t of doc.threads) lines.push(`  ${t.thread.padEnd(width)}  ${String(t.events).padStart(9)} events  ${t.head_hash ?? "-"}  ${t.updated_at}`);
      return lines.join("\n");
    });
    return 0;
  },
});
