/**
 * MCP tool errors. A failed call is a normal tool result with `isError: true` and one text block
 * holding exactly `{"error": {"code", "message", "remediation"}}`, never a JSON-RPC error, so an
 * agent can read and act on it. Codes are fixed snake_case strings:
 *   invalid_request  bad arguments (schema failures, and library errors with exit code 2);
 *                    nothing was written
 *   unknown_tool     no tool has that name
 *   <library code>   any other expected failure keeps the library's own code: a check that
 *                    said no (exit 1: `integrity_failure` for a log that fails verification,
 *                    `torn_tail`, `corrupt_tail`, ...) or an I/O failure (exit 3: `lock_timeout`,
 *                    `write_failed`, ...), exactly as `zaxy --json` reports it
 *   internal_error   anything else: a bug in zaxy; the message carries no stack
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { displayJson } from "../canonical/displayJson.ts";
import { ExitCode, fieldsNamedBy, isZaxyError } from "../errors.ts";

/** The base codes, or a library error's own code (`integrity_failure`, `lock_timeout`, ...). */
export type ToolErrorCode = "invalid_request" | "unknown_tool" | "internal_error" | (string & {});

/** An error a tool call reports as its result. */
export class ToolError extends Error {
  readonly code: ToolErrorCode;
  readonly remediation: string;

  constructor(code: ToolErrorCode, message: string, remediation: string) {
    super(message);
    this.name = "ToolError";
    this.code = code;
    this.remediation = remediation;
  }
}

/** A successful result: one text block with the document as JSON. */
export function toolResult(document: unknown): CallToolResult {
  return { content: [{ type: "text", text: displayJson(document) }] };
}

/** The `isError` result for `error`. */
export function toolErrorResult(error: ToolError): CallToolResult {
  const body = { error: { code: error.code, message: error.message, remediation: error.remediation } };
  return { content: [{ type: "text", text: displayJson(body) }], isError: true };
}

/**
 * Maps anything a tool threw to a `ToolError`. `ZaxyError`s with exit code 2 are bad input
 * (`invalid_request`); other `ZaxyError`s keep their own code (a failed check or an I/O failure
 * is neither bad input nor a bug); anything else is `internal_error` (message kept, stack not).
 */
export function toToolError(thrown: unknown, toolName: string): ToolError {
  if (thrown instanceof ToolError) return thrown;
  if (isZaxyError(thrown)) {
    // MCP arguments are the library's field keys, so only the quotes go.
    const error = fieldsNamedBy(thrown, () => undefined);
    if (error.exitCode === ExitCode.badInput) {
      const field = error.details.field;
      const remediation =
        error.hint ??
        `Correct ${field === undefined ? "the arguments" : `"${field}"`} and call ${toolName} again; nothing was written.`;
      return new ToolError("invalid_request", error.message, remediation);
    }
    if (error.exitCode === ExitCode.checkFailed) {
      return new ToolError(
        error.code,
        error.message,
        error.hint ?? `Nothing was changed. Check the session's log with memory_verify (or \`zaxy verify\`) before calling ${toolName} again.`,
      );
    }
    return new ToolError(
      error.code,
      error.message,
      error.hint ?? `Retry ${toolName}; if it keeps failing, check the Eventloom directory and the server's stderr.`,
    );
  }
  const message = thrown instanceof Error ? thrown.message : String(thrown);
  return new ToolError(
    "internal_error",
    `${toolName} failed: ${message}`,
    "This is a bug in zaxy, not in the call. Retry once; if it persists, report it with the server's stderr.",
  );
}

/** A zod issue, as far as messages need it (zod 4 `$ZodIssue`). */
export interface SchemaIssue {
  code: string;
  path: PropertyKey[];
  message: string;
  expected?: string;
  keys?: string[];
  origin?: string;
  minimum?: number | bigint;
  maximum?: number | bigint;
  inclusive?: boolean;
  values?: unknown[];
  format?: string;
  pattern?: string;
}

/** `events[0].payload`; the top level is `arguments`. */
export function fieldPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out === "" ? String(part) : `.${String(part)}`;
  }
  return out === "" ? "arguments" : out;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value = root;
  for (const part of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = Object.hasOwn(value, part) ? (value as Record<PropertyKey, unknown>)[part] : undefined;
  }
  return value;
}

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return `the string ${JSON.stringify(value.length > 40 ? value.slice(0, 40) + "…" : value)}`;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

const expectedNames: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "an integer",
  boolean: "a boolean",
  record: "an object",
  object: "an object",
  array: "an array",
};

function quoteList(values: readonly unknown[]): string {
  return values.map((v) => JSON.stringify(v)).join(", ");
}

/** One issue as a sentence that names the field and what was expected. */
export function describeIssue(issue: SchemaIssue, args: unknown): string {
  const field = fieldPath(issue.path);
  const actual = valueAt(args, issue.path);
  switch (issue.code) {
    case "invalid_type": {
      const expected = expectedNames[issue.expected ?? ""] ?? issue.expected ?? "another type";
      if (actual === undefined) return `${field} is required (${expected})`;
      return `${field} must be ${expected}, got ${describeValue(actual)}`;
    }
    case "unrecognized_keys": {
      const keys = issue.keys ?? [];
      const where = issue.path.length === 0 ? "" : ` in ${field}`;
      return `unknown field${keys.length === 1 ? "" : "s"} ${quoteList(keys)}${where}`;
    }
    case "too_small":
    case "too_big": {
      const small = issue.code === "too_small";
      const bound = small ? issue.minimum : issue.maximum;
      if (issue.origin === "array") {
        return `${field} must have ${small ? "at least" : "at most"} ${bound} item${bound === 1 ? "" : "s"}${Array.isArray(actual) ? `, got ${actual.length}` : ""}`;
      }
      if (issue.origin === "string") {
        if (small && bound === 1) return `${field} must be a non-empty string`;
        return `${field} must be ${small ? "at least" : "at most"} ${bound} characters${typeof actual === "string" ? `, got ${actual.length}` : ""}`;
      }
      const op = small ? (issue.inclusive === false ? ">" : ">=") : issue.inclusive === false ? "<" : "<=";
      return `${field} must be ${op} ${bound}, got ${describeValue(actual)}`;
    }
    case "invalid_value":
      return `${field} must be one of ${quoteList(issue.values ?? [])}, got ${describeValue(actual)}`;
    case "custom":
      // Our own refinements phrase the rest of the sentence ("nests more than 512 levels deep ...").
      return `${field} ${issue.message}`;
    case "invalid_format":
      return issue.pattern !== undefined
        ? `${field} must match ${issue.pattern}, got ${describeValue(actual)}`
        : `${field} must be a valid ${issue.format ?? "value"}, got ${describeValue(actual)}`;
    default:
      return `${field}: ${issue.message}`;
  }
}

/** The `invalid_request` error for arguments that failed a tool's input schema. */
export function invalidArgumentsError(toolName: string, issues: readonly SchemaIssue[], args: unknown, usage: string): ToolError {
  const problems = issues.map((issue) => describeIssue(issue, args));
  return new ToolError("invalid_request", `Invalid arguments for ${toolName}: ${problems.join("; ")}`, usage);
}

interface JsonSchemaObject {
  properties?: Record<string, { type?: string | string[] }>;
  required?: string[];
}

/**
 * One sentence describing a tool's arguments from its advertised JSON Schema, used as the
 * remediation of schema failures.
 *
 * @example
 * argumentsUsage("memory_verify", { properties: { all_errors: { type: "boolean" } } })
 * // "memory_verify takes all_errors (boolean); no other fields. Its inputSchema is in tools/list."
 */
export function argumentsUsage(toolName: string, schema: JsonSchemaObject): string {
  const required = new Set(schema.required ?? []);
  const fields = Object.entries(schema.properties ?? {}).map(([name, property]) => {
    const type = Array.isArray(property.type) ? property.type.join("|") : property.type ?? "any";
    return `${name} (${type}${required.has(name) ? ", required" : ""})`;
  });
  const takes = fields.length === 0 ? "takes no arguments" : `takes ${fields.join(", ")}; no other fields`;
  return `${toolName} ${takes}. Its inputSchema is in tools/list.`;
}
