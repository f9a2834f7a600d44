/**
 * `zaxy bench mcp-http`: the resident set of `zaxy serve --http` after 1,000 and after 10,000
 * mixed MCP calls, and the difference (target <= 50 MB). The benchmark is imported only when it
 * runs.
 */
import { machineLine, renderTargets } from "../../../bench/measure.ts";
import type { McpHttpBenchResult } from "../../../bench/mcpHttpBench.ts";
import { inputError } from "../../../errors.ts";
import { intOption } from "../../args.ts";
import { defineCommand } from "../../command.ts";
import { emit } from "../../output.ts";
import { benchMessages } from "../../progress.ts";

const mb = (value: number | null) => (value === null ? "-" : `${value.toFixed(1)} MB`);

function render(r: McpHttpBenchResult): string {
  return [
    machineLine(r.machine),
    `calls: ${r.calls} (${r.calls_per_s} per s), ${r.sessions_opened} MCP sessions (${r.sessions_abandoned} never closed by the client), ${r.errors} answered >= 300 (the bad-argument calls are 200)`,
    `server RSS: start ${mb(r.rss_start_mb)}, after ${r.checkpoint_calls} calls ${mb(r.rss_after_checkpoint_mb)}, after ${r.calls} calls ${mb(r.rss_after_all_mb)}`,
    `difference: ${mb(r.rss_difference_mb)}`,
    `graph query stop: ${r.graph_query_stop.query} with timeout_ms ${r.graph_query_stop.timeout_ms} answered in ${r.graph_query_stop.answered_ms} ms ` +
    `(${r.graph_query_stop.stopped_at_limit ? "stopped at its limit" : `not stopped at its limit: ${r.graph_query_stop.error_code ?? "no error"}`}; an ordinary query ${r.graph_query_stop.ordinary_query_ms} ms); ` +
    `RSS ${mb(r.graph_query_stop.rss_before_mb)} before, ${mb(r.graph_query_stop.rss_peak_mb)} peak, ${mb(r.graph_query_stop.rss_after_mb)} after ` +
    `(${r.graph_query_stop.rss_settled_ms === null ? "not back within 10 s" : `back ${r.graph_query_stop.rss_settled_ms} ms after the answer`}); ` +
    `another client had ${r.graph_query_stop.other_client_calls} calls answered meanwhile (slowest ${r.graph_query_stop.other_client_max_ms} ms)`,
    ...renderTargets(r.targets, 1),
  ].join("\n");
}

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
    const { runMcpHttpBench } = await import("../../../bench/mcpHttpBench.ts");
    const calls = intOption(ctx, "calls", 2, 10_000_000) ?? 10_000;
    const checkpointCalls = intOption(ctx, "checkpoint", 1, 10_000_000) ?? 1_000;
    if (checkpointCalls >= calls) throw inputError("invalid_option", `--checkpoint must be below --calls, got ${checkpointCalls} and ${calls}`, { field: "--checkpoint" });
    const reporter = benchMessages(ctx, "mcp-http");
    const result = await runMcpHttpBench({ calls, checkpointCalls, progress: reporter.message });
    reporter.done();
    emit(ctx, "zaxy.bench.mcp_http.v1", { ...result }, () => render(result));
    return 0;
  },
});
