/**
 * Regenerates the profile table of docs/mcp.md from the tool registry:
 *   node_modules/.bin/bun scripts/mcp-tool-list.ts
 * The `core` row lists src/mcp/profiles.ts's front-door names that are registered, the `full` row
 * every registered tool in registry order. tests/mcp/toolRouter_test.ts fails when they drift.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { listedTools } from "../src/mcp/profiles.ts";
import { toolRegistry } from "../src/mcp/registry.ts";

const doc = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "docs", "mcp.md");
const names = (tools: readonly { name: string }[]) => tools.map((tool) => `\`${tool.name}\``).join(", ");
const rows: Record<string, string> = {
  core: `| \`core\` (default) | exactly Python Zaxy's core profile, in this order: ${names(listedTools("core", toolRegistry))} |`,
  full: `| \`full\` | every tool, in registry order: ${names(toolRegistry)} |`,
};
const text = fs.readFileSync(doc, "utf8").split("\n").map((line) => {
  if (line.startsWith("| `core` (default) |")) return rows.core;
  if (line.startsWith("| `full` |")) return rows.full;
  return line;
}).join("\n");
fs.writeFileSync(doc, text);
console.log(`docs/mcp.md: ${toolRegistry.length} tools listed`);
