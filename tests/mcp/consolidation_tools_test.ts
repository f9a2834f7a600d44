/**
 * The consolidation and rollback tools of `zaxy serve` (the BUILT binary, full profile) through
 * the MCP SDK stdio client: schemas, propose_from_log twice (idempotent), review then
 * memory_rollback restoring the status, and refused calls as `invalid_request` that write nothing.
 * Skipped when dist/zaxy has not been built.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { type McpServer, removeTempDirs, skipWithoutBinary as skip, startMcpServer, tempEventloomRoot } from "./mcpTestClient.ts";

const slow = { timeout: 60_000 };
after(removeTempDirs);

let mcp: McpServer;

/** Fails with invalid_request whose message matches, and the log is byte-identical. */
async function callRefused(name: string, args: Record<string, unknown>, message: RegExp): Promise<void> {
  const before = fs.readFileSync(path.join(mcp.root, "s1.jsonl"));
  const outcome = await mcp.call(name, args);
  assert.equal(outcome.isError, true, `${name} should fail: ${JSON.stringify(outcome.doc)}`);
  assert.equal(outcome.doc.error.code, "invalid_request");
  assert.match(outcome.doc.error.message, message);
  assert.deepEqual(fs.readFileSync(path.join(mcp.root, "s1.jsonl")), before);
}

describe("zaxy serve: consolidation and rollback tools", { skip }, () => {
  before(async () => {
    mcp = await startMcpServer(tempEventloomRoot("zaxy-mcp-consolidation"), { clientName: "zaxy-consolidation-test" });
  }, slow);

  after(async () => {
    await mcp?.close();
  });

  test("schemas: required fields, the candidate id pattern and the window bounds", slow, async () => {
    const { tools } = await mcp.client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t.inputSchema as { required?: string[]; properties: Record<string, Record<string, unknown>> }]));
    assert.deepEqual(byName.get("memory_consolidation_candidate")?.required, ["candidate_type", "title", "summary", "source_events", "confidence", "method"]);
    assert.deepEqual(byName.get("memory_consolidation_propose_from_log")?.required ?? [], []); // design 000: nothing required
    assert.equal(byName.get("memory_consolidation_status")?.required, undefined); // session_id defaults to the server's
    assert.deepEqual(byName.get("memory_consolidation_review")?.required, ["candidate_id", "status", "rationale"]);
    assert.deepEqual(byName.get("memory_rollback")?.required, ["reason"]); // the target: target, or target_hash with or without target_seq
    assert.equal(byName.get("memory_consolidation_review")?.properties.candidate_id.pattern, "^consolidation:(episode|claim|procedure):([0-9a-f]{16}|[0-9a-f]{24})$");
    const window = byName.get("memory_consolidation_propose_from_log")?.properties.window_size;
    assert.deepEqual([window?.minimum, window?.maximum], [1, 50]);
  });

  test("propose_from_log twice, review, rollback, status", slow, async () => {
    const sources = [];
    for (const [type, payload] of [
      ["tool.call.completed", { tool_name: "pytest", status: "failed" }],
      ["file.edit.applied", { path: "a.py" }],
      ["tool.call.completed", { tool_name: "pytest", status: "passed" }],
    ] as const) {
      sources.push(await mcp.callOk("memory_append", { event_type: type, actor: "agent", payload, session_id: "s1" }));
    }
    const first = await mcp.callOk("memory_consolidation_propose_from_log", { session_id: "s1" });
    assert.equal(first.candidate_count, 3);
    const again = await mcp.callOk("memory_consolidation_propose_from_log", { session_id: "s1", window_size: 5 });
    assert.deepEqual([again.candidate_count, again.skipped_existing_count], [0, 3]);

    const manual = await mcp.callOk("memory_consolidation_candidate", {
      candidate_type: "claim", title: "Retry fix holds", summary: "pytest passed after the edit",
      source_events: sources.slice(1).map((s) => ({ seq: s.seq, hash: s.hash })), confidence: 0.9, method: "manual_review_v1", session_id: "s1",
    });
    assert.deepEqual([manual.review_status, manual.authority_status], ["pending", "non_authoritative"]);

    const review = await mcp.callOk("memory_consolidation_review", { candidate_id: manual.candidate_id, status: "accepted", rationale: "verified", session_id: "s1" });
    let status = await mcp.callOk("memory_consolidation_status", { session_id: "s1" });
    assert.deepEqual([status.candidate_count, status.accepted_count, status.pending_count], [4, 1, 3]);
    const line = fs.readFileSync(path.join(mcp.root, "s1.jsonl"), "utf8").trim().split("\n").at(-1)!;
    assert.equal(JSON.parse(line).actorId, "zaxy-reviewer");

    const rolled = await mcp.callOk("memory_rollback", { target_seq: review.seq, target_hash: review.hash, reason: "accepted too early", session_id: "s1" });
    assert.deepEqual(rolled.reverts, { event_type: "consolidation.candidate.reviewed", candidate_id: manual.candidate_id, to_status: "pending" });
    status = await mcp.callOk("memory_consolidation_status", { session_id: "s1" });
    assert.deepEqual([status.accepted_count, status.pending_count, status.rollback_count], [0, 4, 1]);

    await callRefused("memory_rollback", { target_seq: review.seq, target_hash: review.hash, reason: "again", session_id: "s1" }, /already rolled back/);
    await callRefused("memory_rollback", { target_seq: 1, target_hash: sources[0].hash, reason: "r", session_id: "s1" }, /not a reversible evolution/);
    await callRefused("memory_consolidation_review", { candidate_id: "consolidation:claim:" + "0".repeat(24), status: "accepted", rationale: "r", session_id: "s1" }, /Unknown consolidation candidate/);
    await callRefused("memory_consolidation_review", { candidate_id: "consolidation:claim:XYZ", status: "accepted", rationale: "r", session_id: "s1" }, /candidate_id/);
    await callRefused("memory_consolidation_propose_from_log", { session_id: "s1", window_size: 0 }, /window_size/);
    await callRefused("memory_consolidation_candidate", {
      candidate_type: "claim", title: "  ", summary: "s", source_events: [{ seq: 1, hash: sources[0].hash }], confidence: 0.5, method: "m", session_id: "s1",
    }, /title must be a non-empty string/);
    await callRefused("memory_consolidation_candidate", {
      candidate_type: "claim", title: "t", summary: "s", source_events: [{ seq: 1, hash: sources[0].hash }], confidence: true, method: "m", session_id: "s1",
    }, /confidence/);
  });
});
