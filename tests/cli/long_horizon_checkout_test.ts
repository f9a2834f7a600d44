/**
 * Long-horizon checkout through the binary (docs/long-horizon.md; DESIGN §9, reference §4):
 * off by default and then byte-identical to the single-tier checkout (no flag, the setting
 * false, --no-long-horizon, and --no-long-horizon over an enabled setting all print the same
 * bytes, none with a `long_horizon` key); on per call or by config.json; the per-call values
 * override the setting; only the accepted candidate whose sources are all older than the split
 * appears, cited and non-authoritative; exit 2 for bad flags and bad settings. Also the MCP
 * memory_checkout `long_horizon` parameters through `zaxy serve`.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { fromJs } from "../../src/canonical/mod.ts";
import { proposeCandidate, reviewCandidate } from "../../src/consolidation/operations.ts";
import { type AppendedEvent } from "../../src/eventloom/mod.ts";
import { appendEvents } from "../../src/events/append.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { type CallOutcome, type McpServer, startMcpServer } from "../mcp/mcpTestClient.ts";
import { runZaxy, stackTraceLines, zaxyInvocation } from "./zaxy.ts";

after(removeTempDirs);

const slow = { timeout: 120_000 };
const query = "redis cache decision";

let dir = "";
let root = "";
let oldAccepted = "";
let pending = "";
let tooNew = "";
let events: AppendedEvent[] = [];

async function append(type: string, payload: Record<string, unknown>): Promise<AppendedEvent> {
  const result = await appendEvents(root, "default", [{ type, actor: "agent", payload: fromJs(payload) }]);
  events.push(result.events[0]);
  return result.events[0];
}

function ref(event: AppendedEvent): { seq: number; hash: string } {
  return { seq: event.seq, hash: event.hash };
}

async function propose(title: string, sources: AppendedEvent[]): Promise<string> {
  const doc = await proposeCandidate(root, "default", {
    candidateType: "claim",
    title,
    summary: `${title}: the cache uses redis with a 60 s ttl`,
    sourceEvents: sources.map(ref),
    confidence: 0.8,
    method: "manual_review_v1",
  });
  return doc.candidate_id as string;
}

function writeConfig(settings: Record<string, unknown> | null): void {
  const file = path.join(root, "config.json");
  if (settings === null) fs.rmSync(file, { force: true });
  else fs.writeFileSync(file, JSON.stringify({ schema: "zaxy.config.v1", envelope: "v1", ...settings }, null, 2) + "\n");
}

function checkoutBytes(args: string[] = []): string {
  const run = runZaxy(["memory", "checkout", query, "--json", ...args], { cwd: dir });
  assert.equal(run.code, 0, `${args.join(" ")}: ${run.stdout.slice(0, 400)}${run.stderr}`);
  return run.stdout;
}

describe("zaxy memory checkout --long-horizon", () => {
  let baseline = "";

  before(async () => {
    dir = makeTempDir("zaxy-long-horizon");
    root = path.join(dir, ".eventloom");
    events = [];
    // seqs 1-4: early work; 5: accepted candidate citing 1-2; 6: its review; 7: pending
    // candidate citing 3;
    // 8-12: later notes; 13: candidate citing 4 and 12; 14: its review; 15-20: later notes.
    // 20 events, window 9 → split at seq 11, so the candidate citing 12 stays out.
    for (let i = 1; i <= 4; i++) await append("tool.call.completed", { tool: "pytest", summary: `cache test run ${i}` });
    oldAccepted = await propose("Redis cache decision", [events[0], events[1]]);
    events.push({} as AppendedEvent);
    await reviewCandidate(root, "default", { candidateId: oldAccepted, status: "accepted", rationale: "checked the cited runs" });
    events.push({} as AppendedEvent);
    pending = await propose("Cache eviction idea", [events[2]]);
    events.push({} as AppendedEvent);
    for (let i = 8; i <= 12; i++) await append("note.added", { text: `later note ${i}` });
    tooNew = await propose("Cache warmup plan", [events[3], events[11]]);
    events.push({} as AppendedEvent);
    await reviewCandidate(root, "default", { candidateId: tooNew, status: "accepted", rationale: "looks right" });
    events.push({} as AppendedEvent);
    for (let i = 15; i <= 20; i++) await append("note.added", { text: `later note ${i}` });
    assert.equal(fs.readFileSync(path.join(root, "default.jsonl"), "utf8").trim().split("\n").length, 20);
    // Warm the projection once, so every later read starts from the same cached state.
    checkoutBytes();
    baseline = checkoutBytes();
  }, slow);

  test("off by default and byte-identical whichever way it is off", slow, () => {
    assert.equal(baseline.includes("long_horizon"), false);
    assert.equal(baseline.includes('"consolidated"'), false);
    assert.equal(checkoutBytes(["--no-long-horizon"]), baseline);
    writeConfig({ long_horizon_enabled: false, long_horizon_recent_window: 9 });
    assert.equal(checkoutBytes(), baseline);
    writeConfig({ long_horizon_enabled: true, long_horizon_recent_window: 9 });
    assert.equal(checkoutBytes(["--no-long-horizon"]), baseline, "a per-call off overrides the setting");
    writeConfig(null);
  });

  test("per call: only the accepted candidate older than the split, cited and non-authoritative", slow, () => {
    const doc = JSON.parse(checkoutBytes(["--long-horizon", "--recent-window", "9"]));
    const lh = doc.diagnostics.long_horizon;
    assert.deepEqual(Object.keys(lh), ["enabled", "recent_window", "episodic_count", "horizon_split_seq", "consolidated_count", "items", "non_authoritative"]);
    assert.equal(lh.enabled, true);
    assert.deepEqual([lh.recent_window, lh.episodic_count, lh.horizon_split_seq], [9, 9, 11], "the window is the one configured");
    assert.equal(doc.replay_event_count, 9, "Recent Events shows the window");

    const narrow = JSON.parse(checkoutBytes(["--long-horizon", "--recent-window", "9", "--max-recent-events", "3"])).diagnostics.long_horizon;
    assert.deepEqual([narrow.recent_window, narrow.episodic_count, narrow.horizon_split_seq, narrow.consolidated_count], [9, 9, 11, 1]);
    const [item] = narrow.items;
    assert.equal(item.candidate_id, oldAccepted);
    assert.equal(item.review_status, "accepted");
    assert.equal(item.non_authoritative, true);
    assert.equal(item.authority_status, "non_authoritative");
    assert.equal(item.citation, `eventloom://default/events/5#${fs.readFileSync(path.join(root, "default.jsonl"), "utf8").split("\n")[4].match(/"hash":"sha256:([0-9a-f]{12})/)![1]}`);
    assert.deepEqual(item.source_event_citations, [events[0].citation, events[1].citation]);
    const ids = narrow.items.map((entry: { candidate_id: string }) => entry.candidate_id);
    assert.equal(ids.includes(pending), false, "pending stays out");
    assert.equal(ids.includes(tooNew), false, "a source after the split keeps it out");
  });

  test("the remote item is in the checkout as a cited, non-authoritative consolidated fact", slow, () => {
    const doc = JSON.parse(checkoutBytes(["--long-horizon", "--recent-window", "9", "--max-recent-events", "3"]));
    const consolidated = doc.current_facts.filter((fact: { source: string }) => fact.source === "consolidated");
    assert.equal(consolidated.length, 1);
    assert.equal(consolidated[0].citation, doc.diagnostics.long_horizon.items[0].citation);
    assert.equal(consolidated[0].score_explanation.non_authoritative, true);
    assert.equal(consolidated[0].score_explanation.review_status, "accepted");
    assert.equal(doc.diagnostics.source_lanes.consolidated, 1);
    assert.match(doc.prompt, /- Long horizon: recent_window=9, episodic=9, horizon_split_seq=11, consolidated=1, authority=non_authoritative/);
  });

  test("by setting, and the per-call window overrides the setting's", slow, () => {
    writeConfig({ long_horizon_enabled: true, long_horizon_recent_window: 9 });
    const bySetting = checkoutBytes(["--max-recent-events", "3"]);
    assert.equal(bySetting, checkoutBytes(["--long-horizon", "--recent-window", "9", "--max-recent-events", "3"]));
    const wide = JSON.parse(checkoutBytes(["--recent-window", "50", "--max-recent-events", "3"])).diagnostics.long_horizon;
    assert.deepEqual([wide.recent_window, wide.episodic_count, wide.horizon_split_seq, wide.items.length], [50, 20, null, 0]);
    writeConfig(null);
  });

  test("bad flags and settings exit 2 naming them; nothing is printed on stdout but the error", slow, () => {
    const cases: Array<[string[], Record<string, unknown> | null, string]> = [
      [["--recent-window", "5"], null, "long_horizon_recent_window"],
      [["--long-horizon", "--recent-window", "0"], null, "--recent-window"],
      [["--long-horizon", "--no-long-horizon"], null, "--long-horizon"],
      [[], { long_horizon_enabled: "yes" }, "long_horizon_enabled"],
      [["--long-horizon"], { long_horizon_recent_window: 0 }, "long_horizon_recent_window"],
    ];
    for (const [args, settings, field] of cases) {
      writeConfig(settings);
      const run = runZaxy(["memory", "checkout", query, "--json", ...args], { cwd: dir });
      assert.equal(run.code, 2, `${args.join(" ")}: ${run.stdout}${run.stderr}`);
      assert.deepEqual(stackTraceLines(run.stderr), []);
      const error = JSON.parse(run.stdout).error;
      assert.equal(error.field, field, `${args.join(" ")} ${JSON.stringify(settings)}: ${error.message}`);
    }
    writeConfig(null);
  });
});

describe("MCP memory_checkout long_horizon", { skip: zaxyInvocation.kind === "binary" ? false : "needs the built binary" }, () => {
  let mcp: McpServer;

  before(async () => {
    mcp = await startMcpServer(root, { command: zaxyInvocation.command, profile: null, clientName: "zaxy-long-horizon-test" });
  }, slow);

  after(async () => {
    await mcp?.close();
  });

  function checkout(args: Record<string, unknown>): Promise<CallOutcome> {
    return mcp.call("memory_checkout", { query, ...args });
  }

  test("the schema lists long_horizon and long_horizon_recent_window", slow, async () => {
    const { tools } = await mcp.client.listTools();
    const schema = tools.find((tool) => tool.name === "memory_checkout")!.inputSchema as {
      properties: Record<string, Record<string, unknown>>;
      additionalProperties?: boolean;
    };
    assert.equal(schema.properties.long_horizon.type, "boolean");
    assert.equal(schema.properties.long_horizon_recent_window.minimum, 1);
    assert.equal(schema.additionalProperties, false);
  });

  test("long_horizon true adds the section; absent leaves the checkout without it", slow, async () => {
    const on = await checkout({ long_horizon: true, long_horizon_recent_window: 9, max_recent_events: 3 });
    assert.equal(on.isError, false, JSON.stringify(on.doc));
    assert.equal(on.doc.diagnostics.long_horizon.horizon_split_seq, 11);
    assert.deepEqual(on.doc.diagnostics.long_horizon.items.map((item: { candidate_id: string }) => item.candidate_id), [oldAccepted]);
    const off = await checkout({ max_recent_events: 3 });
    assert.equal("long_horizon" in off.doc.diagnostics, false);
    const bad = await checkout({ long_horizon: true, long_horizon_recent_window: 0 });
    assert.equal(bad.isError, true);
    assert.equal(bad.doc.error.code, "invalid_request");
  });
});
