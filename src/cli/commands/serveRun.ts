/** What serve.ts's command does: imported when the command runs, so start-up loads only the command tree. */
import { inputError } from "../../errors.ts";
import { parseCitationUri, readFleetEnabled, validateSessionId } from "../../eventloom/root.ts";
import { defaultToolProfile, isToolProfile, type ToolProfile, toolProfiles } from "../../mcp/profiles.ts";
import { httpShutdownMs } from "../../limits.ts";
import { syncForCall } from "../../store/syncPolicy.ts";
import { choiceOption, intOption } from "../args.ts";
import { type CommandContext, listOption, stringOption } from "../command.ts";

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

export async function runServe(ctx: CommandContext): Promise<number> {
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
    // memory_get may name another session's event: that thread is read (and checked) too.
    const cited = name === "memory_get" && typeof args.citation === "string" ? parseCitationUri(args.citation.trim())?.thread : undefined;
    await syncForCall(store, {
      sessionIds: cited === undefined ? [sessionId] : [sessionId, cited],
      fleet: name.startsWith("fleet"),
      readsEveryThread: name === "memory_sessions",
      fleetEnabled: () => fleetEnabled,
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
}
