/**
 * The store URL (docs/store.md): `--store URL`, else `ZAXY_STORE`, else config.json's `store`;
 * absent means today's files. Only `postgres://` and `postgresql://` name a store. The URL may
 * carry a password: it is never printed; every message names the store by `redactStoreUrl`.
 */
import { inputError } from "../errors.ts";
import { configPath, readConfigObject } from "../eventloom/config.ts";
import { sha256Hex } from "../platform/mod.ts";

export interface StoreUrl {
  url: string;
  /** The URL without its password, for messages. */
  redacted: string;
  /** Where it came from, for messages: `--store`, `ZAXY_STORE` or `config.json store`. */
  source: string;
  /** 16 hex of SHA-256 over host, port and database: names the local mirror of this store. */
  id: string;
}

const schemePattern = /^(postgres(?:ql)?):\/\/(.*)$/s;

/** Splits `scheme://[user[:password]@]hosts[/db][?query]` without decoding anything. */
function splitUrl(url: string): { scheme: string; user?: string; password?: string; rest: string } | undefined {
  const match = schemePattern.exec(url);
  if (match === null) return undefined;
  const body = match[2];
  // The userinfo ends at the last "@" before the path: a password may hold "@" only percent-encoded.
  const slash = body.search(/[/?]/);
  const authority = slash === -1 ? body : body.slice(0, slash);
  const at = authority.lastIndexOf("@");
  if (at === -1) return { scheme: match[1], rest: body };
  const userinfo = authority.slice(0, at);
  const colon = userinfo.indexOf(":");
  return {
    scheme: match[1],
    user: colon === -1 ? userinfo : userinfo.slice(0, colon),
    password: colon === -1 ? undefined : userinfo.slice(colon + 1),
    rest: body.slice(at + 1),
  };
}

/**
 * The URL with its password replaced by `***` (and any `password=` query parameter too):
 * `redactStoreUrl("postgres://app:s3cret@db:5432/zaxy") // "postgres://app:***@db:5432/zaxy"`.
 */
export function redactStoreUrl(url: string): string {
  const parts = splitUrl(url);
  if (parts === undefined) return url.replace(/:[^:@/]*@/, ":***@");
  const user = parts.user === undefined ? "" : `${parts.user}${parts.password === undefined ? "" : ":***"}@`;
  return `${parts.scheme}://${user}${parts.rest}`.replace(/([?&]password=)[^&]*/gi, "$1***");
}

/** The password written in the URL (percent-decoded), if any. */
export function urlPassword(url: string): string | undefined {
  const parts = splitUrl(url);
  if (parts?.password === undefined) return undefined;
  try {
    return decodeURIComponent(parts.password);
  } catch {
    return parts.password;
  }
}

/** Host, port, database and user of the URL, with libpq's defaults filled from the environment. */
export function storeAddress(url: string, env: Record<string, string | undefined>): { host: string; port: string; database: string; user: string } {
  const parts = splitUrl(url);
  const rest = parts?.rest ?? "";
  const pathStart = rest.search(/[/?]/);
  const hosts = pathStart === -1 ? rest : rest.slice(0, pathStart);
  const afterHosts = pathStart === -1 ? "" : rest.slice(pathStart);
  const database = afterHosts.startsWith("/") ? decodeURIComponent(afterHosts.slice(1).split("?")[0]) : "";
  const first = hosts.split(",")[0] ?? "";
  const bracket = /^\[([^\]]+)\](?::(\d+))?$/.exec(first);
  const [host, port] = bracket !== null ? [bracket[1], bracket[2]] : [first.split(":")[0], first.split(":")[1]];
  const user = parts?.user !== undefined && parts.user !== "" ? decodeURIComponent(parts.user) : env.PGUSER ?? env.USER ?? "";
  return {
    host: host || env.PGHOST || "localhost",
    port: port || env.PGPORT || "5432",
    database: database || env.PGDATABASE || user,
    user,
  };
}

function parseStoreUrl(url: string, source: string, field: string, env: Record<string, string | undefined>): StoreUrl {
  if (splitUrl(url) === undefined) {
    throw inputError("invalid_store_url", `${source} must be a postgres:// or postgresql:// URL, got ${JSON.stringify(redactStoreUrl(url))}; leave it unset to keep the logs in files`, {
      field,
      expected: "postgres://[user[:password]@]host[:port]/database[?sslmode=...]",
    });
  }
  const address = storeAddress(url, env);
  return {
    url,
    redacted: redactStoreUrl(url),
    source,
    id: sha256Hex(`${address.host}\u0000${address.port}\u0000${address.database}`).slice(0, 16),
  };
}

/**
 * The store a command runs against, or undefined for files: the flag wins over the environment,
 * the environment over config.json. A value that is not a PostgreSQL URL is bad input (exit 2).
 */
export function resolveStoreUrl(flag: string | undefined, env: Record<string, string | undefined>, root: string): StoreUrl | undefined {
  if (flag !== undefined && flag !== "") return parseStoreUrl(flag, "--store", "--store", env);
  const fromEnv = env.ZAXY_STORE;
  if (fromEnv !== undefined && fromEnv !== "") return parseStoreUrl(fromEnv, "ZAXY_STORE", "ZAXY_STORE", env);
  const configured = readConfigObject(root)?.store;
  if (configured === undefined || configured === null || configured === "") return undefined;
  if (typeof configured !== "string") {
    throw inputError("invalid_config", `${configPath(root)}: store must be a postgres:// URL string, got ${JSON.stringify(configured)}`, {
      field: "config.json store",
      expected: "a postgres:// or postgresql:// URL",
    });
  }
  return parseStoreUrl(configured, "config.json store", "config.json store", env);
}
