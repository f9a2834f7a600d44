/**
 * Starts `zaxy serve` (the zaxy tests/cli/zaxy.ts runs: the built binary `dist/zaxy`, or the
 * sources under Bun with ZAXY_TEST_FROM_SOURCE=1) under the official MCP SDK stdio client for
 * tests (not a test file itself), and calls its tools.
 *
 * Every tool result is one text content block holding a JSON document; `call` returns it parsed
 * with the result's `isError`, `callOk` asserts success, `callError` asserts the exact error
 * shape with the given code. The server's stderr and the client's errors are collected, so a
 * test can assert that nothing but protocol reached stdout and nothing went to stderr.
 *
 * @example
 * after(removeTempDirs);
 * let mcp: McpServer;
 * before(async () => void (mcp = await startMcpServer(tempEventloomRoot("zaxy-mcp-x"), { clientName: "zaxy-x-test" })));
 * after(async () => await mcp?.close());
 * const doc = await mcp.callOk("memory_append", { event_type: "note.added", actor: "a", payload: {} });
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { builtBinary, repoRoot, zaxyInvocation } from "../cli/zaxy.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";

export { builtBinary, removeTempDirs, repoRoot };

/** `false` when dist/zaxy exists, else the reason to skip (for `describe(name, { skip }, fn)`). */
export const skipWithoutBinary: false | string = fs.existsSync(builtBinary)
  ? false
  : `${builtBinary} does not exist; build it with node_modules/.bin/bun build.ts`;

/** Per tool call: the first read of a session loads Kuzu, and a loaded CI machine is slow. */
export const callTimeoutMs = 60_000;

export interface CallOutcome {
  isError: boolean;
  // deno-lint-ignore no-explicit-any
  doc: any;
}

export interface McpError {
  code: string;
  message: string;
  remediation: string;
}

export interface McpServerOptions {
  /** `--profile`; "full" when absent, no flag at all (the server's default, core) when null. */
  profile?: string | null;
  /** More `serve` arguments, after `--eventloom-path ROOT`. */
  args?: string[];
  /** Added to the child's environment (TMPDIR is always passed). */
  env?: Record<string, string>;
  /** The MCP client name the server sees; "zaxy-test" when absent. */
  clientName?: string;
  /**
   * The program to run; when absent, the zaxy the CLI tests run (tests/cli/zaxy.ts: dist/zaxy, or
   * the sources under Bun with ZAXY_TEST_FROM_SOURCE=1).
   */
  command?: string;
}

export interface McpServer {
  client: Client;
  /** The `--eventloom-path` the server was started with. */
  root: string;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  /** Errors the client saw (a non-protocol line on stdout would land here). */
  clientErrors: Error[];
  /** Calls a tool: its one text content block parsed as JSON, and whether it is an error. */
  call(name: string, args: Record<string, unknown>): Promise<CallOutcome>;
  /** Calls a tool, asserts it succeeded, and returns its document. */
  // deno-lint-ignore no-explicit-any
  callOk(name: string, args: Record<string, unknown>): Promise<any>;
  /** Calls a tool, asserts the exact error shape with `code`, and returns the error body. */
  callError(name: string, args: Record<string, unknown>, code: string): Promise<McpError>;
  close(): Promise<void>;
}

/** The tools whose `content` text is their document's `prompt` (the document is `structuredContent`). */
export const promptTextTools: ReadonlySet<string> = new Set(["memory_checkout", "context_assemble"]);

/**
 * The document of a tool result: `structuredContent` for a prompt tool's success, after checking
 * that its one text block is exactly the prompt (what a client reading only `content` gets);
 * else the text block parsed as JSON.
 */
// deno-lint-ignore no-explicit-any
export function resultDocument(name: string, result: { [key: string]: unknown }): any {
  const text = (result.content as Array<{ text: string }>)[0].text;
  if (result.isError === true || !promptTextTools.has(name)) return JSON.parse(text);
  const document = result.structuredContent as { prompt: string };
  assert.equal(text, document.prompt, `${name}: the text block is the prompt`);
  return document;
}

/** `<fresh temp dir>/.eventloom`; the temp dir is removed by `removeTempDirs` (call from `after`). */
export function tempEventloomRoot(label = "zaxy-mcp-test"): string {
  return path.join(makeTempDir(label), ".eventloom");
}

/** Starts `zaxy serve [--profile P] --eventloom-path ROOT [...args]` and connects a client to it. */
export async function startMcpServer(root: string, options: McpServerOptions = {}): Promise<McpServer> {
  const profile = options.profile === undefined ? "full" : options.profile;
  const transport = new StdioClientTransport({
    command: options.command ?? zaxyInvocation.command,
    args: [...(options.command === undefined ? zaxyInvocation.args : []), "serve", ...(profile === null ? [] : ["--profile", profile]), "--eventloom-path", root, ...(options.args ?? [])],
    env: { TMPDIR: os.tmpdir(), ...options.env },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => {
    stderr += new TextDecoder().decode(chunk);
  });
  const client = new Client({ name: options.clientName ?? "zaxy-test", version: "0.0.0" });
  const clientErrors: Error[] = [];
  client.onerror = (error) => clientErrors.push(error);
  await client.connect(transport);

  async function call(name: string, args: Record<string, unknown>): Promise<CallOutcome> {
    const result = await client.callTool({ name, arguments: args }, undefined, { timeout: callTimeoutMs });
    const content = result.content as Array<{ type: string; text: string }>;
    assert.equal(content.length, 1, `one content block expected: ${JSON.stringify(result)}`);
    assert.equal(content[0].type, "text");
    return { isError: result.isError === true, doc: resultDocument(name, result) };
  }

  // deno-lint-ignore no-explicit-any
  async function callOk(name: string, args: Record<string, unknown>): Promise<any> {
    const outcome = await call(name, args);
    assert.equal(outcome.isError, false, `${name} failed: ${JSON.stringify(outcome.doc)}`);
    return outcome.doc;
  }

  async function callError(name: string, args: Record<string, unknown>, code: string): Promise<McpError> {
    const outcome = await call(name, args);
    assert.equal(outcome.isError, true, `${name} should fail: ${JSON.stringify(outcome.doc)}`);
    assert.deepEqual(Object.keys(outcome.doc), ["error"]);
    assert.deepEqual(Object.keys(outcome.doc.error), ["code", "message", "remediation"]);
    assert.equal(outcome.doc.error.code, code, JSON.stringify(outcome.doc));
    assert.equal(typeof outcome.doc.error.message, "string");
    assert.equal(typeof outcome.doc.error.remediation, "string");
    assert.ok(outcome.doc.error.remediation.length > 0);
    assert.ok(!/\n\s+at /.test(outcome.doc.error.message), `stack in message: ${outcome.doc.error.message}`);
    return outcome.doc.error as McpError;
  }

  return { client, root, stderr: () => stderr, clientErrors, call, callOk, callError, close: () => client.close() };
}
