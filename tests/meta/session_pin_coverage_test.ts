/**
 * The session pin table (src/mcp/sessionPin.ts) covers every tool: each registered tool has an
 * entry, and every argument of its advertised input schema that names a session, thread,
 * citation, origin, fleet or agent (by its name, its description or its format) is bound by the
 * entry, or the tool is refused to pinned connections. A new tool or argument that names a
 * session fails here until someone decides what a pin does with it. The router is checked against
 * the same table in process: every argument the table binds to the pin is refused when it names
 * another session, before the tool runs.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { toolRegistry } from "../../src/mcp/registry.ts";
import { sessionPinRules } from "../../src/mcp/sessionPin.ts";
import { inputJsonSchema, ToolRouter } from "../../src/mcp/toolRouter.ts";
import { pinSamples } from "../mcp/sessionPinSamples.ts";

/** Argument names that name a session, thread, citation, origin, fleet, agent or a ref into a session. */
const namingPattern = /session|thread|citation|origin|uri|url|fleet|agent|target|source_|_ref$|promotion/i;
/** Descriptions that say the value is a session id, a citation or an event of some session. */
const describingPattern = /eventloom:\/\/|session \(thread\) id|sealed event|origin_session/i;

interface JsonSchemaNode {
  type?: string | string[];
  description?: string;
  format?: string;
  properties?: Record<string, JsonSchemaNode>;
  items?: JsonSchemaNode;
  anyOf?: JsonSchemaNode[];
  oneOf?: JsonSchemaNode[];
}

/** Every argument path of a schema: `a`, `a.b` for object members, `a[].b` for array items. */
function argumentPaths(node: JsonSchemaNode, prefix = ""): { path: string; node: JsonSchemaNode }[] {
  const out: { path: string; node: JsonSchemaNode }[] = [];
  for (const [name, child] of Object.entries(node.properties ?? {})) {
    const here = prefix + name;
    out.push({ path: here, node: child });
    for (const variant of [child, ...(child.anyOf ?? []), ...(child.oneOf ?? [])]) {
      if (variant.properties !== undefined) out.push(...argumentPaths(variant, here + "."));
      if (variant.items?.properties !== undefined) out.push(...argumentPaths(variant.items, here + "[]."));
    }
  }
  return out;
}

function namesASession(name: string, node: JsonSchemaNode): boolean {
  const last = name.split(/\.|\[\]\./).at(-1) ?? name;
  return namingPattern.test(last) || describingPattern.test(node.description ?? "") || node.format === "uri" || node.format === "uri-reference";
}

function coveredBy(pathName: string, bound: readonly string[]): boolean {
  return bound.some((b) => pathName === b || pathName.startsWith(b + ".") || pathName.startsWith(b + "[]."));
}

describe("session pin table", () => {
  test("every registered tool has a session pin entry, and every entry is a registered tool", () => {
    const registered = toolRegistry.map((tool) => tool.name);
    assert.deepEqual(registered.filter((name) => sessionPinRules[name] === undefined), [], "add these tools to sessionPinRules in src/mcp/sessionPin.ts");
    assert.deepEqual(Object.keys(sessionPinRules).filter((name) => !registered.includes(name)), [], "these sessionPinRules entries name no registered tool");
  });

  test("every argument that names a session, thread, citation, origin, fleet or agent is bound by the pin table", () => {
    const uncovered: string[] = [];
    for (const tool of toolRegistry) {
      const rule = sessionPinRules[tool.name];
      if (rule === undefined || rule.refused !== undefined) continue;
      const bound = Object.keys(rule.arguments ?? {});
      for (const { path: argument, node } of argumentPaths(inputJsonSchema(tool) as JsonSchemaNode)) {
        if (namesASession(argument, node) && !coveredBy(argument, bound)) uncovered.push(`${tool.name}.${argument}`);
      }
    }
    assert.deepEqual(uncovered, [], "say in sessionPinRules (src/mcp/sessionPin.ts) how a session pin binds these arguments");
  });

  test("the table names only arguments the tools take; session and citation arguments are top-level strings the router can check", () => {
    const problems: string[] = [];
    for (const tool of toolRegistry) {
      const paths = new Map(argumentPaths(inputJsonSchema(tool) as JsonSchemaNode).map(({ path: p, node }) => [p, node]));
      for (const [argument, kind] of Object.entries(sessionPinRules[tool.name]?.arguments ?? {})) {
        const node = paths.get(argument);
        if (node === undefined) problems.push(`${tool.name}.${argument}: no such argument`);
        else if ((kind === "session" || kind === "citation") && (argument.includes(".") || node.type !== "string")) {
          problems.push(`${tool.name}.${argument}: a ${kind} argument must be a top-level string`);
        }
      }
    }
    assert.deepEqual(problems, []);
  });

  test("the pin test samples cover every tool (tests/mcp/sessionPinSamples.ts)", () => {
    const samples = pinSamples("bob", { seq: 1, hash: "0".repeat(64) });
    assert.deepEqual(toolRegistry.map((tool) => tool.name).filter((name) => samples[name] === undefined), []);
    for (const tool of toolRegistry) {
      const parsed = tool.inputSchema.safeParse(samples[tool.name]);
      assert.ok(parsed.success, `${tool.name}: its sample fails the schema: ${parsed.success ? "" : JSON.stringify(parsed.error.issues)}`);
    }
  });
});

describe("a pinned tool router", () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "zaxy-pin-meta-"));
  after(() => fs.rmSync(root, { recursive: true, force: true }));
  const eventloomPath = path.join(root, ".eventloom");
  const pinned = new ToolRouter({ tools: toolRegistry, profile: "full", context: { eventloomPath, sessionId: "bob" }, log: () => {}, sessionPin: "bob" });
  const samples = pinSamples("bob", { seq: 1, hash: "0".repeat(64) });
  const aliceCitation = `eventloom://alice/events/1#${"0".repeat(12)}`;

  // deno-lint-ignore no-explicit-any
  async function refusal(name: string, args: Record<string, unknown>): Promise<any> {
    const result = await pinned.call(name, args);
    assert.equal(result.isError, true, `${name} ${JSON.stringify(args)} should be refused`);
    return JSON.parse((result.content[0] as { text: string }).text).error;
  }

  test("refuses every session and citation argument the table binds when it names another session, before the tool runs", async () => {
    for (const tool of toolRegistry) {
      for (const [argument, kind] of Object.entries(sessionPinRules[tool.name].arguments ?? {})) {
        if (kind !== "session" && kind !== "citation") continue;
        const other = kind === "session" ? "alice" : aliceCitation;
        const error = await refusal(tool.name, { ...samples[tool.name], [argument]: other });
        assert.equal(error.code, "invalid_request", `${tool.name}.${argument}`);
        assert.match(error.message, new RegExp(`^This connection is scoped to session "bob"; ${argument} `), `${tool.name}.${argument}`);
        assert.match(error.message, /"alice"/);
      }
    }
    // Nothing ran: no log was created under the root.
    assert.equal(fs.existsSync(eventloomPath), false);
  });

  test("refuses the tools the table refuses to pinned connections, naming why", async () => {
    for (const tool of toolRegistry) {
      const why = sessionPinRules[tool.name].refused;
      if (why === undefined) continue;
      const error = await refusal(tool.name, samples[tool.name]);
      assert.equal(error.message, `This connection is scoped to session "bob"; ${tool.name} is not served to a scoped connection: ${why}`);
    }
    assert.equal(fs.existsSync(eventloomPath), false);
  });

  test("resolves a citation of its own session only in that session's own log", async () => {
    const error = await refusal("memory_get", { citation: `eventloom://bob/events/1#${"0".repeat(12)}` });
    assert.deepEqual(error, {
      code: "invalid_request",
      message: 'Cannot resolve citation: session "bob" has no log yet',
      remediation: "A scoped connection resolves citations of its own session only; a session's log is created by its first append.",
    });
  });

  test("a router pinned to one session may not default to another", () => {
    assert.throws(
      () => new ToolRouter({ tools: toolRegistry, profile: "full", context: { eventloomPath, sessionId: "default" }, log: () => {}, sessionPin: "bob" }),
      /pinned to session bob must default to it/,
    );
  });
});
