/**
 * `zaxy bench checkout`: Memory Checkout latency on a projected mixed session (see
 * `mixedSession.ts`), three ways:
 *
 * - warm: one `zaxy serve` process spoken to by the MCP SDK's stdio client; after one untimed
 *   call, every `memory_checkout` call is timed from the client (request, JSON-RPC over pipes,
 *   retrieval, assembly, response), with seeded queries drawn from the session's content;
 * - cold: `zaxy memory checkout QUERY --json` as a fresh process per query (start-up, verify,
 *   row cache, index load, retrieval, assembly), after one untimed run warms the page cache;
 * - cold after an append: one event is appended first, so the fresh process must also catch
 *   the Kuzu projection up (open the store, fold, write) and extend the vector index.
 *
 * The session is projected once beforehand in this process, so the cold runs start from a
 * projection at the log head, as they would on a machine where the agent has used memory.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fromJs } from "../canonical/mod.ts";
import { appendEvents } from "../events/append.ts";
import { MemoryService } from "../memory/service.ts";
import { selfCommand, spawnMeasured } from "../platform/process.ts";
import { atMost, type BenchMachine, benchMachine, type BenchTarget, latencySummary, type LatencySummary, median, round } from "./measure.ts";
import { mixedSessionItems, sampleQueries, writeMixedSession } from "./mixedSession.ts";

const sessionId = "checkout-bench";
/** Results per checkout, the default of `memory checkout`. */
const checkoutLimit = 10;
/** One MCP call may not take longer than this (the first can project). */
const callTimeoutMs = 120_000;

export interface CheckoutBenchOptions {
  events: number;
  queries: number;
  /** Fresh `memory checkout` processes timed (median reported). */
  coldRuns?: number;
  /** Append-then-checkout rounds. */
  appendRuns?: number;
  /** Events of the baseline session whose cold checkout the ratio target divides by (0: none). */
  baselineEvents?: number;
  /**
   * `memory_feedback` events (helpful and irrelevant, alternating) appended on the session's
   * current facts before the warm run, so warm checkout is timed with reinforcement in ranking
   * (default 1 per 100 events, at most 1000; 0: none).
   */
  feedbackEvents?: number;
  /** argv prefix that starts zaxy; default: this same program. */
  zaxyCommand?: string[];
  seed?: number;
  workDir?: string;
  progress?: (message: string) => void;
}

export interface ColdRuns {
  median_ms: number | null;
  runs_ms: number[];
  /** Peak resident set of each fresh process (MiB), when the runtime reports it. */
  peak_rss_mib: number[];
  max_peak_rss_mib: number | null;
  failures: string[];
}

export interface CheckoutBenchResult {
  machine: BenchMachine;
  command: string[];
  zaxy_command: string[];
  events: number;
  seed: number;
  setup: { append_s: number; project_s: number; projection_timings_ms: Record<string, number>; entity_versions: number; feedback_events: number };
  warm: {
    transport: "mcp stdio";
    tool: "memory_checkout";
    queries: number;
    distinct_queries: number;
    server_start_ms: number | null;
    first_call_ms: number | null;
    latency: LatencySummary | null;
    errors: number;
    error: string | null;
  };
  cold: ColdRuns & { process: string };
  /** The same cold checkout on a `baseline_events` session from the same generator, same run. */
  baseline: (ColdRuns & { events: number; ratio: number | null }) | null;
  cold_after_append: ColdRuns & { note: string };
  /** `zaxy memory append` then `zaxy memory checkout`, both fresh processes: one agent turn. */
  agent_loop: ColdRuns & { note: string };
  targets: Record<string, BenchTarget>;
}

function childEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    // The flags name the root and session; nothing from the caller's shell may redirect them.
    if (value !== undefined && key !== "EVENTLOOM_PATH" && key !== "EVENTLOOM_THREAD" && key !== "MCP_TOOL_PROFILE") env[key] = value;
  }
  return env;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function warmServer(zaxy: string[], root: string, queries: string[], progress: (message: string) => void): Promise<CheckoutBenchResult["warm"]> {
  const warm: CheckoutBenchResult["warm"] = {
    transport: "mcp stdio",
    tool: "memory_checkout",
    queries: 0,
    distinct_queries: new Set(queries).size,
    server_start_ms: null,
    first_call_ms: null,
    latency: null,
    errors: 0,
    error: null,
  };
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
  const transport = new StdioClientTransport({
    command: zaxy[0],
    args: [...zaxy.slice(1), "serve", "--eventloom-path", root, "--session-id", sessionId],
    env: childEnvironment(),
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => {
    stderr += new TextDecoder().decode(chunk);
  });
  const client = new Client({ name: "zaxy-bench-checkout", version: "0.0.0" });
  const call = async (query: string) => {
    const result = await client.callTool({ name: "memory_checkout", arguments: { query, limit: checkoutLimit } }, undefined, { timeout: callTimeoutMs });
    const content = result.content as Array<{ type: string; text: string }>;
    if (result.isError === true) throw new Error(`memory_checkout returned an error: ${content?.[0]?.text ?? JSON.stringify(result)}`);
    return content;
  };
  try {
    const started = performance.now();
    await client.connect(transport);
    warm.server_start_ms = round(performance.now() - started);
    const firstStarted = performance.now();
    await call(queries[0] ?? "status");
    warm.first_call_ms = round(performance.now() - firstStarted);
    const samples: number[] = [];
    for (const [i, query] of queries.entries()) {
      if (i % 50 === 0) progress(`  warm query ${i + 1}/${queries.length}`);
      const callStarted = performance.now();
      try {
        await call(query);
        samples.push(performance.now() - callStarted);
      } catch (error) {
        warm.errors++;
        warm.error ??= errorText(error);
      }
    }
    warm.queries = samples.length;
    warm.latency = latencySummary(samples);
  } catch (error) {
    warm.error = `${errorText(error)}${stderr.trim() === "" ? "" : ` (server stderr: ${stderr.trim().slice(-500)})`}`;
  } finally {
    await client.close().catch(() => {});
  }
  return warm;
}

interface TimedRun {
  ms: number;
  rssBytes: number | null;
  failure: string | null;
}

function coldRun(zaxy: string[], root: string, query: string): TimedRun {
  const run = spawnMeasured([...zaxy, "memory", "checkout", query, "--json", "--eventloom-path", root, "--session-id", sessionId], childEnvironment());
  const measured = { ms: run.wallMs, rssBytes: run.maxRssBytes };
  if (run.exitCode !== 0) return { ...measured, failure: `exit ${run.exitCode}: ${(run.stdout + run.stderr).trim().slice(0, 300)}` };
  try {
    const doc = JSON.parse(run.stdout);
    if (doc.error !== undefined || doc.session_id !== sessionId) return { ...measured, failure: `unexpected document: ${run.stdout.slice(0, 300)}` };
  } catch {
    return { ...measured, failure: `stdout is not JSON: ${run.stdout.slice(0, 300)}` };
  }
  return { ...measured, failure: null };
}

/** One agent turn as fresh processes: record an event, then check memory out. */
function agentLoopRun(zaxy: string[], root: string, query: string, turn: number): TimedRun {
  const payload = JSON.stringify({ decision: `Use sqlite for the bench scratch store (turn ${turn})`, rationale: "agent loop timing" });
  const append = spawnMeasured([...zaxy, "memory", "append", "decision.made", "--actor", "agent", "--payload-json", payload, "--json", "--eventloom-path", root, "--session-id", sessionId], childEnvironment());
  if (append.exitCode !== 0) return { ms: append.wallMs, rssBytes: append.maxRssBytes, failure: `append exit ${append.exitCode}: ${(append.stdout + append.stderr).trim().slice(0, 300)}` };
  const checkout = coldRun(zaxy, root, query);
  const rssBytes = append.maxRssBytes === null || checkout.rssBytes === null ? null : Math.max(append.maxRssBytes, checkout.rssBytes);
  return { ms: append.wallMs + checkout.ms, rssBytes, failure: checkout.failure };
}

function coldSummary(runs: readonly TimedRun[]): ColdRuns {
  const ok = runs.filter((run) => run.failure === null);
  const rss = ok.flatMap((run) => (run.rssBytes === null ? [] : [round(run.rssBytes / (1 << 20), 1)]));
  return {
    median_ms: ok.length === 0 ? null : round(median(ok.map((run) => run.ms))),
    runs_ms: ok.map((run) => round(run.ms)),
    peak_rss_mib: rss,
    max_peak_rss_mib: rss.length === 0 ? null : Math.max(...rss),
    failures: runs.flatMap((run) => (run.failure === null ? [] : [run.failure])),
  };
}

/** The cold checkout of a `events`-event session from the same generator (the ratio's divisor). */
async function baselineColdRuns(zaxy: string[], workDir: string, events: number, seed: number, runs: number, progress: (message: string) => void): Promise<ColdRuns> {
  const root = path.join(workDir, "baseline", ".eventloom");
  const session = mixedSessionItems(events, seed);
  const queries = sampleQueries(session, runs + 1, seed + 4);
  await writeMixedSession(root, sessionId, session.items);
  await new MemoryService(root, { warn: (message) => progress(`warning: ${message}`) }).session(sessionId);
  coldRun(zaxy, root, queries[0] ?? "status"); // untimed: page cache
  return coldSummary(Array.from({ length: runs }, (_, i) => coldRun(zaxy, root, queries[(i + 1) % queries.length] ?? "status")));
}

export async function runCheckoutBench(options: CheckoutBenchOptions): Promise<CheckoutBenchResult> {
  const seed = options.seed ?? 7;
  const coldRuns = options.coldRuns ?? 7;
  const appendRuns = options.appendRuns ?? 3;
  const zaxy = options.zaxyCommand ?? selfCommand();
  const workDir = options.workDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "zaxy-bench-checkout-"));
  const root = path.join(workDir, ".eventloom");
  const progress = options.progress ?? (() => {});
  try {
    progress(`generating ${options.events} mixed events (seed ${seed})`);
    const session = mixedSessionItems(options.events, seed);
    const queries = sampleQueries(session, options.queries, seed + 4);
    const appendStarted = performance.now();
    await writeMixedSession(root, sessionId, session.items);
    const appendMs = performance.now() - appendStarted;

    progress("projecting the session once (graph, row cache, vector index)");
    const projectStarted = performance.now();
    const projected = await new MemoryService(root, { warn: (message) => progress(`warning: ${message}`) }).session(sessionId);
    const projectMs = performance.now() - projectStarted;

    const feedbackCount = options.feedbackEvents ?? Math.min(1000, Math.ceil(options.events / 100));
    if (feedbackCount > 0) {
      progress(`feedback: ${feedbackCount} memory_feedback events on current facts (reinforcement in ranking)`);
      const facts = (projected.projected.rows?.entities ?? []).filter((row) => row.validTo === null && row.entityType !== "actor");
      const { recordFeedback } = await import("../memory/feedback.ts");
      for (let i = 0; i < feedbackCount && facts.length > 0; i++) {
        const fact = facts[(i * 7919) % facts.length];
        await recordFeedback(root, sessionId, { entityName: fact.name, entityType: fact.entityType, feedback: i % 2 === 0 ? "helpful" : "irrelevant", reason: "bench" }, { source: "bench" });
      }
      // The session is caught up past the feedback (read model, vectors and row cache written at
      // the new head), so that the warm and cold runs start from an up-to-date session: left a
      // thousand events behind, every fresh read would fold them (the "after an append" case).
      progress("catching the projection up past the feedback events");
      await new MemoryService(root, { warn: (message) => progress(`warning: ${message}`) }).session(sessionId);
    }

    progress(`warm: zaxy serve + ${queries.length} memory_checkout calls`);
    const warm = await warmServer(zaxy, root, queries, progress);

    progress(`cold: ${coldRuns} fresh \`zaxy memory checkout\` processes`);
    coldRun(zaxy, root, queries[0] ?? "status"); // untimed: page cache
    const cold = coldSummary(Array.from({ length: coldRuns }, (_, i) => coldRun(zaxy, root, queries[(i + 1) % Math.max(1, queries.length)] ?? "status")));

    const baselineEvents = options.baselineEvents ?? 1000;
    let baseline: CheckoutBenchResult["baseline"] = null;
    if (baselineEvents > 0) {
      progress(`baseline: ${coldRuns} fresh checkouts on a ${baselineEvents}-event session from the same generator`);
      const runs = await baselineColdRuns(zaxy, workDir, baselineEvents, seed, coldRuns, progress);
      const ratio = runs.median_ms === null || cold.median_ms === null ? null : round(cold.median_ms / runs.median_ms, 2);
      baseline = { ...runs, events: baselineEvents, ratio };
    }

    progress(`agent loop: ${appendRuns} turns of fresh \`memory append\` + \`memory checkout\``);
    const loop = Array.from({ length: appendRuns }, (_, i) => agentLoopRun(zaxy, root, queries[i % Math.max(1, queries.length)] ?? "status", i + 1));

    progress(`cold after an append: ${appendRuns} rounds`);
    const afterAppend: TimedRun[] = [];
    for (let i = 0; i < appendRuns; i++) {
      await appendEvents(root, sessionId, [{
        type: "decision.made",
        actor: "agent",
        payload: fromJs({ decision: `Use sqlite for the bench scratch store (${i + 1})`, summary: "appended before a cold checkout", rationale: "catch-up timing" }),
      }]);
      afterAppend.push(coldRun(zaxy, root, queries[i % Math.max(1, queries.length)] ?? "status"));
    }

    const coldMedian = cold.median_ms;
    return {
      machine: benchMachine(),
      command: ["zaxy", "bench", "checkout", "--events", String(options.events), "--queries", String(options.queries)],
      zaxy_command: zaxy,
      events: options.events,
      seed,
      setup: {
        append_s: round(appendMs / 1000, 3),
        project_s: round(projectMs / 1000, 3),
        projection_timings_ms: projected.projected.timingsMs,
        entity_versions: projected.projected.rows?.entities.length ?? 0,
        feedback_events: feedbackCount,
      },
      warm,
      cold: { ...cold, process: "zaxy memory checkout QUERY --json (fresh process; one untimed run first)" },
      baseline,
      cold_after_append: {
        ...coldSummary(afterAppend),
        note: "one event appended (in the bench process) before each fresh checkout: verify the tail, catch the projection up, extend the vector index, write the read model",
      },
      agent_loop: { ...coldSummary(loop), note: "fresh `zaxy memory append` then fresh `zaxy memory checkout`; ms is their sum" },
      targets: {
        warm_p95_ms: atMost(50, warm.latency?.p95_ms ?? null, feedbackCount > 0 ? "<= 50 ms with feedback" : "<= 50 ms"),
        cold_median_ms: atMost(options.events <= 10_000 ? 150 : 1000, coldMedian, options.events <= 10_000 ? "<= 150 ms" : "<= 1000 ms"),
        cold_peak_rss_mib: atMost(300, cold.max_peak_rss_mib, "<= 300 MiB"),
        ...(baseline === null ? {} : { cold_ratio_to_baseline: atMost(3, baseline.ratio, `<= 3x the ${baseline.events}-event cold checkout`) }),
        first_mcp_checkout_ms: atMost(500, warm.first_call_ms, "<= 500 ms"),
        agent_loop_median_ms: atMost(150, coldSummary(loop).median_ms, "<= 150 ms per append + checkout"),
      },
    };
  } finally {
    if (options.workDir === undefined) fs.rmSync(workDir, { recursive: true, force: true });
    else progress(`note: session kept in ${root}`);
  }
}
