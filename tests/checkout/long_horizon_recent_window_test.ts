/**
 * `long_horizon_recent_window` (CLI `--recent-window`) is the number of events in the episodic
 * tier (seed 002; docs/long-horizon.md): the diagnostics report the configured window, the tier
 * holds that many events, the Recent Events section shows them (at most `max_recent_events` when
 * that is given, never more than the window), and the remote tier covers only events before the
 * window, so the two never overlap. A 30-event session, through the CLI and `zaxy serve`.
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { fromJs } from "../../src/canonical/mod.ts";
import { proposeCandidate, reviewCandidate } from "../../src/consolidation/operations.ts";
import { type AppendedEvent } from "../../src/eventloom/mod.ts";
import { appendEvents } from "../../src/events/append.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { type McpServer, startMcpServer } from "../mcp/mcpTestClient.ts";
import { runZaxy } from "../cli/zaxy.ts";

after(removeTempDirs);
const slow = { timeout: 120_000 };
const query = "redis cache decision";

let dir = "";
let root = "";
const events: AppendedEvent[] = [];
let oldCandidate = "";
let recentCandidate = "";

async function note(text: string): Promise<void> {
  const result = await appendEvents(root, "default", [{ type: "note.added", actor: "agent", payload: fromJs({ text }) }]);
  events.push(result.events[0]);
}

async function propose(title: string, sources: AppendedEvent[]): Promise<string> {
  const doc = await proposeCandidate(root, "default", {
    candidateType: "claim",
    title,
    summary: `${title}: the cache uses redis with a 60 s ttl`,
    sourceEvents: sources.map((event) => ({ seq: event.seq, hash: event.hash })),
    confidence: 0.8,
    method: "manual_review_v1",
  });
  return doc.candidate_id as string;
}

// deno-lint-ignore no-explicit-any
function checkout(args: string[]): any {
  const run = runZaxy(["memory", "checkout", query, "--json", "--long-horizon", ...args], { cwd: dir });
  assert.equal(run.code, 0, `${args.join(" ")}: ${run.stdout.slice(0, 400)}${run.stderr}`);
  return JSON.parse(run.stdout);
}

/** The seqs listed under "# Recent Events" (`[seq] type by actor` lines). */
function recentSeqs(prompt: string): number[] {
  const section = prompt.split("# Recent Events\n")[1]?.split("\n# ")[0] ?? "";
  return [...section.matchAll(/^\[(\d+)\] /gm)].map((match) => Number(match[1]));
}

function seqOf(citation: string): number {
  return Number(citation.match(/\/events\/(\d+)#/)![1]);
}

describe("the long-horizon recent window is the episodic tier", () => {
  before(async () => {
    dir = makeTempDir("zaxy-recent-window");
    root = path.join(dir, ".eventloom");
    // seqs 1-24: notes; 25: candidate citing 1-2; 26: a note; 27: candidate citing 26;
    // 28, 29: both accepted; 30: a note. Window 5 → split at seq 25: the first candidate's
    // sources are older than the window, the second's source is inside it.
    for (let i = 1; i <= 24; i++) await note(`redis cache work ${i}`);
    oldCandidate = await propose("Redis cache decision", [events[0], events[1]]);
    await note("redis cache work 26");
    recentCandidate = await propose("Redis cache warmup", [events[24]]);
    await reviewCandidate(root, "default", { candidateId: oldCandidate, status: "accepted", rationale: "checked the cited notes" });
    await reviewCandidate(root, "default", { candidateId: recentCandidate, status: "accepted", rationale: "checked the cited note" });
    await note("redis cache work 30");
    assert.equal(events[events.length - 1].seq, 30);
  }, slow);

  test("--recent-window 5 without --max-recent-events: window 5, 5 episodic events shown, split at 25", slow, () => {
    const doc = checkout(["--recent-window", "5"]);
    const lh = doc.diagnostics.long_horizon;
    assert.deepEqual([lh.recent_window, lh.episodic_count, lh.horizon_split_seq], [5, 5, 25]);
    assert.equal(doc.replay_event_count, 5);
    assert.deepEqual(recentSeqs(doc.prompt), [26, 27, 28, 29, 30]);
    assert.deepEqual(lh.items.map((item: { candidate_id: string }) => item.candidate_id), [oldCandidate]);
    assert.match(doc.prompt, /- Long horizon: recent_window=5, episodic=5, horizon_split_seq=25, consolidated=1, authority=non_authoritative/);
  });

  test("the remote tier and the shown recent events never overlap", slow, () => {
    for (const args of [["--recent-window", "5"], ["--recent-window", "5", "--max-recent-events", "20"], ["--recent-window", "12"]]) {
      const doc = checkout(args);
      const lh = doc.diagnostics.long_horizon;
      const shown = recentSeqs(doc.prompt);
      assert.ok(shown.length <= lh.recent_window, `${args.join(" ")}: ${shown.length} shown`);
      assert.ok(shown.every((seq) => seq > lh.horizon_split_seq), `${args.join(" ")}: ${shown}`);
      for (const item of lh.items) {
        for (const citation of item.source_event_citations) assert.ok(seqOf(citation) <= lh.horizon_split_seq, `${args.join(" ")}: ${citation}`);
      }
    }
  });

  test("a larger --max-recent-events does not widen the window; a smaller one only shortens what is shown", slow, () => {
    const wide = checkout(["--recent-window", "5", "--max-recent-events", "20"]);
    assert.deepEqual([wide.diagnostics.long_horizon.recent_window, wide.diagnostics.long_horizon.episodic_count, wide.replay_event_count], [5, 5, 5]);
    const narrow = checkout(["--recent-window", "5", "--max-recent-events", "3"]);
    const lh = narrow.diagnostics.long_horizon;
    assert.deepEqual([lh.recent_window, lh.episodic_count, lh.horizon_split_seq], [5, 5, 25]);
    assert.deepEqual(recentSeqs(narrow.prompt), [28, 29, 30]);
  });

  test("a window wider than the default max_recent_events shows the whole window", slow, () => {
    const doc = checkout(["--recent-window", "25"]);
    const lh = doc.diagnostics.long_horizon;
    assert.deepEqual([lh.recent_window, lh.episodic_count, lh.horizon_split_seq], [25, 25, 5]);
    assert.equal(doc.replay_event_count, 25);
    assert.deepEqual(recentSeqs(doc.prompt), Array.from({ length: 25 }, (_, i) => i + 6));
  });

  describe("over MCP", () => {
    let mcp: McpServer;

    before(async () => {
      mcp = await startMcpServer(root, { clientName: "zaxy-recent-window-test" });
    }, slow);

    after(async () => {
      await mcp?.close();
    });

    test("memory_checkout long_horizon_recent_window 5 reports and shows a window of 5", slow, async () => {
      const doc = await mcp.callOk("memory_checkout", { query, long_horizon: true, long_horizon_recent_window: 5 });
      const lh = doc.diagnostics.long_horizon;
      assert.deepEqual([lh.recent_window, lh.episodic_count, lh.horizon_split_seq], [5, 5, 25]);
      assert.equal(doc.replay_event_count, 5);
      assert.deepEqual(recentSeqs(doc.prompt), [26, 27, 28, 29, 30]);
    });
  });
});
