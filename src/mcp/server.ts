/**
 * The MCP server behind `zaxy serve`: the official SDK's low-level `Server` on stdio, with
 * `tools/list` and `tools/call` answered by a `ToolRouter` over `toolRegistry`.
 *
 * stdout carries MCP messages only (newline-delimited JSON-RPC, read and written by
 * `StdioLineTransport`, which answers malformed lines itself); every diagnostic goes to stderr,
 * and `console.log` is pointed at stderr so no stray print can corrupt the stream. When stdin
 * ends the server finishes the calls it has received, answers them, and returns.
 *
 * After every tool call the server asks the runtime for a (non-blocking) garbage collection: a
 * checkout leaves about a megabyte of garbage, and JSC sizes its collection threshold by the
 * machine's memory, so on a large host a busy server grew by hundreds of MB between collections
 * (741 MB peak after 1,000 pipelined checkouts of a 1.7k-event session). Collecting per call
 * keeps the resident size at the live data plus one call's garbage, at no measurable cost.
 *
 * This module loads the SDK; `zaxy serve` imports it only when it runs, so other commands do
 * not pay for it at start-up.
 *
 * @example
 * await runMcpServer({ eventloomPath: ".eventloom", sessionId: "default", profile: "core" });
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { Root } from "../eventloom/rootHandle.ts";
import { mcpMessageBytesMax } from "../limits.ts";
import { requestGarbageCollection } from "../platform/mod.ts";
import { zaxyVersion } from "../version.ts";
import type { ToolProfile } from "./profiles.ts";
import { toolRegistry } from "./registry.ts";
import { StdioLineTransport } from "./stdioTransport.ts";
import type { AnyToolDefinition } from "./tool.ts";
import { ToolRouter } from "./toolRouter.ts";

export interface McpServerOptions {
  eventloomPath: string;
  /** Default session for calls that name none. */
  sessionId: string;
  profile: ToolProfile;
  /** Defaults to every registered tool. */
  tools?: readonly AnyToolDefinition[];
  /** Diagnostics sink; defaults to stderr. */
  log?: (line: string) => void;
  /** Run after every tool call (the stdio server collects garbage there). */
  afterCall?: () => void;
  /** Run before every tool call's handler (a store's server catches up with the store there). */
  beforeCall?: (name: string, args: Record<string, unknown>) => Promise<void>;
  /** Admin-gated tools need `admin_token` equal to this (registry.ts). */
  adminToken?: string;
  /** Holds every call to this session (sessionPin.ts); `sessionId` must be the same. */
  sessionPin?: string;
}

/**
 * What `initialize` tells the client's model about using this server: when to read, when to
 * write, when to give feedback. Tool names here are checked against the registry by a test.
 */
export const serverInstructions =
  "Zaxy is your cited, hash-chained memory. At the start of a task and before answering from memory, call " +
  "memory_checkout with what you need to know; use its current_facts and cite their eventloom:// citations. " +
  "Record what happens with memory_append (decisions, task progress, tool results, outcomes) as it happens. " +
  "After using memory, call memory_feedback (used, helpful or irrelevant) on the items you relied on or rejected; " +
  "when a fact stops holding, call memory_invalidate. memory_feeling_of_knowing is a cheap pre-check before a checkout; " +
  "memory_capabilities lists every tool.";

/** Server name reported to clients in `initialize`. */
export const mcpServerName = "zaxy";

function stderrLog(line: string): void {
  process.stderr.write(line.endsWith("\n") ? line : line + "\n");
}

/** A server with its tool handlers registered, not yet connected to a transport. */
export function createMcpServer(options: McpServerOptions): { server: Server; router: ToolRouter } {
  const log = options.log ?? stderrLog;
  const router = new ToolRouter({
    tools: options.tools ?? toolRegistry,
    profile: options.profile,
    context: { eventloomPath: options.eventloomPath, root: Root.of(options.eventloomPath), sessionId: options.sessionId, profile: options.profile, adminToken: options.adminToken },
    log,
    debug: Boolean(process.env.ZAXY_DEBUG),
    afterCall: options.afterCall,
    beforeCall: options.beforeCall,
    sessionPin: options.sessionPin,
  });
  const server = new Server({ name: mcpServerName, version: zaxyVersion }, { capabilities: { tools: { listChanged: false } }, instructions: serverInstructions });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: router.list() }));
  server.setRequestHandler(CallToolRequestSchema, (request) => router.call(request.params.name, request.params.arguments));
  // Protocol-level problems (a malformed line, which the transport has answered; a response
  // nobody waits for) are logged, never fatal.
  // One line each, whatever the SDK put in the message.
  server.onerror = (error) => log(`zaxy serve: ${error.message.replace(/\s*\n\s*/g, " ")}`);
  return { server, router };
}

/** Keeps stdout for protocol messages: anything printed through `console` goes to stderr. */
function routeConsoleToStderr(): void {
  const toStderr = (...values: unknown[]) => console.error(...values);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
  console.warn = toStderr;
}

/** Serves MCP on stdin/stdout until stdin ends. */
export async function runMcpServer(options: {
  eventloomPath: string;
  sessionId: string;
  profile: ToolProfile;
  beforeCall?: (name: string, args: Record<string, unknown>) => Promise<void>;
  adminToken?: string;
}): Promise<void> {
  routeConsoleToStderr();
  const { server, router } = createMcpServer({ ...options, afterCall: requestGarbageCollection });
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
  });
  const transport = new StdioLineTransport(process.stdin, process.stdout, { messageBytesMax: mcpMessageBytesMax });
  transport.onend = async () => {
    // The SDK hands the last requests read to the router a few microtasks later; let it, then
    // let every call finish and its answer be written.
    await new Promise((resolve) => setImmediate(resolve));
    await router.idle();
    await new Promise((resolve) => setImmediate(resolve));
    await server.close();
  };
  await server.connect(transport);
  await closed;
}
