/**
 * The shape of an MCP tool. A tool is one module under `src/mcp/tools/` that declares a strict
 * zod input schema and a `run` that only calls the library; `registry.ts` lists every tool.
 * Validation, JSON Schema advertising, result encoding and error mapping live in the server, so
 * a tool never sees unvalidated arguments and never formats an MCP result itself.
 */
import type * as z from "zod";
import type { Root } from "../eventloom/rootHandle.ts";

/** What every call runs against: the server's Eventloom root and default session. */
export interface ToolContext {
  eventloomPath: string;
  /** The server's handle on that root (rootHandle.ts); the process's handle when absent. */
  root?: Root;
  /** Used when a call names no session. */
  sessionId: string;
  /** The profile `tools/list` follows (memory_capabilities reports it); core when absent. */
  profile?: "core" | "full";
  /** When set, admin-gated tools (registry.ts) need `admin_token` equal to it. */
  adminToken?: string;
}

/** MCP tool annotations (hints for clients; never trusted for security). */
export interface ToolHints {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface ToolDefinition<Schema extends z.ZodObject = z.ZodObject> {
  name: string;
  description: string;
  /** A strict object (`z.strictObject`), so the advertised schema has `additionalProperties: false`. */
  inputSchema: Schema;
  annotations?: ToolHints;
  /**
   * The top level of the result document (outputSchemas.ts): advertised as `outputSchema`, checked
   * before each answer, and the document returned as `structuredContent` beside the text.
   */
  outputSchema?: z.ZodObject;
  /**
   * The `content` text of a result, from its checked document, for a tool whose document carries
   * its own text for a reader (a checkout's `prompt`): a client that reads only `content` gets
   * that text, and the document is in `structuredContent`. Without it, `content` is the document
   * as JSON text.
   */
  contentText?: (document: Record<string, unknown>) => string;
  /**
   * Runs the tool. `args` are the caller's own values after they passed `inputSchema` (not
   * zod's copy, which drops keys such as `__proto__`; payload keys must reach the log exactly),
   * so defaults declared in the schema are applied here. Returns the result document (plain data,
   * `Map`s and `JsonNumber`s allowed); throws `ZaxyError` for expected failures.
   */
  run(args: z.input<Schema>, ctx: ToolContext): Promise<unknown>;
}

/** A tool of any schema, as the registry holds it. */
// deno-lint-ignore no-explicit-any
export type AnyToolDefinition = ToolDefinition<any>;

/**
 * @example
 * export const pingTool = defineTool({
 *   name: "ping",
 *   description: "Answers pong",
 *   inputSchema: z.strictObject({}),
 *   run: async () => ({ pong: true }),
 * });
 */
export function defineTool<Schema extends z.ZodObject>(definition: ToolDefinition<Schema>): ToolDefinition<Schema> {
  return definition;
}
