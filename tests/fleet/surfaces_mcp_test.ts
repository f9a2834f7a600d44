/**
 * The fleet tools of `zaxy serve` (the BUILT binary, full profile) through the MCP SDK stdio
 * client: schemas, create/enroll/assign_trust, promotion through the gate (gate event first and
 * cited), trust rejections as normal results that write nothing, the require-review path, steward
 * review, supersession and rollback re-activation, status and audit, bad calls as
 * `invalid_request` that write nothing, and memory_checkout's fleet_ids/agent_id.
 * Skipped when dist/zaxy has not been built.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { type McpServer, removeTempDirs, skipWithoutBinary as skip, startMcpServer, tempEventloomRoot } from "../mcp/mcpTestClient.ts";

const slow = { timeout: 60_000 };
after(removeTempDirs);

let mcp: McpServer;
let root = "";

function fleetLog(fleetId: string): Buffer {
  return fs.readFileSync(path.join(root, `fleet.${fleetId}.jsonl`));
}

// deno-lint-ignore no-explicit-any
function fleetEvents(fleetId: string): any[] {
  return fleetLog(fleetId).toString("utf8").trim().split("\n").map((line) => JSON.parse(line));
}

/** Fails with invalid_request whose message matches, and the fleet log is byte-identical. */
async function callRefused(name: string, args: Record<string, unknown>, message: RegExp): Promise<void> {
  const before = fleetLog("alpha");
  const outcome = await mcp.call(name, args);
  assert.equal(outcome.isError, true, `${name} should fail: ${JSON.stringify(outcome.doc)}`);
  assert.equal(outcome.doc.error.code, "invalid_request");
  assert.match(outcome.doc.error.message, message);
  assert.deepEqual(fleetLog("alpha"), before);
}

async function sourceEvent(session: string, title: string): Promise<{ seq: number; hash: string }> {
  const appended = await mcp.callOk("memory_append", { event_type: "task.completed", actor: session, payload: { title }, session_id: session });
  return { seq: appended.seq, hash: appended.hash };
}

describe("zaxy serve: fleet tools", { skip }, () => {
  before(async () => {
    root = tempEventloomRoot("zaxy-mcp-fleet");
    fs.mkdirSync(root, { recursive: true });
    fs.writeFileSync(path.join(root, "config.json"), JSON.stringify({ fleet_enabled: true }));
    mcp = await startMcpServer(root, { clientName: "zaxy-fleet-test" });
  }, slow);

  after(async () => {
    await mcp?.close();
  });

  test("schemas: the eight fleet tools are listed with required fields, enums and no extra properties", slow, async () => {
    const { tools } = await mcp.client.listTools();
    type Schema = { required?: string[]; additionalProperties?: boolean; properties: Record<string, Record<string, unknown>> };
    const byName = new Map(tools.map((t) => [t.name, t.inputSchema as Schema]));
    const required: { [tool: string]: string[] } = {
      fleet_create: ["fleet_id", "summary"],
      fleet_enroll: ["fleet_id", "agent_id"],
      fleet_assign_trust: ["fleet_id", "agent_id", "trust_tier", "actor"],
      fleet_promote: ["fleet_id", "kind", "actor", "origin_session", "source_events", "confidence"],
      fleet_review: ["fleet_id", "promotion_id", "decision", "actor"],
      fleet_rollback: ["fleet_id", "promotion_id", "reason", "actor"],
      fleet_status: ["fleet_id"],
      fleet_audit: ["fleet_id"],
    };
    for (const [name, fields] of Object.entries(required)) {
      assert.deepEqual(byName.get(name)?.required, fields, name);
      assert.equal(byName.get(name)?.additionalProperties, false, name);
    }
    const promote = byName.get("fleet_promote")!;
    assert.deepEqual(promote.properties.kind.enum, ["skill", "outcome", "rule"]);
    assert.deepEqual(promote.properties.visibility_scope.enum, ["fleet", "global"]);
    assert.deepEqual(promote.properties.outcome.enum, ["success", "failure", "partial"]);
    assert.deepEqual([promote.properties.confidence.minimum, promote.properties.confidence.maximum], [0, 1]);
    assert.deepEqual(byName.get("fleet_assign_trust")?.properties.trust_tier.enum, ["untrusted", "member", "trusted", "steward"]);
    assert.equal(byName.get("fleet_review")?.properties.promotion_id.pattern, "^fleetpromo:[0-9a-f]{24}$");
    const checkout = byName.get("memory_checkout")!;
    assert.equal((checkout.properties.fleet_ids as { type: string }).type, "array");
    assert.equal((checkout.properties.agent_id as { type: string }).type, "string");
  });

  test("create, enroll, promote through the gate, trust rejections, review, supersession, rollback, status, audit", slow, async () => {
    const created = await mcp.callOk("fleet_create", { fleet_id: "alpha", summary: "Auth workers" });
    assert.deepEqual([created.refused, created.actor, created.events.map((e: { event_type: string }) => e.event_type)], [
      false, "coordinator", ["fleet.created", "fleet.agent.enrolled"],
    ]);
    for (const agent of ["agent-a", "agent-b", "agent-u"]) {
      const enrolled = await mcp.callOk("fleet_enroll", { fleet_id: "alpha", agent_id: agent });
      assert.deepEqual([enrolled.refused, enrolled.trust_tier], [false, "member"]);
    }
    const demoted = await mcp.callOk("fleet_assign_trust", { fleet_id: "alpha", agent_id: "agent-u", trust_tier: "untrusted", actor: "coordinator", rationale: "new" });
    assert.deepEqual([demoted.refused, demoted.prior_tier, demoted.trust_tier], [false, "member", "untrusted"]);
    const notSteward = await mcp.callOk("fleet_assign_trust", { fleet_id: "alpha", agent_id: "agent-b", trust_tier: "steward", actor: "agent-a" });
    assert.equal(notSteward.refused, true);
    assert.match(notSteward.reason, /only a steward may/);

    const a1 = await sourceEvent("agent-a", "JWKS cache expiry caused the auth failures");
    const head = fleetEvents("alpha").length;
    const promoted = await mcp.callOk("fleet_promote", {
      fleet_id: "alpha", kind: "outcome", actor: "agent-a", origin_session: "agent-a", source_events: [a1], confidence: 0.9,
      outcome: "failure", summary: "JWKS cache expiry caused the auth failures", claim_key: "auth.cause",
    });
    assert.deepEqual([promoted.rejected, promoted.review_status, promoted.auto_applied, promoted.gate_decision.op], [false, "active", true, "promote"]);
    assert.match(promoted.promotion_id, /^fleetpromo:[0-9a-f]{24}$/);
    const events = fleetEvents("alpha");
    assert.deepEqual(events.slice(head).map((e) => e.type), ["evolution.gate.evaluated", "fleet.outcome.propagated"]);
    assert.equal(promoted.gate_event.seq, head + 1);
    assert.equal(promoted.promotion_event.seq, head + 2);
    assert.deepEqual(events[head + 1].payload.gate_event, promoted.gate_event);
    assert.deepEqual(events[head + 1].payload.source_events, [a1]);
    assert.equal(events[head + 1].payload.authority_status, "non_authoritative");
    assert.equal(promoted.citation, `eventloom://fleet.alpha/events/${head + 2}#${promoted.promotion_event.hash.slice(0, 12)}`);

    // Trust rejections are normal results (not protocol errors) and write nothing, not even a gate event.
    const u1 = await sourceEvent("agent-u", "untrusted lesson");
    for (const actor of ["agent-u", "stranger"]) {
      const before = fleetLog("alpha");
      const rejected = await mcp.call("fleet_promote", {
        fleet_id: "alpha", kind: "outcome", actor, origin_session: "agent-u", source_events: [u1], confidence: 0.95, outcome: "success", summary: "x",
      });
      assert.equal(rejected.isError, false);
      assert.equal(rejected.doc.rejected, true);
      assert.match(rejected.doc.reason, /^insufficient trust: actor '/);
      assert.deepEqual(fleetLog("alpha"), before);
    }
    const b1 = await sourceEvent("agent-b", "member asks for global");
    const tooWide = await mcp.callOk("fleet_promote", {
      fleet_id: "alpha", kind: "skill", actor: "agent-b", origin_session: "agent-b", source_events: [b1], confidence: 0.9,
      skill_id: "jwks-refresh", skill_version: "1", visibility_scope: "global",
    });
    assert.equal(tooWide.rejected, true);
    assert.match(tooWide.reason, /max proposable scope is 'fleet'/);

    // Below the gate threshold: pending, then a steward accepts it.
    const pending = await mcp.callOk("fleet_promote", {
      fleet_id: "alpha", kind: "skill", actor: "agent-b", origin_session: "agent-b", source_events: [b1], confidence: 0.5,
      skill_id: "jwks-refresh", skill_version: "1",
    });
    assert.deepEqual([pending.rejected, pending.review_status, pending.auto_applied], [false, "pending", false]);
    const byMember = await mcp.callOk("fleet_review", { fleet_id: "alpha", promotion_id: pending.promotion_id, decision: "accepted", actor: "agent-a" });
    assert.equal(byMember.refused, true);
    const accepted = await mcp.callOk("fleet_review", { fleet_id: "alpha", promotion_id: pending.promotion_id, decision: "accepted", actor: "coordinator", rationale: "checked" });
    assert.deepEqual([accepted.refused, accepted.review_status], [false, "active"]);

    // Same claim, other outcome: the new one supersedes the first additively; rolling it back re-activates the first.
    const b2 = await sourceEvent("agent-b", "auth failures were a clock skew");
    const winner = await mcp.callOk("fleet_promote", {
      fleet_id: "alpha", kind: "outcome", actor: "agent-b", origin_session: "agent-b", source_events: [b2], confidence: 0.9,
      outcome: "success", summary: "clock skew, not JWKS", claim_key: "auth.cause",
    });
    assert.equal(winner.review_status, "active");
    assert.deepEqual(winner.supersessions.map((s: { superseded_promotion_id: string }) => s.superseded_promotion_id), [promoted.promotion_id]);
    let status = await mcp.callOk("fleet_status", { fleet_id: "alpha" });
    const statusOf = (id: string) => status.promotions.find((p: { promotion_id: string }) => p.promotion_id === id).review_status;
    assert.equal(statusOf(promoted.promotion_id), "superseded");
    const rolled = await mcp.callOk("fleet_rollback", { fleet_id: "alpha", promotion_id: winner.promotion_id, reason: "wrong cause", actor: "coordinator" });
    assert.deepEqual([rolled.refused, rolled.review_status, rolled.within_rollback_window, rolled.reactivated], [false, "rolled_back", true, [promoted.promotion_id]]);
    status = await mcp.callOk("fleet_status", { fleet_id: "alpha" });
    assert.equal(statusOf(promoted.promotion_id), "active");
    assert.equal(statusOf(winner.promotion_id), "rolled_back");
    assert.equal(status.active_promotion_count, 2);
    assert.deepEqual(status.agents.map((a: { agent_id: string; trust_tier: string }) => `${a.agent_id}:${a.trust_tier}`), [
      "coordinator:steward", "agent-a:member", "agent-b:member", "agent-u:untrusted",
    ]);
    const again = await mcp.callOk("fleet_rollback", { fleet_id: "alpha", promotion_id: winner.promotion_id, reason: "again", actor: "coordinator" });
    assert.equal(again.refused, true);

    const audit = await mcp.callOk("fleet_audit", { fleet_id: "alpha" });
    assert.equal(audit.ok, true, JSON.stringify(audit));

    // Checkout with the fleet lane: an enrolled member sees both active promotions; a stranger and the untrusted agent nothing.
    await sourceEvent("agent-b", "auth failures again");
    const lane = await mcp.callOk("memory_checkout", { query: "auth failures", session_id: "agent-b", fleet_ids: ["alpha"] });
    assert.equal(lane.diagnostics.fleet.count, 2);
    assert.deepEqual(lane.diagnostics.fleet.items.map((i: { promotion_id: string }) => i.promotion_id).sort(), [promoted.promotion_id, pending.promotion_id].sort());
    assert.equal(lane.diagnostics.source_lanes.fleet, 2);
    assert.ok(lane.current_facts.some((f: { citation: string; source: string }) => f.citation === promoted.citation && f.source === "fleet"));
    for (const agent of ["stranger", "agent-u"]) {
      const none = await mcp.callOk("memory_checkout", { query: "auth failures", session_id: "agent-b", fleet_ids: ["alpha"], agent_id: agent });
      assert.equal(none.diagnostics.fleet, undefined, agent);
      assert.equal(none.diagnostics.source_lanes.fleet, undefined, agent);
    }
  });

  test("a require_review policy for promote in config.json holds even a confident promotion pending", slow, async () => {
    const config = path.join(root, "config.json");
    const saved = fs.readFileSync(config);
    fs.writeFileSync(config, JSON.stringify({ fleet_enabled: true, evolution_op_autonomy: "promote=require_review" }));
    try {
      const source = await sourceEvent("agent-a", "reviewed lesson");
      const held = await mcp.callOk("fleet_promote", {
        fleet_id: "alpha", kind: "rule", actor: "agent-a", origin_session: "agent-a", source_events: [source], confidence: 0.99,
        rule: "page the on-call after 3 failures", trigger: "auth-page",
      });
      assert.deepEqual([held.review_status, held.auto_applied, held.gate_decision.tier, held.gate_decision.decision], [
        "pending", false, "require_review", "requires_review",
      ]);
      const status = await mcp.callOk("fleet_status", { fleet_id: "alpha" });
      assert.equal(status.promotions.find((p: { promotion_id: string }) => p.promotion_id === held.promotion_id).review_status, "pending");
    } finally {
      fs.writeFileSync(config, saved);
    }
  });

  test("bad calls are invalid_request naming the field and write nothing", slow, async () => {
    const a = await sourceEvent("agent-a", "another lesson");
    const base = { fleet_id: "alpha", actor: "agent-a", origin_session: "agent-a", source_events: [a], confidence: 0.9 };
    await callRefused("fleet_promote", { ...base, kind: "skill", skill_version: "1" }, /skill_id/);
    await callRefused("fleet_promote", { ...base, kind: "rule", rule: "retry" }, /trigger/);
    await callRefused("fleet_promote", { ...base, kind: "outcome", summary: "s" }, /outcome/);
    await callRefused("fleet_promote", { ...base, kind: "outcome", outcome: "success", summary: "s", confidence: 1.5 }, /confidence/);
    await callRefused("fleet_promote", { ...base, kind: "outcome", outcome: "success", summary: "s", source_events: [{ seq: a.seq, hash: "0".repeat(64) }] }, /not a sealed event/);
    await callRefused("fleet_promote", { ...base, kind: "badge" }, /kind/);
    await callRefused("fleet_promote", { ...base, kind: "outcome", outcome: "success", summary: "s", extra: 1 }, /extra/);
    await callRefused("fleet_assign_trust", { fleet_id: "alpha", agent_id: "agent-a", trust_tier: "admin", actor: "coordinator" }, /trust_tier/);
    await callRefused("fleet_review", { fleet_id: "alpha", promotion_id: "fleetpromo:" + "0".repeat(24), decision: "accepted", actor: "coordinator" }, /Unknown promotion/);
    await callRefused("fleet_status", { fleet_id: "fleet/../x" }, /fleet_id/);
    const unknown = await mcp.call("fleet_status", { fleet_id: "nosuch" });
    assert.deepEqual([unknown.isError, unknown.doc.error.code], [true, "invalid_request"]);
    assert.match(unknown.doc.error.message, /Unknown fleet "nosuch"/);
  });
});
