// test-lane: full (slow)
/**
 * Seed fidelity of the consolidation contracts, through the CLI and the MCP server (`zaxy serve`
 * over stdio), against the design documents in `../shared/seeds/`:
 * - 001 `_candidate_id`: `consolidation:<type>:` + the first 16 hex of SHA-256 over Python's
 *   `json.dumps({candidate_type, title, source_events}, sort_keys=True, separators=(",", ":"))`,
 *   cross-checked against python3 running the seed's function on generated inputs; ids already
 *   in logs (16 hex from Python, 24 hex from earlier zaxy builds) stay reviewable everywhere;
 * - 000 `window_size` 1..50 and 004 `max_memories` 1..10000, refused by name outside them;
 * - 004 `statistics.pairs_evaluated` = n(n-1)/2, with `pairs_compared` for the pairs compared
 *   after the pre-filter.
 *
 * The CLI and the server run the way tests/cli/zaxy.ts runs zaxy (dist/zaxy, or the sources with
 * ZAXY_TEST_FROM_SOURCE=1).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { canonicalJson, fromJs } from "../../src/canonical/mod.ts";
import { candidateCreatedItem, consolidationCandidatePayload } from "../../src/consolidation/candidate.ts";
import { generateConsolidationProposals, proposalPayload } from "../../src/consolidation/proposals.ts";
import { selectConsolidationSegments } from "../../src/consolidation/segments.ts";
import { readEvents } from "../../src/eventloom/mod.ts";
import { appendEvents } from "../../src/events/append.ts";
import { runZaxy, stackTraceLines } from "../cli/zaxy.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { type McpServer, startMcpServer } from "../mcp/mcpTestClient.ts";

after(removeTempDirs);
const slow = { timeout: 120_000 };

// deno-lint-ignore no-explicit-any
function zaxyJson(root: string, args: string[], expectedCode = 0): any {
  const run = runZaxy([...args, "--eventloom-path", root, "--json"], { cwd: path.dirname(root) });
  assert.equal(run.code, expectedCode, `${args.join(" ")}: ${run.stdout}${run.stderr}`);
  assert.deepEqual(stackTraceLines(run.stderr), []);
  return JSON.parse(run.stdout);
}

function appendCli(root: string, type: string, payload: unknown): { seq: number; hash: string } {
  const doc = zaxyJson(root, ["memory", "append", type, "--actor", "agent", "--payload-json", JSON.stringify(payload)]);
  return { seq: doc.seq, hash: doc.hash };
}

/** Every file under `dir` with its bytes' hash: "nothing written" compares two of these. */
function treeDigest(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, entry.name);
      if (entry.isDirectory()) walk(full);
      else out.set(path.relative(dir, full), createHash("sha256").update(fs.readFileSync(full)).digest("hex"));
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return out;
}

/** Seed 001's `_candidate_id`, verbatim, run by python3 over every case at once. */
const seedCandidateIdPython = String.raw`
import hashlib, json, sys
def _candidate_id(candidate_type, title, source_events):
    raw = json.dumps(
        {"candidate_type": candidate_type, "title": title, "source_events": source_events},
        sort_keys=True,
        separators=(",", ":"),
    )
    return f"consolidation:{candidate_type}:{hashlib.sha256(raw.encode('utf-8')).hexdigest()[:16]}"
cases = json.load(sys.stdin)
print(json.dumps([
    _candidate_id(c["candidate_type"], c["title"], [{"seq": int(s["seq"]), "hash": str(s["hash"])} for s in c["source_events"]])
    for c in cases
]))
`;

interface IdCase {
  candidate_type: "episode" | "claim" | "procedure";
  title: string;
  source_events: Array<{ seq: number; hash: string }>;
}

function pythonCandidateIds(cases: readonly IdCase[]): string[] {
  const run = spawnSync("python3", ["-c", seedCandidateIdPython], { input: JSON.stringify(cases), encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout);
}

/** mulberry32: a small seeded PRNG, so a failing case can be reproduced from the printed seed. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The id an earlier zaxy build wrote: the same digest cut at 24 hex. */
function legacyCandidateId(candidateType: string, title: string, sourceEvents: Array<{ seq: number; hash: string }>): string {
  const digest = createHash("sha256")
    .update(canonicalJson(fromJs({ candidate_type: candidateType, title, source_events: sourceEvents.map((s) => ({ seq: s.seq, hash: s.hash })) })))
    .digest("hex");
  return `consolidation:${candidateType}:${digest.slice(0, 24)}`;
}

function logLines(root: string, sessionId: string): string[] {
  return fs.readFileSync(path.join(root, `${sessionId}.jsonl`), "utf8").split("\n").filter((line) => line.length > 0);
}

// ---------------------------------------------------------------------------------------------
// Seed 001: candidate ids.

describe("seed 001: consolidation candidate ids", () => {
  test("a proposed candidate's id is consolidation:<type>: + the first 16 hex of sha256 over Python's json.dumps of {candidate_type, title, source_events}", slow, () => {
    const root = path.join(makeTempDir("seed-candidate-id"), ".eventloom");
    const sources = Array.from({ length: 4 }, (_, i) => appendCli(root, "tool.call.completed", { tool_name: "pytest", status: `run ${i + 1}` }));
    const seed = 20260514;
    console.log(`candidate id cases: prng seed ${seed}`);
    const random = prng(seed);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
    const words = ["Tests pass", "Café déjà vu", "日本語のタイトル", 'quote " and \\ backslash', "emoji 🚀 launch", "tab\tinside", "Ünïcödé ß", "plain-words_123", "</script>&amp;"];
    const types = ["episode", "claim", "procedure"] as const;
    const cases: IdCase[] = Array.from({ length: 8 }, () => {
      const shuffled = [...sources].sort(() => random() - 0.5);
      return { candidate_type: pick(types), title: `${pick(words)} ${pick(words)}`, source_events: shuffled.slice(0, 1 + Math.floor(random() * 3)) };
    });
    const expected = pythonCandidateIds(cases);
    const written = cases.map((c) => {
      const doc = zaxyJson(root, [
        "memory", "consolidation", "propose", "--candidate-type", c.candidate_type, "--title", c.title, "--summary", "generated case",
        ...c.source_events.flatMap((s) => ["--source-event", `${s.seq}:${s.hash}`]),
      ]);
      assert.equal(doc.payload.candidate_id, doc.candidate_id);
      return doc.candidate_id;
    });
    assert.deepEqual(written, expected);
    for (const id of written) assert.match(id, /^consolidation:(episode|claim|procedure):[0-9a-f]{16}$/);
    // What is on disk is what was reported.
    const onDisk = logLines(root, "default").map((line) => JSON.parse(line)).filter((e) => e.type === "consolidation.candidate.created").map((e) => e.payload.candidate_id);
    assert.deepEqual(onDisk, expected);
  });

  test("ids already in a log, 16 hex (Python) and 24 hex (earlier zaxy builds), are reviewed, listed by status and rolled back by id", slow, async () => {
    const root = path.join(makeTempDir("seed-candidate-legacy"), ".eventloom");
    const sources = Array.from({ length: 2 }, (_, i) => appendCli(root, "tool.call.completed", { tool_name: "pytest", status: `run ${i + 1}` }));
    const pythonPayload = consolidationCandidatePayload({ candidateType: "claim", title: "Tests pass", summary: "s", sourceEvents: sources, confidence: 0.6, method: "manual" });
    const [pythonId] = pythonCandidateIds([{ candidate_type: "claim", title: "Tests pass", source_events: sources }]);
    const legacyId = legacyCandidateId("episode", "Episode 1-2", sources);
    const legacyPayload = { ...consolidationCandidatePayload({ candidateType: "episode", title: "Episode 1-2", summary: "s", sourceEvents: sources, confidence: 0.68, method: "manual" }), candidate_id: legacyId };
    await appendEvents(root, "default", [candidateCreatedItem("python-agent", { ...pythonPayload, candidate_id: pythonId }), candidateCreatedItem("zaxy-0.9", legacyPayload)]);

    for (const id of [pythonId, legacyId]) {
      const reviewed = zaxyJson(root, ["memory", "consolidation", "review", "--candidate-id", id, "--status", "accepted", "--rationale", "checked"]);
      assert.equal(reviewed.candidate_id, id);
      assert.equal(reviewed.status, "accepted");
    }
    const status = zaxyJson(root, ["memory", "consolidation", "status"]);
    const byId = new Map(status.candidates.map((c: { candidate_id: string; review_status: string }) => [c.candidate_id, c.review_status]));
    assert.equal(byId.get(pythonId), "accepted");
    assert.equal(byId.get(legacyId), "accepted");

    const events = readEvents(path.join(root, "default.jsonl")).events;
    const legacyReview = events.findLast((e) => e.type === "consolidation.candidate.reviewed" && e.payload.get("candidate_id") === legacyId)!;
    const rolledBack = zaxyJson(root, ["memory", "rollback", "--target-seq", String(legacyReview.seq), "--target-hash", legacyReview.hash, "--reason", "accepted by mistake"]);
    assert.equal(rolledBack.reverts.candidate_id, legacyId);
    assert.equal(rolledBack.reverts.to_status, "pending");
    const after = new Map(zaxyJson(root, ["memory", "consolidation", "status"]).candidates.map((c: { candidate_id: string; review_status: string }) => [c.candidate_id, c.review_status]));
    assert.equal(after.get(legacyId), "pending");
    assert.equal(after.get(pythonId), "accepted");

    // A malformed id is still refused by name (exit 2, nothing written).
    const before = logLines(root, "default");
    const bad = zaxyJson(root, ["memory", "consolidation", "review", "--candidate-id", "consolidation:claim:" + "a".repeat(20), "--status", "accepted", "--rationale", "x"], 2);
    assert.equal(bad.error.code, "invalid_candidate_id");
    assert.match(bad.error.message, /candidate_id "consolidation:claim:a{20}" is not a consolidation candidate id/);
    assert.deepEqual(logLines(root, "default"), before);
  });

  test("propose-from-log does not propose again what an earlier build recorded under a 24-hex id", slow, async () => {
    const root = path.join(makeTempDir("seed-candidate-rerun"), ".eventloom");
    await appendEvents(root, "agent-1", Array.from({ length: 3 }, (_, i) => ({ type: "tool.call.completed", actor: "agent", payload: fromJs({ tool_name: "pytest", status: `run ${i + 1}` }) })));
    const { events } = readEvents(path.join(root, "agent-1.jsonl"));
    const legacy = generateConsolidationProposals(selectConsolidationSegments(events, "agent-1", 8)).map((proposal) => {
      const payload = proposalPayload(proposal);
      const sourceEvents = payload.source_events as Array<{ seq: number; hash: string }>;
      return { ...payload, candidate_id: legacyCandidateId(String(payload.candidate_type), String(payload.title), sourceEvents) };
    });
    await appendEvents(root, "agent-1", legacy.map((payload) => candidateCreatedItem("zaxy-consolidation", payload)));
    const before = logLines(root, "agent-1");
    const doc = zaxyJson(root, ["memory", "consolidation", "propose-from-log", "--session-id", "agent-1"]);
    assert.equal(doc.candidate_count, 0);
    assert.deepEqual(doc.skipped_existing_candidate_ids, legacy.map((payload) => payload.candidate_id));
    assert.deepEqual(logLines(root, "agent-1"), before);
  });
});

// ---------------------------------------------------------------------------------------------
// Seed 000 window_size 1..50, seed 004 max_memories 1..10000.

describe("seed 000 / 004: parameter bounds", () => {
  test("propose-from-log --window-size takes 1..50; 0 and 51 exit 2 naming --window-size and 1..50, nothing written", slow, async () => {
    const root = path.join(makeTempDir("seed-window-bounds"), ".eventloom");
    await appendEvents(root, "default", Array.from({ length: 3 }, (_, i) => ({ type: "tool.call.completed", actor: "agent", payload: fromJs({ tool_name: "pytest", status: `run ${i + 1}` }) })));
    const before = treeDigest(root);
    for (const value of ["0", "51", "200"]) {
      const run = runZaxy(["memory", "consolidation", "propose-from-log", "--window-size", value, "--eventloom-path", root], { cwd: path.dirname(root) });
      assert.equal(run.code, 2, `--window-size ${value}: ${run.stdout}${run.stderr}`);
      assert.equal(run.stdout, "");
      assert.match(run.stderr, new RegExp(`--window-size must be an integer 1\\.\\.50, got "${value}"`));
      assert.deepEqual(stackTraceLines(run.stderr), []);
      const json = zaxyJson(root, ["memory", "consolidation", "propose-from-log", "--window-size", value], 2);
      assert.equal(json.error.code, "invalid_option");
      assert.deepEqual(treeDigest(root), before, `--window-size ${value} wrote something`);
    }
    const help = runZaxy(["memory", "consolidation", "propose-from-log", "--help"], { cwd: path.dirname(root) });
    assert.match(help.stdout, /--window-size N\s+Actionable events per window \(1\.\.50, default 8\)/);
    assert.equal(zaxyJson(root, ["memory", "consolidation", "propose-from-log", "--window-size", "50"]).segment_count, 1);
  });

  test("trigger --max-memories takes 1..10000; 0 and 10001 exit 2 naming --max-memories and 1..10000, nothing written", slow, () => {
    const root = path.join(makeTempDir("seed-max-memories"), ".eventloom");
    appendCli(root, "decision.made", { decision: "Use Postgres for invoices", summary: "invoices live in postgres" });
    const before = treeDigest(root);
    for (const value of ["0", "10001", "9007199254740991"]) {
      const run = runZaxy(["memory", "consolidation", "trigger", "--max-memories", value, "--eventloom-path", root], { cwd: path.dirname(root) });
      assert.equal(run.code, 2, `--max-memories ${value}: ${run.stdout}${run.stderr}`);
      assert.equal(run.stdout, "");
      assert.match(run.stderr, new RegExp(`--max-memories must be an integer from 1 to 10000 \\(got ${value}\\)`));
      assert.deepEqual(stackTraceLines(run.stderr), []);
      const json = zaxyJson(root, ["memory", "consolidation", "trigger", "--max-memories", value], 2);
      assert.equal(json.error.code, "invalid_max_memories");
      assert.deepEqual(treeDigest(root), before, `--max-memories ${value} wrote something`);
    }
    const help = runZaxy(["memory", "consolidation", "trigger", "--help"], { cwd: path.dirname(root) });
    assert.match(help.stdout, /--max-memories N\s+Most recent memories analysed, 1\.\.10000 \(default 100\)/);
    assert.equal(zaxyJson(root, ["memory", "consolidation", "trigger", "--max-memories", "10000"]).statistics.max_memories_limit, 10000);
  });
});

// ---------------------------------------------------------------------------------------------
// Seed 004 statistics.

function invoiceSession(root: string): void {
  appendCli(root, "decision.made", { decision: "Use Postgres for invoices", summary: "invoices live in postgres with nightly backups to the archive bucket" });
  appendCli(root, "decision.made", { decision: "Store invoices in Postgres", summary: "invoices live in postgres with nightly backups to the archive bucket" });
  appendCli(root, "decision.made", { decision: "Rotate credentials monthly", summary: "the vault rotates staging credentials on the first monday" });
}

describe("seed 004: trigger statistics", () => {
  test("pairs_evaluated is n(n-1)/2 of the memories analysed; pairs_compared counts the pairs compared after the pre-filter", slow, () => {
    const root = path.join(makeTempDir("seed-pairs"), ".eventloom");
    invoiceSession(root);
    for (const strategy of ["similarity", "temporal", "semantic"]) {
      const { statistics } = zaxyJson(root, ["memory", "consolidation", "trigger", "--strategy", strategy]);
      const n = statistics.fingerprints_analyzed;
      assert.equal(n, 4, "three decisions and the actor");
      assert.equal(statistics.pairs_evaluated, (n * (n - 1)) / 2, strategy);
      assert.ok(statistics.pairs_compared <= statistics.pairs_evaluated && statistics.pairs_compared >= statistics.pairs_consolidated, JSON.stringify(statistics));
    }
    const { statistics } = zaxyJson(root, ["memory", "consolidation", "trigger"]);
    assert.deepEqual(
      { pairs_evaluated: statistics.pairs_evaluated, pairs_compared: statistics.pairs_compared, pairs_consolidated: statistics.pairs_consolidated },
      { pairs_evaluated: 6, pairs_compared: 1, pairs_consolidated: 1 },
    );
    const text = runZaxy(["memory", "consolidation", "trigger", "--eventloom-path", root], { cwd: path.dirname(root) });
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /4 memories analysed \(limit 100\), 6 pairs evaluated \(n\(n-1\)\/2\), 1 compared after the pre-filter/);
  });
});

// ---------------------------------------------------------------------------------------------
// The same contracts through `zaxy serve`.

describe("zaxy serve: candidate ids, bounds and statistics", () => {
  let mcp: McpServer;
  before(async () => {
    const root = path.join(makeTempDir("seed-contract-mcp"), ".eventloom");
    invoiceSession(root);
    mcp = await startMcpServer(root, { clientName: "zaxy-seed-contract-test" });
  }, slow);
  after(async () => {
    await mcp?.close();
  });

  test("tools/list: window_size 1..50, max_memories 1..10000, candidate_id accepts 16 and 24 hex", slow, async () => {
    const { tools } = await mcp.client.listTools();
    const props = (name: string) => (tools.find((t) => t.name === name)?.inputSchema as { properties: Record<string, Record<string, unknown>> }).properties;
    const window = props("memory_consolidation_propose_from_log").window_size;
    assert.deepEqual([window.minimum, window.maximum], [1, 50]);
    const maxMemories = props("trigger_consolidation").max_memories;
    assert.deepEqual([maxMemories.minimum, maxMemories.maximum], [1, 10000]);
    const pattern = new RegExp(String(props("memory_consolidation_review").candidate_id.pattern));
    assert.ok(pattern.test("consolidation:claim:" + "0".repeat(16)));
    assert.ok(pattern.test("consolidation:claim:" + "0".repeat(24)));
    assert.ok(!pattern.test("consolidation:claim:" + "0".repeat(20)));
  });

  test("out-of-range window_size and max_memories are invalid_request naming the field and the bound; nothing written", slow, async () => {
    const before = treeDigest(mcp.root);
    const window = await mcp.callError("memory_consolidation_propose_from_log", { window_size: 51 }, "invalid_request");
    assert.match(window.message, /window_size must be <= 50, got 51/);
    const zero = await mcp.callError("memory_consolidation_propose_from_log", { window_size: 0 }, "invalid_request");
    assert.match(zero.message, /window_size must be >= 1, got 0/);
    const memories = await mcp.callError("trigger_consolidation", { max_memories: 10001 }, "invalid_request");
    assert.match(memories.message, /max_memories must be <= 10000, got 10001/);
    assert.deepEqual(treeDigest(mcp.root), before);
  });

  test("trigger_consolidation reports pairs_evaluated n(n-1)/2 and pairs_compared, as the CLI does", slow, async () => {
    const doc = await mcp.callOk("trigger_consolidation", { max_memories: 10000 });
    assert.equal(doc.statistics.max_memories_limit, 10000);
    assert.equal(doc.statistics.pairs_evaluated, 6);
    assert.equal(doc.statistics.pairs_compared, 1);
    assert.equal(doc.statistics.pairs_consolidated, 1);
    const { tools } = await mcp.client.listTools();
    const output = tools.find((t) => t.name === "trigger_consolidation")?.outputSchema as { properties: Record<string, { required?: string[] }> };
    assert.ok(output.properties.statistics.required?.includes("pairs_evaluated"));
    assert.ok(output.properties.statistics.required?.includes("pairs_compared"));
  });

  test("memory_consolidation_review takes a proposed 16-hex id", slow, async () => {
    const events = readEvents(path.join(mcp.root, "default.jsonl")).events;
    const source = { seq: events[0].seq, hash: events[0].hash };
    const created = await mcp.callOk("memory_consolidation_candidate", {
      candidate_type: "claim", title: "Invoices in Postgres", summary: "s", source_events: [source], confidence: 0.6, method: "manual",
    });
    const [expected] = pythonCandidateIds([{ candidate_type: "claim", title: "Invoices in Postgres", source_events: [source] }]);
    assert.equal(created.candidate_id, expected);
    const reviewed = await mcp.callOk("memory_consolidation_review", { candidate_id: expected, status: "accepted", rationale: "checked" });
    assert.equal(reviewed.candidate_id, expected);
  });
});
