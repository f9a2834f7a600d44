/** What mcpHttp.ts's command does: imported when the command runs, so start-up loads only the command tree. */
import type { CommandContext } from "../../command.ts";
import { machineLine, renderTargets } from "../../../bench/measure.ts";
import type { McpHttpBenchResult } from "../../../bench/mcpHttpBench.ts";
import { inputError } from "../../../errors.ts";
import { intOption } from "../../args.ts";
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

export async function runBenchMcpHttp(ctx: CommandContext): Promise<number> {
  const { runMcpHttpBench } = await import("../../../bench/mcpHttpBench.ts");
  const calls = intOption(ctx, "calls", 2, 10_000_000) ?? 10_000;
  const checkpointCalls = intOption(ctx, "checkpoint", 1, 10_000_000) ?? 1_000;
  if (checkpointCalls >= calls) throw inputError("invalid_option", `--checkpoint must be below --calls, got ${checkpointCalls} and ${calls}`, { field: "--checkpoint" });
  const reporter = benchMessages(ctx, "mcp-http");
  const result = await runMcpHttpBench({ calls, checkpointCalls, progress: reporter.message });
  reporter.done();
  emit(ctx, "zaxy.bench.mcp_http.v1", { ...result }, () => render(result));
  return 0;
}
