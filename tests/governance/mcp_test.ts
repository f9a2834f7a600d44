/**
 * The governance tools of `zaxy serve` (the BUILT binary, full profile) through the MCP SDK stdio
 * client: strict schemas, memory_evolution_gate recording its decision, memory_outcome appending
 * outcome, gate and rule, memory_rollback reversing the rule through the update gate, and refused
 * calls as `invalid_request` that write nothing. Skipped when dist/zaxy has not been built.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { type McpServer, removeTempDirs, skipWithoutBinary as skip, startMcpServer, tempEventloomRoot } from "../mcp/mcpTestClient.ts";

const slow = { timeout: 60_000 };
after(removeTempDirs);

let mcp: McpServer;

function logText(): string {
  const file = path.join(mcp.root, "gov.jsonl");
  return fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "";
}

function types(): string[] {
  return logText().trim().split("\n").filter((l) => l !== "").map((l) => JSON.parse(l).type);
}

async function callRefused(name: string, args: Record<string, unknown>, message: RegExp): Promise<void> {
  const before = logText();
  const outcome = await mcp.call(name, args);
  assert.equal(outcome.isError, true, `${name} should fail: ${JSON.stringify(outcome.doc)}`);
  assert.equal(outcome.doc.error.code, "invalid_request");
  assert.match(outcome.doc.error.message, message);
  assert.equal(logText(), before);
}

describe("zaxy serve: governance tools", { skip }, () => {
  before(async () => {
    mcp = await startMcpServer(tempEventloomRoot("zaxy-mcp-governance"), { clientName: "zaxy-governance-test" });
  }, slow);

  after(async () => {
    await mcp?.close();
  });

  test("schemas: required fields, enums, additionalProperties false", slow, async () => {
    const { tools } = await mcp.client.listTools();
    // deno-lint-ignore no-explicit-any
    const byName = new Map(tools.map((t) => [t.name, t.inputSchema as any]));
    const gate = byName.get("memory_evolution_gate");
    assert.deepEqual(gate.required, ["op", "confidence"]);
    assert.deepEqual(gate.properties.op.enum, ["consolidate", "update", "forget", "rule_generate", "promote"]);
    assert.deepEqual(gate.properties.tier.enum, ["propose_only", "auto_with_rollback", "require_review"]);
    assert.equal(gate.additionalProperties, false);
    const outcome = byName.get("memory_outcome");
    assert.deepEqual(outcome.required, ["outcome", "summary"]);
    assert.deepEqual(outcome.properties.outcome.enum, ["success", "failure", "partial"]);
    assert.equal(outcome.additionalProperties, false);
    assert.deepEqual(
      Object.keys(outcome.properties).sort(),
      ["actor", "confidence", "lesson", "outcome", "prior", "session_id", "summary", "target", "target_hash", "target_seq", "task_id", "trigger"],
    );
  });

  test("gate, outcome with a rule, rollback of the rule", slow, async () => {
    const gate = await mcp.callOk("memory_evolution_gate", { op: "promote", confidence: 0.9, candidate_ref: { candidate_id: "skill:x" }, session_id: "gov" });
    assert.deepEqual([gate.decision, gate.auto_apply, gate.gate_event.seq, gate.candidate_ref], ["auto_apply", true, 1, { candidate_id: "skill:x" }]);
    const held = await mcp.callOk("memory_evolution_gate", { op: "promote", confidence: 0.9, tier: "require_review", session_id: "gov" });
    assert.equal(held.reason, "promote: held for review (tier require_review)");

    const outcome = await mcp.callOk("memory_outcome", {
      outcome: "failure",
      summary: "release broke",
      lesson: "tag before release",
      target_seq: 1,
      target_hash: gate.gate_event.hash,
      session_id: "gov",
    });
    assert.deepEqual([outcome.outcome, outcome.outcome_event.seq, outcome.rule.event_type, outcome.rule.review_status], ["failure", 3, "memory.rule.generated", "active"]);
    assert.deepEqual(types(), ["evolution.gate.evaluated", "evolution.gate.evaluated", "memory.outcome.recorded", "evolution.gate.evaluated", "memory.rule.generated"]);

    const rolled = await mcp.callOk("memory_rollback", { target_seq: outcome.rule.seq, target_hash: outcome.rule.hash, reason: "bad rule", session_id: "gov" });
    assert.deepEqual([rolled.rule.review_status, rolled.reverts.rule_id, rolled.gate.op], ["rolled_back", outcome.rule.rule_id, "update"]);
    assert.deepEqual(types().slice(-2), ["evolution.gate.evaluated", "memory.rolled_back"]);
  });

  test("refused calls are invalid_request and write nothing", slow, async () => {
    await callRefused("memory_evolution_gate", { op: "merge", confidence: 0.5, session_id: "gov" }, /op/);
    await callRefused("memory_evolution_gate", { op: "update", confidence: 2, session_id: "gov" }, /confidence/);
    await callRefused("memory_evolution_gate", { op: "update", confidence: 0.5, extra: true, session_id: "gov" }, /extra|Unrecognized/i);
    await callRefused("memory_evolution_gate", { op: "update", confidence: 0.5, candidate_ref: {}, session_id: "gov" }, /candidate_ref/);
    await callRefused("memory_outcome", { outcome: "win", summary: "s", session_id: "gov" }, /outcome/);
    await callRefused("memory_outcome", { outcome: "failure", summary: "s", target_seq: 1, session_id: "gov" }, /target_hash/);
    await callRefused("memory_outcome", { outcome: "failure", summary: "s", target_seq: 1, target_hash: "f".repeat(64), session_id: "gov" }, /does not match the sealed event/);
  });
});
