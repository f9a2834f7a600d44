/**
 * `zaxy bench mcp-http`: the resident set of `zaxy serve --http` over many mixed calls. A fresh
 * server process (this zaxy) on a temporary root and a loopback port; one client sends cycles of
 * ten requests: initialize, notifications/initialized, tools/list, memory_capabilities,
 * memory_append, ping, memory_capabilities, memory_append, a tools/call with bad arguments, and
 * DELETE of the session every other cycle (the other half are abandoned, as careless clients do,
 * and left to the session cap and idle expiry). The server's RSS (/proc/PID/status VmRSS) is read
 * after `checkpointCalls` and after all calls; the target is a difference of at most 50 MB: what
 * one call leaves behind must be garbage, not growth.
 *
 * @example
 * const result = await runMcpHttpBench({ calls: 10_000, checkpointCalls: 1_000 });
 * result.rss_difference_mb // e.g. 12.3
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { selfCommand } from "../platform/process.ts";
import { atMost, type BenchMachine, benchMachine, type BenchTarget, round } from "./measure.ts";

export interface McpHttpBenchOptions {
  calls: number;
  checkpointCalls: number;
  zaxyCommand?: string[];
  progress?: (message: string) => void;
}

export interface McpHttpBenchResult {
  machine: BenchMachine;
  calls: number;
  checkpoint_calls: number;
  sessions_opened: number;
  sessions_abandoned: number;
  rss_start_mb: number | null;
  rss_after_checkpoint_mb: number | null;
  rss_after_all_mb: number | null;
  rss_difference_mb: number | null;
  calls_per_s: number;
  errors: number;
  /** A runaway graph query (`UNWIND range(1, 30000000)`) stopped at its `timeout_ms`. */
  graph_query_stop: GraphQueryStop;
  targets: Record<string, BenchTarget>;
}

export interface GraphQueryStop {
  query: string;
  timeout_ms: number;
  /** Wall time of an ordinary graph query (sync, Kuzu load, a count) on the same server. */
  ordinary_query_ms: number;
  /** Wall time until the runaway query was answered. */
  answered_ms: number;
  /** The tool error's code and whether it says the query was stopped at its time limit. */
  error_code: string | null;
  stopped_at_limit: boolean;
  rss_before_mb: number | null;
  rss_peak_mb: number | null;
  /** When it settled back to within 64 MB of before (or 10 s after the answer). */
  rss_after_mb: number | null;
  /** How long after the answer it took to settle; null when it did not within 10 s. */
  rss_settled_ms: number | null;
  /** `memory_capabilities` calls another client had answered while the query ran, and the slowest. */
  other_client_calls: number;
  other_client_max_ms: number;
}

const runawayGraphQuery = "UNWIND range(1, 30000000) AS x RETURN count(x)";
const runawayTimeoutMs = 1000;
/** The runaway query must be answered within its limit plus an ordinary query's time plus this. */
const graphStopSlackMs = 5000;
const rssSettleWaitMsMax = 10_000;
const rssSettledMarginMb = 64;

/** What the RSS may grow between the checkpoint and the end. */
export const mcpHttpRssGrowthMbMax = 50;

function rssMb(pid: number): number | null {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return match === null ? null : round(Number(match[1]) / 1024, 1);
  } catch {
    return null;
  }
}

const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };

export async function runMcpHttpBench(options: McpHttpBenchOptions): Promise<McpHttpBenchResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "zaxy-bench-mcp-http-"));
  const zaxy = options.zaxyCommand ?? selfCommand();
  const child = spawn(zaxy[0], [...zaxy.slice(1), "serve", "--http", "127.0.0.1:0", "--json", "--rate-limit", "1000000", "--eventloom-path", path.join(dir, ".eventloom")], {
    stdio: ["ignore", "pipe", "pipe"],
    env: process.env,
  });
  const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
  try {
    let stdout = "";
    child.stderr!.resume();
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout!.on("data", (chunk) => {
        stdout += chunk;
        if (stdout.includes("\n")) resolve(JSON.parse(stdout.split("\n")[0]).url);
      });
      child.once("exit", (code) => reject(new Error(`zaxy serve --http exited ${code} before listening`)));
    });
    const pid = child.pid!;
    let calls = 0;
    let errors = 0;
    let opened = 0;
    let abandoned = 0;
    let checkpoint: number | null = null;
    const start = rssMb(pid);
    const send = async (body: unknown, session?: string, method = "POST"): Promise<Response> => {
      const response = await fetch(url, {
        method,
        headers: session === undefined ? headers : { ...headers, "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      await response.arrayBuffer();
      calls++;
      if (response.status >= 300) errors++;
      if (calls === options.checkpointCalls) checkpoint = rssMb(pid);
      if (calls % 1000 === 0) options.progress?.(`${calls} calls, RSS ${rssMb(pid)} MB`);
      return response;
    };
    const tool = (id: number, name: string, args: unknown) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });
    const started = performance.now();
    for (let cycle = 0; calls < options.calls; cycle++) {
      const init = await send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "zaxy-bench", version: "1" } } });
      const session = init.headers.get("mcp-session-id") ?? undefined;
      opened++;
      const steps: Array<() => Promise<unknown>> = [
        () => send({ jsonrpc: "2.0", method: "notifications/initialized" }, session),
        () => send({ jsonrpc: "2.0", id: 2, method: "tools/list" }, session),
        () => send(tool(3, "memory_capabilities", {}), session),
        () => send(tool(4, "memory_append", { event_type: "note.added", actor: "bench", payload: { cycle } }), session),
        () => send({ jsonrpc: "2.0", id: 5, method: "ping" }, session),
        () => send(tool(6, "memory_capabilities", {}), session),
        () => send(tool(7, "memory_append", { event_type: "note.added", actor: "bench", payload: { cycle, second: true } }), session),
        () => send(tool(8, "memory_append", { event_type: "note.added" }), session),
      ];
      for (const step of steps) {
        if (calls >= options.calls) break;
        await step();
      }
      if (calls >= options.calls) break;
      if (cycle % 2 === 0) await send(undefined, session, "DELETE");
      else abandoned++;
    }
    const seconds = (performance.now() - started) / 1000;
    const end = rssMb(pid);
    const difference = checkpoint === null || end === null ? null : round(end - checkpoint, 1);
    const graphStop = await measureGraphQueryStop(url, pid, options.progress);
    const stopBoundMs = runawayTimeoutMs + graphStop.ordinary_query_ms + graphStopSlackMs;
    return {
      machine: benchMachine(),
      calls,
      checkpoint_calls: options.checkpointCalls,
      sessions_opened: opened,
      sessions_abandoned: abandoned,
      rss_start_mb: start,
      rss_after_checkpoint_mb: checkpoint,
      rss_after_all_mb: end,
      rss_difference_mb: difference,
      calls_per_s: round(calls / seconds, 1),
      errors,
      graph_query_stop: graphStop,
      targets: {
        rss_growth_mb: atMost(mcpHttpRssGrowthMbMax, difference, `<= ${mcpHttpRssGrowthMbMax}`),
        graph_query_stop_ms: atMost(stopBoundMs, graphStop.stopped_at_limit ? graphStop.answered_ms : null, `<= timeout_ms + an ordinary query + ${graphStopSlackMs} ms`),
      },
    };
  } finally {
    child.kill("SIGTERM");
    await closed;
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Opens two sessions: one sends an ordinary graph query, then the runaway one with
 * `timeout_ms` 1000; the other calls `memory_capabilities` meanwhile. RSS is sampled every 100 ms.
 */
async function measureGraphQueryStop(url: string, pid: number, progress?: (message: string) => void): Promise<GraphQueryStop> {
  const open = async (): Promise<string> => {
    const response = await fetch(url, {
      method: "POST",
      headers,
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "zaxy-bench", version: "1" } } }),
    });
    await response.arrayBuffer();
    return response.headers.get("mcp-session-id") ?? "";
  };
  const call = async (session: string, name: string, args: unknown): Promise<{ [key: string]: unknown }> => {
    const response = await fetch(url, {
      method: "POST",
      headers: { ...headers, "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name, arguments: args } }),
    });
    return await response.json() as { [key: string]: unknown };
  };
  const querying = await open();
  const other = await open();
  progress?.("graph query: an ordinary one, then a runaway one with timeout_ms 1000");
  let began = performance.now();
  await call(querying, "memory_graph_query", { query: "MATCH (e:Entity) RETURN count(*) AS n" });
  const ordinaryMs = Math.round(performance.now() - began);
  const before = rssMb(pid);
  let peak = before;
  const sampler = setInterval(() => {
    const now = rssMb(pid);
    if (now !== null && (peak === null || now > peak)) peak = now;
  }, 100);
  let answered = false;
  let otherCalls = 0;
  let otherMaxMs = 0;
  const otherClient = (async () => {
    while (!answered) {
      const sent = performance.now();
      await call(other, "memory_capabilities", {});
      if (answered) break;
      otherCalls++;
      otherMaxMs = Math.max(otherMaxMs, Math.round(performance.now() - sent));
    }
  })();
  began = performance.now();
  const reply = await call(querying, "memory_graph_query", { query: runawayGraphQuery, timeout_ms: runawayTimeoutMs });
  const answeredMs = Math.round(performance.now() - began);
  answered = true;
  await otherClient;
  clearInterval(sampler);
  // The stopped worker's heap is released as its thread is torn down, within a few seconds.
  let after = rssMb(pid);
  let settledMs: number | null = null;
  const answeredAt = performance.now();
  while (performance.now() - answeredAt < rssSettleWaitMsMax) {
    after = rssMb(pid);
    if (after !== null && before !== null && after <= before + rssSettledMarginMb) {
      settledMs = Math.round(performance.now() - answeredAt);
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const error = toolError(reply);
  return {
    query: runawayGraphQuery,
    timeout_ms: runawayTimeoutMs,
    ordinary_query_ms: ordinaryMs,
    answered_ms: answeredMs,
    error_code: error?.code ?? null,
    stopped_at_limit: error !== undefined && /time limit/.test(error.message),
    rss_before_mb: before,
    rss_peak_mb: peak,
    rss_after_mb: after,
    rss_settled_ms: settledMs,
    other_client_calls: otherCalls,
    other_client_max_ms: otherMaxMs,
  };
}

/** The `{error: {code, message}}` a tool result carries as its text, when it is an error. */
function toolError(reply: { [key: string]: unknown }): { code: string; message: string } | undefined {
  const result = reply.result as { isError?: boolean; content?: Array<{ text?: string }> } | undefined;
  if (result?.isError !== true) return undefined;
  try {
    const error = (JSON.parse(result.content?.[0]?.text ?? "") as { error?: { code?: unknown; message?: unknown } }).error;
    return { code: String(error?.code ?? ""), message: String(error?.message ?? "") };
  } catch {
    return { code: "", message: result.content?.[0]?.text ?? "" };
  }
}
