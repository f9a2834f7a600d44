/**
 * The JSON Schemas `tools/list` advertises use only standard JSON Schema: a `format` a client
 * does not know is ignored with a warning on every call (MCP Inspector prints one per schema),
 * so prefixes are `pattern`s anchored at the start, never zod's `format: "starts_with"`.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import * as z from "zod";
import { outputSchemas } from "../../src/mcp/outputSchemas.ts";
import { toolRegistry } from "../../src/mcp/registry.ts";
import { ToolRouter } from "../../src/mcp/toolRouter.ts";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "zaxy-schema-formats-test-"));
after(() => fs.rmSync(root, { recursive: true, force: true }));

/** The formats JSON Schema draft 2020-12 defines (§7.3); anything else is a client's guess. */
const standardFormats = new Set([
  "date-time", "date", "time", "duration", "email", "idn-email", "hostname", "idn-hostname", "ipv4", "ipv6",
  "uri", "uri-reference", "iri", "iri-reference", "uuid", "uri-template", "json-pointer", "relative-json-pointer", "regex",
]);

/** Every `format` keyword in a schema, as `path: value`; keys of `properties` are names, not keywords. */
function formatsIn(node: unknown, at: string, found: string[], parentKey = ""): string[] {
  if (Array.isArray(node)) {
    node.forEach((item, index) => formatsIn(item, `${at}[${index}]`, found, parentKey));
  } else if (node !== null && typeof node === "object") {
    for (const [key, value] of Object.entries(node)) {
      if (key === "format" && typeof value === "string" && parentKey !== "properties") found.push(`${at}: ${value}`);
      formatsIn(value, `${at}.${key}`, found, key);
    }
  }
  return found;
}

const listing = new ToolRouter({
  tools: toolRegistry,
  profile: "full",
  context: { eventloomPath: path.join(root, ".eventloom"), sessionId: "default" },
  log: () => {},
}).list();

describe("advertised tool schemas", () => {
  test("tools/list has no input or output schema with a non-standard format", () => {
    assert.equal(listing.length, toolRegistry.length);
    const unknown: string[] = [];
    for (const tool of listing) {
      assert.ok(tool.outputSchema, `${tool.name} advertises an outputSchema`);
      const formats = [...formatsIn(tool.inputSchema, `${tool.name}.inputSchema`, []), ...formatsIn(tool.outputSchema, `${tool.name}.outputSchema`, [])];
      unknown.push(...formats.filter((entry) => !standardFormats.has(entry.slice(entry.lastIndexOf(": ") + 2))));
    }
    assert.deepEqual(unknown, []);
  });

  test("a citation is advertised as a pattern anchored at the start", () => {
    const get = listing.find((tool) => tool.name === "memory_get");
    const citation = (get?.outputSchema?.properties as Record<string, Record<string, unknown>>).citation;
    assert.deepEqual(citation, { type: "string", pattern: "^eventloom:\\/\\/" });
  });

  test("the citation pattern accepts and refuses what startsWith(\"eventloom://\") did", () => {
    const before = z.string().startsWith("eventloom://");
    const schema = outputSchemas.memory_get.shape.citation as z.ZodType;
    const get = listing.find((tool) => tool.name === "memory_get");
    const advertised = new RegExp((get?.outputSchema?.properties as Record<string, { pattern: string }>).citation.pattern, "u");
    const accepted = ["eventloom://", "eventloom://default/3", "eventloom://a/b#sha256:00", "eventloom://\nline two"];
    const refused = ["", "eventloom:/", "eventloom:default/3", "EVENTLOOM://default/3", " eventloom://default/3", "x eventloom://", "eventloomX//"];
    for (const value of accepted) {
      assert.equal(before.safeParse(value).success, true, `startsWith accepts ${JSON.stringify(value)}`);
      assert.equal(schema.safeParse(value).success, true, `schema accepts ${JSON.stringify(value)}`);
      assert.equal(advertised.test(value), true, `advertised pattern accepts ${JSON.stringify(value)}`);
    }
    for (const value of refused) {
      assert.equal(before.safeParse(value).success, false, `startsWith refuses ${JSON.stringify(value)}`);
      assert.equal(schema.safeParse(value).success, false, `schema refuses ${JSON.stringify(value)}`);
      assert.equal(advertised.test(value), false, `advertised pattern refuses ${JSON.stringify(value)}`);
    }
    assert.equal(schema.safeParse(42).success, false);
  });
});
