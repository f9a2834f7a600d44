/**
 * `zaxy serve [--profile core|full] [--transport stdio]`: the MCP server on stdio (DESIGN §11).
 * stdout carries protocol messages only. The server module (and with it the MCP SDK) is
 * imported only when this command runs, so no other command pays for it at start-up.
 */
import { defaultToolProfile } from "../../mcp/profiles.ts";
import { httpReadTimeoutMs, httpSessionIdleMs, httpSessionsMax, httpShutdownMs } from "../../limits.ts";
import { defineCommand } from "../command.ts";

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
    const { runServe } = await import("./serveRun.ts");
    return await runServe(ctx);
  },
});
