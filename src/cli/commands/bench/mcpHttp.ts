/**
 * `zaxy bench mcp-http`: the resident set of `zaxy serve --http` after 1,000 and after 10,000
 * mixed MCP calls, and the difference (target <= 50 MB). The benchmark is imported only when it
 * runs.
 */
import { defineCommand } from "../../command.ts";

export const benchMcpHttpCommand = defineCommand({
  name: "mcp-http",
  store: "self",
  summary: "RSS of zaxy serve --http after 1,000 and 10,000 mixed MCP calls, and how fast a runaway graph query is stopped",
  description:
    "Starts `zaxy serve --http` on a loopback port and a temporary root, then sends --calls HTTP\n" +
    "requests in cycles of ten (initialize, initialized, tools/list, memory_capabilities twice,\n" +
    "memory_append twice, ping, a call with bad arguments, and DELETE of every other session; the\n" +
    "rest are abandoned). Reports the server's RSS after --checkpoint calls and after all of them,\n" +
    "and the difference (target <= 50 MB). Then runs an ordinary graph query and a runaway one\n" +
    "(UNWIND range(1, 30000000)) with timeout_ms 1000 while another client calls\n" +
    "memory_capabilities: how long until it is answered, the RSS before, at its peak and after.\n" +
    "Linux (reads /proc); elsewhere the RSS is null.",
  options: {
    calls: { type: "string", valueName: "N", description: "HTTP requests in all (default 10000)" },
    checkpoint: { type: "string", valueName: "N", description: "Requests before the first RSS reading (default 1000)" },
  },
  positionals: [],
  examples: ["zaxy bench mcp-http", "zaxy bench mcp-http --calls 2000 --checkpoint 200 --json"],
  async run(ctx) {
    const { runBenchMcpHttp } = await import("./mcpHttpRun.ts");
    return await runBenchMcpHttp(ctx);
  },
});
