// test-lane: full (slow)
/**
 * Seed fidelity, consolidation pipeline (issue 13 items 9-14), against the design documents
 * `../shared/seeds/000_ef7d275d63403772.txt` (alpha.2: segments, episode/claim/procedure,
 * diagnostics) and `001_4a55e6b48d144195.txt` (alpha.1: `memory consolidation propose`), and
 * the real Python logs in `fixtures/interop/` (byte-identical to `../shared/interop/`).
 *
 * Binary tests run `dist/zaxy` (rebuild after changing src); the MCP test is skipped without it.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { fromJs } from "../../src/canonical/mod.ts";
import { consolidationCandidatePayload } from "../../src/consolidation/candidate.ts";
import type { PlainJson } from "../../src/projection/types.ts";
import { consolidationCheckoutFeature } from "../../src/checkout/checkoutFeatures.ts";
import { generateConsolidationProposals } from "../../src/consolidation/proposals.ts";
import { selectConsolidationSegments, windowSizeDefault } from "../../src/consolidation/segments.ts";
import { appendEvents } from "../../src/events/append.ts";
import { extractEvent } from "../../src/projection/extract/mod.ts";
import { GraphFold } from "../../src/projection/graphFold.ts";
import type { RetrievedContext } from "../../src/retrieval/types.ts";
import { runZaxy } from "../cli/zaxy.ts";
import { events, hashOf } from "../consolidation/testkit.ts";
import { interopDir, makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { skipWithoutBinary, startMcpServer, tempEventloomRoot } from "../mcp/mcpTestClient.ts";
import { MemorySessionFolds } from "../../src/retrieval/sessionIndex.ts";

after(removeTempDirs);

const slow = { timeout: 120_000 };

// deno-lint-ignore no-explicit-any
function jsonOk(root: string, sessionId: string, args: string[]): any {
  const run = runZaxy([...args, "--eventloom-path", root, "--session-id", sessionId, "--json"], { cwd: root });
  assert.equal(run.code, 0, `${args.join(" ")}: ${run.stdout}${run.stderr}`);
  return JSON.parse(run.stdout);
}

/** The session log's lines as JSON. */
// deno-lint-ignore no-explicit-any
function logLines(root: string, sessionId: string): any[] {
  return fs.readFileSync(path.join(root, `${sessionId}.jsonl`), "utf8").trim().split("\n").map((line) => JSON.parse(line));
}

/** A line's 64-hex hash, in either envelope (legacy `hash`, v1 `integrity.hash` = `sha256:<hex>`). */
function lineHash(line: { hash?: string; integrity?: { hash: string } }): string {
  return line.hash ?? line.integrity!.hash.replace(/^sha256:/, "");
}

/** Seals `count` `tool.call.completed` events in a fresh session through the real appender. */
async function toolCalls(root: string, sessionId: string, count: number): Promise<void> {
  const items = Array.from({ length: count }, (_, i) => ({ type: "tool.call.completed", actor: "agent", payload: fromJs({ tool_name: "pytest", status: `run ${i + 1}` }) }));
  await appendEvents(root, sessionId, items);
}

/** A copy of a Python interop log under its own file name (the session id), writable. */
function interopCopy(name: string): { root: string; sessionId: string } {
  const root = makeTempDir("seeds-consolidation-interop");
  fs.copyFileSync(path.join(interopDir, name), path.join(root, name));
  fs.chmodSync(path.join(root, name), 0o644);
  return { root, sessionId: name.replace(/\.jsonl$/, "") };
}

describe("design 000: select_consolidation_segments(..., window_size=8) (item 9)", () => {
  test("design 000: the library default window is 8", () => {
    assert.equal(windowSizeDefault, 8);
  });

  test("design 000: propose-from-log without --window-size cuts windows of 8 actionable events", slow, async () => {
    const root = makeTempDir("seeds-window");
    await toolCalls(root, "agent-1", 9);
    const doc = jsonOk(root, "agent-1", ["memory", "consolidation", "propose-from-log"]);
    assert.equal(doc.segment_count, 2);
    const titles = logLines(root, "agent-1").filter((line) => line.type === "consolidation.candidate.created").map((line) => line.payload.title);
    assert.deepEqual(titles.filter((title: string) => title.startsWith("Episode")), ["Episode 000001-000008", "Episode 000009-000009"]);
    const help = runZaxy(["memory", "consolidation", "propose-from-log", "--help"], { cwd: root });
    assert.equal(help.code, 0);
    assert.match(help.stdout, /--window-size N\s+Actionable events per window \(1\.\.50, default 8\)/);
  });

  test("design 000: memory_consolidation_propose_from_log defaults window_size to 8 (MCP)", { ...slow, skip: skipWithoutBinary }, async () => {
    const root = tempEventloomRoot("seeds-window-mcp");
    await toolCalls(root, "s1", 9);
    const mcp = await startMcpServer(root, { clientName: "seeds-window-test" });
    try {
      const { tools } = await mcp.client.listTools();
      const schema = tools.find((tool) => tool.name === "memory_consolidation_propose_from_log")?.inputSchema as { properties: Record<string, { description?: string }> };
      assert.match(String(schema.properties.window_size.description), /default 8\)/);
      const doc = await mcp.callOk("memory_consolidation_propose_from_log", { session_id: "s1" });
      assert.equal(doc.segment_count, 2);
    } finally {
      await mcp.close();
    }
  });

  test("design 000: memory_consolidation_propose_from_log requires no argument: the session is the server's", { ...slow, skip: skipWithoutBinary }, async () => {
    const root = tempEventloomRoot("seeds-no-args-mcp");
    await toolCalls(root, "s2", 9);
    const mcp = await startMcpServer(root, { clientName: "seeds-no-args-test", args: ["--session-id", "s2"] });
    try {
      const { tools } = await mcp.client.listTools();
      const schema = tools.find((tool) => tool.name === "memory_consolidation_propose_from_log")?.inputSchema as { required?: string[] };
      assert.deepEqual(schema.required ?? [], []);
      const doc = await mcp.callOk("memory_consolidation_propose_from_log", {});
      assert.equal(doc.session_id, "s2");
      assert.equal(doc.segment_count, 2);
      assert.equal(logLines(root, "s2").at(-1).actor ?? logLines(root, "s2").at(-1).actorId, "zaxy-consolidation");
    } finally {
      await mcp.close();
    }
  });
});

describe("design 000: _has_claim_signal is at least two events in the segment (item 10)", () => {
  const candidateTypes = (specs: Parameters<typeof events>[0], windowSize = 8) =>
    generateConsolidationProposals(selectConsolidationSegments(events(specs), "agent-1", windowSize)).map((proposal) => proposal.candidateType);

  test("design 000: two tool.call.completed events yield a claim", () => {
    assert.deepEqual(candidateTypes([["tool.call.completed", { tool_name: "pytest", status: "failed" }], ["tool.call.completed", { tool_name: "pytest", status: "passed" }]]), [
      "episode",
      "claim",
      "procedure",
    ]);
    assert.deepEqual(candidateTypes([["command.completed", { command: "a" }], ["command.completed", { command: "b" }]]), ["episode", "claim"]);
    assert.deepEqual(candidateTypes([["tool.call.completed", { tool_name: "ls" }]]), ["episode"]);
  });

  test("design 000: test_generate_consolidation_proposals_creates_episode_claim_and_procedure", () => {
    const segment = selectConsolidationSegments(events([
      ["tool.call.completed", { tool_name: "pytest", status: "failed" }],
      ["file.edit.applied", { path: "src/zaxy/checkout.py" }],
      ["tool.call.completed", { tool_name: "pytest", status: "succeeded" }],
      ["memory.checkout.completed", { query: "unrelated" }],
    ]), "agent-1", 3);
    assert.deepEqual(segment.map((s) => s.segmentId), ["segment:agent-1:000001-000003"]);
    assert.deepEqual([...segment[0].eventTypeCounts], [["file.edit.applied", 1], ["tool.call.completed", 2]]);
    const proposals = generateConsolidationProposals(segment, "coding");
    assert.deepEqual(proposals.map((p) => p.candidateType), ["episode", "claim", "procedure"]);
    assert.ok(proposals.every((p) => p.purpose === "coding" && p.method.startsWith("deterministic_")));
  });

  test("design 000: two command events in one window are proposed as a claim by propose-from-log", slow, async () => {
    const root = makeTempDir("seeds-claim");
    await appendEvents(root, "agent-1", [
      { type: "command.completed", actor: "agent", payload: fromJs({ command: "npm test", status: "failed" }) },
      { type: "command.completed", actor: "agent", payload: fromJs({ command: "npm test", status: "passed" }) },
    ]);
    const doc = jsonOk(root, "agent-1", ["memory", "consolidation", "propose-from-log"]);
    assert.deepEqual(doc.events.map((event: { candidate_type: string }) => event.candidate_type), ["episode", "claim"]);
  });
});

describe("design 000: checkout diagnostics.consolidation_candidates (item 11)", () => {
  const sources = [{ seq: 1, hash: hashOf(1) }];
  const candidate = (title: string, extra: Record<string, unknown> = {}) => ({
    ...consolidationCandidatePayload({ candidateType: "claim", title, summary: "s", sourceEvents: sources, confidence: 0.6, method: "m" }),
    ...extra,
  });
  const pending = candidate("pending");
  const conflicted = candidate("conflicted");
  const acceptedValidTo = candidate("accepted, valid_to", { valid_to: "2026-06-07T00:00:00Z" });
  const rejected = candidate("rejected");
  const stale = candidate("stale", { stale: true });
  const superseded = candidate("superseded", { superseded_by: "consolidation:claim:000000000000000000000000" });
  const log = events([
    ["tool.call.completed", {}],
    ...[pending, conflicted, acceptedValidTo, rejected, stale, superseded].map((payload) => ["consolidation.candidate.created", payload] as [string, Record<string, unknown>]),
    ["consolidation.candidate.reviewed", { candidate_id: conflicted.candidate_id, status: "conflicted", rationale: "r" }],
    ["consolidation.candidate.reviewed", { candidate_id: acceptedValidTo.candidate_id, status: "accepted", rationale: "r" }],
    ["consolidation.candidate.reviewed", { candidate_id: rejected.candidate_id, status: "rejected", rationale: "r" }],
  ]);
  const context = (id: unknown, validTo: string | null = null): RetrievedContext => ({
    content: `${id}`, source: "graph", sourceLane: "keyword", score: 0.5, validFrom: null, validTo, citation: null,
    eventSeq: null, eventHash: null, entityName: String(id), entityType: "consolidation_candidate", scoreExplanation: {}, metadata: {},
  });

  test("design 000: test_candidate_diagnostics_counts_stale_conflicted_and_superseded (stale = valid_to or stale: true)", () => {
    const contexts = [
      context(pending.candidate_id),
      context(conflicted.candidate_id),
      context(acceptedValidTo.candidate_id),
      context(rejected.candidate_id),
      // The fold closes the versions the log marks stale or superseded; they are still counted.
      context(stale.candidate_id, "2026-01-01T00:00:00Z"),
      context(superseded.candidate_id, "2026-01-01T00:00:00Z"),
    ];
    const out = consolidationCheckoutFeature.contribute({ sessionId: "agent-1", folds: new MemorySessionFolds("agent-1", null, log), retrieval: { contexts, laneCounts: {}, degraded: false } });
    assert.deepEqual(out?.diagnostics, {
      candidate_count: 6,
      candidate_types: ["claim"],
      pending_count: 3,
      accepted_count: 1,
      rejected_count: 1,
      conflicted_count: 1,
      stale_count: 2,
      superseded_count: 1,
      authority_status: "non_authoritative",
    });
    assert.deepEqual(out?.ignore, ["Do not treat consolidation candidates as authoritative memory without a separate promotion event."]);
  });

  test("design 000: checkout --json carries the counts and the promotion guidance; a stale candidate is no current fact", slow, async () => {
    const root = makeTempDir("seeds-diagnostics");
    await toolCalls(root, "agent-1", 2);
    const proposed = jsonOk(root, "agent-1", ["memory", "consolidation", "propose-from-log"]);
    const claim = proposed.events.find((event: { candidate_type: string }) => event.candidate_type === "claim");
    jsonOk(root, "agent-1", ["memory", "consolidation", "review", "--candidate-id", claim.candidate_id, "--status", "rejected", "--rationale", "not supported"]);
    const [first] = logLines(root, "agent-1");
    const staleCandidate: { [key: string]: PlainJson } = {
      ...consolidationCandidatePayload({
        candidateType: "episode", title: "Zebra rollout", summary: "zebra rollout candidate, withdrawn", sourceEvents: [{ seq: 1, hash: lineHash(first) }], confidence: 0.5, method: "m",
      }),
      stale: true,
    };
    jsonOk(root, "agent-1", ["memory", "append", "consolidation.candidate.created", "--actor", "agent", "--payload-json", JSON.stringify(staleCandidate)]);
    const checkout = jsonOk(root, "agent-1", ["memory", "checkout", "zebra rollout candidate claim episode pytest", "--limit", "20"]);
    const section = checkout.diagnostics.consolidation_candidates;
    assert.deepEqual(Object.keys(section), [
      "candidate_count", "candidate_types", "pending_count", "accepted_count", "rejected_count", "conflicted_count", "stale_count", "superseded_count", "authority_status",
    ]);
    assert.equal(section.rejected_count, 1, JSON.stringify(section));
    assert.equal(section.stale_count, 1, JSON.stringify(section));
    assert.ok(checkout.guidance.ignore.includes("Do not treat consolidation candidates as authoritative memory without a separate promotion event."));
    assert.deepEqual(checkout.current_facts.filter((fact: { entity_name?: string }) => fact.entity_name === staleCandidate.candidate_id), []);
  });
});

describe("design 001: memory consolidation propose defaults (item 12)", () => {
  test("design 001: --confidence defaults to 0.7 and --method to manual_cli_v1, both optional", slow, async () => {
    const root = makeTempDir("seeds-propose");
    await toolCalls(root, "agent-1", 1);
    const [first] = logLines(root, "agent-1");
    const doc = jsonOk(root, "agent-1", [
      "memory", "consolidation", "propose", "--candidate-type", "claim", "--title", "T", "--summary", "S", "--source-event", `1:${lineHash(first)}`,
    ]);
    assert.equal(doc.payload.confidence, 0.7);
    assert.equal(doc.payload.method, "manual_cli_v1");
    const written = fs.readFileSync(path.join(root, "agent-1.jsonl"), "utf8").trim().split("\n").at(-1)!;
    assert.match(written, /"confidence":0\.7,/);
    assert.match(written, /"method":"manual_cli_v1"/);
    const help = runZaxy(["memory", "consolidation", "propose", "--help"], { cwd: root });
    assert.match(help.stdout, /--confidence X\s+Confidence 0\.\.1 \(default 0\.7\)/);
    assert.match(help.stdout, /--method NAME\s+How the candidate was derived \(default manual_cli_v1\)/);
  });

  test("design 001: propose writes as zaxy-consolidation and review as zaxy-reviewer when no --actor is given", slow, async () => {
    const root = makeTempDir("seeds-actors");
    await toolCalls(root, "agent-1", 1);
    const [first] = logLines(root, "agent-1");
    const proposed = jsonOk(root, "agent-1", [
      "memory", "consolidation", "propose", "--candidate-type", "claim", "--title", "T", "--summary", "S", "--source-event", `1:${lineHash(first)}`,
    ]);
    jsonOk(root, "agent-1", ["memory", "consolidation", "review", "--candidate-id", proposed.payload.candidate_id, "--status", "accepted", "--rationale", "checked"]);
    const [created, reviewed] = logLines(root, "agent-1").slice(-2);
    assert.equal(created.actor ?? created.actorId, "zaxy-consolidation");
    assert.equal(reviewed.actor ?? reviewed.actorId, "zaxy-reviewer");
    const help = runZaxy(["memory", "consolidation", "review", "--help"], { cwd: root });
    assert.match(help.stdout, /default zaxy-reviewer/);
  });
});

describe("propose-from-log on Python logs whose events carry another thread (item 13)", () => {
  for (const [name, thread, expected] of [
    ["legacy-worker-release.jsonl", "worker-release", { segments: 1, types: ["episode", "claim"], cited: [1, 2, 3, 4] }],
    ["v1-worker-api.jsonl", "worker-api", { segments: 1, types: ["episode", "claim"], cited: [1, 2] }],
  ] as const) {
    test(`design 000: the session log is the unit: ${name} (thread "${thread}") is consolidated and threads_seen names the thread`, slow, () => {
      const { root, sessionId } = interopCopy(name);
      const original = logLines(root, sessionId);
      const doc = jsonOk(root, sessionId, ["memory", "consolidation", "propose-from-log"]);
      assert.equal(doc.session_id, sessionId);
      assert.deepEqual(doc.threads_seen, [thread]);
      assert.equal(doc.segment_count, expected.segments);
      assert.deepEqual(doc.events.map((event: { candidate_type: string }) => event.candidate_type), expected.types);
      const created = logLines(root, sessionId).filter((line) => line.type === "consolidation.candidate.created");
      assert.deepEqual(created[0].payload.source_events, expected.cited.map((seq) => ({ seq, hash: lineHash(original[seq - 1]) })));
      assert.equal(runZaxy(["verify", path.join(root, name)], { cwd: root }).code, 0);
      // The text form says so too (a re-run: nothing new, same note).
      const text = runZaxy(["memory", "consolidation", "propose-from-log", "--eventloom-path", root, "--session-id", sessionId], { cwd: root });
      assert.equal(text.code, 0, text.stderr);
      assert.match(text.stdout, new RegExp(`note: events of this session carry thread "${thread}", not "${sessionId}"`));
    });
  }
});

describe("events marked stale: true or superseded_by are not current facts (item 14)", () => {
  for (const [name, staleSeq, currentSeq, query] of [
    ["legacy-state-auth-hidden-cause.jsonl", 3, 2, "root cause incident-alpha mobile cookie parsing hypothesis"],
    ["v1-state-release-policy-supersession.jsonl", 1, 3, "release policy external claims maintainer summaries archived artifacts"],
  ] as const) {
    test(`a Python state log (${name}): the stale event is excluded from current_facts and counted as superseded`, slow, () => {
      const { root, sessionId } = interopCopy(name);
      const checkout = jsonOk(root, sessionId, ["memory", "checkout", query, "--limit", "20"]);
      const seqOf = (citation: string) => Number(/\/events\/(\d+)#/.exec(citation)?.[1]);
      const currentSeqs = checkout.current_facts.map((fact: { citation: string }) => seqOf(fact.citation));
      assert.equal(currentSeqs.includes(staleSeq), false, JSON.stringify(currentSeqs));
      assert.ok(currentSeqs.includes(currentSeq), JSON.stringify(currentSeqs));
      assert.ok(checkout.retention.superseded_contexts_excluded >= 1);
      assert.ok(checkout.guidance.ignore.includes("Superseded contexts were excluded from current_facts but remain auditable."));
      // Still auditable: the query lane returns it with a closed validity window.
      const found = jsonOk(root, sessionId, ["memory", "query", query, "--limit", "20"]).results
        .filter((result: { event_seq: number; source: string }) => result.event_seq === staleSeq && result.source === "graph");
      assert.ok(found.length >= 1);
      assert.ok(found.every((result: { valid_to: string | null }) => result.valid_to !== null));
    });
  }

  test("the fold closes a marked version at its own time; bare restatements stay closed; a restated summary is current again", () => {
    const candidate = consolidationCandidatePayload({ candidateType: "claim", title: "T", summary: "s", sourceEvents: [{ seq: 1, hash: hashOf(1) }], confidence: 0.6, method: "m" });
    const log = events([
      ["goal.created", { title: "Ship", description: "first plan" }], // 1
      ["goal.created", { title: "Ship", description: "withdrawn plan", stale: true }], // 2
      ["goal.created", { title: "Ship", description: "superseded plan", superseded_by: "agent-1:9" }], // 3
      ["consolidation.candidate.created", { ...candidate, stale: true }], // 4
      ["consolidation.candidate.reviewed", { candidate_id: candidate.candidate_id, status: "accepted", rationale: "r" }], // 5
      ["goal.created", { title: "Ship", description: "the current plan" }], // 6
    ]);
    const fold = new GraphFold("agent-1");
    for (const event of log) fold.apply(event, extractEvent(event));
    const rows = fold.rows().entities;
    const versions = (entityType: string, name: string) => rows.filter((row) => row.entityType === entityType && row.name === name);
    const goal = versions("goal", "Ship");
    assert.deepEqual(goal.map((row) => [row.sourceEventSeq, row.validTo === null]), [[1, false], [2, false], [3, false], [6, true]]);
    assert.equal(goal[1].validTo, goal[1].validFrom, "closed at its own observed_at");
    const claim = versions("consolidation_candidate", String(candidate.candidate_id));
    // A review does not restate its candidate (extract/consolidation.ts): its edge lands on the
    // retired candidate instead of creating a bare current version.
    assert.deepEqual(claim.map((row) => [row.sourceEventSeq, row.validTo === null]), [[4, false]]);
    assert.equal(rows.filter((row) => row.entityType === "consolidation_candidate" && row.validTo === null).length, 0);

    // An incremental catch-up from the rows at seq 4 gives the same rows as the full fold.
    const partial = new GraphFold("agent-1");
    for (const event of log.slice(0, 4)) partial.apply(event, extractEvent(event));
    const resumed = new GraphFold("agent-1", partial.rows());
    for (const event of log.slice(4)) resumed.apply(event, extractEvent(event));
    assert.deepEqual(resumed.rows(), fold.rows());
  });
});
