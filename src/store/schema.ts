/**
 * The store's schema (docs/store.md), versioned in `zaxy_store_meta`. `zaxy store init` creates
 * or migrates it idempotently; every other command checks the version first, so an
 * uninitialised database is `store_not_initialised` (exit 2) before anything is read or written.
 * Only SQL that CockroachDB and YugabyteDB also accept is used.
 */
import { inputError, type ZaxyError } from "../errors.ts";
import type { StoreClient } from "./storeClient.ts";
import type { StoreUrl } from "./storeUrl.ts";

/**
 * Version 1: the meta, heads and events tables. Version 2 adds `eventloom_requests` (which
 * append of which request committed which seqs, so a retried append is not written twice); a
 * version-1 database is still read, but appends to it are refused until `zaxy store init`
 * migrates it.
 */
export const storeSchemaVersion = 2;
/** The first version whose appends record their request (`eventloom_requests`). */
export const requestsSchemaVersion = 2;

const createStatements = [
  `CREATE TABLE IF NOT EXISTS zaxy_store_meta (
     key text PRIMARY KEY,
     value text NOT NULL
   )`,
  // One row per thread: the row appends lock (SELECT ... FOR UPDATE), and the head it reached.
  `CREATE TABLE IF NOT EXISTS eventloom_heads (
     thread text PRIMARY KEY,
     seq bigint NOT NULL,
     hash text,
     updated_at timestamptz NOT NULL DEFAULT now()
   )`,
  // `line` is the exact JSONL line the file store writes, without its newline.
  `CREATE TABLE IF NOT EXISTS eventloom_events (
     thread text NOT NULL,
     seq bigint NOT NULL,
     line text NOT NULL,
     appended_at timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (thread, seq),
     CHECK (seq >= 1)
   )`,
  // One row per committed append: the request that made it (a client-supplied or generated id),
  // which of that request's appends to the thread it was, and the seqs it wrote. Never part of
  // an event line: the lines and the chain stay byte for byte what the file store writes.
  `CREATE TABLE IF NOT EXISTS eventloom_requests (
     thread text NOT NULL,
     request_id text NOT NULL,
     batch integer NOT NULL,
     first_seq bigint NOT NULL,
     events bigint NOT NULL,
     created_at timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (thread, request_id, batch)
   )`,
];

export interface SchemaState {
  version: number | undefined;
}

/** The schema version the database holds, or undefined when it has none. */
export async function readSchemaVersion(client: StoreClient): Promise<number | undefined> {
  return await client.run("read the store's schema version", async (sql) => {
    // One round trip in the common case; a database without the table answers 42P01 (undefined_table).
    const found = await sql`SELECT value FROM zaxy_store_meta WHERE key = 'schema_version'`.catch((error: unknown) => {
      if ((error as { code?: unknown } | null)?.code === "42P01") return undefined;
      throw error;
    });
    return found === undefined || found.length === 0 ? undefined : Number(found[0].value);
  });
}

/**
 * Refuses a database without Zaxy's schema (exit 2) or with a newer one than this binary knows;
 * returns the version it has.
 */
export async function requireStoreSchema(client: StoreClient): Promise<number> {
  const version = await readSchemaVersion(client);
  const problem = schemaProblem(client.url, version);
  if (problem !== undefined) throw problem;
  return version as number;
}

/** The refusal of an append to a database whose schema predates request records (exit 2). */
export function schemaOutdatedError(url: StoreUrl, version: number): ZaxyError {
  return inputError("store_schema_outdated", `Cannot append to the store ${url.redacted}: its schema is version ${version}, and appends need version ${requestsSchemaVersion} (the table eventloom_requests, which makes a retried append safe)`, {
    field: url.source,
    hint: "run `zaxy store init --store URL` once (with a role that may create tables): it migrates the schema and changes no event",
  });
}

/** Why a database with schema `version` (undefined: none) cannot be used, or undefined when it can. */
export function schemaProblem(url: StoreUrl, version: number | undefined): ZaxyError | undefined {
  if (version === undefined) {
    return inputError("store_not_initialised", `The store ${url.redacted} has no Zaxy schema`, {
      field: url.source,
      hint: "run `zaxy store init --store URL` once (with a role that may create tables)",
    });
  }
  if (version > storeSchemaVersion) {
    return inputError("store_schema_too_new", `The store ${url.redacted} has schema version ${version}; this zaxy knows up to ${storeSchemaVersion}`, {
      field: url.source,
      hint: "upgrade zaxy",
    });
  }
  return undefined;
}

/** Creates or migrates the schema; returns the version before (undefined: none) and after. */
export async function initStoreSchema(client: StoreClient): Promise<{ before: number | undefined; after: number }> {
  const before = await readSchemaVersion(client);
  if (before !== undefined && before > storeSchemaVersion) await requireStoreSchema(client);
  await client.run("initialise the store's schema", async (sql) => {
    for (let attempt = 0; ; attempt++) {
      try {
        await sql.begin(async (tx) => {
          for (const statement of createStatements) await tx.unsafe(statement);
          // A new database gets the version; an older one is moved up to it (never down).
          await tx`INSERT INTO zaxy_store_meta (key, value) VALUES ('schema_version', ${String(storeSchemaVersion)})
            ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value WHERE CAST(zaxy_store_meta.value AS integer) < CAST(EXCLUDED.value AS integer)`;
        });
        return;
      } catch (error) {
        // Two inits racing on CREATE TABLE IF NOT EXISTS: one loses on the catalog; try again.
        const code = (error as { code?: unknown }).code;
        if (attempt < 3 && (code === "23505" || code === "42P07" || code === "40001")) continue;
        throw error;
      }
    }
  });
  return { before, after: storeSchemaVersion };
}
