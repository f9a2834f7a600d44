/**
 * The tool router in process (no binary, no transport): profile listing order, the strict
 * schema check, and how thrown errors become `{"error": {code, message, remediation}}` results.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import * as z from "zod";
import { inputError, ioError } from "../../src/errors.ts";
import { coreToolNames, listedTools } from "../../src/mcp/profiles.ts";
import { toolRegistry } from "../../src/mcp/registry.ts";
import { type AnyToolDefinition, defineTool } from "../../src/mcp/tool.ts";
import { inputJsonSchema, ToolRouter } from "../../src/mcp/toolRouter.ts";
import { repoRoot } from "../cli/zaxy.ts";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "zaxy-router-test-"));
after(() => fs.rmSync(root, { recursive: true, force: true }));

function fakeTool(name: string, run: () => Promise<unknown> = async () => ({ ok: true })): AnyToolDefinition {
  return defineTool({ name, description: `fake ${name}`, inputSchema: z.strictObject({}), run });
}

function router(tools: readonly AnyToolDefinition[], profile: "core" | "full" = "full", log: string[] = []): ToolRouter {
  return new ToolRouter({ tools, profile, context: { eventloomPath: path.join(root, ".eventloom"), sessionId: "default" }, log: (l) => log.push(l) });
}

// deno-lint-ignore no-explicit-any
function body(result: { content: unknown[]; isError?: boolean }): any {
  assert.equal(result.content.length, 1);
  return JSON.parse((result.content[0] as { text: string }).text);
}

describe("tool profiles", () => {
  test("core lists front-door tools in front-door order, skipping ones not registered", () => {
    const tools = [{ name: "memory_replay" }, { name: "memory_query" }, { name: "memory_append" }, { name: "memory_checkout" }];
    assert.deepEqual(listedTools("core", tools).map((t) => t.name), ["memory_checkout", "memory_append", "memory_query"]);
    assert.deepEqual(listedTools("full", tools).map((t) => t.name), tools.map((t) => t.name));
  });

  test("the core profile lists Python's eight core tools in front-door order, all registered", () => {
    assert.deepEqual(router(toolRegistry, "core").list().map((t) => t.name), [
      "memory_checkout", "memory_append", "memory_query", "context_assemble", "memory_feedback", "memory_invalidate", "memory_capabilities", "memory_feeling_of_knowing",
    ]);
    // A front-door name missing from the registry is skipped, not listed.
    const withoutInvalidate = toolRegistry.filter((tool) => tool.name !== "memory_invalidate");
    assert.ok(!router(withoutInvalidate, "core").list().some((t) => t.name === "memory_invalidate"));
  });

  test("every registered tool advertises additionalProperties false", () => {
    for (const tool of toolRegistry) assert.equal(inputJsonSchema(tool).additionalProperties, false, tool.name);
  });

  test("a tool whose schema is not strict is refused at start-up", () => {
    const loose = defineTool({ name: "loose", description: "x", inputSchema: z.object({}), run: async () => null });
    assert.throws(() => router([loose]), /must be a z\.strictObject/);
  });
});

describe("ToolRouter.call", () => {
  test("library input errors are invalid_request with the library's message", async () => {
    const tool = fakeTool("bad_input", async () => {
      throw inputError("invalid_thing", "Cannot do it: thing is wrong", { field: "thing" });
    });
    const doc = body(await router([tool]).call("bad_input", {}));
    assert.deepEqual(doc, {
      error: {
        code: "invalid_request",
        message: "Cannot do it: thing is wrong",
        remediation: 'Correct "thing" and call bad_input again; nothing was written.',
      },
    });
  });

  test("I/O errors keep their library code, bugs are internal_error, neither has a stack, both are logged", async () => {
    const log: string[] = [];
    const io = fakeTool("io", async () => {
      throw ioError("lock_timeout", "Cannot append: lock busy", { hint: "Retry later." });
    });
    const bug = fakeTool("bug", async () => {
      throw new TypeError("x is undefined");
    });
    const r = router([io, bug], "full", log);
    const ioResult = await r.call("io", {});
    assert.equal(ioResult.isError, true);
    assert.deepEqual(body(ioResult), { error: { code: "lock_timeout", message: "Cannot append: lock busy", remediation: "Retry later." } });
    const bugDoc = body(await r.call("bug", {}));
    assert.equal(bugDoc.error.code, "internal_error");
    assert.equal(bugDoc.error.message, "bug failed: x is undefined");
    assert.deepEqual(log, ["zaxy serve: io: Cannot append: lock busy", "zaxy serve: bug: bug failed: x is undefined"]);
  });

  test("calls run one at a time in arrival order", async () => {
    const order: string[] = [];
    const slow = fakeTool("slow", async () => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      order.push("slow");
      return {};
    });
    const fast = fakeTool("fast", async () => {
      order.push("fast");
      return {};
    });
    const r = router([slow, fast]);
    await Promise.all([r.call("slow", {}), r.call("fast", {})]);
    await r.idle();
    assert.deepEqual(order, ["slow", "fast"]);
  });

  test("missing arguments are treated as an empty object", async () => {
    const doc = body(await router(toolRegistry).call("memory_append", undefined));
    assert.equal(doc.error.code, "invalid_request");
    assert.equal(
      doc.error.message,
      "Invalid arguments for memory_append: event_type is required (a string); actor is required (a string); payload is required (an object)",
    );
  });

  test("payload keys reach the log exactly, including __proto__", async () => {
    const args = JSON.parse('{"event_type":"note.added","actor":"a","payload":{"__proto__":{"x":1},"n":2.5},"session_id":"proto"}');
    const result = await router(toolRegistry).call("memory_append", args);
    assert.equal(result.isError, undefined, JSON.stringify(result));
    const line = fs.readFileSync(path.join(root, ".eventloom", "proto.jsonl"), "utf8");
    assert.match(line, /"payload":\{"__proto__":\{"x":1\},"n":2\.5,/);
  });
});

describe("docs/mcp.md lists what the registry serves", () => {
  test("the profile table's full and core rows are the registry's order and Python's core names", () => {
    const doc = fs.readFileSync(path.join(repoRoot, "docs", "mcp.md"), "utf8");
    const row = (profile: string) => {
      const line = doc.split("\n").find((l) => l.startsWith(`| \`${profile}\``));
      assert.ok(line, `docs/mcp.md has a ${profile} row`);
      return [...line.split("|")[2].matchAll(/`([a-z_]+)`/g)].map((m) => m[1]);
    };
    // Regenerate with `node_modules/.bin/bun scripts/mcp-tool-list.ts`.
    assert.deepEqual(row("full"), toolRegistry.map((tool) => tool.name));
    assert.deepEqual(row("core"), [...coreToolNames]);
    for (const tool of toolRegistry) assert.match(doc, new RegExp(`### [^\\n]*\`${tool.name}\``), `docs/mcp.md has a section for ${tool.name}`);
  });
});

describe("docs/mcp.md's table of Python Zaxy's tools", () => {
  test("lists 61 tools; every one marked served is registered, every registered Python name is marked served", () => {
    const doc = fs.readFileSync(path.join(repoRoot, "docs", "mcp.md"), "utf8");
    const section = doc.split("## Python Zaxy's tools")[1].split("\n## ")[0];
    const rows = [...section.matchAll(/^\| `([a-z_]+)` \| ([a-z ]+) \|/gm)].map((m) => ({ name: m[1], status: m[2].trim() }));
    assert.equal(rows.length, 61);
    const registered = new Set(toolRegistry.map((tool) => tool.name));
    for (const row of rows) assert.equal(row.status === "served", registered.has(row.name), `${row.name}: ${row.status}`);
  });
});

describe("output schemas and structured content", () => {
  test("every registered tool advertises an object outputSchema", () => {
    const listed = new ToolRouter({ tools: toolRegistry, profile: "full", context: { eventloomPath: "/nonexistent", sessionId: "default" }, log: () => {} }).list();
    for (const tool of listed) {
      assert.equal((tool.outputSchema as { type?: string } | undefined)?.type, "object", tool.name);
    }
  });

  test("a result carries its document as structuredContent, checked against the schema; a drifting document is internal_error", async () => {
    const good = defineTool({ name: "good", description: "d", inputSchema: z.strictObject({}), outputSchema: z.looseObject({ n: z.number() }), run: async () => ({ n: 1, extra: "x" }) });
    const bad = defineTool({ name: "bad", description: "d", inputSchema: z.strictObject({}), outputSchema: z.looseObject({ n: z.number() }), run: async () => ({ n: "one" }) });
    const log: string[] = [];
    const r = new ToolRouter({ tools: [good, bad], profile: "full", context: { eventloomPath: "/x", sessionId: "s" }, log: (line) => void log.push(line) });
    const ok = await r.call("good", {});
    assert.deepEqual(ok.structuredContent, { n: 1, extra: "x" });
    assert.deepEqual(JSON.parse((ok.content[0] as { text: string }).text), ok.structuredContent);
    const drifted = await r.call("bad", {});
    assert.equal(drifted.isError, true);
    assert.match((drifted.content[0] as { text: string }).text, /internal_error/);
    assert.match(log.join("\n"), /does not match its outputSchema/);
  });
});
