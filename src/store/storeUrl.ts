/**
 * The store URL (docs/store.md): `--store URL`, else `ZAXY_STORE`, else config.json's `store`;
 * absent means today's files. Only `postgres://` and `postgresql://` name a store. The URL may
 * carry a password: it is never printed; every message names the store by `redactStoreUrl`.
 */
import { inputError } from "../errors.ts";
import { configPath, readConfigObject } from "../eventloom/root.ts";
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

/**
 * The URL's hosts and ports when one of them is a bracketed IPv6 address, brackets removed (the
 * general client splits hosts at every colon and would try to resolve "["); undefined otherwise,
 * so the client reads the URL itself. A host without a port takes PGPORT, else 5432.
 */
export function bracketedHosts(url: string, env: Record<string, string | undefined>): { host: string[]; port: number[] } | undefined {
  const body = url.slice(url.indexOf("://") + 3);
  const authority = body.split(/[?/]/)[0];
  const hosts = authority.slice(authority.lastIndexOf("@") + 1);
  if (!hosts.includes("[")) return undefined;
  const parsed = hosts.split(",").map((entry) => {
    const match = /^(?:\[([^\]]*)\]|([^:[\]]*))(?::(\d+))?$/.exec(entry);
    return { host: match?.[1] ?? match?.[2] ?? entry, port: Number(match?.[3] || env.PGPORT || 5432) };
  });
  return { host: parsed.map((entry) => entry.host || env.PGHOST || "localhost"), port: parsed.map((entry) => entry.port) };
}

function parseStoreUrl(url: string, source: string, field: string, env: Record<string, string | undefined>): StoreUrl {
  if (splitUrl(url) === undefined) {
    throw inputError("invalid_store_url", `${source} must be a postgres:// or postgresql:// URL, got ${JSON.stringify(redactStoreUrl(url))}; leave it unset to keep the logs in files`, {
      field,
      expected: "postgres://[user[:password]@]host[:port]/database[?sslmode=...]",
    });
  }
  const problem = urlProblem(url);
  if (problem !== undefined) {
    throw inputError("invalid_store_url", `${source} is not a usable PostgreSQL URL: ${problem} (in ${JSON.stringify(redactStoreUrl(url))})`, {
      field,
      expected: "postgres://[user[:password]@]host[:port][,host[:port]...]/database[?sslmode=disable|allow|prefer|require|verify-ca|verify-full]",
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

const sslModes = new Set(["disable", "allow", "prefer", "require", "verify-ca", "verify-full"]);

/**
 * What makes a postgres:// URL unusable before any connection (the general client would throw a
 * bare "Invalid URL"): a host list that does not parse, a port outside 1-65535, an unknown
 * sslmode. Undefined when it is fine. Never quotes the password.
 */
function urlProblem(url: string): string | undefined {
  const body = url.slice(url.indexOf("://") + 3);
  const authority = body.split(/[?/]/)[0];
  const hosts = authority.slice(authority.lastIndexOf("@") + 1);
  for (const host of hosts === "" ? [] : hosts.split(",")) {
    const port = /^(?:\[[^\]]*\]|[^:[\]]*)(?::(.*))?$/.exec(host);
    if (port === null) return `the host ${JSON.stringify(host)} is not host[:port] or [ipv6][:port]`;
    if (port[1] !== undefined && !(/^\d{1,5}$/.test(port[1]) && Number(port[1]) >= 1 && Number(port[1]) <= 65535)) {
      return `the port ${JSON.stringify(port[1])} is not a number from 1 to 65535`;
    }
  }
  const escape = badPercentEscape(url);
  if (escape !== undefined) return escape;
  let parsed: URL;
  try {
    // The general client parses the URL with its first host only; so does this check.
    parsed = new URL(url.replace(hosts, hosts.split(",")[0] ?? ""));
  } catch {
    return "it does not parse as a URL";
  }
  const sslmode = parsed.searchParams.get("sslmode");
  if (sslmode !== null && !sslModes.has(sslmode)) return `sslmode must be one of ${[...sslModes].join(", ")}, not ${JSON.stringify(sslmode)}`;
  const attrs = parsed.searchParams.get("target_session_attrs");
  if (attrs !== null && !targetSessionAttrs.has(attrs)) {
    return `target_session_attrs must be one of ${[...targetSessionAttrs].join(", ")} (or left out: any server), not ${JSON.stringify(attrs)}`;
  }
  return undefined;
}

/** The values of `target_session_attrs` the client supports (libpq's, but `any`, which is the default when it is left out). */
const targetSessionAttrs = new Set(["read-write", "read-only", "primary", "standby", "prefer-standby"]);

/**
 * Which part of the URL has a percent-escape that does not decode (`%zz`, a `%` at the end, or
 * bytes that are not UTF-8), or undefined. Names the part, never quotes the password.
 */
function badPercentEscape(url: string): string | undefined {
  const parts = splitUrl(url);
  if (parts === undefined) return undefined;
  const rest = parts.rest;
  const pathStart = rest.search(/[/?]/);
  const hosts = pathStart === -1 ? rest : rest.slice(0, pathStart);
  const afterHosts = pathStart === -1 ? "" : rest.slice(pathStart);
  const query = afterHosts.indexOf("?");
  const database = afterHosts.startsWith("/") ? afterHosts.slice(1, query === -1 ? undefined : query) : "";
  const checks: [string, string | undefined, boolean][] = [
    ["the user name", parts.user, true],
    ["the password", parts.password, false],
    ["the host", hosts, true],
    ["the database name", database, true],
  ];
  for (const pair of query === -1 ? [] : afterHosts.slice(query + 1).split("&")) {
    const [key, value = ""] = pair.split("=");
    const secret = /^password$/i.test(key);
    checks.push([`the query parameter ${secret ? "password" : JSON.stringify(key)}`, key, true], [`the value of the query parameter ${secret ? "password" : JSON.stringify(key)}`, value, !secret]);
  }
  for (const [what, text, quote] of checks) {
    if (text === undefined || !text.includes("%")) continue;
    const bad = /%(?![0-9A-Fa-f]{2})/.exec(text);
    if (bad !== null) {
      const shown = quote ? ` ${JSON.stringify(text.slice(bad.index, bad.index + 3))}` : "";
      return `${what} has a bad percent-escape${shown} (a percent sign itself is written %25)`;
    }
    try {
      decodeURIComponent(text);
    } catch {
      return `${what} has percent-escapes that do not decode to UTF-8 text`;
    }
  }
  return undefined;
}

/**
 * Where a password in the store URL can be read by others, as a warning, or undefined: on the
 * command line (`ps` shows every process's arguments) or in config.json (`zaxy config set`
 * refuses one; a hand-edited one still works).
 */
export function passwordExposure(url: StoreUrl, root: string): string | undefined {
  const hasPassword = urlPassword(url.url) !== undefined || /[?&]password=/i.test(url.url);
  if (!hasPassword) return undefined;
  if (url.source === "--store") {
    return "the store URL given with --store carries a password, which other users of this machine can read in the process list (ps); put the password in PGPASSFILE (~/.pgpass) or PGPASSWORD, or the URL in ZAXY_STORE";
  }
  if (url.source === "config.json store") {
    return `${configPath(root)} stores the store URL with its password in plain text; put the password in PGPASSFILE (~/.pgpass) or PGPASSWORD, or the URL in ZAXY_STORE, and remove it from config.json`;
  }
  return undefined;
}

/**
 * The store a command runs against, or undefined for files: the flag wins over the environment,
 * the environment over config.json. A value that is not a PostgreSQL URL is bad input (exit 2).
 * `warn` hears where a password in the URL is exposed (passwordExposure).
 */
export function resolveStoreUrl(flag: string | undefined, env: Record<string, string | undefined>, root: string, warn?: (message: string) => void): StoreUrl | undefined {
  const url = findStoreUrl(flag, env, root);
  if (url !== undefined && warn !== undefined) {
    const exposure = passwordExposure(url, root);
    if (exposure !== undefined) warn(exposure);
  }
  return url;
}

function findStoreUrl(flag: string | undefined, env: Record<string, string | undefined>, root: string): StoreUrl | undefined {
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
