/**
 * Remote MCP: `zaxy serve --http HOST:PORT` (docs/mcp.md §Remote MCP over HTTP). The SDK's
 * Streamable HTTP transport, one MCP session (its own server and tool router) per client that
 * initializes, all on the same Eventloom root:
 *
 * - **auth**: `Authorization: Bearer <token>` against `--token-file`, compared in constant time;
 *   without a token file the server refuses to bind anything but a loopback address;
 * - **session scoping**: a client may pin its Eventloom session with the `x-zaxy-session-id`
 *   header at initialize; its calls then default to that session and may not name another;
 * - **limits**: a request body over `maxRequestBytes` is 413 unread; more than `rateLimit`
 *   requests per window from one client address is 429 with `Retry-After`;
 * - **access log**: one JSON line per request (time, client, method, status, duration, MCP
 *   session, tool) when `--access-log FILE` is given. Tokens never appear in it.
 *
 * Malformed requests are answered (400, 401, 404, 405, 413, 429) and never stop the server.
 */
import { randomUUID } from "node:crypto";
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { inputError, ioError } from "../errors.ts";
import { validateSessionId } from "../eventloom/session.ts";
import type { ToolProfile } from "./profiles.ts";
import { createMcpServer } from "./server.ts";
import { repeatedKey, repeatedKeyMessage } from "./duplicateKeys.ts";
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
  /** Requests per window per client address. */
  rateLimit: { requests: number; windowMs: number };
  accessLog?: string;
  /** Admin-gated tools need `admin_token` equal to this. */
  adminToken?: string;
  beforeCall?: (name: string, args: Record<string, unknown>) => Promise<void>;
  log?: (line: string) => void;
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

class RateLimiter {
  readonly #hits = new Map<string, number[]>();
  constructor(private readonly requests: number, private readonly windowMs: number) {}

  /** Milliseconds until `client` may send again, or 0 when it may now (and the hit is counted). */
  retryAfterMs(client: string, now = Date.now()): number {
    const recent = (this.#hits.get(client) ?? []).filter((at) => now - at < this.windowMs);
    if (recent.length >= this.requests) {
      this.#hits.set(client, recent);
      return this.windowMs - (now - recent[0]);
    }
    recent.push(now);
    this.#hits.set(client, recent);
    return 0;
  }
}

interface McpSession {
  transport: StreamableHTTPServerTransport;
  pinnedSession?: string;
}

function jsonError(res: http.ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: status === 400 ? -32700 : -32000, message } }));
}

/** Reads at most `maxBytes` of the body; undefined (and 413 sent) when it is larger. */
async function readBody(req: http.IncomingMessage, res: http.ServerResponse, maxBytes: number): Promise<Buffer | undefined> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) {
    jsonError(res, 413, `request body of ${declared} bytes exceeds ${maxBytes}`);
    req.resume();
    return undefined;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      jsonError(res, 413, `request body exceeds ${maxBytes} bytes`);
      req.destroy();
      return undefined;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function toolName(body: unknown): string | undefined {
  const messages = Array.isArray(body) ? body : [body];
  for (const message of messages) {
    const m = message as { method?: unknown; params?: { name?: unknown } } | null;
    if (m?.method === "tools/call" && typeof m.params?.name === "string") return m.params.name;
  }
  return undefined;
}

/** Starts listening; resolves with the bound address and a `close` once the server is up. */
export async function startHttpMcpServer(options: HttpServeOptions): Promise<{ address: AddressInfo; close: () => Promise<void> }> {
  if (options.token === undefined && !isLoopback(options.host)) {
    throw inputError("token_required", `zaxy serve --http ${options.host}:${options.port}: a non-loopback address needs --token-file (bearer-token auth); without one only 127.0.0.1, ::1 or localhost may be bound`, {
      field: "--token-file",
    });
  }
  const log = options.log ?? ((line: string) => process.stderr.write(line.endsWith("\n") ? line : line + "\n"));
  const sessions = new Map<string, McpSession>();
  const limiter = new RateLimiter(options.rateLimit.requests, options.rateLimit.windowMs);
  const accessLog = options.accessLog === undefined ? undefined : fs.openSync(options.accessLog, "a", 0o600);
  const record = (entry: Record<string, unknown>) => {
    if (accessLog === undefined) return;
    try {
      fs.writeSync(accessLog, JSON.stringify({ time: new Date().toISOString(), ...entry }) + "\n");
    } catch {
      // A full disk must not take the server down; the request itself was answered.
    }
  };

  const newSession = (pinned: string | undefined): McpSession => {
    const session: McpSession = { pinnedSession: pinned, transport: undefined as unknown as StreamableHTTPServerTransport };
    const { server } = createMcpServer({
      eventloomPath: options.eventloomPath,
      sessionId: pinned ?? options.sessionId,
      profile: options.profile,
      log,
      adminToken: options.adminToken,
      beforeCall: async (name, args) => {
        if (pinned !== undefined) {
          const named = typeof args.session_id === "string" ? args.session_id : typeof args.thread === "string" ? args.thread : undefined;
          if (named !== undefined && named !== pinned) {
            throw inputError("session_scope", `This connection is scoped to session ${JSON.stringify(pinned)} (${sessionHeader}); it may not use session ${JSON.stringify(named)}`, {
              field: "session_id",
              hint: `omit session_id, or open a connection with ${sessionHeader}: ${named}`,
            });
          }
        }
        await options.beforeCall?.(name, pinned !== undefined && args.session_id === undefined ? { ...args, session_id: pinned } : args);
      },
    });
    session.transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: true,
      onsessioninitialized: (id: string) => void sessions.set(id, session),
    } as ConstructorParameters<typeof StreamableHTTPServerTransport>[0]);
    session.transport.onclose = () => {
      const id = session.transport.sessionId;
      if (id !== undefined) sessions.delete(id);
    };
    void server.connect(session.transport);
    return session;
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const started = performance.now();
    const client = req.socket.remoteAddress ?? "unknown";
    let tool: string | undefined;
    let mcpSession = req.headers["mcp-session-id"];
    res.on("finish", () => record({ client, method: req.method, path: req.url, status: res.statusCode, ms: Math.round(performance.now() - started), mcp_session: mcpSession ?? null, tool: tool ?? null }));
    const wait = limiter.retryAfterMs(client);
    if (wait > 0) return jsonError(res, 429, "too many requests", { "retry-after": String(Math.ceil(wait / 1000)) });
    if (options.token !== undefined) {
      const header = req.headers.authorization ?? "";
      const given = /^Bearer (.+)$/.exec(header)?.[1] ?? "";
      if (!sameToken(given, options.token)) return jsonError(res, 401, "missing or wrong bearer token", { "www-authenticate": "Bearer" });
    }
    if (req.url !== "/mcp" && !req.url?.startsWith("/mcp?")) return jsonError(res, 404, "the MCP endpoint is /mcp");
    if (req.method === "DELETE" || req.method === "GET") {
      const existing = typeof mcpSession === "string" ? sessions.get(mcpSession) : undefined;
      if (existing === undefined) return jsonError(res, 404, "unknown MCP session");
      return await existing.transport.handleRequest(req, res);
    }
    if (req.method !== "POST") return jsonError(res, 405, `method ${req.method} is not allowed on /mcp`, { allow: "GET, POST, DELETE" });
    const raw = await readBody(req, res, options.maxRequestBytes);
    if (raw === undefined) return;
    let body: unknown;
    try {
      body = JSON.parse(raw.toString("utf8"));
    } catch {
      return jsonError(res, 400, "Parse error: the body is not JSON");
    }
    tool = toolName(body);
    const repeated = tool === undefined ? null : repeatedKey(raw.toString("utf8"));
    if (repeated !== null) {
      const id = (body as { id?: unknown }).id;
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", id: typeof id === "string" || typeof id === "number" ? id : null, error: { code: -32602, message: repeatedKeyMessage("tools/call", repeated) } }));
      return;
    }
    let session = typeof mcpSession === "string" ? sessions.get(mcpSession) : undefined;
    if (session === undefined) {
      if (typeof mcpSession === "string") return jsonError(res, 404, "unknown MCP session; initialize again");
      if (!isInitializeRequest(body)) return jsonError(res, 400, "no MCP session: send initialize first");
      const pinned = req.headers[sessionHeader];
      if (pinned !== undefined) {
        try {
          validateSessionId(String(pinned), "scope to");
        } catch (error) {
          return jsonError(res, 400, (error as Error).message);
        }
      }
      session = newSession(pinned === undefined ? undefined : String(pinned));
    }
    await session.transport.handleRequest(req, res, body);
    mcpSession = session.transport.sessionId;
  };

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error) => {
      log(`zaxy serve --http: ${(error as Error).message}`);
      jsonError(res, 500, "internal error");
    });
  });
  server.requestTimeout = 120_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error) => reject(ioError("listen_failed", `Cannot listen on ${options.host}:${options.port}: ${(error as Error).message}`, { field: "--http" })));
    server.listen(options.port, options.host, () => resolve());
  });
  return {
    address: server.address() as AddressInfo,
    close: async () => {
      for (const session of sessions.values()) await session.transport.close().catch(() => {});
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (accessLog !== undefined) fs.closeSync(accessLog);
    },
  };
}
