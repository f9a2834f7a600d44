/** What every `zaxy store` command shares: the store it names, opened for the command. */
import { inputError } from "../../../errors.ts";
import type { StoreClient } from "../../../store/storeClient.ts";
import { resolveStoreUrl, type StoreUrl } from "../../../store/storeUrl.ts";
import { type CommandContext, stringOption } from "../../command.ts";

/** The store URL the command names; none is bad input (exit 2). */
export function requiredStoreUrl(ctx: CommandContext): StoreUrl {
  const url = resolveStoreUrl(stringOption(ctx, "store"), ctx.io.env, ctx.global.localRoot, (message) => ctx.io.stderr(`zaxy: warning: ${message}\n`));
  if (url === undefined) {
    throw inputError("no_store", `${ctx.commandPath} needs a store: pass --store postgres://..., set ZAXY_STORE, or set "store" in config.json`, {
      field: "--store",
      expected: "a postgres:// or postgresql:// URL",
    });
  }
  return url;
}

/** Opens the store's client, runs `work`, and closes the client whatever happens. */
export async function withStoreClient<T>(ctx: CommandContext, work: (client: StoreClient) => Promise<T>, options: { schema?: boolean } = {}): Promise<T> {
  const url = requiredStoreUrl(ctx);
  const { openStoreClient } = await import("../../../store/storeClient.ts");
  const client = openStoreClient(url, ctx.io.env, (message) => ctx.io.stderr(`zaxy: warning: ${message}\n`));
  try {
    if (options.schema !== false) {
      const { requireStoreSchema } = await import("../../../store/schema.ts");
      await requireStoreSchema(client);
    }
    return await work(client);
  } finally {
    await client.close();
  }
}
