/**
 * `zaxy serve [--profile core|full] [--transport stdio]`: the MCP server on stdio (DESIGN §11).
 * stdout carries protocol messages only. The server module (and with it the MCP SDK) is
 * imported only when this command runs, so no other command pays for it at start-up.
 */
import { inputError } from "../../errors.ts";
import { parseCitationUri } from "../../eventloom/citation.ts";
import { readFleetEnabled } from "../../eventloom/config.ts";
import { validateSessionId } from "../../eventloom/session.ts";
import { defaultToolProfile, isToolProfile, type ToolProfile, toolProfiles } from "../../mcp/profiles.ts";
import { httpReadTimeoutMs, httpSessionIdleMs, httpSessionsMax, httpShutdownMs } from "../../limits.ts";
import { choiceOption, intOption } from "../args.ts";
import { type CommandContext, defineCommand, listOption, stringOption } from "../command.ts";

const transports = ["stdio"] as const;

function profileFrom(flag: ToolProfile | undefined, env: Record<string, string | undefined>): ToolProfile {
  if (flag !== undefined) return flag;
  const fromEnv = env.MCP_TOOL_PROFILE;
  if (fromEnv === undefined || fromEnv === "") return defaultToolProfile;
  if (!isToolProfile(fromEnv)) {
    throw inputError("invalid_option", `MCP_TOOL_PROFILE must be one of ${toolProfiles.join(", ")}, got ${JSON.stringify(fromEnv)}`, {
      field: "MCP_TOOL_PROFILE",
      hint: "Unset MCP_TOOL_PROFILE or pass --profile.",
    });
  }
  return fromEnv;
}

export const serveCommand = defineCommand({
  name: "serve",
  summary: "Serve the memory tools over MCP on stdio, or over HTTP with --http",
  description:
    "Runs an MCP server on stdin/stdout until stdin closes. Tools act on the Eventloom root\n" +
    "(--eventloom-path) and default to the session --session-id. The core profile lists the\n" +
    "front-door tools, full lists all; every tool is callable by name under either profile.\n" +
    "stdout carries MCP messages only; diagnostics go to stderr.\n" +
    "--http HOST:PORT serves Streamable HTTP at http://HOST:PORT/mcp instead, until SIGINT or\n" +
    "SIGTERM: bearer-token auth (--token-file; required for a non-loopback address), a client's\n" +
    "x-zaxy-session-id header scopes it to one session, per-client rate limit, request size\n" +
    "limit, optional JSONL access log ('zaxy help mcp'). It prints the URL on stderr (and\n" +
    "{url} on stdout with --json) once listening. Only requests whose Host (and Origin, when\n" +
    "sent) names the bound address or localhost are answered (403 otherwise; more with\n" +
    "--allowed-host/--allowed-origin). Idle MCP sessions close after --session-idle-timeout, at\n" +
    "most --max-sessions are open, a body must arrive within --read-timeout. On SIGTERM or\n" +
    `SIGINT it stops accepting at once and exits within ${httpShutdownMs / 1000} s, after the calls running finish.`,
  options: {
    profile: {
      type: "string",
      valueName: "core|full",
      description: `Tools listed by tools/list (env MCP_TOOL_PROFILE, default ${defaultToolProfile})`,
    },
    transport: { type: "string", valueName: "stdio", description: "Transport (only stdio; --http serves HTTP)" },
    http: { type: "string", valueName: "HOST:PORT", description: "Serve Streamable HTTP at http://HOST:PORT/mcp (port 0: any free port)" },
    "token-file": { type: "string", valueName: "FILE", description: "Bearer token clients must send (required unless HOST is loopback)" },
    "access-log": { type: "string", valueName: "FILE", description: "Append one JSON line per HTTP request" },
    "max-request-bytes": { type: "string", valueName: "N", description: "Largest request body (default 8388608)" },
    "rate-limit": { type: "string", valueName: "N", description: "Requests per minute per client address, and as many failed-auth requests apart (default 600)" },
    "admin-token-file": { type: "string", valueName: "FILE", description: "Admin token the gated tools need as admin_token (env MCP_ADMIN_TOKEN)" },
    "allowed-host": {
      type: "string",
      multiple: true,
      valueName: "NAME[:PORT]",
      description: "Also answer this Host (and Origin host) besides the bound address and localhost (config http_allowed_hosts)",
    },
    "allowed-origin": { type: "string", multiple: true, valueName: "ORIGIN", description: "Also answer requests from this browser Origin, e.g. https://app.example (config http_allowed_origins)" },
    "session-idle-timeout": { type: "string", valueName: "S", description: `Close an MCP session unused for S seconds (default ${httpSessionIdleMs / 1000})` },
    "max-sessions": { type: "string", valueName: "N", description: `MCP sessions open at once; past it the least recently used idle one is closed (default ${httpSessionsMax})` },
    "read-timeout": { type: "string", valueName: "S", description: `A request body must arrive within S seconds, else 408 and the connection is closed (default ${httpReadTimeoutMs / 1000})` },
  },
  positionals: [],
  examples: [
    "zaxy serve",
    "zaxy serve --profile full --eventloom-path /data/.eventloom --session-id agent-1",
    "zaxy serve --http 127.0.0.1:8787",
    "zaxy serve --http 0.0.0.0:8787 --token-file /etc/zaxy/token --allowed-host zaxy.internal",
  ],
  async run(ctx) {
    const profile = profileFrom(choiceOption(ctx, "profile", toolProfiles), ctx.io.env);
    choiceOption(ctx, "transport", transports);
    validateSessionId(ctx.global.sessionId, "serve");
    const { runMcpServer } = await import("../../mcp/server.ts");
    const store = ctx.global.store;
    const fleetEnabled = store !== undefined && readFleetEnabled(ctx.global.localRoot);
    // With a store, every call first catches the mirror up: events other hosts appended
    // (fleet promotions included) are seen at the next call, without a restart.
    const beforeCall = store === undefined ? undefined : async (name: string, args: Record<string, unknown>) => {
      const sessionId = typeof args.session_id === "string" ? args.session_id : typeof args.thread === "string" ? args.thread : ctx.global.sessionId;
      const fleet = name.startsWith("fleet");
      // memory_get may name another session's event: that thread is read (and checked) too.
      const cited = name === "memory_get" && typeof args.citation === "string" ? parseCitationUri(args.citation.trim())?.thread : undefined;
      await store.sync(cited === undefined ? [sessionId] : [sessionId, cited], {
        auditPrefix: fleet ? "fleet." : undefined,
        everyThread: fleet || fleetEnabled || name === "memory_sessions",
      });
    };
    const adminTokenFile = stringOption(ctx, "admin-token-file");
    const { readTokenFile } = await import("../../mcp/tokens.ts");
    const adminToken = adminTokenFile !== undefined ? readTokenFile(adminTokenFile, "--admin-token-file") : ctx.io.env.MCP_ADMIN_TOKEN || undefined;
    const listen = stringOption(ctx, "http");
    if (listen !== undefined) return await serveHttp(ctx, listen, profile, beforeCall, adminToken);
    for (const flag of ["token-file", "access-log", "max-request-bytes", "rate-limit", "allowed-host", "allowed-origin", "session-idle-timeout", "max-sessions", "read-timeout"]) {
      if (ctx.values[flag] !== undefined) throw inputError("usage", `zaxy serve: --${flag} goes with --http`, { field: `--${flag}` });
    }
    await runMcpServer({ eventloomPath: ctx.global.eventloomPath, sessionId: ctx.global.sessionId, profile, beforeCall, adminToken });
    return 0;
  },
});

/** `--http`: serves until SIGINT or SIGTERM, then closes every MCP session and exits 0. */
async function serveHttp(
  ctx: CommandContext,
  listen: string,
  profile: ToolProfile,
  beforeCall: ((name: string, args: Record<string, unknown>) => Promise<void>) | undefined,
  adminToken: string | undefined,
): Promise<number> {
  const { defaultHttpLimits, parseListenAddress, startHttpMcpServer } = await import("../../mcp/httpServer.ts");
  const { readTokenFile } = await import("../../mcp/tokens.ts");
  const { readAllowedHostsConfig } = await import("../../mcp/httpHostPolicy.ts");
  const { host, port } = parseListenAddress(listen);
  const tokenFile = stringOption(ctx, "token-file");
  const perMinute = intOption(ctx, "rate-limit", 1, 1_000_000);
  const configured = readAllowedHostsConfig(ctx.global.localRoot);
  const idleSeconds = intOption(ctx, "session-idle-timeout", 1, 7 * 24 * 3600);
  const readSeconds = intOption(ctx, "read-timeout", 1, 3600);
  const server = await startHttpMcpServer({
    eventloomPath: ctx.global.eventloomPath,
    sessionId: ctx.global.sessionId,
    profile,
    host,
    port,
    token: tokenFile === undefined ? undefined : readTokenFile(tokenFile),
    maxRequestBytes: intOption(ctx, "max-request-bytes", 1024, 1 << 30) ?? defaultHttpLimits.maxRequestBytes,
    rateLimit: perMinute === undefined ? defaultHttpLimits.rateLimit : { requests: perMinute, windowMs: 60_000 },
    accessLog: stringOption(ctx, "access-log"),
    adminToken,
    allowedHosts: [...configured.hosts, ...listOption(ctx, "allowed-host")],
    allowedOrigins: [...configured.origins, ...listOption(ctx, "allowed-origin")],
    sessionIdleMs: idleSeconds === undefined ? undefined : idleSeconds * 1000,
    sessionsMax: intOption(ctx, "max-sessions", 1, 1_000_000),
    readTimeoutMs: readSeconds === undefined ? undefined : readSeconds * 1000,
    beforeCall,
  });
  const shownHost = server.address.family === "IPv6" ? `[${server.address.address}]` : server.address.address;
  const url = `http://${shownHost}:${server.address.port}/mcp`;
  ctx.io.stderr(`zaxy serve: listening on ${url}${tokenFile === undefined ? " (loopback, no token)" : ""}\n`);
  if (ctx.global.json) ctx.io.stdout(JSON.stringify({ schema: "zaxy.serve.http.v1", url, profile }) + "\n");
  // The handlers stay installed while draining: a second signal must not cut a running append short.
  let stop = () => {};
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const onSignal = () => stop();
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  await stopped;
  ctx.io.stderr("zaxy serve: stopping (no new connections; finishing the calls running)\n");
  const { drained } = await server.close();
  process.off("SIGINT", onSignal);
  process.off("SIGTERM", onSignal);
  if (!drained) {
    ctx.io.stderr(`zaxy serve: calls still running after ${httpShutdownMs / 1000} s were cut off\n`);
    // A call stuck on a lock must not keep the process alive past the documented bound.
    setTimeout(() => process.exit(0), 100).unref();
  }
  ctx.io.stderr("zaxy serve: stopped\n");
  return 0;
}
