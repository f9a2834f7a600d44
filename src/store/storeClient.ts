/**
 * One connection pool to the store, with the failure contract of docs/store.md: every
 * query has a deadline (a black-holed server cannot hang a command), an unreachable or stopped
 * server is `store_unreachable` (exit 3), an uninitialised database is `store_not_initialised`
 * (exit 2), and no message ever carries the password.
 */
import postgres from "postgres";
import { inputError, ioError, isZaxyError, type ZaxyError } from "../errors.ts";
import { LineReader, type LineReaderTarget, lineReaderTarget } from "./lineReader.ts";
import { passwordFromFile } from "./pgpass.ts";
import { type LineChunkSink, streamThreadLines } from "./threadLines.ts";
import { bracketedHosts, storeAddress, type StoreUrl, urlPassword } from "./storeUrl.ts";

export type Sql = postgres.Sql;
/** A pool or a transaction: anything queries can run on. */
export type Queryable = postgres.Sql | postgres.TransactionSql;

/** Default seconds to wait for a connection (URL `connect_timeout=` overrides). */
export const storeConnectTimeoutS = 10;
/** Default milliseconds one store round trip may take (env ZAXY_STORE_TIMEOUT_MS overrides). */
export const storeQueryTimeoutMs = 60_000;

export interface StoreClient {
  url: StoreUrl;
  sql: Sql;
  queryTimeoutMs: number;
  /**
   * Runs `work` against the store under the query deadline (or `timeoutMs`, for work that
   * grows with its input), mapping failures to zaxy errors.
   */
  run<T>(action: string, work: (sql: Sql) => Promise<T>, timeoutMs?: number): Promise<T>;
  /**
   * Streams the lines of a thread's rows with `afterSeq < seq <= uptoSeq`, in seq order, to
   * `sink` (src/store/threadLines.ts); resolves with the number of rows the store sent. Through
   * the line reader (src/store/lineReader.ts) on a connection of its own where the URL allows,
   * else as pages through the pool; the same deadline and failure contract as `run`.
   */
  streamLines(action: string, thread: string, afterSeq: number, uptoSeq: number, sink: LineChunkSink, options?: StreamOptions): Promise<number>;
  /**
   * Runs `prelude` (one statement; its rows' values as text, null for NULL), then streams the
   * lines `plan(rows)` names, as `streamLines` does: through the line reader both on its one
   * connection (one login, no pool connection at all), else through the pool. `plan` may throw
   * to end the command before anything is streamed. `timeoutMs` bounds the connection and the
   * prelude; the plan's own, the stream.
   */
  streamAfter(action: string, thread: string, prelude: { sql: string; params: string[] }, plan: (rows: (string | null)[][]) => StreamPlan): Promise<number>;
  /**
   * Where the line reader connects (credentials included), for readers on other threads; undefined
   * when the URL is left to the pool.
   */
  readerTarget: LineReaderTarget | undefined;
  /** A failure of work done outside `run` as `run` would report it: coded, the password scrubbed. */
  mapError(error: unknown, action: string): ZaxyError;
  close(): Promise<void>;
}

export interface StreamOptions {
  timeoutMs?: number;
  allocate?: (bytes: number) => ArrayBuffer;
}

export interface StreamPlan extends StreamOptions {
  afterSeq: number;
  uptoSeq: number;
  sink: LineChunkSink;
}

const unreachableCodes = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EPIPE",
  "CONNECT_TIMEOUT",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
]);

// SQLSTATE classes meaning the server went away or refused the session.
const serverGoneStates = new Set(["57P01", "57P02", "57P03", "08000", "08003", "08006", "08001", "08004"]);

function scrub(message: string, secrets: readonly string[]): string {
  let out = message;
  for (const secret of secrets) if (secret.length > 0) out = out.split(secret).join("***");
  return out;
}

/**
 * The zaxy error for a failure of `action` against the store. Exported for the tests of the
 * failure contract; commands get it from `run`.
 */
export function storeError(error: unknown, action: string, url: StoreUrl, secrets: readonly string[]): ZaxyError {
  if (isZaxyError(error)) return error;
  const code = (error as { code?: unknown } | null)?.code;
  const raw = error instanceof Error ? error.message : String(error);
  const message = scrub(raw, secrets);
  const where = `the store ${url.redacted}`;
  if (code === "42P01" || code === "3F000") {
    return inputError("store_not_initialised", `Cannot ${action}: ${where} has no Zaxy schema`, {
      field: url.source,
      hint: `run \`zaxy store init --store URL\` once (with a role that may create tables)`,
    });
  }
  if (code === "55P03") return ioError("lock_timeout", `Cannot ${action}: timed out waiting for the thread's lock in ${where}`);
  if (code === "57014") return ioError("store_timeout", `Cannot ${action}: ${where} cancelled the statement (${message})`);
  if (code === "28P01" || code === "28000") return ioError("store_auth_failed", `Cannot ${action}: ${where} refused the login (${message})`, { hint: "check the user, PGPASSWORD or PGPASSFILE" });
  if (code === "3D000") return ioError("store_unreachable", `Cannot ${action}: ${where}: ${message}`, { hint: "create the database, then `zaxy store init`" });
  if (code === "42501") return ioError("store_permission_denied", `Cannot ${action}: ${where}: ${message}`, { hint: "zaxy help --topic store (docs/store.md) lists the privileges a reader and a writer need" });
  if (/\bssl\b|\btls\b|certificate|self[- ]signed/i.test(message) && code !== "28P01") {
    connectionLost = true;
    return ioError("store_tls_failed", `Cannot ${action}: TLS with ${where} failed (${message}); nothing was written`, {
      hint: "sslmode=require encrypts without checking the certificate, verify-full checks it against the system's CAs; the server must offer TLS",
    });
  }
  if (typeof code === "string" && (unreachableCodes.has(code) || serverGoneStates.has(code))) {
    connectionLost = true;
    return ioError("store_unreachable", `Cannot ${action}: ${where} is unreachable (${message}); nothing was written`, { hint: "check that the server runs and accepts connections" });
  }
  return ioError("store_failed", `Cannot ${action}: ${where}: ${message}`);
}

// postgres.js (3.4) can run a write it had queued for a connection the server has just closed,
// from a timer, after the query already failed and zaxy reported it: a TypeError on the null
// socket, outside any promise. Once a connection was lost, that one error is expected and
// dropped; anything else still ends the process as an internal error (exit 3).
let connectionLost = false;
let strayErrorGuard = false;

function guardStrayClientErrors(): void {
  if (strayErrorGuard) return;
  strayErrorGuard = true;
  process.on("uncaughtException", (error: Error) => {
    if (connectionLost && error instanceof TypeError && /socket|write|null/.test(error.message)) return;
    process.stderr.write(`zaxy: internal error: ${error?.stack ?? error}\n`);
    process.exit(3);
  });
}

/** postgres.js's `ssl` for a libpq sslmode (default prefer). */
function sslOption(mode: string | undefined): false | "prefer" | "require" | "allow" | "verify-full" {
  switch (mode ?? "prefer") {
    case "disable":
      return false;
    case "allow":
      return "allow";
    case "require":
      return "require";
    case "verify-ca":
    case "verify-full":
      return "verify-full";
    default:
      return "prefer";
  }
}

/** A value as the line reader gives it: text, or null for NULL. */
function textValue(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  return value instanceof Uint8Array ? Buffer.from(value).toString("utf8") : String(value);
}

function timeoutFrom(env: Record<string, string | undefined>): number {
  const raw = env.ZAXY_STORE_TIMEOUT_MS;
  if (raw === undefined || raw === "") return storeQueryTimeoutMs;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 1) {
    throw inputError("invalid_option", `ZAXY_STORE_TIMEOUT_MS must be a positive integer (milliseconds), got ${JSON.stringify(raw)}`, { field: "ZAXY_STORE_TIMEOUT_MS" });
  }
  return value;
}

/**
 * Opens a pool to the store (connections are made lazily, on the first query). The password
 * comes from the URL, else PGPASSWORD, else the password file.
 */
export function openStoreClient(url: StoreUrl, env: Record<string, string | undefined>, warn: (message: string) => void = () => {}): StoreClient {
  const queryTimeoutMs = timeoutFrom(env);
  guardStrayClientErrors();
  const address = storeAddress(url.url, env);
  const password = urlPassword(url.url) ?? (env.PGPASSWORD !== undefined && env.PGPASSWORD !== "" ? env.PGPASSWORD : undefined) ?? passwordFromFile(address, env, warn);
  const secrets = [password ?? "", urlPassword(url.url) ?? ""].filter((s) => s.length >= 3);
  // A connection attempt is bounded by the query deadline too, so ZAXY_STORE_TIMEOUT_MS caps the
  // whole wait for a server that accepts TCP but never answers.
  const connectTimeout = /[?&]connect_timeout=/.test(url.url) ? undefined : Math.max(1, Math.min(storeConnectTimeoutS, Math.ceil(queryTimeoutMs / 1000)));
  // libpq's default: TLS when the server offers it (`prefer`), or PGSSLMODE; sslmode in the URL wins.
  const sslInUrl = /[?&](sslmode|ssl)=/.test(url.url);
  const sslMode = sslInUrl ? undefined : sslOption(env.PGSSLMODE);
  const options = {
    ...(connectTimeout === undefined ? {} : { connect_timeout: connectTimeout }),
    ...(sslMode === undefined ? {} : { ssl: sslMode }),
    ...(password === undefined ? {} : { password }),
    idle_timeout: 0,
    fetch_types: false,
    onnotice: () => {},
    connection: { application_name: "zaxy" },
  };
  // postgres.js takes host and port lists (what it makes of a multi-host URL itself), though its types say one.
  const hosts = bracketedHosts(url.url, env) as { host?: string; port?: number } | undefined;
  const sql = postgres(url.url, { ...options, ...hosts, max: 4 });
  // Bulk reads of a thread's lines take the line reader unless the URL needs the general client.
  const readerTarget = lineReaderTarget(url.url, env, password, (connectTimeout ?? storeConnectTimeoutS) * 1000);
  /**
   * Runs `work` on a line reader connection of its own under a deadline (`timeoutMs`, which
   * `work` may set anew for what follows), mapping failures as `run` does; closes it after.
   */
  const withLineReader = async <T>(target: LineReaderTarget, action: string, timeoutMs: number, work: (reader: LineReader, deadline: (timeoutMs: number) => void) => Promise<T>): Promise<T> => {
    const aborter = new AbortController();
    let allowedMs = timeoutMs;
    let timer = setTimeout(() => aborter.abort(), allowedMs);
    const deadline = (ms: number) => {
      clearTimeout(timer);
      allowedMs = ms;
      timer = setTimeout(() => aborter.abort(), allowedMs);
    };
    let reader: LineReader | undefined;
    try {
      reader = await LineReader.connect(target, aborter.signal);
      return await work(reader, deadline);
    } catch (error) {
      if (aborter.signal.aborted) {
        throw ioError("store_timeout", `Cannot ${action}: the store ${url.redacted} did not answer within ${allowedMs} ms (ZAXY_STORE_TIMEOUT_MS); nothing was committed`);
      }
      throw storeError(error, action, url, secrets);
    } finally {
      clearTimeout(timer);
      reader?.close();
    }
  };
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await sql.end({ timeout: 1 }).catch(() => {});
    // A connection still being attempted is not cancelled by end(); it must not hold the
    // process past its answer (the timer does not keep the process alive by itself).
    connectionLost = true;
    setTimeout(() => process.exit(), 1000).unref?.();
  };
  return {
    url,
    sql,
    queryTimeoutMs,
    async run<T>(action: string, work: (sql: Sql) => Promise<T>, timeoutMs = queryTimeoutMs): Promise<T> {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          reject(ioError("store_timeout", `Cannot ${action}: the store ${url.redacted} did not answer within ${timeoutMs} ms (ZAXY_STORE_TIMEOUT_MS); nothing was committed`));
          // Dropping the connections rolls back any open transaction on the server.
          void sql.end({ timeout: 0 }).catch(() => {});
        }, timeoutMs);
      });
      try {
        return await Promise.race([work(sql), deadline]);
      } catch (error) {
        throw storeError(error, action, url, secrets);
      } finally {
        clearTimeout(timer);
      }
    },
    async streamLines(action, thread, afterSeq, uptoSeq, sink, options = {}) {
      const timeoutMs = options.timeoutMs ?? queryTimeoutMs;
      if (readerTarget === undefined) return await this.run(action, (pool) => streamThreadLines(pool, thread, afterSeq, uptoSeq, sink, true), timeoutMs);
      if (uptoSeq <= afterSeq) return 0;
      return await withLineReader(readerTarget, action, timeoutMs, (reader) => reader.streamLines(thread, afterSeq, uptoSeq, sink, options.allocate));
    },
    async streamAfter(action, thread, prelude, plan) {
      if (readerTarget === undefined) {
        const rows = await this.run(action, async (pool) => (await pool.unsafe(prelude.sql, prelude.params).values()).map((row) => row.map(textValue)));
        const next = plan(rows);
        return await this.streamLines(action, thread, next.afterSeq, next.uptoSeq, next.sink, next);
      }
      return await withLineReader(readerTarget, action, queryTimeoutMs, async (reader, deadline) => {
        const next = plan(await reader.values(prelude.sql, prelude.params));
        if (next.uptoSeq <= next.afterSeq) return 0;
        deadline(next.timeoutMs ?? queryTimeoutMs);
        return await reader.streamLines(thread, next.afterSeq, next.uptoSeq, next.sink, next.allocate);
      });
    },
    readerTarget,
    mapError: (error, action) => storeError(error, action, url, secrets),
    close,
  };
}
