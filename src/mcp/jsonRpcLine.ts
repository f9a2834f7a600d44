/**
 * One line of newline-delimited JSON-RPC 2.0, read the way `zaxy serve` reads it: either a
 * message for the MCP SDK, or the JSON-RPC error reply the line gets instead, or nothing (a
 * blank line, or a malformed message the protocol says must not be answered).
 *
 * Never thrown, always answered (JSON-RPC 2.0 §5, §5.1):
 *   -32700 Parse error      not UTF-8, or not JSON (also a line cut short); `id` null
 *   -32600 Invalid Request  JSON that is not one request: `[]`, a batch, `"jsonrpc"` missing or
 *                           not "2.0", a non-string `method`, an `id` that is neither a string nor
 *                           an integer, unknown top-level members; `id` is the request's when it
 *                           can be read, else null
 *   -32602 Invalid params   a request the server handles whose `params` fail its schema (a
 *                           `tools/call` whose `arguments` is not an object), or a `tools/call`
 *                           that gives one key twice in an object; the request's `id`
 *
 * Batches (JSON arrays) are refused as a whole with one -32600: MCP 2025-06-18 removed JSON-RPC
 * batching, and answering each item would need an array reply no MCP client reads.
 * Notifications (no `id`) with bad params and malformed responses are never answered (a
 * notification has no one to answer); they are reported as diagnostics.
 *
 * @example
 * readJsonRpcLine(new TextEncoder().encode("[]"))
 * // { kind: "reply", reply: { jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid Request: ..." } }, diagnostic: "..." }
 */
import {
  CallToolRequestSchema,
  CancelledNotificationSchema,
  ErrorCode,
  InitializedNotificationSchema,
  InitializeRequestSchema,
  JSONRPCErrorResponseSchema,
  type JSONRPCMessage,
  JSONRPCNotificationSchema,
  JSONRPCRequestSchema,
  JSONRPCResultResponseSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  ProgressNotificationSchema,
  RootsListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { repeatedKey, repeatedKeyMessage } from "./duplicateKeys.ts";
import { describeIssue, type SchemaIssue } from "./errors.ts";

/** A request id as MCP allows it: a string or an integer (never null). */
export type JsonRpcId = string | number;

export interface JsonRpcErrorReply {
  jsonrpc: "2.0";
  id: JsonRpcId | null;
  error: { code: number; message: string };
}

export type LineOutcome =
  | { kind: "message"; message: JSONRPCMessage }
  | { kind: "reply"; reply: JsonRpcErrorReply; diagnostic: string }
  | { kind: "ignore"; diagnostic?: string };

interface MethodSchema {
  safeParse(value: unknown): { success: boolean; error?: { issues: unknown[] } };
}

/**
 * Schemas of the requests `zaxy serve` answers and of the notifications a client sends, checked
 * here so a bad request is -32602 (not the SDK's -32603 with a zod dump) and a bad notification
 * one readable diagnostic line.
 */
const methodSchemas: { request: ReadonlyMap<string, MethodSchema>; notification: ReadonlyMap<string, MethodSchema> } = {
  request: new Map<string, MethodSchema>([
    ["initialize", InitializeRequestSchema],
    ["ping", PingRequestSchema],
    ["tools/list", ListToolsRequestSchema],
    ["tools/call", CallToolRequestSchema],
  ]),
  notification: new Map<string, MethodSchema>([
    ["notifications/initialized", InitializedNotificationSchema],
    ["notifications/cancelled", CancelledNotificationSchema],
    ["notifications/progress", ProgressNotificationSchema],
    ["notifications/roots/list_changed", RootsListChangedNotificationSchema],
  ]),
};

const messageKeys = new Set(["jsonrpc", "id", "method", "params", "result", "error"]);

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** The JSON-RPC error reply with `code`. */
export function errorReply(id: JsonRpcId | null, code: number, message: string): JsonRpcErrorReply {
  return { jsonrpc: "2.0", id, error: { code, message } };
}

function reply(id: JsonRpcId | null, code: number, message: string): LineOutcome {
  return { kind: "reply", reply: errorReply(id, code, message), diagnostic: `answered ${code} (id ${JSON.stringify(id)}): ${message}` };
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? value.slice(0, 40) + "…" : value);
  if (typeof value === "object") return "an object";
  return String(value);
}

function isRequestId(value: unknown): value is JsonRpcId {
  return typeof value === "string" || (typeof value === "number" && Number.isInteger(value));
}

/** Each problem once (the envelope and the params schema may both report a bad `params`). */
function issuesText(issues: readonly unknown[], root: unknown): string {
  const sentences = issues.map((issue) => {
    const schemaIssue = issue as SchemaIssue;
    // describeIssue names the root "arguments" (a tool call's); here the root is the message.
    return schemaIssue.path.length === 0 ? `the message: ${schemaIssue.message}` : describeIssue(schemaIssue, root);
  });
  return [...new Set(sentences)].join("; ");
}

function firstPathPart(issue: unknown): unknown {
  return (issue as SchemaIssue).path?.[0];
}

/** Why `value` (not a response) is not one JSON-RPC request or notification, or null when its envelope is sound. */
function envelopeProblem(value: Record<string, unknown>): string | null {
  if (!Object.hasOwn(value, "jsonrpc")) return `"jsonrpc" is required and must be "2.0"`;
  if (value.jsonrpc !== "2.0") return `"jsonrpc" must be "2.0", got ${describe(value.jsonrpc)}`;
  if (Object.hasOwn(value, "id") && !isRequestId(value.id)) return `"id" must be a string or an integer, got ${describe(value.id)}`;
  const unknown = Object.keys(value).filter((key) => !messageKeys.has(key));
  if (unknown.length > 0) return `unknown member${unknown.length === 1 ? "" : "s"} ${unknown.map((k) => JSON.stringify(k)).join(", ")}`;
  if (Object.hasOwn(value, "method")) {
    if (typeof value.method !== "string") return `"method" must be a string, got ${describe(value.method)}`;
    if (Object.hasOwn(value, "result") || Object.hasOwn(value, "error")) return `a request has "method", a response "result" or "error", never both`;
    if (Object.hasOwn(value, "params") && (value.params === null || typeof value.params !== "object")) {
      return `"params" must be an object, got ${describe(value.params)}`;
    }
    return null;
  }
  return `a message needs "method" (a request or notification) or "result"/"error" (a response)`;
}

/** Reads one line (without its "\n"). */
export function readJsonRpcLine(bytes: Uint8Array): LineOutcome {
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    return reply(null, ErrorCode.ParseError, "Parse error: the line is not valid UTF-8");
  }
  if (text.trim() === "") return { kind: "ignore" };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return reply(null, ErrorCode.ParseError, `Parse error: the line is not valid JSON (${reason})`);
  }
  if (Array.isArray(value)) {
    return reply(
      null,
      ErrorCode.InvalidRequest,
      value.length === 0
        ? "Invalid Request: an empty array is not a request"
        : "Invalid Request: batches (JSON arrays) are not supported; send one JSON-RPC message per line",
    );
  }
  if (value === null || typeof value !== "object") {
    return reply(null, ErrorCode.InvalidRequest, `Invalid Request: a JSON-RPC message must be an object, got ${describe(value)}`);
  }
  const object = value as Record<string, unknown>;
  if (object.jsonrpc === "2.0" && !Object.hasOwn(object, "method") && (Object.hasOwn(object, "result") || Object.hasOwn(object, "error"))) {
    // A response (to a request of ours, or a client's reply to an error): never answered, even
    // when malformed, or two peers could trade error replies forever. The SDK matches it.
    const parsed = (Object.hasOwn(object, "error") ? JSONRPCErrorResponseSchema : JSONRPCResultResponseSchema).safeParse(object);
    if (!parsed.success) return { kind: "ignore", diagnostic: `ignored a malformed response: ${issuesText(parsed.error.issues, object)}` };
    return { kind: "message", message: parsed.data as JSONRPCMessage };
  }
  const id = isRequestId(object.id) ? object.id : null;
  const problem = envelopeProblem(object);
  if (problem !== null) return reply(id, ErrorCode.InvalidRequest, `Invalid Request: ${problem}`);
  const method = object.method as string;
  const isRequest = Object.hasOwn(object, "id");
  const envelope = (isRequest ? JSONRPCRequestSchema : JSONRPCNotificationSchema).safeParse(object);
  const paramsSchema = (isRequest ? methodSchemas.request : methodSchemas.notification).get(method);
  const params = paramsSchema?.safeParse({ method, ...(Object.hasOwn(object, "params") ? { params: object.params } : {}) });
  const issues = [...(envelope.success ? [] : envelope.error.issues), ...(params === undefined || params.success ? [] : params.error?.issues ?? [])];
  if (issues.length === 0) {
    const repeated = isRequest && method === "tools/call" ? repeatedKey(text) : null;
    if (repeated !== null) return reply(id, ErrorCode.InvalidParams, repeatedKeyMessage(method, repeated));
    return { kind: "message", message: envelope.data as JSONRPCMessage };
  }
  const paramsOnly = issues.every((issue) => firstPathPart(issue) === "params");
  const detail = issuesText(issues, object);
  if (!isRequest) return { kind: "ignore", diagnostic: `ignored notification ${JSON.stringify(method)}: ${detail}` };
  return paramsOnly
    ? reply(id, ErrorCode.InvalidParams, `Invalid params for ${JSON.stringify(method)}: ${detail}`)
    : reply(id, ErrorCode.InvalidRequest, `Invalid Request: ${detail}`);
}
