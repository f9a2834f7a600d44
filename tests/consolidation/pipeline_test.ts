/**
 * Segment selection and proposal generation (reference §2.3–2.4, test_consolidation_pipeline.py):
 * actionable vs passive events, every event of the session log whatever its thread (seed 000),
 * window chunks, segment ids, event and
 * segment summaries (Python's whitespace collapsing and 240-code-point truncation), and the
 * episode/claim/procedure rules with their confidences, titles and methods.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { consolidationCandidateId } from "../../src/consolidation/candidate.ts";
import { generateConsolidationProposals, proposalPayload, segmentSummary } from "../../src/consolidation/proposals.ts";
import { buildSegmentId, selectConsolidationSegments } from "../../src/consolidation/segments.ts";
import { isZaxyError } from "../../src/errors.ts";
import { events, hashOf } from "./testkit.ts";

describe("selectConsolidationSegments", () => {
  test("groups actionable events, drops memory reads, keeps events of another thread, summarises each event", () => {
    const log = events([
      ["tool.call.completed", { status: "failed", tool_name: "pytest", exit_code: 1 }],
      ["memory.checkout.completed", { query: "why?" }],
      ["file.edit.applied", { path: "src/app.py", summary: "  fix \n\t the   retry " }],
      ["tool.call.completed", { tool_name: "pytest", status: "passed" }, "other-session"],
      ["goal.created", { title: "Ship" }],
      ["command.completed", { command: "npm test", status: "ok", summary: "s", title: "t", reason: "r" }],
    ]);
    const segments = selectConsolidationSegments(log, "agent-1", 8);
    assert.equal(segments.length, 1);
    assert.equal(segments[0].segmentId, "segment:agent-1:000001-000006");
    assert.deepEqual(segments[0].sourceEvents, [
      { seq: 1, hash: hashOf(1), event_type: "tool.call.completed", summary: "tool.call.completed | failed | pytest" },
      { seq: 3, hash: hashOf(3), event_type: "file.edit.applied", summary: "file.edit.applied | src/app.py | fix the retry" },
      { seq: 4, hash: hashOf(4), event_type: "tool.call.completed", summary: "tool.call.completed | passed | pytest" },
      { seq: 6, hash: hashOf(6), event_type: "command.completed", summary: "command.completed | ok | npm test | s" },
    ]);
    assert.deepEqual([...segments[0].eventTypeCounts], [["command.completed", 1], ["file.edit.applied", 1], ["tool.call.completed", 2]]);
  });

  test("cuts consecutive windows of window_size actionable events", () => {
    const log = events(Array.from({ length: 7 }, (_, i) => ["task.started", { title: `t${i}` }] as [string, Record<string, unknown>]));
    assert.deepEqual(selectConsolidationSegments(log, "agent-1", 3).map((s) => s.segmentId), [
      "segment:agent-1:000001-000003",
      "segment:agent-1:000004-000006",
      "segment:agent-1:000007-000007",
    ]);
    // The session id names the segments; the events' thread does not select them.
    assert.deepEqual(selectConsolidationSegments(log, "agent-2", 3).map((s) => s.segmentId), [
      "segment:agent-2:000001-000003",
      "segment:agent-2:000004-000006",
      "segment:agent-2:000007-000007",
    ]);
  });

  test("window size must be 1..50 (seed 000)", () => {
    for (const size of [0, 51, 1.5]) {
      assert.throws(() => selectConsolidationSegments([], "agent-1", size), (e: unknown) => isZaxyError(e) && e.exitCode === 2 && e.details.field === "window_size");
    }
    assert.deepEqual(selectConsolidationSegments([], "agent-1", 50), []);
  });

  test("buildSegmentId pads min and max seq to 6 digits", () => {
    assert.equal(buildSegmentId("agent-1", [3, 4, 9]), "segment:agent-1:000003-000009");
    assert.equal(buildSegmentId("s", [1234567]), "segment:s:1234567-1234567");
  });

  test("event summaries keep 240 code points (an astral character is one)", () => {
    const log = events([["command.completed", { command: "😀".repeat(300) }]]);
    const summary = selectConsolidationSegments(log, "agent-1", 5)[0].sourceEvents[0].summary;
    assert.equal([...summary].length, 240);
    assert.ok(summary.startsWith("command.completed | 😀"));
  });
});

describe("generateConsolidationProposals", () => {
  test("an edit with two tool calls proposes episode, claim and procedure with the fixed titles, confidences, methods", () => {
    const log = events([
      ["tool.call.completed", { status: "failed", tool_name: "pytest" }],
      ["file.edit.applied", { path: "src/app.py" }],
      ["tool.call.completed", { status: "passed", tool_name: "pytest" }],
    ]);
    const proposals = generateConsolidationProposals(selectConsolidationSegments(log, "agent-1", 8), "coding");
    const summary = "tool.call.completed | failed | pytest -> file.edit.applied | src/app.py -> tool.call.completed | passed | pytest";
    assert.deepEqual(proposals.map((p) => [p.candidateType, p.title, p.summary, p.confidence, p.method, p.purpose]), [
      ["episode", "Episode 000001-000003", summary, 0.68, "deterministic_episode_segment_v1", "coding"],
      ["claim", "Claim from segment:agent-1:000001-000003", `Candidate claim supported by 3 cited source events: ${summary}`, 0.62, "deterministic_claim_signal_v1", "coding"],
      ["procedure", "Procedure from segment:agent-1:000001-000003", `Candidate procedure inferred from observed workflow steps: ${summary}`, 0.58, "deterministic_procedure_trace_v1", "coding"],
    ]);
    const payload = proposalPayload(proposals[0]);
    assert.equal(payload.candidate_id, consolidationCandidateId("episode", "Episode 000001-000003", [1, 2, 3].map((seq) => ({ seq, hash: hashOf(seq) }))));
    assert.equal(payload.authority_status, "non_authoritative");
  });

  test("a single event is only an episode; any two events are episode + claim (the design's _has_claim_signal)", () => {
    const types = (specs: Parameters<typeof events>[0]) =>
      generateConsolidationProposals(selectConsolidationSegments(events(specs), "agent-1", 8)).map((p) => p.candidateType);
    assert.deepEqual(types([["tool.call.completed", { tool_name: "ls" }]]), ["episode"]);
    assert.deepEqual(types([["command.completed", { command: "a" }], ["command.completed", { command: "b" }]]), ["episode", "claim"]);
    assert.deepEqual(types([["coordination.finding.reported", {}], ["subagent.completed", {}]]), ["episode", "claim"]);
    assert.deepEqual(types([["file.edit.applied", {}]]), ["episode"]);
    assert.deepEqual(types([["file.edit.applied", {}], ["command.completed", {}]]), ["episode", "claim", "procedure"]);
    assert.deepEqual(types([["tool.call.completed", {}], ["tool.call.completed", {}]]), ["episode", "claim", "procedure"]);
  });

  test("segment summaries join four event summaries and truncate to 237 + '...'", () => {
    const long = "x".repeat(100);
    const log = events(Array.from({ length: 5 }, (_, i) => ["command.completed", { command: `${i}${long}` }] as [string, Record<string, unknown>]));
    const summary = segmentSummary(selectConsolidationSegments(log, "agent-1", 5)[0]);
    assert.equal(summary.length, 240);
    assert.ok(summary.endsWith("..."));
    assert.ok(summary.startsWith(`command.completed | 0${long} -> command.completed | 1`));
  });

  test("truncation drops whitespace before the ellipsis, as Python's rstrip does", () => {
    // The 237th character is the space after "->": rstrip removes it (and nothing else).
    const first = "a".repeat(233 - "command.completed | ".length);
    const log = events([["command.completed", { command: first }], ["command.completed", { command: "b".repeat(50) }]]);
    const summary = segmentSummary(selectConsolidationSegments(log, "agent-1", 5)[0]);
    assert.equal(summary, `command.completed | ${first} ->...`);
  });
});
