/** `zaxy store init --store URL`: create or migrate the store's schema, idempotently. */
import { defineCommand } from "../../command.ts";
import { emit } from "../../output.ts";
import { withStoreClient } from "./storeArgs.ts";

export const storeInitCommand = defineCommand({
  name: "init",
  store: "self",
  summary: "Create or migrate the store's schema (idempotent)",
  description:
    "Creates the tables zaxy keeps in the store (eventloom_events, eventloom_heads,\n" +
    "eventloom_requests, zaxy_store_meta) or migrates them to this zaxy's schema version; running it again changes\n" +
    "nothing. Needs a role that may create tables ('zaxy help --topic store'). --json prints\n" +
    "{store, schema_version, schema_version_before, created}.",
  options: {},
  positionals: [],
  examples: ["zaxy store init --store postgres://zaxy@db.internal/zaxy --json"],
  async run(ctx) {
    const doc = await withStoreClient(ctx, async (client) => {
      const { initStoreSchema } = await import("../../../store/schema.ts");
      const { before, after } = await initStoreSchema(client);
      return { store: client.url.redacted, schema_version: after, schema_version_before: before ?? null, created: before === undefined };
    }, { schema: false });
    emit(ctx, "zaxy.store.init.v1", doc, () =>
      doc.created
        ? `Created the zaxy schema (version ${doc.schema_version}) in ${doc.store}`
        : doc.schema_version_before !== doc.schema_version
        ? `Migrated the zaxy schema in ${doc.store} from version ${doc.schema_version_before} to ${doc.schema_version}`
        : `The store ${doc.store} has schema version ${doc.schema_version} (unchanged)`);
    return 0;
  },
});
