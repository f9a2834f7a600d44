/**
 * Remote MCP: `zaxy serve --http HOST:PORT` (docs/mcp.md §Remote MCP over HTTP, §Security).
 * Streamable HTTP with JSON responses, one MCP session (its own server and tool router) per
 * client that initializes, all on the same Eventloom root. Each request passes, in order:
 *
 * 1. **Host and Origin** (httpHostPolicy.ts): a name that is not this server's is 403, against
 *    DNS rebinding;
 * 2. **auth**: `Authorization: Bearer <token>` (scheme in any case) against `--token-file`,
 *    compared in constant time; without a token file only a loopback address may be bound. A
 *    failed attempt counts against the address's own failed-auth budget (429 once spent), never
 *    against the budget of the requests that carry the token;
 * 3. **rate limit**: more than `rateLimit` requests per window from one address is 429 with
 *    `Retry-After`;
 * 4. **body**: at most `maxRequestBytes` (413, unread past the bound), arriving within
 *    `readTimeoutMs` (408, and the connection is closed);
 * 5. **JSON-RPC**: read by `readJsonRpcLine`, as stdio reads a line, so the replies are the
 *    same: -32700 not JSON, -32600 not one JSON-RPC request (a batch included), -32602 params
 *    that fail the method's schema or a key given twice (HTTP 400 each);
 * 6. **session**: an `initialize` opens one (`mcp-session-id` in the answer; the
 *    `x-zaxy-session-id` header pins its Eventloom session); the table closes sessions idle past
 *    `sessionIdleMs` and holds at most `sessionsMax` (httpSessions.ts).
 *
 * `close()` stops accepting at once, lets running calls finish (up to `shutdownMs`), then
 * closes every connection and session. Malformed requests are answered and never stop the
 * server. The access log (httpAccessLog.ts) never holds a credential.
 */
import { randomUUID } from "node:crypto";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ErrorCode, type JSONRPCMessage, type JSONRPCRequest, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import { inputError, ioError } from "../errors.ts";
import { validateSessionId } from "../eventloom/root.ts";
import { httpReadTimeoutMs, httpSessionIdleMs, httpSessionsMax, httpShutdownMs } from "../limits.ts";
import { requestGarbageCollection } from "../platform/mod.ts";
import { AccessLog, redactedTarget } from "./httpAccessLog.ts";
import { checkHostAndOrigin, type HostPolicy, hostPolicy } from "./httpHostPolicy.ts";
import { RateLimiter } from "./httpRateLimiter.ts";
import { HttpSessionTable } from "./httpSessions.ts";
import { HttpSessionTransport } from "./httpSessionTransport.ts";
import { errorReply, type JsonRpcId, readJsonRpcLine } from "./jsonRpcLine.ts";
import type { ToolProfile } from "./profiles.ts";
import { createMcpServer } from "./server.ts";
import type { ToolRouter } from "./toolRouter.ts";
import { sameToken } from "./tokens.ts";
export { readTokenFile } from "./tokens.ts";

export interface HttpServeOptions {
  eventloomPath: string;
  sessionId: string;
  profile: ToolProfile;
  host: string;
  port: number;
  /** The bearer token clients must send; undefined only on loopback. */
  token?: string;
  maxRequestBytes: number;
  /** Requests per window per client address (and, separately, failed-auth requests). */
  rateLimit: { requests: number; windowMs: number };
  accessLog?: string;
  /** Admin-gated tools need `admin_token` equal to this. */
  adminToken?: string;
  /** Extra `Host` names (`NAME[:PORT]`) and origins allowed besides this server's own. */
  allowedHosts?: readonly string[];
  allowedOrigins?: readonly string[];
  /** An MCP session unused this long is closed (default `httpSessionIdleMs`). */
  sessionIdleMs?: number;
  /** MCP sessions open at once (default `httpSessionsMax`). */
  sessionsMax?: number;
  /** How long a request body may take to arrive (default `httpReadTimeoutMs`). */
  readTimeoutMs?: number;
  /** How long `close()` lets running calls finish (default `httpShutdownMs`). */
  shutdownMs?: number;
  beforeCall?: (name: string, args: Record<string, unknown>) => Promise<void>;
  log?: (line: string) => void;
}

export interface HttpMcpServer {
  address: AddressInfo;
  /** Stops accepting, lets running calls finish (bounded), closes everything; whether every call finished. */
  close: () => Promise<{ drained: boolean }>;
}

export const defaultHttpLimits = { maxRequestBytes: 8 << 20, rateLimit: { requests: 600, windowMs: 60_000 } } as const;
export const sessionHeader = "x-zaxy-session-id";

/** `HOST:PORT` (IPv6 in brackets) → its parts; bad input names the flag. */
export function parseListenAddress(value: string): { host: string; port: number } {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(value.trim());
  const port = match === null ? NaN : Number(match[3]);
  if (match === null || !(port >= 0 && port <= 65535)) {
    throw inputError("invalid_option", `--http must be HOST:PORT (e.g. 127.0.0.1:8787, [::1]:8787), got ${JSON.stringify(value)}`, { field: "--http", expected: "HOST:PORT" });
  }
  return { host: match[1] ?? match[2], port };
}

export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

interface McpSession {
  transport: HttpSessionTransport;
  server: Server;
  router: ToolRouter;
}

/** The share of `shutdownMs` given to running calls; the rest is for the one call running when it ends. */
const drainShare = 0.8;

/** JSON-RPC error code of refusals that are about HTTP, not the message (403, 401, 429, ...). */
const httpRefusalCode = -32000;

function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.writableEnded) return;
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

function refuse(res: http.ServerResponse, status: number, message: string, headers: Record<string, string> = {}, code = httpRefusalCode, id: JsonRpcId | null = null): void {
  sendJson(res, status, errorReply(id, code, message), headers);
}

type BodyOutcome = { ok: true; body: Buffer } | { ok: false; status: number; message: string };

/**
 * Reads the body: at most `maxBytes`, all of it within `timeoutMs`. A body over the bound or
 * late is answered (413, 408) by the caller, which then closes the connection.
 */
function readBody(req: http.IncomingMessage, maxBytes: number, timeoutMs: number): Promise<BodyOutcome> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) {
    return Promise.resolve({ ok: false, status: 413, message: `request body of ${declared} bytes exceeds ${maxBytes}` });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (outcome: BodyOutcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      resolve(outcome);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) return finish({ ok: false, status: 413, message: `request body exceeds ${maxBytes} bytes` });
      chunks.push(chunk);
    };
    const onEnd = () => finish({ ok: true, body: Buffer.concat(chunks) });
    const onError = (error: Error) => finish({ ok: false, status: 400, message: `the request body could not be read: ${error.message}` });
    const timer = setTimeout(() => finish({ ok: false, status: 408, message: `the request body did not arrive within ${timeoutMs / 1000} s` }), timeoutMs);
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
  });
}

function toolName(message: JSONRPCMessage): string | undefined {
  const m = message as { method?: unknown; params?: { name?: unknown } };
  return m.method === "tools/call" && typeof m.params?.name === "string" ? m.params.name : undefined;
}

/** The bearer token of an `Authorization` header (scheme case-insensitive, RFC 7235), or "". */
export function bearerToken(header: string | undefined): string {
  return /^bearer +(\S+) *$/i.exec(header ?? "")?.[1] ?? "";
}

/** Whether the `Accept` header admits a JSON answer (absent: yes). */
function acceptsJson(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === "") return true;
  return accept.split(",").some((part) => /^\s*(application\/json|application\/\*|\*\/\*)\s*(;|$)/i.test(part));
}

/** What every request stage of one server reads and changes. */
interface ServerState {
  options: HttpServeOptions;
  log: (line: string) => void;
  sessions: HttpSessionTable<McpSession>;
  sessionIdleMs: number;
  readTimeoutMs: number;
  /** Requests per window per client address. */
  limiter: RateLimiter;
  /** Failed-auth requests per window per client address, a budget of their own. */
  failedAuth: RateLimiter;
  accessLog: AccessLog | undefined;
  /** Set once the server is bound (the policy needs the bound port). */
  policy: HostPolicy | undefined;
  draining: boolean;
  inFlight: number;
  /** Called when the last request in flight finishes, while `close()` waits for it. */
  idleWaiter: (() => void) | undefined;
}

/** Stage 1: options that refuse to start (exit 2, nothing bound); the extra host names allowed. */
function checkServeOptions(options: HttpServeOptions): { hosts: readonly string[]; origins: readonly string[] } {
  if (options.token === undefined && !isLoopback(options.host)) {
    throw inputError("token_required", `zaxy serve --http ${options.host}:${options.port}: a non-loopback address needs --token-file (bearer-token auth); without one only 127.0.0.1, ::1 or localhost may be bound`, {
      field: "--token-file",
    });
  }
  const extras = { hosts: options.allowedHosts ?? [], origins: options.allowedOrigins ?? [] };
  // Checked before binding, so a bad --allowed-host is exit 2 with nothing listening.
  hostPolicy({ host: options.host, port: options.port }, extras);
  return extras;
}

function serverState(options: HttpServeOptions): ServerState {
  const sessionIdleMs = options.sessionIdleMs ?? httpSessionIdleMs;
  return {
    options,
    log: options.log ?? ((line: string) => process.stderr.write(line.endsWith("\n") ? line : line + "\n")),
    sessions: new HttpSessionTable<McpSession>({ idleMs: sessionIdleMs, max: options.sessionsMax ?? httpSessionsMax }),
    sessionIdleMs,
    readTimeoutMs: options.readTimeoutMs ?? httpReadTimeoutMs,
    limiter: new RateLimiter(options.rateLimit.requests, options.rateLimit.windowMs),
    failedAuth: new RateLimiter(options.rateLimit.requests, options.rateLimit.windowMs),
    accessLog: options.accessLog === undefined ? undefined : new AccessLog(options.accessLog),
    policy: undefined,
    draining: false,
    inFlight: 0,
    idleWaiter: undefined,
  };
}

/** A new MCP session (its own server and tool router), pinned to an Eventloom session or not. */
function openSession(state: ServerState, pinned: string | undefined): McpSession {
  const { options, sessions } = state;
  const transport = new HttpSessionTransport(randomUUID());
  const { server, router } = createMcpServer({
    eventloomPath: options.eventloomPath,
    sessionId: pinned ?? options.sessionId,
    profile: options.profile,
    log: state.log,
    adminToken: options.adminToken,
    // As on stdio: a call leaves garbage the collector's own threshold would let pile up.
    afterCall: requestGarbageCollection,
    // The router holds every call to the pinned session (sessionPin.ts) before this runs.
    sessionPin: pinned,
    beforeCall: async (name, args) => {
      // Back to the event loop between calls: a session's queued calls otherwise run back to
      // back as one chain of promise callbacks (the log's I/O is synchronous), and a backlog of
      // hundreds would starve signals, timers and new connections for seconds: SIGTERM was
      // seen 14 s late under a pipelining client.
      await new Promise<void>((resolve) => setImmediate(resolve));
      // A call queued behind others when its session closed (shutdown past the drain time,
      // expiry) is not started: its client was already answered that the session closed.
      if (transport.refusing) throw ioError("shutting_down", `The server is shutting down (or the MCP session closed) before ${name} started; nothing was written`);
      await options.beforeCall?.(name, pinned !== undefined && args.session_id === undefined ? { ...args, session_id: pinned } : args);
    },
  });
  const session: McpSession = { transport, server, router };
  transport.onclose = () => sessions.delete(transport.sessionId);
  void server.connect(transport);
  return session;
}

/** Stage 6: answers one POST whose body is one JSON-RPC message, in its MCP session. */
async function handleMessage(state: ServerState, req: http.IncomingMessage, res: http.ServerResponse, message: JSONRPCMessage, noteSession: (id: string) => void): Promise<void> {
  const { sessions } = state;
  const headerSession = req.headers["mcp-session-id"];
  const isRequest = "method" in message && "id" in message;
  const id = isRequest ? (message as JSONRPCRequest).id : null;
  const initialize = isRequest && (message as JSONRPCRequest).method === "initialize";
  let session: McpSession | undefined;
  if (typeof headerSession === "string") {
    session = sessions.get(headerSession);
    if (session === undefined) return refuse(res, 404, "unknown MCP session; initialize again", {}, -32001, id);
    if (initialize) return refuse(res, 400, "Invalid Request: this MCP session is already initialized", {}, ErrorCode.InvalidRequest, id);
    const version = req.headers["mcp-protocol-version"];
    if (typeof version === "string" && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      return refuse(res, 400, `Bad Request: unsupported mcp-protocol-version ${JSON.stringify(version.slice(0, 40))} (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")})`, {}, httpRefusalCode, id);
    }
  } else {
    if (!initialize) return refuse(res, 400, "no MCP session: send initialize first", {}, httpRefusalCode, id);
    const pinned = req.headers[sessionHeader];
    if (pinned !== undefined) {
      try {
        validateSessionId(String(pinned), "scope to");
      } catch (error) {
        return refuse(res, 400, (error as Error).message, {}, httpRefusalCode, id);
      }
    }
    session = openSession(state, pinned === undefined ? undefined : String(pinned));
  }
  const sessionId = session.transport.sessionId;
  noteSession(sessionId);
  if (!isRequest) {
    session.transport.deliver(message);
    res.writeHead(202, state.draining ? { connection: "close" } : {});
    res.end();
    return;
  }
  if (session.transport.isWaiting(id as JsonRpcId)) {
    return refuse(res, 400, `Invalid Request: request id ${JSON.stringify(id)} is already in use by a call still running`, {}, ErrorCode.InvalidRequest, id);
  }
  if (initialize && !sessions.add(session)) {
    await session.transport.close();
    return refuse(res, 503, `too many MCP sessions (${state.options.sessionsMax ?? httpSessionsMax}), each with a call running; retry later`, { "retry-after": "5" }, httpRefusalCode, id);
  }
  const response = await session.transport.exchange(message as JSONRPCRequest);
  sessions.touch(sessionId);
  if (initialize && "error" in response) await session.transport.close();
  sendJson(res, 200, response, { "mcp-session-id": sessionId, ...(state.draining ? { connection: "close" } : {}) });
}

/**
 * Stages 1-3 of a request: Host and Origin, auth (with its own failed-auth budget), the rate
 * limit. Whether the request was refused (and answered).
 */
function refusedAtTheDoor(state: ServerState, req: http.IncomingMessage, res: http.ServerResponse, client: string): boolean {
  const hostProblem = checkHostAndOrigin(state.policy!, { host: req.headers.host, origin: req.headers.origin });
  if (hostProblem !== null) {
    refuse(res, 403, `Forbidden: ${hostProblem}`);
    return true;
  }
  const token = state.options.token;
  if (token !== undefined && !sameToken(bearerToken(req.headers.authorization), token)) {
    const wait = state.failedAuth.retryAfterMs(client);
    if (wait > 0) refuse(res, 429, "too many requests with a missing or wrong bearer token", { "retry-after": String(Math.ceil(wait / 1000)) });
    else refuse(res, 401, "missing or wrong bearer token", { "www-authenticate": "Bearer" });
    return true;
  }
  const wait = state.limiter.retryAfterMs(client);
  if (wait > 0) {
    refuse(res, 429, "too many requests", { "retry-after": String(Math.ceil(wait / 1000)) });
    return true;
  }
  return false;
}

/** Answers one HTTP request, through every stage the module comment lists. */
async function handleRequest(state: ServerState, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const started = performance.now();
  const client = req.socket.remoteAddress ?? "unknown";
  let tool: string | undefined;
  let mcpSession: string | null = typeof req.headers["mcp-session-id"] === "string" ? req.headers["mcp-session-id"].slice(0, 100) : null;
  res.on("finish", () =>
    state.accessLog?.record({ client, method: req.method, path: redactedTarget(req.url), status: res.statusCode, ms: Math.round(performance.now() - started), mcp_session: mcpSession, tool: tool ?? null })
  );
  if (state.draining) return refuse(res, 503, "the server is shutting down", { connection: "close" });
  if (refusedAtTheDoor(state, req, res, client)) return;
  if (req.url !== "/mcp" && !req.url?.startsWith("/mcp?")) return refuse(res, 404, "the MCP endpoint is /mcp");
  if (req.method === "DELETE") {
    const existing = mcpSession === null ? undefined : state.sessions.get(mcpSession);
    if (existing === undefined) return refuse(res, 404, "unknown MCP session");
    state.sessions.delete(existing.transport.sessionId);
    await existing.transport.close();
    res.writeHead(200);
    res.end();
    return;
  }
  // GET would open a stream for server-initiated messages; zaxy sends none (MCP allows 405).
  if (req.method !== "POST") return refuse(res, 405, `method ${req.method} is not allowed on /mcp`, { allow: "POST, DELETE" });
  const contentType = req.headers["content-type"];
  if (contentType !== undefined && !/^application\/json\s*(;|$)/i.test(contentType)) {
    return refuse(res, 415, `Unsupported Media Type: the body must be application/json, got ${JSON.stringify(contentType.slice(0, 100))}`);
  }
  if (!acceptsJson(req.headers.accept)) return refuse(res, 406, "Not Acceptable: the answer is application/json");
  const body = await readBody(req, state.options.maxRequestBytes, state.readTimeoutMs);
  if (!body.ok) {
    // The rest of the body is never read: the connection goes, with it any byte still coming.
    res.on("finish", () => req.socket.destroy());
    return refuse(res, body.status, body.message, { connection: "close" });
  }
  if (body.body.length === 0) return refuse(res, 400, "Parse error: the body is empty", {}, ErrorCode.ParseError);
  const outcome = readJsonRpcLine(body.body);
  if (outcome.kind === "reply") return sendJson(res, 400, outcome.reply);
  if (outcome.kind === "ignore") {
    if (outcome.diagnostic !== undefined) state.log(`zaxy serve --http: ${outcome.diagnostic}`);
    res.writeHead(202);
    res.end();
    return;
  }
  tool = toolName(outcome.message);
  await handleMessage(state, req, res, outcome.message, (id) => void (mcpSession = id));
}

/** Binds the address; a failure to listen is an I/O error naming it. */
async function listen(server: http.Server, options: HttpServeOptions): Promise<AddressInfo> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error) => reject(ioError("listen_failed", `Cannot listen on ${options.host}:${options.port}: ${(error as Error).message}`, { field: "--http" })));
    server.listen(options.port, options.host, () => resolve());
  });
  return server.address() as AddressInfo;
}

/**
 * `close()`: stops accepting, lets running calls finish within `drainShare` of the shutdown
 * time, then closes every session and connection. Whether every call finished.
 */
async function closeServer(state: ServerState, server: http.Server, sweeper: ReturnType<typeof setInterval>): Promise<{ drained: boolean }> {
  state.draining = true;
  clearInterval(sweeper);
  // Stop accepting now; connections with nothing running go now, the others once answered.
  server.close();
  server.closeIdleConnections();
  const shutdownMs = state.options.shutdownMs ?? httpShutdownMs;
  const drained = await new Promise<boolean>((resolve) => {
    if (state.inFlight === 0) return resolve(true);
    const timer = setTimeout(() => resolve(false), shutdownMs * drainShare);
    state.idleWaiter = () => {
      clearTimeout(timer);
      resolve(true);
    };
  });
  // Past the drain time, calls still queued are answered `shutting_down` and never start;
  // the ones running finish their write (an append is all or nothing) and are answered
  // within the rest of the bound.
  let finished = drained;
  if (!drained) {
    for (const session of state.sessions.list()) session.transport.refuseNewCalls();
    const rest = new Promise<void>((resolve) => setTimeout(resolve, shutdownMs * (1 - drainShare)).unref());
    const idle = new Promise<void>((resolve) => {
      if (state.inFlight === 0) return resolve();
      state.idleWaiter = resolve;
    });
    await Promise.race([Promise.all([idle, ...state.sessions.list().map((session) => session.router.idle())]).then(() => void (finished = true)), rest]);
  }
  await state.sessions.closeAll();
  server.closeAllConnections();
  state.accessLog?.close();
  return { drained: finished };
}

/** Starts listening; resolves with the bound address and a `close` once the server is up. */
export async function startHttpMcpServer(options: HttpServeOptions): Promise<HttpMcpServer> {
  const extras = checkServeOptions(options);
  const state = serverState(options);
  const server = http.createServer((req, res) => {
    state.inFlight++;
    handleRequest(state, req, res)
      .catch((error) => {
        state.log(`zaxy serve --http: ${(error as Error).message}`);
        refuse(res, 500, "internal error");
      })
      .finally(() => {
        state.inFlight--;
        if (state.inFlight === 0) state.idleWaiter?.();
      });
  });
  const address = await listen(server, options);
  state.policy = hostPolicy({ host: options.host, port: address.port }, extras);
  const sweeper = setInterval(() => state.sessions.sweep(), Math.max(250, Math.min(60_000, Math.floor(state.sessionIdleMs / 4))));
  sweeper.unref();
  return { address, close: () => closeServer(state, server, sweeper) };
}
