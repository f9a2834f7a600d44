// test-lane: full (slow)
/**
 * Issue 13, items 15–17 through the built binary: trigger_consolidation's design fields and
 * merge by stable ids (design 004), the audit naming uncited events (design 002), and
 * `memory_feedback` served with reinforcement that changes ranking.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { fromJs } from "../../src/canonical/mod.ts";
import { appendEvents } from "../../src/events/append.ts";
import { runZaxy, stackTraceLines } from "../cli/zaxy.ts";
import { makeTempDir } from "../eventloom/testkit.ts";
import { reinforcementFactor } from "../../src/retrieval/reinforcement.ts";
import { removeTempDirs, skipWithoutBinary, startMcpServer, tempEventloomRoot } from "../mcp/mcpTestClient.ts";

after(removeTempDirs);
const slow = { timeout: 120_000 };

function tempDir(prefix: string): string {
  return makeTempDir(`zaxy-seed-${prefix}`);
}

// ---------------------------------------------------------------------------------------------
// Item 16: compact --audit names the events that lack a citation.

test("design 002: compact --audit names each uncited event by seq, hash and type when citation coverage < 1", async () => {
  const dir = tempDir("audit");
  const appended = await appendEvents(dir, "default", [
    { type: "document.indexed", actor: "agent", payload: fromJs({ path: "docs/a.md", content: "alpha runbook" }) },
    { type: "document.indexed", actor: "agent", payload: fromJs({ content: "beta notes without a path" }) },
    { type: "transcript.turn", actor: "user", payload: fromJs({ content: "gamma said in a turn", source: "chat" }) },
  ]);
  const [, doc2, turn3] = appended.events;

  const json = runZaxy(["compact", appended.logPath, "--audit", "--json"], { cwd: dir });
  assert.equal(json.code, 1, json.stderr);
  const report = JSON.parse(json.stdout);
  assert.ok(report.citation_coverage < 1);
  assert.equal(report.uncited_event_count, 2);
  assert.deepEqual(report.uncited_events, [
    { seq: 2, hash: doc2.hash, event_type: "document.indexed" },
    { seq: 3, hash: turn3.hash, event_type: "transcript.turn" },
  ]);

  const text = runZaxy(["compact", appended.logPath, "--audit"], { cwd: dir });
  assert.equal(text.code, 1, text.stderr);
  assert.ok(text.stdout.includes("Uncited events (2; re-ingest them with their source to cite them):"), text.stdout);
  assert.ok(text.stdout.includes(`  - seq 2  ${doc2.hash}  document.indexed`), text.stdout);
  assert.ok(text.stdout.includes(`  - seq 3  ${turn3.hash}  transcript.turn`), text.stdout);
  assert.deepEqual(stackTraceLines(text.stderr), []);
});

test("design 002: a fully cited log lists no uncited events", async () => {
  const dir = tempDir("audit-cited");
  const appended = await appendEvents(dir, "default", [{ type: "document.indexed", actor: "agent", payload: fromJs({ path: "docs/a.md", content: "alpha" }) }]);
  const run = runZaxy(["compact", appended.logPath, "--audit", "--json"], { cwd: dir });
  assert.equal(run.code, 0, run.stderr);
  const report = JSON.parse(run.stdout);
  assert.equal(report.uncited_event_count, 0);
  assert.deepEqual(report.uncited_events, []);
  const text = runZaxy(["compact", appended.logPath, "--audit"], { cwd: dir });
  assert.ok(!text.stdout.includes("Uncited events"), text.stdout);
});

test("design 002: past 100 uncited events the audit lists the first 100 by seq and counts them all", async () => {
  const dir = tempDir("audit-many");
  const appended = await appendEvents(
    dir,
    "default",
    Array.from({ length: 105 }, (_, i) => ({ type: "document.indexed", actor: "agent", payload: fromJs({ content: `note ${i} distinct words w${i}x` }) })),
  );
  const run = runZaxy(["compact", appended.logPath, "--audit", "--json"], { cwd: dir });
  assert.equal(run.code, 1, run.stderr);
  const report = JSON.parse(run.stdout);
  assert.equal(report.uncited_event_count, 105);
  assert.equal(report.uncited_events.length, 100);
  assert.deepEqual(report.uncited_events.map((e: { seq: number }) => e.seq), Array.from({ length: 100 }, (_, i) => i + 1));
  const text = runZaxy(["compact", appended.logPath, "--audit"], { cwd: dir });
  assert.ok(text.stdout.includes("  - ... 5 more (only the first 100 are listed)"), text.stdout);
});

// ---------------------------------------------------------------------------------------------
// Item 15: trigger_consolidation's design fields; merge_concepts by those ids.

/** The documented memory id, computed independently: `memory:` + 24 hex of sha256(type \x1f name). */
function expectedMemoryId(entityType: string, name: string): string {
  return `memory:${createHash("sha256").update(`${entityType}\x1f${name}`).digest("hex").slice(0, 24)}`;
}

function expectedTargetId(ids: string[]): string {
  const sorted = [...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return `memory:merged:${createHash("sha256").update(sorted.join("\x1f")).digest("hex").slice(0, 24)}`;
}

function zaxyJson(dir: string, args: string[], expectedCode = 0) {
  const run = runZaxy([...args, "--json"], { cwd: dir });
  assert.equal(run.code, expectedCode, `${args.join(" ")}: ${run.stderr}${run.stdout}`);
  assert.deepEqual(stackTraceLines(run.stderr), []);
  return JSON.parse(run.stdout);
}

function appendCli(dir: string, type: string, payload: unknown) {
  return zaxyJson(dir, ["memory", "append", type, "--actor", "agent", "--payload-json", JSON.stringify(payload)]);
}

function logLines(dir: string): string[] {
  return fs.readFileSync(path.join(dir, ".eventloom", "default.jsonl"), "utf8").split("\n").filter((line) => line.length > 0);
}

function invoiceSession(label: string): string {
  const dir = tempDir(label);
  appendCli(dir, "decision.made", { decision: "Use Postgres for invoices", summary: "invoices live in postgres with nightly backups to the archive bucket" });
  appendCli(dir, "decision.made", { decision: "Store invoices in Postgres", summary: "invoices live in postgres with nightly backups to the archive bucket" });
  appendCli(dir, "decision.made", { decision: "Rotate credentials monthly", summary: "the vault rotates staging credentials on the first monday" });
  return dir;
}

test("design 004: trigger_consolidation reports statistics.fingerprints_analyzed and source_ids, target_id, similarity, combined_alignment per candidate", slow, () => {
  const dir = invoiceSession("trigger-fields");
  const doc = zaxyJson(dir, ["memory", "consolidation", "trigger"]);
  assert.equal(doc.statistics.fingerprints_analyzed, 4, "three decisions and the actor");
  assert.equal(doc.statistics.memories_analyzed, doc.statistics.fingerprints_analyzed, "the alias");
  const [sample] = doc.candidates_sample;
  assert.deepEqual(Object.keys(sample).slice(0, 4), ["source_ids", "target_id", "similarity", "combined_alignment"]);
  const ids = [expectedMemoryId("decision", "Use Postgres for invoices"), expectedMemoryId("decision", "Store invoices in Postgres")];
  assert.deepEqual(sample.source_ids, ids);
  assert.deepEqual(sample.memories.map((m: { id: string }) => m.id), ids, "each cited memory carries its id beside its citation");
  assert.equal(sample.target_id, expectedTargetId(ids));
  assert.ok(sample.similarity >= 0.85 && sample.similarity < 1);
  assert.equal(sample.combined_alignment, 0);
  // Stable across a projection rebuild.
  const rebuilt = runZaxy(["reproject", "--reset-projection"], { cwd: dir });
  assert.equal(rebuilt.code, 0, rebuilt.stderr);
  const again = zaxyJson(dir, ["memory", "consolidation", "trigger"]);
  assert.deepEqual(again.candidates_sample[0].source_ids, ids);
  assert.equal(again.candidates_sample[0].target_id, sample.target_id);
  const text = runZaxy(["memory", "consolidation", "trigger"], { cwd: dir });
  assert.ok(text.stdout.includes(`source_ids ${ids.join(" ")}  ->  target_id ${sample.target_id}`), text.stdout);
});

test("design 004: merge by a candidate's source_ids creates the merged concept with that target_id, citing its sources, sources untouched, once", slow, () => {
  const dir = invoiceSession("merge-ids");
  const [sample] = zaxyJson(dir, ["memory", "consolidation", "trigger"]).candidates_sample;
  const before = logLines(dir);

  const merged = zaxyJson(dir, ["memory", "consolidation", "merge", "--source-id", sample.source_ids[0], "--source-id", sample.source_ids[1]]);
  assert.equal(merged.status, "created");
  assert.equal(merged.target_id, sample.target_id);
  assert.deepEqual(merged.source_ids, sample.source_ids);
  assert.equal(merged.events_appended, 1);

  const after = logLines(dir);
  assert.deepEqual(after.slice(0, before.length), before, "the sources' events are byte-identical");
  assert.equal(after.length, before.length + 1);
  const created = JSON.parse(after[before.length]);
  const payload = created.payload;
  assert.equal(created.type ?? created.event_type, "consolidation.candidate.created");
  assert.equal(payload.target_id, sample.target_id);
  assert.deepEqual(payload.source_ids, sample.source_ids);
  assert.deepEqual(payload.source_events, sample.memories.map((m: { source_event: unknown }) => m.source_event));
  assert.equal(payload.review_status, "pending", "review-gated");
  assert.equal(payload.authority_status, "non_authoritative");

  // The sources are still current memories; the merged concept is not a memory to merge again.
  const afterTrigger = zaxyJson(dir, ["memory", "consolidation", "trigger"]);
  assert.deepEqual(afterTrigger.candidates_sample.map((s: { target_id: string }) => s.target_id), [sample.target_id]);

  // The same sources again, named the other way round and under another title: the same concept, nothing appended.
  const again = zaxyJson(dir, ["memory", "consolidation", "merge", "--source-id", sample.source_ids[1], "--source-id", sample.source_ids[0], "--title", "Invoices in Postgres"]);
  assert.equal(again.status, "already_exists");
  assert.equal(again.target_id, sample.target_id);
  assert.equal(again.candidate_id, merged.candidate_id);
  assert.equal(again.events_appended, 0);
  assert.deepEqual(logLines(dir), after);

  // By name it is the same merge too.
  const byName = zaxyJson(dir, ["memory", "consolidation", "merge", "--memory", "Use Postgres for invoices@decision", "--source-id", sample.source_ids[1]]);
  assert.equal(byName.status, "already_exists");
  assert.deepEqual(logLines(dir), after);
});

test("design 004: merge refuses a malformed or unknown source id with exit 2 and writes nothing", slow, () => {
  const dir = invoiceSession("merge-bad-id");
  const before = logLines(dir);
  const malformed = zaxyJson(dir, ["memory", "consolidation", "merge", "--source-id", "550e8400-e29b-41d4", "--source-id", expectedMemoryId("decision", "Use Postgres for invoices")], 2);
  assert.equal(malformed.error.code, "invalid_source_id");
  assert.match(malformed.error.message, /source_ids\[0\] "550e8400-e29b-41d4" is not a memory id/);
  const unknown = zaxyJson(dir, ["memory", "consolidation", "merge", "--source-id", expectedMemoryId("decision", "Nope"), "--source-id", expectedMemoryId("decision", "Use Postgres for invoices")], 2);
  assert.equal(unknown.error.code, "unknown_memory");
  const one = zaxyJson(dir, ["memory", "consolidation", "merge", "--source-id", expectedMemoryId("decision", "Use Postgres for invoices")], 2);
  assert.equal(one.error.code, "usage");
  assert.deepEqual(logLines(dir), before);
});

test("design 004: MCP merge_concepts takes the design's call (source_node_ids, target_name, merge_strategy summarize) with trigger's ids", { ...slow, skip: skipWithoutBinary }, async () => {
  const mcp = await startMcpServer(tempEventloomRoot("zaxy-seed-merge-mcp"));
  try {
    for (const [decision, summary] of [
      ["Cache invoices in Redis", "invoice pdfs are cached in redis for one hour after rendering"],
      ["Keep rendered invoices in Redis", "invoice pdfs are cached in redis for one hour after rendering"],
    ]) {
      await mcp.callOk("memory_append", { event_type: "decision.made", actor: "agent", payload: { decision, summary } });
    }
    const trigger = await mcp.callOk("trigger_consolidation", {});
    assert.equal(trigger.statistics.fingerprints_analyzed, 3);
    const [candidate] = trigger.candidates_sample;
    const merged = await mcp.callOk("merge_concepts", { source_node_ids: candidate.source_ids, target_name: "Consolidated Memory", merge_strategy: "summarize" });
    assert.equal(merged.status, "created");
    assert.equal(merged.target_id, candidate.target_id);
    assert.equal(merged.title, "Consolidated Memory");
    const again = await mcp.callOk("merge_concepts", { source_ids: [...candidate.source_ids].reverse() });
    assert.equal(again.status, "already_exists");
    assert.equal(again.target_id, candidate.target_id);
    await mcp.callError("merge_concepts", { source_ids: ["not-an-id", candidate.source_ids[0]] }, "invalid_request");
  } finally {
    await mcp.close();
  }
});

// ---------------------------------------------------------------------------------------------
// Item 17: checkout guidance names memory_feedback, which is served, and reinforcement ranks.

/** Positions of the named entities in `memory query --json`, best first. */
function entityOrder(dir: string, query: string, names: string[]): string[] {
  const doc = zaxyJson(dir, ["memory", "query", query]);
  return doc.results
    .map((r: { entity_name?: string; content: string }) => names.find((name) => r.content.startsWith(`${name} (`)))
    .filter((name: string | undefined): name is string => name !== undefined);
}

test("memory_feedback: helpful feedback raises a memory and irrelevant feedback lowers it in memory query", slow, () => {
  const dir = tempDir("feedback-rank");
  appendCli(dir, "decision.made", { decision: "Deploy plan alpha", summary: "deploy the billing service on friday" });
  appendCli(dir, "decision.made", { decision: "Deploy plan beta", summary: "deploy the billing service on monday" });
  const names = ["Deploy plan alpha", "Deploy plan beta"];
  const query = "deploy billing service";
  assert.deepEqual(entityOrder(dir, query, names), ["Deploy plan alpha", "Deploy plan beta"], "equal scores: the earlier event first");

  const helpful = zaxyJson(dir, ["memory", "feedback", "Deploy plan beta", "--entity-type", "decision", "--feedback", "helpful", "--query", query]);
  assert.equal(helpful.event_type, "memory.reinforced");
  assert.deepEqual(entityOrder(dir, query, names), ["Deploy plan beta", "Deploy plan alpha"], "helpful raised beta");
  const raised = zaxyJson(dir, ["memory", "query", query]).results.find((r: { content: string }) => r.content.startsWith("Deploy plan beta ("));
  assert.deepEqual(raised.score_explanation.reinforcement, { net_feedback: 1, factor: 1.1 });

  for (let i = 0; i < 2; i++) {
    const irrelevant = zaxyJson(dir, ["memory", "feedback", "Deploy plan beta", "--entity-type", "decision", "--feedback", "Irrelevant ", "--reason", "not this week"]);
    assert.equal(irrelevant.event_type, "memory.feedback");
    assert.equal(irrelevant.feedback, "irrelevant");
  }
  assert.deepEqual(entityOrder(dir, query, names), ["Deploy plan alpha", "Deploy plan beta"], "net irrelevant lowered beta below alpha");
  // The two identical feedback notes are feedback about a memory, never memories to merge.
  const trigger = zaxyJson(dir, ["memory", "consolidation", "trigger"]);
  assert.equal(trigger.consolidation_result.status, "no_candidates", JSON.stringify(trigger.candidates_sample));

  // The events are Python's: memory.reinforced without a feedback key, memory.feedback with it.
  const events = logLines(dir).map((line) => JSON.parse(line));
  const reinforced = events.find((e) => e.type === "memory.reinforced");
  assert.deepEqual(Object.keys(reinforced.payload).filter((k) => !k.startsWith("__zaxy")), ["entity_name", "entity_type", "source", "query"]);
  assert.equal(reinforced.payload.source, "cli");
  const feedback = events.find((e) => e.type === "memory.feedback");
  assert.deepEqual(
    Object.fromEntries(Object.entries(feedback.payload).filter(([k]) => !k.startsWith("__zaxy"))),
    { entity_name: "Deploy plan beta", entity_type: "decision", feedback: "irrelevant", source: "cli", reason: "not this week" },
  );
});

test("memory feedback refuses bad input with exit 2 naming the field, and writes nothing", slow, () => {
  const dir = tempDir("feedback-bad");
  appendCli(dir, "decision.made", { decision: "Deploy plan alpha", summary: "deploy the billing service on friday" });
  const before = logLines(dir);
  const bogus = zaxyJson(dir, ["memory", "feedback", "Deploy plan alpha", "--entity-type", "decision", "--feedback", "loved"], 2);
  assert.deepEqual(bogus.error, {
    code: "invalid_feedback",
    message: '--feedback must be one of: used, helpful, irrelevant (got "loved")',
    field: "--feedback",
  });
  const noType = zaxyJson(dir, ["memory", "feedback", "Deploy plan alpha", "--feedback", "used"], 2);
  assert.equal(noType.error.field, "--entity-type");
  const importance = zaxyJson(dir, ["memory", "feedback", "Deploy plan alpha", "--entity-type", "decision", "--feedback", "used", "--importance", "1.5"], 2);
  assert.equal(importance.error.message, "--importance must be a number in 0..1 (got 1.5)");
  assert.deepEqual(logLines(dir), before);
});

test("checkout guidance names only tools the server serves: memory_feedback takes a guidance payload as it is", { ...slow, skip: skipWithoutBinary }, async () => {
  const mcp = await startMcpServer(tempEventloomRoot("zaxy-seed-feedback-mcp"), { profile: null });
  try {
    const { tools } = await mcp.client.listTools();
    const served = new Set(tools.map((t) => t.name));
    await mcp.callOk("memory_append", { event_type: "decision.made", actor: "agent", payload: { decision: "Deploy plan alpha", summary: "deploy the billing service on friday" } });
    const checkout = await mcp.callOk("memory_checkout", { query: "deploy billing service" });
    const named = [checkout.guidance.feedback.tool, checkout.guidance.recommended_next_call.tool, checkout.diagnostics.feedback_tool];
    for (const tool of named) assert.ok(served.has(tool), `checkout names ${tool}, which the default (core) profile does not serve`);
    const [payload] = checkout.guidance.feedback.payloads;
    assert.equal(payload.feedback, "used");
    const recorded = await mcp.callOk("memory_feedback", payload);
    assert.equal(recorded.event_type, "memory.reinforced");
    assert.equal(recorded.entity_name, payload.entity_name);
    const irrelevant = await mcp.callOk("memory_feedback", { entity_name: payload.entity_name, entity_type: payload.entity_type, feedback: "irrelevant" });
    assert.equal(irrelevant.event_type, "memory.feedback");
    const refused = await mcp.callError("memory_feedback", { entity_name: "x", entity_type: "decision", feedback: "loved" }, "invalid_request");
    assert.match(refused.message, /feedback must be one of: used, helpful, irrelevant/);
  } finally {
    await mcp.close();
  }
});

test("reinforcement is a bounded nudge: 1 + 0.1 per net feedback, never below 0.5 nor above 1.5", () => {
  assert.deepEqual([-9, -5, -1, 0, 1, 5, 9].map(reinforcementFactor), [0.5, 0.5, 0.9, 1, 1.1, 1.5, 1.5]);
});
