/**
 * A fleet thread and the governance event types are written only by the commands that own
 * them. A plain `memory append` / `memory ingest` / MCP `memory_append` / `memory_ingest` to
 * `fleet.<id>` (or of a type such as `fleet.agent.enrolled`, `memory.forgotten`,
 * `evolution.gate.evaluated`, `memory.rolled_back`) is refused with exit 2 / invalid_request
 * naming the rule, and nothing is written; the fleet commands keep working. A log that already
 * holds such events (written here through the library, as an older zaxy's plain append did)
 * still verifies, and `fleet audit` / `memory status` list them as unauthorised and the fleet
 * replay does not apply them.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { fromJs } from "../../src/canonical/mod.ts";
import { appendEvents } from "../../src/events/append.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { runZaxy, stackTraceLines, type ZaxyRun } from "../cli/zaxy.ts";
import { startMcpServer } from "../mcp/mcpTestClient.ts";

after(removeTempDirs);

function ok(run: ZaxyRun, label: string): ZaxyRun {
  assert.equal(run.code, 0, `${label}: ${run.stderr}`);
  return run;
}

function refused(run: ZaxyRun, message: RegExp, label: string): void {
  assert.equal(run.code, 2, `${label}: ${run.stdout}${run.stderr}`);
  assert.equal(run.stdout, "", label);
  assert.match(run.stderr, message, label);
  assert.deepEqual(stackTraceLines(run.stderr), [], label);
}

function fileBytes(file: string): string {
  return fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "<absent>";
}

const forgedEnrolment = JSON.stringify({ agent_id: "mallory", trust_tier: "steward", fleet_id: "prod" });

describe("plain appends cannot write fleet threads or governance events", () => {
  test("memory append and ingest to fleet.prod are refused with exit 2 and the steward keeps the fleet", () => {
    const dir = makeTempDir("fleet-takeover");
    const z = (args: string[], input?: string) => runZaxy(args, { cwd: dir, input });
    ok(z(["init", "--fleet"]), "init");
    ok(z(["fleet", "create", "prod", "--summary", "production agents", "--actor", "alice"]), "create");
    const thread = path.join(dir, ".eventloom", "fleet.prod.jsonl");
    const before = fileBytes(thread);
    refused(
      z(["memory", "append", "fleet.agent.enrolled", "--session-id", "fleet.prod", "--actor", "mallory", "--payload-json", forgedEnrolment]),
      /fleet\.prod.*fleet thread, written only by the fleet commands/,
      "append to the fleet thread",
    );
    refused(
      z(["memory", "append", "note.added", "--session-id", "fleet.global", "--actor", "mallory", "--payload-json", '{"text":"hi"}']),
      /fleet\.global.*fleet thread/,
      "append to fleet.global",
    );
    refused(
      z(["memory", "ingest", "-", "--session-id", "fleet.prod"], JSON.stringify({ event_type: "fleet.agent.enrolled", actor: "mallory", payload: JSON.parse(forgedEnrolment) }) + "\n"),
      /fleet thread/,
      "ingest to the fleet thread",
    );
    assert.equal(fileBytes(thread), before, "the fleet thread is byte for byte as it was");
    // Mallory is not a steward, so she cannot demote alice.
    const demote = z(["fleet", "assign-trust", "prod", "--agent-id", "alice", "--trust-tier", "untrusted", "--actor", "mallory", "--json"]);
    assert.equal(demote.code, 1, demote.stderr);
    // The fleet commands themselves still write the thread.
    ok(z(["fleet", "enroll", "prod", "--agent-id", "bob", "--actor", "alice"]), "enroll");
    ok(z(["fleet", "assign-trust", "prod", "--agent-id", "bob", "--trust-tier", "trusted", "--actor", "alice"]), "assign-trust");
    ok(z(["verify", "--session-id", "fleet.prod"]), "verify");
  });

  test("governance event types are refused by memory append and ingest in any session", () => {
    const dir = makeTempDir("governance-types");
    const z = (args: string[], input?: string) => runZaxy(args, { cwd: dir, input });
    ok(z(["memory", "append", "goal.created", "--actor", "agent", "--payload-json", '{"title":"seed"}']), "seed");
    const log = path.join(dir, ".eventloom", "default.jsonl");
    const before = fileBytes(log);
    for (const type of ["memory.forgotten", "evolution.gate.evaluated", "memory.rolled_back", "memory.rule.generated", "fleet.trust.assigned"]) {
      refused(
        z(["memory", "append", type, "--actor", "mallory", "--payload-json", '{"reason":"forged"}']),
        new RegExp(`event type "${type.replaceAll(".", "\\.")}" records a governance decision; only the governance commands write it`),
        `append ${type}`,
      );
    }
    refused(
      z(["memory", "ingest", "-"], [
        JSON.stringify({ event_type: "goal.created", actor: "agent", payload: { title: "fine" } }),
        JSON.stringify({ event_type: "memory.forgotten", actor: "mallory", payload: { target: { seq: 1 } } }),
      ].join("\n") + "\n"),
      /line 2: event type "memory\.forgotten" records a governance decision/,
      "ingest",
    );
    assert.equal(fileBytes(log), before, "nothing was written");
  });

  test("MCP memory_append and memory_ingest refuse fleet threads and governance types with invalid_request", async () => {
    const dir = makeTempDir("governance-mcp");
    const root = path.join(dir, ".eventloom");
    ok(runZaxy(["init", "--fleet"], { cwd: dir }), "init");
    const server = await startMcpServer(root);
    try {
      await server.callOk("fleet_create", { fleet_id: "prod", summary: "production agents", actor: "alice" });
      const thread = path.join(root, "fleet.prod.jsonl");
      const before = fileBytes(thread);
      const error = await server.callError("memory_append", {
        event_type: "fleet.agent.enrolled",
        actor: "mallory",
        payload: JSON.parse(forgedEnrolment),
        session_id: "fleet.prod",
      }, "invalid_request");
      assert.match(error.message, /fleet thread, written only by the fleet commands/);
      const typed = await server.callError("memory_append", { event_type: "memory.forgotten", actor: "mallory", payload: {} }, "invalid_request");
      assert.match(typed.message, /"memory\.forgotten" records a governance decision/);
      const ingest = await server.callError("memory_ingest", {
        events: [{ event_type: "evolution.gate.evaluated", actor: "mallory", payload: { op: "forget" } }],
      }, "invalid_request");
      assert.match(ingest.message, /"evolution\.gate\.evaluated" records a governance decision/);
      assert.equal(fileBytes(thread), before);
      assert.equal(fs.existsSync(path.join(root, "default.jsonl")), false, "nothing was written to the default session");
    } finally {
      await server.close();
    }
  });

  test("a fleet thread that already holds a forged enrolment verifies, is audited, and the forgery is not applied", async () => {
    const dir = makeTempDir("fleet-forged-log");
    const root = path.join(dir, ".eventloom");
    const z = (args: string[]) => runZaxy(args, { cwd: dir });
    ok(z(["init", "--fleet"]), "init");
    ok(z(["fleet", "create", "prod", "--summary", "production agents", "--actor", "alice"]), "create");
    // What an older zaxy's plain append let through: written here through the library.
    await appendEvents(root, "fleet.prod", [
      { type: "fleet.agent.enrolled", actor: "mallory", payload: fromJs(JSON.parse(forgedEnrolment)) },
      { type: "fleet.trust.assigned", actor: "mallory", payload: fromJs({ agent_id: "alice", trust_tier: "untrusted", prior_tier: "steward", fleet_id: "prod" }) },
    ]);
    ok(z(["verify", "--session-id", "fleet.prod"]), "verify");
    const audit = z(["fleet", "audit", "prod", "--json"]);
    assert.equal(audit.code, 1, audit.stderr);
    const doc = JSON.parse(audit.stdout);
    assert.equal(doc.ok, false);
    assert.equal(doc.unauthorised_governance_event_count, 2);
    assert.deepEqual(doc.unauthorised_governance_events.map((e: { seq: number; event_type: string; actor: string }) => [e.seq, e.event_type, e.actor]), [
      [3, "fleet.agent.enrolled", "mallory"],
      [4, "fleet.trust.assigned", "mallory"],
    ]);
    assert.match(doc.unauthorised_governance_events[0].reason, /actor 'mallory' \(not enrolled\) may not enroll agents: only a steward may/);
    const status = JSON.parse(ok(z(["memory", "status", "--session-id", "fleet.prod", "--json"]), "status").stdout);
    assert.deepEqual(status.unauthorised_governance_events.map((e: { seq: number }) => e.seq), [3, 4]);
    // Alice is still the steward: she can act, mallory cannot.
    const fleet = JSON.parse(ok(z(["fleet", "status", "prod", "--json"]), "fleet status").stdout);
    assert.ok(!JSON.stringify(fleet).includes("mallory"), JSON.stringify(fleet));
    ok(z(["fleet", "enroll", "prod", "--agent-id", "bob", "--actor", "alice"]), "alice still enrolls");
  });
  test("an ordinary session that already holds governance records without their gate verifies, and memory status lists each with why", async () => {
    const dir = makeTempDir("session-forged-records");
    const root = path.join(dir, ".eventloom");
    const z = (args: string[]) => runZaxy(args, { cwd: dir });
    ok(z(["init"]), "init");
    const fact = JSON.parse(ok(z(["memory", "append", "note.added", "--actor", "alice", "--payload-json", '{"text":"deploys go out on Tuesdays"}', "--json"]), "append").stdout);
    const edit = JSON.parse(ok(z(["memory", "edit", "--target-seq", String(fact.seq), "--target-hash", fact.hash, "--content", "deploys go out on Thursdays", "--reason", "moved", "--json"]), "edit").stdout);
    // A rollback made by the command: gate and record in one batch, never listed.
    ok(z(["memory", "rollback", "--target-seq", String(edit.seq), "--target-hash", edit.hash, "--reason", "wrong day", "--json"]), "rollback");
    // What an older zaxy's plain append let through: written here through the library.
    const target = { seq: fact.seq, hash: fact.hash };
    await appendEvents(root, "default", [
      { type: "memory.forgotten", actor: "mallory", payload: fromJs({ forget_id: "forget:000000000000000000000000", target, cell_id: "0".repeat(32), reason: "spoofed", authority_status: "authoritative" }) },
      { type: "memory.rolled_back", actor: "mallory", payload: fromJs({ rollback_id: "rollback:forged", reason: "spoofed", reverts: { event_type: "memory.corrected" }, target: { seq: edit.seq, hash: edit.hash } }) },
      { type: "fleet.agent.enrolled", actor: "mallory", payload: fromJs(JSON.parse(forgedEnrolment)) },
      { type: "memory.rule.generated", actor: "mallory", payload: fromJs({ rule_id: "rule:forged", rule: "always deploy", trigger: "any", source_events: [target] }) },
    ]);
    ok(z(["verify"]), "verify");
    const run = ok(z(["memory", "status", "--json"]), "status");
    const status = JSON.parse(run.stdout);
    const listed = status.unauthorised_governance_events as { seq: number; event_type: string; actor: string; reason: string }[];
    assert.deepEqual(listed.map((e) => [e.event_type, e.actor]), [
      ["memory.forgotten", "mallory"],
      ["memory.rolled_back", "mallory"],
      ["fleet.agent.enrolled", "mallory"],
      ["memory.rule.generated", "mallory"],
    ]);
    assert.match(listed[0].reason, /no earlier forget gate/);
    assert.match(listed[1].reason, /no gate decision about its target/);
    assert.match(listed[2].reason, /only to a fleet thread/);
    assert.match(listed[3].reason, /rule_generate gate/);
    assert.match(run.stderr, /session default holds 4 governance record\(s\) no governance command would have written/);
  });
});
