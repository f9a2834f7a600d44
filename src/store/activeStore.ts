/**
 * A store opened for one command or one `zaxy serve` (docs/store.md): the client, the local
 * mirror root `<root>/stores/<id>/` the Eventloom code reads and appends through, and the sync
 * that brings the mirror up to the store before each command (and each MCP call).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { inputError, ioError } from "../errors.ts";
import { fileSystemReason, redirectConfig } from "../eventloom/root.ts";
import { Root } from "../eventloom/rootHandle.ts";
import { lockWaitMs } from "../limits.ts";
import { requireStoreSchema } from "./schema.ts";
import { openStoreClient, type StoreClient } from "./storeClient.ts";
import { type StoreUrl } from "./storeUrl.ts";
import { type AppendRequest, generatedRequestId, requestIdProblem, type SyncReport, syncMirror, storeThreadStore } from "./storeThreads.ts";

export interface ActiveStore {
  url: StoreUrl;
  client: StoreClient;
  /** The root the user named: config.json, and the mirror below it. */
  localRoot: string;
  /** `<localRoot>/stores/<id>`: the store's threads as JSONL files, and their projections. */
  mirrorRoot: string;
  /**
   * Brings the mirror up to the store. `audited` threads (the ones about to be read) get the
   * full tamper check; so does every thread starting with `auditPrefix` when given. Other
   * threads are brought up to date only with `everyThread`.
   */
  sync(audited: readonly string[], options?: { auditPrefix?: string; everyThread?: boolean }): Promise<SyncReport>;
  close(): Promise<void>;
}

/** `<root>/stores/<id>`: where the mirror of the store `url` lives under `root`. */
export function mirrorRootOf(root: string, url: StoreUrl): string {
  return path.join(root, "stores", url.id);
}

/**
 * Connects (lazily), checks the schema (`store_not_initialised`, exit 2), creates the mirror
 * root and binds it: from here on, appends under the mirror root commit to the store.
 */
export async function openActiveStore(url: StoreUrl, localRoot: string, env: Record<string, string | undefined>, warn: (message: string) => void, options: { requestId?: string } = {}): Promise<ActiveStore> {
  const problem = options.requestId === undefined ? undefined : requestIdProblem(options.requestId);
  if (problem !== undefined) throw inputError("invalid_request_id", `Cannot use \`request_id\`: ${problem}`, { field: "request_id" });
  const request: AppendRequest = { id: options.requestId ?? generatedRequestId() };
  const client = openStoreClient(url, env, warn);
  let schemaVersion: number;
  try {
    schemaVersion = await requireStoreSchema(client);
  } catch (error) {
    await client.close();
    throw error;
  }
  const mirrorRoot = mirrorRootOf(localRoot, url);
  try {
    fs.mkdirSync(mirrorRoot, { recursive: true });
    const marker = path.join(mirrorRoot, "store.json");
    if (!fs.existsSync(marker)) fs.writeFileSync(marker, JSON.stringify({ schema: "zaxy.store_mirror.v1", store: url.redacted, note: "a cache of the store's threads; safe to delete" }, null, 2) + "\n");
  } catch (error) {
    await client.close();
    throw ioError("unwritable_root", `Cannot create the local copy of the store under ${localRoot}: ${fileSystemReason(error)}`, { field: "eventloom_path" });
  }
  redirectConfig(mirrorRoot, localRoot);
  Root.of(mirrorRoot).bindThreadStore(storeThreadStore(client, mirrorRoot, schemaVersion, request));
  return {
    url,
    client,
    localRoot,
    mirrorRoot,
    async sync(audited, options = {}) {
      const report = await syncMirror(client, mirrorRoot, audited, lockWaitMs, options);
      for (const warning of report.warnings) warn(warning);
      return report;
    },
    async close() {
      Root.of(mirrorRoot).unbindThreadStore();
      await client.close();
    },
  };
}
