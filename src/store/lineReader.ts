/**
 * A read-only PostgreSQL wire-protocol (v3) connection that does one thing: stream a thread's
 * `line` column in seq order straight into line-aligned buffers. `verify --store` and
 * `store export` read every row of a thread; through the general client each row became a
 * message object, a row array and two buffer views, and each socket chunk was copied once more
 * to join a message split across chunks: on 200k events that was most of the client's CPU, and
 * the client shares the machine with the server. Here the rows' bytes are copied once, from the
 * socket chunk into the output buffer, by a state machine that never joins chunks.
 *
 * Scope: TCP or a Unix socket, one host, TLS as libpq's sslmode says (disable, prefer, require,
 * verify-ca/verify-full), trust, cleartext, MD5 or SCRAM-SHA-256 login. A URL asking for more
 * (several hosts, other parameters) is left to the general client (`lineReaderTarget` returns
 * undefined). Errors carry the server's SQLSTATE or the socket's code in `code`, as the general
 * client's do, so `storeError` maps both the same way.
 */
import * as net from "node:net";
import * as os from "node:os";
import * as tls from "node:tls";
import {
  bindMessage,
  errorFromFields,
  executeMessage,
  parseMessage,
  passwordMessage,
  saslInitialMessage,
  saslResponseMessage,
  type ScramState,
  scramContinue,
  scramStart,
  sslRequestMessage,
  startupMessage,
  syncMessage,
  terminateMessage,
  wireError,
} from "./pgWire.ts";
import { firstPageRows, type LineChunkSink, pageRowsMax, pageTargetBytes } from "./threadLines.ts";

export interface LineReaderTarget {
  host: string;
  port: number;
  /** A Unix socket path (when the host is a directory), else undefined for TCP. */
  socketPath?: string;
  user: string;
  database: string;
  password?: string;
  sslMode: "disable" | "prefer" | "require" | "verify-full";
  /** How long the TCP (or socket) connection may take to open. */
  connectTimeoutMs: number;
}

/** Query parameters the reader understands; any other sends the URL to the general client. */
const understoodParams = new Set(["sslmode", "connect_timeout", "application_name"]);

/**
 * Where `url` leads, for the line reader, or undefined when the URL asks for what only the
 * general client does (several hosts, a `host=` parameter, startup options, `sslmode=allow`).
 * `password` is the one the store client resolved (URL, PGPASSWORD or the password file).
 */
export function lineReaderTarget(url: string, env: Record<string, string | undefined>, password: string | undefined, connectTimeoutMs: number): LineReaderTarget | undefined {
  const body = url.slice(url.indexOf("://") + 3);
  const authority = body.split(/[?/]/)[0];
  const hostPart = decodeURIComponent(authority.slice(authority.lastIndexOf("@") + 1));
  if (hostPart.includes(",")) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  for (const key of parsed.searchParams.keys()) if (!understoodParams.has(key)) return undefined;
  const sslParam = parsed.searchParams.get("sslmode") ?? env.PGSSLMODE ?? "prefer";
  const sslMode = sslParam === "verify-ca" ? "verify-full" : sslParam;
  if (sslMode !== "disable" && sslMode !== "prefer" && sslMode !== "require" && sslMode !== "verify-full") return undefined;
  const user = decodeURIComponent(parsed.username) || env.PGUSERNAME || env.PGUSER || osUserName(env);
  const host = decodeURIComponent(parsed.hostname) || env.PGHOST || "localhost";
  const port = Number(parsed.port || env.PGPORT || 5432);
  if (!Number.isSafeInteger(port) || port < 1 || port > 65535) return undefined;
  const connectTimeoutS = Number(parsed.searchParams.get("connect_timeout") ?? Number.NaN);
  return {
    host: host.replace(/^\[(.*)\]$/, "$1"),
    port,
    socketPath: host.includes("/") ? `${host}/.s.PGSQL.${port}` : undefined,
    user,
    database: decodeURIComponent(parsed.pathname.slice(1)) || env.PGDATABASE || user,
    password,
    sslMode,
    connectTimeoutMs: Number.isFinite(connectTimeoutS) && connectTimeoutS > 0 ? connectTimeoutS * 1000 : connectTimeoutMs,
  };
}

/** The login name, as the general client finds it (a uid without a passwd entry has none). */
function osUserName(env: Record<string, string | undefined>): string {
  try {
    return os.userInfo().username;
  } catch {
    return env.USERNAME || env.USER || env.LOGNAME || "";
  }
}

/** Framing states: a message's 5-byte header, its body, a DataRow's header (11 bytes), its value. */
const Phase = { Header: 0, Body: 1, RowHeader: 2, RowValue: 3 } as const;

/**
 * Bytes of lines gathered before they are handed to the sink. Each hand-off costs the receiving
 * thread about a millisecond whatever its size (a worker message, a new buffer, often a pause of
 * the socket): 8 MiB rather than 4 took ~0.1 CPU-s off the receiving thread per 158 MB and
 * 2-5 % off `verify --store` (medians of 8-10 alternated runs); 1 MiB was ~40 % slower.
 */
const chunkTargetBytes = 8 << 20;
/** The line buffer: a chunk and room for the line that crosses its end. */
const outBytes = chunkTargetBytes + (64 << 10);
/** Pages asked for ahead, in one write when no more than half of them are left unanswered. */
const pagesAhead = 4;
const pageSql = "SELECT line FROM eventloom_events WHERE thread = $1 AND seq > $2 AND seq <= $3 ORDER BY seq";
const pageStatement = "zaxy_lines";

export class LineReader {
  readonly #socket: net.Socket | tls.TLSSocket;
  #failure: Error | undefined;
  #closed = false;
  // Framing of the message stream.
  #phase: number = Phase.Header;
  readonly #header = Buffer.alloc(11);
  #headerHave = 0;
  #headerWant = 5;
  #type = 0;
  #bodyLeft = 0;
  #body: Buffer | null = null;
  #bodyHave = 0;
  #valueLeft = 0;
  // The query being answered.
  #waiter: { resolve: () => void; reject: (error: Error) => void } | null = null;
  /** An ErrorResponse of the exchange in progress: it, not the close that may follow, is the failure. */
  #serverError: Error | undefined;
  #onMessage: ((type: number, body: Buffer) => void) | null = null;
  #sink: LineChunkSink | null = null;
  #allocate: (bytes: number) => ArrayBuffer = (bytes) => new ArrayBuffer(bytes);
  #out = Buffer.alloc(0);
  #outLength = 0;
  #outRows = 0;
  #emptyRows: number[] = [];
  #rows = 0;
  /** Bytes of the rows' lines so far (for sizing pages). */
  #rowBytes = 0;
  /** Whether the page statement is prepared on this connection. */
  #prepared = false;
  /** Sink promises not yet settled: the socket stays paused while there are any. */
  #holds = 0;

  private constructor(socket: net.Socket | tls.TLSSocket) {
    this.#socket = socket;
    socket.on("data", (chunk: Buffer) => this.#receive(chunk));
    socket.on("error", (error: Error) => this.#fail(error));
    socket.on("close", () => this.#fail(wireError("the server closed the connection", "CONNECTION_CLOSED")));
  }

  /**
   * Connects, negotiates TLS as `sslMode` says and logs in; rejects with a coded error. An
   * abort of `signal` (a deadline) destroys the connection at whatever step it is.
   */
  static async connect(target: LineReaderTarget, signal: AbortSignal): Promise<LineReader> {
    let socket: net.Socket | tls.TLSSocket = await openSocket(target, signal);
    if (target.sslMode !== "disable" && target.socketPath === undefined) {
      socket.write(sslRequestMessage());
      const answer = await firstByte(socket);
      if (answer === 0x53) {
        socket = await upgradeToTls(socket, target);
      } else if (target.sslMode !== "prefer") {
        socket.destroy();
        throw wireError(`the server does not support SSL connections (sslmode=${target.sslMode})`, "SSL_REFUSED");
      }
    }
    const reader = new LineReader(socket);
    signal.addEventListener("abort", () => reader.#fail(wireError("the deadline passed", "ETIMEDOUT")), { once: true });
    await reader.#login(target);
    return reader;
  }

  async #login(target: LineReaderTarget): Promise<void> {
    const startup = startupMessage({ user: target.user, database: target.database, application_name: "zaxy", client_encoding: "UTF8" });
    let scram: ScramState | null = null;
    await this.#exchange(startup, (type, message) => {
      if (type !== 0x52) return; // 'R': authentication; ParameterStatus and BackendKeyData are not needed
      const kind = message.readInt32BE(0);
      if (kind === 0) return;
      if (target.password === undefined) throw wireError(`password authentication failed for user "${target.user}": no password given`, "28P01");
      if (kind === 3) this.#socket.write(passwordMessage(target.password, null));
      else if (kind === 5) this.#socket.write(passwordMessage(target.password, { user: target.user, salt: message.subarray(4, 8) }));
      else if (kind === 10) {
        const mechanisms = message.toString("utf8", 4).split("\0");
        if (!mechanisms.includes("SCRAM-SHA-256")) throw wireError(`the server offers no login this client supports (${mechanisms.filter(Boolean).join(", ")})`, "28000");
        scram = scramStart();
        this.#socket.write(saslInitialMessage(scram.clientFirst));
      } else if (kind === 11 && scram !== null) {
        this.#socket.write(saslResponseMessage(scramContinue(scram, message.toString("utf8", 4), target.password)));
      } else if (kind === 12 && scram !== null) {
        if (message.toString("utf8", 4) !== `v=${scram.serverSignature}`) throw wireError("the server did not return the correct SCRAM signature", "28000");
      } else throw wireError(`the server asks for a login this client does not support (authentication request ${kind})`, "28000");
    });
  }

  /**
   * Runs one statement (unnamed, text parameters) and resolves with its rows' values as text
   * (null for NULL): what a command asks before a stream, on the stream's own connection.
   */
  async values(sql: string, params: string[]): Promise<(string | null)[][]> {
    const rows: (string | null)[][] = [];
    await this.#exchange(Buffer.concat([parseMessage(sql), bindMessage(params), executeMessage(), syncMessage()]), (type, body) => {
      if (type !== 0x44) return; // only DataRows carry values
      const row: (string | null)[] = [];
      let at = 2;
      for (let column = body.readInt16BE(0); column > 0; column--) {
        const length = body.readInt32BE(at);
        at += 4;
        row.push(length < 0 ? null : body.toString("utf8", at, at + length));
        at += Math.max(0, length);
      }
      rows.push(row);
    });
    return rows;
  }

  /**
   * Streams `line` of the rows with `afterSeq < seq <= uptoSeq` of `thread` in seq order to
   * `sink` as line-aligned chunks of about 8 MiB; resolves with the number of rows sent.
   *
   * The range is asked for in pages (`seq > a AND seq <= b ORDER BY seq`, about 1 MiB of lines
   * each, sized from the lines seen so far), a few sent ahead on the one connection so the server
   * never waits for the client. One query over the whole thread looked simpler, but its plan
   * follows the statistics: once a thread is a large part of the table, PostgreSQL 15 reads it
   * with a parallel sequential scan and an external sort (measured: the server's CPU per 200k
   * events 0.3 s -> 1.0 s). A page is a small share of any table, read along the primary key
   * (past ~2,000 rows, on a table whose rows are not in seq order, it became a bitmap scan and
   * a sort: 1.7 ms for 1,300 rows, 4.7 ms for 2,600). The page query is a statement prepared
   * once per connection: no parsing per page, and PostgreSQL's generic plan for it (taken after
   * five pages) is the index scan.
   */
  async streamLines(thread: string, afterSeq: number, uptoSeq: number, sink: LineChunkSink, allocate: (bytes: number) => ArrayBuffer = (bytes) => new ArrayBuffer(bytes)): Promise<number> {
    if (this.#failure !== undefined) throw this.#failure;
    this.#sink = sink;
    this.#allocate = allocate;
    this.#rows = 0;
    this.#rowBytes = 0;
    this.#out = Buffer.from(allocate(outBytes));
    this.#outLength = 0;
    this.#outRows = 0;
    this.#emptyRows = [];
    try {
      if (uptoSeq > afterSeq) await this.#pages(thread, afterSeq, uptoSeq);
      await this.#flushLines();
      if (this.#failure !== undefined) throw this.#failure;
      return this.#rows;
    } finally {
      this.#sink = null;
    }
  }

  /** Sends the pages of the range, `pagesAhead` at a time, and resolves when the last is answered. */
  #pages(thread: string, afterSeq: number, uptoSeq: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let next = afterSeq;
      let answered = 0;
      let sent = 0;
      let pageRows = firstPageRows;
      const send = () => {
        if (sent - answered > pagesAhead / 2) return;
        const batch: Buffer[] = [];
        while (sent - answered < pagesAhead && next < uptoSeq) {
          const from = next;
          next = Math.min(uptoSeq, from + pageRows);
          batch.push(pageQuery(thread, from, next, !this.#prepared));
          this.#prepared = true;
          sent++;
        }
        if (batch.length > 0) this.#socket.write(Buffer.concat(batch));
      };
      this.#waiter = { resolve, reject };
      this.#onMessage = (type, body) => {
        // Any error ends the read: the connection is this reader's alone and is dropped.
        if (type === 0x45) return this.#fail(errorFromFields(body));
        if (type !== 0x5a) return;
        answered++;
        // Size the next pages from the lines seen so far (pages already sent keep their size).
        if (this.#rows > 0) pageRows = Math.max(1, Math.min(pageRowsMax, Math.floor(pageTargetBytes / Math.max(1, this.#rowBytes / this.#rows))));
        if (answered === sent && next >= uptoSeq) {
          this.#waiter = null;
          this.#onMessage = null;
          resolve();
        } else send();
      };
      send();
    });
  }

  /** Closes the connection: politely (Terminate) when it is idle, else at once. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#failure === undefined && this.#waiter === null) {
      this.#failure = wireError("the connection is closed", "CONNECTION_ENDED");
      // The server closes its side on Terminate; the process need not wait for that.
      this.#socket.end(terminateMessage());
      this.#socket.unref();
      setTimeout(() => this.#socket.destroy(), 1000).unref?.();
    } else this.#socket.destroy();
  }

  /** Sends `request` and handles messages until ReadyForQuery; an ErrorResponse rejects. */
  #exchange(request: Buffer, onMessage: ((type: number, body: Buffer) => void) | null): Promise<void> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    return new Promise<void>((resolve, reject) => {
      this.#serverError = undefined;
      this.#onMessage = (type, body) => {
        if (type === 0x45) this.#serverError ??= errorFromFields(body);
        else if (type === 0x5a) {
          const serverError = this.#serverError;
          this.#waiter = null;
          this.#onMessage = null;
          this.#serverError = undefined;
          if (serverError !== undefined) reject(serverError);
          else resolve();
        } else if (onMessage !== null && this.#serverError === undefined) {
          try {
            onMessage(type, body);
          } catch (error) {
            this.#fail(error as Error);
          }
        }
      };
      this.#waiter = { resolve, reject };
      this.#socket.write(request);
    });
  }

  #fail(error: Error): void {
    if (this.#failure !== undefined) return;
    this.#failure = this.#serverError ?? error;
    const waiter = this.#waiter;
    this.#waiter = null;
    this.#socket.destroy();
    waiter?.reject(this.#failure);
  }

  /** Feeds socket bytes through the framing state machine; DataRow values go to the line buffer. */
  #receive(chunk: Buffer): void {
    let at = 0;
    const end = chunk.length;
    while (at < end && this.#failure === undefined) {
      // The common case first: whole DataRows inside this read, taken without the state machine.
      if (this.#phase === Phase.Header && this.#headerHave === 0 && this.#sink !== null) {
        at = this.#wholeRows(chunk, at);
        if (at >= end || this.#failure !== undefined) break;
      }
      switch (this.#phase) {
        case Phase.Header:
        case Phase.RowHeader: {
          const take = Math.min(this.#headerWant - this.#headerHave, end - at);
          chunk.copy(this.#header, this.#headerHave, at, at + take);
          this.#headerHave += take;
          at += take;
          if (this.#headerHave < this.#headerWant) break;
          if (this.#phase === Phase.Header) this.#startMessage();
          else this.#startRowValue();
          break;
        }
        case Phase.Body: {
          const take = Math.min(this.#bodyLeft, end - at);
          chunk.copy(this.#body as Buffer, this.#bodyHave, at, at + take);
          this.#bodyHave += take;
          this.#bodyLeft -= take;
          at += take;
          if (this.#bodyLeft === 0) {
            const body = this.#body as Buffer;
            this.#body = null;
            this.#phase = Phase.Header;
            this.#headerHave = 0;
            this.#headerWant = 5;
            this.#onMessage?.(this.#type, body);
          }
          break;
        }
        case Phase.RowValue: {
          const take = Math.min(this.#valueLeft, end - at);
          chunk.copy(this.#out, this.#outLength, at, at + take);
          this.#outLength += take;
          this.#valueLeft -= take;
          at += take;
          if (this.#valueLeft === 0) this.#endRow();
          break;
        }
      }
    }
  }

  #startMessage(): void {
    this.#type = this.#header[0];
    const length = this.#header.readInt32BE(1);
    if (length < 4) return this.#fail(wireError(`the server sent a malformed message (length ${length})`, "PROTOCOL_ERROR"));
    // A DataRow while lines are being streamed: read its column header next.
    if (this.#type === 0x44 && this.#sink !== null) {
      if (length < 10) return this.#fail(wireError("the server sent a row that is not one `line` value", "PROTOCOL_ERROR"));
      this.#phase = Phase.RowHeader;
      this.#headerWant = 11;
      return;
    }
    this.#bodyLeft = length - 4;
    this.#body = Buffer.alloc(length - 4);
    this.#bodyHave = 0;
    this.#phase = Phase.Body;
    if (this.#bodyLeft === 0) {
      this.#phase = Phase.Header;
      this.#headerHave = 0;
      this.#body = null;
      this.#onMessage?.(this.#type, Buffer.alloc(0));
    }
  }

  /**
   * Takes the whole one-column DataRows at `at` in `chunk` straight into the line buffer (what
   * the state machine does, without copying headers), up to the first message that is not one,
   * is not whole in this read, or does not fit the line buffer; returns where it stopped.
   */
  #wholeRows(chunk: Buffer, at: number): number {
    const end = chunk.length;
    while (end - at >= 11 && chunk[at] === 0x44) {
      const length = ((chunk[at + 1] << 24) | (chunk[at + 2] << 16) | (chunk[at + 3] << 8) | chunk[at + 4]) >>> 0;
      if (at + 1 + length > end || length < 10) break;
      const columns = (chunk[at + 5] << 8) | chunk[at + 6];
      const valueLength = (chunk[at + 7] << 24) | (chunk[at + 8] << 16) | (chunk[at + 9] << 8) | chunk[at + 10];
      const bytes = valueLength < 0 ? 0 : valueLength;
      if (columns !== 1 || length !== 10 + bytes) break; // the state machine reports it
      if (this.#outLength + bytes + 1 > this.#out.length) break;
      this.#outRows++;
      this.#rows++;
      this.#rowBytes += bytes + 1;
      if (bytes === 0) this.#emptyRows.push(this.#outRows);
      else chunk.copy(this.#out, this.#outLength, at + 11, at + 11 + bytes);
      this.#outLength += bytes;
      this.#out[this.#outLength++] = 0x0a;
      at += 1 + length;
      if (this.#outLength >= chunkTargetBytes) void this.#flushLines();
    }
    return at;
  }

  #startRowValue(): void {
    const length = this.#header.readInt32BE(1);
    const columns = this.#header.readInt16BE(5);
    const valueLength = this.#header.readInt32BE(7);
    // `line` is NOT NULL in the schema, but the database is not trusted: a null reads as an empty row.
    const bytes = valueLength < 0 ? 0 : valueLength;
    if (columns !== 1 || length !== 10 + bytes) return this.#fail(wireError("the server sent a row that is not one `line` value", "PROTOCOL_ERROR"));
    this.#outRows++;
    this.#rows++;
    this.#rowBytes += bytes + 1;
    if (bytes === 0) this.#emptyRows.push(this.#outRows);
    if (this.#outLength + bytes + 1 > this.#out.length) this.#growOut(bytes + 1);
    this.#valueLeft = bytes;
    this.#phase = Phase.RowValue;
    if (bytes === 0) this.#endRow();
  }

  #endRow(): void {
    this.#out[this.#outLength++] = 0x0a;
    this.#phase = Phase.Header;
    this.#headerHave = 0;
    this.#headerWant = 5;
    if (this.#outLength >= chunkTargetBytes) void this.#flushLines();
  }

  /**
   * Hands the lines gathered so far to the sink: a view from the start of an ArrayBuffer nothing
   * else uses, so a verifier worker can take the buffer without a copy.
   */
  #flushLines(): void | Promise<void> {
    if (this.#outRows === 0 || this.#sink === null) return;
    const lines = Buffer.from(this.#out.buffer, 0, this.#outLength);
    const rows = this.#outRows;
    const emptyRows = this.#emptyRows;
    this.#out = Buffer.from(this.#allocate(outBytes));
    this.#outLength = 0;
    this.#outRows = 0;
    this.#emptyRows = [];
    let held: void | Promise<void>;
    try {
      held = this.#sink(lines, rows, emptyRows);
    } catch (error) {
      // The consumer's failure (a full disk under an export) ends the read with its own error;
      // thrown here it would escape from the socket's data event.
      this.#fail(error as Error);
      return;
    }
    if (held === undefined) return;
    if (this.#holds++ === 0) this.#socket.pause();
    return held.then(
      () => {
        if (--this.#holds === 0 && this.#failure === undefined) this.#socket.resume();
      },
      (error: Error) => this.#fail(error),
    );
  }

  /** Makes room for a line longer than what is left of the buffer. */
  #growOut(needed: number): void {
    const grown = Buffer.from(this.#allocate(Math.max(this.#out.length * 2, this.#outLength + needed + (64 << 10))));
    this.#out.copy(grown, 0, 0, this.#outLength);
    this.#out = grown;
  }
}

function openSocket(target: LineReaderTarget, signal: AbortSignal): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = target.socketPath !== undefined ? net.connect(target.socketPath) : net.connect(target.port, target.host);
    const fail = (error: Error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    };
    const timer = setTimeout(() => fail(wireError(`could not connect within ${target.connectTimeoutMs} ms`, "CONNECT_TIMEOUT")), target.connectTimeoutMs);
    const aborted = () => fail(wireError("the deadline passed", "ETIMEDOUT"));
    if (signal.aborted) return aborted();
    signal.addEventListener("abort", aborted, { once: true });
    socket.setNoDelay(true);
    socket.once("connect", () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", aborted);
      socket.removeListener("error", fail);
      // Until the reader owns it (SSL negotiation, TLS), an abort still destroys it.
      signal.addEventListener("abort", () => socket.destroy(), { once: true });
      resolve(socket);
    });
    socket.once("error", fail);
  });
}

function firstByte(socket: net.Socket): Promise<number> {
  return new Promise((resolve, reject) => {
    socket.once("data", (chunk: Buffer) => {
      socket.removeListener("error", reject);
      socket.removeListener("close", closed);
      resolve(chunk[0]);
    });
    const closed = () => reject(wireError("the server closed the connection during SSL negotiation", "CONNECTION_CLOSED"));
    socket.once("error", reject);
    socket.once("close", closed);
  });
}

function upgradeToTls(socket: net.Socket, target: LineReaderTarget): Promise<tls.TLSSocket> {
  return new Promise((resolve, reject) => {
    const verify = target.sslMode === "verify-full";
    const secure = tls.connect({
      socket,
      servername: net.isIP(target.host) === 0 ? target.host : undefined,
      rejectUnauthorized: verify,
    });
    secure.once("secureConnect", () => {
      secure.removeListener("error", reject);
      resolve(secure);
    });
    secure.once("error", reject);
  });
}

const pageTail = Buffer.concat([executeMessage(), syncMessage()]);

/** One page's Bind, Execute and Sync of the page statement; with `parse`, its Parse first. */
function pageQuery(thread: string, afterSeq: number, uptoSeq: number, parse: boolean): Buffer {
  const bind = bindMessage([thread, String(afterSeq), String(uptoSeq)], pageStatement);
  return Buffer.concat(parse ? [parseMessage(pageSql, pageStatement), bind, pageTail] : [bind, pageTail]);
}
