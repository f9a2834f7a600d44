/**
 * The JSONL access log of `zaxy serve --http` (`--access-log FILE`, mode 0600): one line per
 * request `{time, client, method, path, status, ms, mcp_session, tool}`. It must never hold a
 * credential: tokens travel in the `Authorization` header, which is not logged, and a client
 * that puts one in the URL (`?access_token=...`) has every query value replaced by `REDACTED`
 * (the names stay, so the operator sees what was sent), as has user:password in an
 * absolute-form target. A path longer than `loggedPathCharsMax` is cut.
 *
 * @example
 * redactedTarget("/mcp?access_token=s3cret&x=1") // "/mcp?access_token=REDACTED&x=REDACTED"
 */
import * as fs from "node:fs";

/** Longest request target written to the log (a hostile URL must not make each line huge). */
export const loggedPathCharsMax = 1024;

/** The request target with every query value and any userinfo replaced by `REDACTED`. */
export function redactedTarget(target: string | undefined): string | null {
  if (target === undefined) return null;
  let text = target;
  const absolute = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*@)/i.exec(text);
  if (absolute !== null) text = absolute[1] + "REDACTED@" + text.slice(absolute[0].length);
  const query = text.indexOf("?");
  if (query >= 0) {
    const hash = text.indexOf("#", query);
    const end = hash < 0 ? text.length : hash;
    const redacted = text
      .slice(query + 1, end)
      .split("&")
      .map((pair) => (pair === "" ? pair : `${pair.split("=")[0]}=REDACTED`))
      .join("&");
    text = text.slice(0, query + 1) + redacted;
  }
  return text.length > loggedPathCharsMax ? text.slice(0, loggedPathCharsMax) + "…" : text;
}

export class AccessLog {
  readonly #fd: number;

  constructor(file: string) {
    this.#fd = fs.openSync(file, "a", 0o600);
  }

  record(entry: Record<string, unknown>): void {
    try {
      fs.writeSync(this.#fd, JSON.stringify({ time: new Date().toISOString(), ...entry }) + "\n");
    } catch {
      // A full disk must not take the server down; the request itself was answered.
    }
  }

  close(): void {
    try {
      fs.closeSync(this.#fd);
    } catch {
      // Already closed.
    }
  }
}
