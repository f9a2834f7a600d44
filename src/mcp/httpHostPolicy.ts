/**
 * Which `Host` and `Origin` headers `zaxy serve --http` answers (docs/mcp.md §Security): the
 * defence against DNS rebinding, where a web page on `attacker.example` re-points its own name
 * at 127.0.0.1 and has the victim's browser talk to a loopback server as if it were that site.
 * The browser then sends `Host: attacker.example:PORT` and `Origin: http://attacker.example`,
 * which name neither this server's address nor a loopback name, so they are refused (403)
 * before any JSON-RPC is read.
 *
 * Allowed by default: `localhost`, `127.0.0.1` and `[::1]` with the bound port, the bound
 * address itself, and for a wildcard bind (0.0.0.0, ::) every address of this machine's
 * interfaces and its host name. More come from `--allowed-host NAME[:PORT]` /
 * `--allowed-origin ORIGIN` and the config.json keys `http_allowed_hosts` /
 * `http_allowed_origins`. A name given without a port matches any port (a reverse proxy
 * forwards the public name, often without one). A request without `Origin` (not a browser) is
 * judged by its `Host` alone; `Origin: null` (a sandboxed page, a file) is refused.
 *
 * @example
 * const policy = hostPolicy({ host: "127.0.0.1", port: 8787 }, { hosts: [], origins: [] });
 * checkHostAndOrigin(policy, { host: "localhost:8787" }) // null: allowed
 * checkHostAndOrigin(policy, { host: "attacker.example:8787" }) // 'Host "attacker.example:8787" is not ...'
 */
import * as os from "node:os";
import { inputError } from "../errors.ts";
import { configPath, readConfigObject } from "../eventloom/root.ts";

/** One allowed `Host`: a lower-case name (IPv6 in brackets) and a port, or any port. */
interface HostEntry {
  name: string;
  /** undefined: any port (and none). */
  port?: number;
}

export interface HostPolicy {
  hosts: readonly HostEntry[];
  /** Exact origins (`scheme://host[:port]`, lower case, default port dropped). */
  origins: ReadonlySet<string>;
}

export interface AllowedExtras {
  /** `NAME` or `NAME:PORT` (IPv6 in brackets). */
  hosts: readonly string[];
  /** `http(s)://NAME[:PORT]`. */
  origins: readonly string[];
}

export const allowedHostsConfigKey = "http_allowed_hosts";
export const allowedOriginsConfigKey = "http_allowed_origins";

const loopbackNames = ["localhost", "127.0.0.1", "[::1]"];
const hostPattern = /^(\[[0-9a-f:.]+\]|[a-z0-9](?:[a-z0-9_.-]*[a-z0-9_])?|[0-9.]+)(?::(\d{1,5}))?$/;

/** `NAME[:PORT]` → its entry; null when it is not a host name or address. */
function parseHost(text: string): HostEntry | null {
  const match = hostPattern.exec(text.trim().toLowerCase());
  if (match === null) return null;
  const port = match[2] === undefined ? undefined : Number(match[2]);
  if (port !== undefined && port > 65535) return null;
  return { name: match[1], port };
}

/** `http(s)://NAME[:PORT]` → the canonical origin; null when it is not one. */
function canonicalOrigin(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return null;
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.username !== "" || url.password !== "" || url.pathname !== "/" || url.search !== "" || url.hash !== "") return null;
  // text "http://a.example/" and "http://a.example" are the same origin; URL drops a default port.
  return url.origin.toLowerCase();
}

/** A bound address as a `Host` name: IPv6 in brackets. */
function hostName(address: string): string {
  return address.includes(":") ? `[${address.toLowerCase()}]` : address.toLowerCase();
}

/** Every address of this machine's interfaces (for a wildcard bind), IPv4 only for 0.0.0.0. */
function interfaceAddresses(ipv6: boolean): string[] {
  const addresses: string[] = [];
  for (const list of Object.values(os.networkInterfaces())) {
    for (const info of list ?? []) {
      if (info.family === "IPv4" || ipv6) addresses.push(hostName(info.address.replace(/%.*$/, "")));
    }
  }
  return addresses;
}

/**
 * The policy for a server bound to `bound`, with `extras` from the flags and config.json.
 * A malformed extra is bad input naming where it came from (`field`).
 */
export function hostPolicy(
  bound: { host: string; port: number },
  extras: AllowedExtras,
  fields: { hosts: string; origins: string } = { hosts: "--allowed-host", origins: "--allowed-origin" },
): HostPolicy {
  const hosts: HostEntry[] = loopbackNames.map((name) => ({ name, port: bound.port }));
  const wildcard = bound.host === "0.0.0.0" || bound.host === "::" || bound.host === "";
  if (wildcard) {
    for (const name of [...interfaceAddresses(bound.host === "::"), os.hostname().toLowerCase()]) hosts.push({ name, port: bound.port });
  } else {
    hosts.push({ name: hostName(bound.host), port: bound.port });
  }
  for (const text of extras.hosts) {
    const entry = parseHost(text);
    if (entry === null) {
      throw inputError("invalid_option", `${fields.hosts} must be a host name or address with an optional :PORT (IPv6 in brackets), got ${JSON.stringify(text)}`, { field: fields.hosts });
    }
    hosts.push(entry);
  }
  const origins = new Set<string>();
  for (const text of extras.origins) {
    const origin = canonicalOrigin(text);
    if (origin === null) {
      throw inputError("invalid_option", `${fields.origins} must be http://NAME[:PORT] or https://NAME[:PORT], got ${JSON.stringify(text)}`, { field: fields.origins });
    }
    origins.add(origin);
  }
  return { hosts, origins };
}

function hostAllowed(policy: HostPolicy, entry: HostEntry, defaultPort: number): boolean {
  const port = entry.port ?? defaultPort;
  return policy.hosts.some((allowed) => allowed.name === entry.name && (allowed.port === undefined || allowed.port === port));
}

/**
 * Why a request with these headers is refused, or null when it is allowed. `Host` is required
 * (HTTP/1.1); `Origin` is checked when present.
 */
export function checkHostAndOrigin(policy: HostPolicy, headers: { host?: string; origin?: string }): string | null {
  const host = headers.host;
  if (host === undefined || host === "") return "the Host header is missing";
  const hostEntry = parseHost(host);
  if (hostEntry === null || !hostAllowed(policy, hostEntry, 80)) {
    return `Host ${JSON.stringify(host.slice(0, 200))} is not this server's address or an allowed host name (--allowed-host)`;
  }
  const origin = headers.origin;
  if (origin === undefined) return null;
  const canonical = canonicalOrigin(origin);
  if (canonical !== null) {
    if (policy.origins.has(canonical)) return null;
    const url = new URL(canonical);
    const originHost = parseHost(url.host);
    if (originHost !== null && hostAllowed(policy, originHost, url.protocol === "https:" ? 443 : 80)) return null;
  }
  return `Origin ${JSON.stringify(origin.slice(0, 200))} is not allowed (--allowed-origin)`;
}

function stringList(root: string, key: string, object: { [key: string]: unknown } | undefined): string[] {
  const value = object?.[key];
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((item) => typeof item === "string")) {
    throw inputError("invalid_config", `${configPath(root)}: ${key} must be a list of strings, got ${JSON.stringify(value)}`, {
      field: `config.json ${key}`,
      expected: "a JSON array of strings",
    });
  }
  return value;
}

/**
 * `http_allowed_hosts` and `http_allowed_origins` of a root's config.json (both default []),
 * each entry checked as the flags are (bad input naming the key).
 */
export function readAllowedHostsConfig(root: string): AllowedExtras {
  const object = readConfigObject(root);
  const extras = { hosts: stringList(root, allowedHostsConfigKey, object), origins: stringList(root, allowedOriginsConfigKey, object) };
  hostPolicy({ host: "127.0.0.1", port: 0 }, extras, { hosts: `config.json ${allowedHostsConfigKey}`, origins: `config.json ${allowedOriginsConfigKey}` });
  return extras;
}
