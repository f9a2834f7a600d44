/** `zaxy memory get CITATION`: the event a citation names, from its verified log (as MCP memory_get). */
import { defineCommand } from "../../command.ts";

export const memoryGetCommand = defineCommand({
  name: "get",
  summary: "Get the event an eventloom:// citation names (as MCP memory_get)",
  description:
    "Reads the session the citation names (or the log whose events carry its thread), verifies\n" +
    "its chain, and prints the event at its seq. A citation whose hash prefix does not match the\n" +
    "sealed event is stale_citation (exit 2); a chain that fails verification exits 1.\n" +
    "--json prints {citation, session_id, verified, event}.",
  options: {},
  positionals: [{ name: "CITATION", description: "eventloom://<session>/events/<seq>#<hash prefix>", required: true }],
  examples: ["zaxy memory get 'eventloom://default/events/3#0ab1c2d3e4f5' --json"],
  async run(ctx) {
    const { runMemoryGet } = await import("./getRun.ts");
    return await runMemoryGet(ctx);
  },
});
