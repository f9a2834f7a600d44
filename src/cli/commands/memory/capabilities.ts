/** `zaxy memory capabilities [--current-task T] [--profile core|full]`: the server's capabilities manifest. */
import { defineCommand } from "../../command.ts";

export const memoryCapabilitiesCommand = defineCommand({
  name: "capabilities",
  summary: "What this zaxy can do: tools, fields, profiles, features (as MCP memory_capabilities)",
  description:
    "Prints the manifest MCP memory_capabilities returns, generated from the tool registry: every\n" +
    "tool with its description, fields and required fields, which --profile lists it (default\n" +
    "core), which of Python Zaxy's eight core tools are served, and the root's features.\n" +
    "--json prints zaxy.capabilities.v1 ('zaxy help mcp').",
  options: {
    "current-task": { type: "string", valueName: "TEXT", description: "What you are about to do (echoed back)" },
    profile: { type: "string", valueName: "core|full", description: "The profile whose listing to report (default core)" },
  },
  positionals: [],
  examples: ["zaxy memory capabilities --json", "zaxy memory capabilities --profile full --current-task 'fix the flaky test'"],
  async run(ctx) {
    const { runMemoryCapabilities } = await import("./capabilitiesRun.ts");
    return await runMemoryCapabilities(ctx);
  },
});
