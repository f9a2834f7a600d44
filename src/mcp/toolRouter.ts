/**
 * Lists and calls the registered tools. Independent of the transport and of the SDK's own
 * argument handling: every call is validated here against the tool's zod schema, so schema
 * failures, unknown tools and thrown errors all come back as the same `isError` result shape,
 * and a bad call never reaches the library or takes the server down. A pinned connection's calls
 * are also held to its session here (sessionPin.ts), before anything is read or written.
 */
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod";
import { argumentsUsage, invalidArgumentsError, type SchemaIssue, ToolError, toolErrorResult, toolResult, toToolError } from "./errors.ts";
import { listedTools, type ToolProfile } from "./profiles.ts";
import { pinnedResult, refuseOutsidePin, requirePinnedLog } from "./sessionPin.ts";
import type { AnyToolDefinition, ToolContext } from "./tool.ts";

interface PreparedTool {
  definition: AnyToolDefinition;
  /** What `tools/list` advertises. */
  listing: Tool;
  /** Remediation for schema failures. */
  usage: string;
}

export interface ToolRouterOptions {
  tools: readonly AnyToolDefinition[];
  profile: ToolProfile;
  context: ToolContext;
  /** Diagnostics (every failure but bad input); the server sends them to stderr. */
  log: (line: string) => void;
  /** Also log stacks of internal errors (env `ZAXY_DEBUG`). */
  debug?: boolean;
  /** Run after each call has finished, before the next starts. */
  afterCall?: () => void;
  /**
   * Run before each call's handler (a store's server brings its mirror up to date there, so
   * events other hosts appended are seen); a failure is the call's error.
   */
  beforeCall?: (name: string, args: Record<string, unknown>) => Promise<void>;
  /**
   * The session this connection is pinned to (HTTP `x-zaxy-session-id`): every call is held to
   * it by `sessionPinRules` (sessionPin.ts). `context.sessionId` must be the same session.
   */
  sessionPin?: string;
}

/** The advertised JSON Schema of a tool's input: draft 2020-12 (MCP's default), no `$schema`. */
export function inputJsonSchema(definition: AnyToolDefinition): Tool["inputSchema"] {
  const schema = z.toJSONSchema(definition.inputSchema, { io: "input" }) as Record<string, unknown>;
  delete schema.$schema;
  if (schema.type !== "object" || schema.additionalProperties !== false) {
    throw new Error(`tool ${definition.name}: inputSchema must be a z.strictObject (additionalProperties false)`);
  }
  return schema as Tool["inputSchema"];
}

/**
 * Prepared once per definition and shared by every router: `serve --http` builds a router per
 * MCP session, and the JSON Schemas (about 150 KB for the full registry) are the same for all.
 * The listings are never mutated after this.
 */
const preparedTools = new WeakMap<AnyToolDefinition, PreparedTool>();

function prepare(definition: AnyToolDefinition): PreparedTool {
  const cached = preparedTools.get(definition);
  if (cached !== undefined) return cached;
  const prepared = prepareUncached(definition);
  preparedTools.set(definition, prepared);
  return prepared;
}

function prepareUncached(definition: AnyToolDefinition): PreparedTool {
  const inputSchema = inputJsonSchema(definition);
  const listing: Tool = { name: definition.name, description: definition.description, inputSchema };
  if (definition.outputSchema !== undefined) {
    const outputSchema = z.toJSONSchema(definition.outputSchema, { io: "output" }) as Record<string, unknown>;
    delete outputSchema.$schema;
    listing.outputSchema = outputSchema as Tool["outputSchema"];
  }
  if (definition.annotations !== undefined) listing.annotations = definition.annotations;
  return { definition, listing, usage: argumentsUsage(definition.name, inputSchema as Parameters<typeof argumentsUsage>[1]) };
}

/**
 * The result with its document as `structuredContent`, after checking it against the tool's
 * declared output schema: a document that does not match is a bug (internal_error), never
 * something a client would have to reject. A tool with `contentText` gets that text as
 * `content` instead of the document's JSON.
 */
function structured(name: string, definition: AnyToolDefinition, result: CallToolResult): CallToolResult {
  if (definition.outputSchema === undefined) return result;
  const text = (result.content[0] as { text: string }).text;
  const document = JSON.parse(text) as Record<string, unknown>;
  const checked = definition.outputSchema.safeParse(document);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    throw new Error(`${name}: its result does not match its outputSchema (${issue.path.join(".") || "(top)"}: ${issue.message})`);
  }
  if (definition.contentText === undefined) return { ...result, structuredContent: document };
  return { ...result, content: [{ type: "text", text: definition.contentText(document) }], structuredContent: document };
}

export class ToolRouter {
  readonly #byName: Map<string, PreparedTool>;
  readonly #listed: Tool[];
  readonly #options: ToolRouterOptions;
  /** The last call queued (it never rejects, so one failure cannot stall the calls after it). */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: ToolRouterOptions) {
    if (options.sessionPin !== undefined && options.context.sessionId !== options.sessionPin) {
      throw new Error(`a router pinned to session ${options.sessionPin} must default to it, not to ${options.context.sessionId}`);
    }
    this.#options = options;
    this.#byName = new Map();
    for (const definition of options.tools) {
      if (this.#byName.has(definition.name)) throw new Error(`tool ${definition.name} is registered twice`);
      this.#byName.set(definition.name, prepare(definition));
    }
    this.#listed = listedTools(options.profile, [...this.#byName.values()].map((p) => p.listing));
  }

  /** The tools the profile lists. */
  list(): Tool[] {
    return this.#listed;
  }

  /**
   * Calls a tool by name (listed or not). Never throws: failures are `isError` results. Calls
   * run one at a time in the order they arrive, so an agent that pipelines an append and a
   * replay sees the replay include the append, as it would over a sequential CLI.
   */
  call(name: string, args: Record<string, unknown> | undefined): Promise<CallToolResult> {
    const call = this.#queue
      .then(() => this.#call(name, args ?? {}))
      .catch((error: unknown) => toolErrorResult(toToolError(error, name)))
      .finally(() => this.#options.afterCall?.());
    this.#queue = call;
    return call;
  }

  /** Resolves once every call received so far has finished (to answer them all before exiting). */
  async idle(): Promise<void> {
    let last: Promise<unknown>;
    do {
      last = this.#queue;
      await last;
    } while (last !== this.#queue);
  }

  async #call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    const prepared = this.#byName.get(name);
    if (prepared === undefined) {
      const names = [...this.#byName.keys()];
      return toolErrorResult(
        new ToolError(
          "unknown_tool",
          `Unknown tool ${JSON.stringify(name)}`,
          `Call one of: ${names.join(", ")}. tools/list shows the "${this.#options.profile}" profile; every tool is callable by name.`,
        ),
      );
    }
    const parsed = prepared.definition.inputSchema.safeParse(args);
    if (!parsed.success) {
      return toolErrorResult(invalidArgumentsError(name, parsed.error.issues as SchemaIssue[], args, prepared.usage));
    }
    const pin = this.#options.sessionPin;
    try {
      if (pin !== undefined) refuseOutsidePin(name, args, pin);
      await this.#options.beforeCall?.(name, args);
      if (pin !== undefined) requirePinnedLog(name, args, pin, this.#options.context.eventloomPath);
      let document = await prepared.definition.run(args, this.#options.context);
      if (pin !== undefined) document = pinnedResult(name, document, pin);
      return structured(name, prepared.definition, toolResult(document));
    } catch (error) {
      const toolError = toToolError(error, name);
      // Bad input is the caller's business; a failed check, an I/O failure or a bug is also the operator's.
      if (toolError.code !== "invalid_request") {
        this.#options.log(`zaxy serve: ${name}: ${toolError.message}`);
        if (this.#options.debug && error instanceof Error && error.stack) this.#options.log(error.stack);
      }
      return toolErrorResult(toolError);
    }
  }
}
