/**
 * Forgetting is irreversible: the erased content's key is destroyed. `memory rollback` (and MCP
 * `memory_rollback`) of a forget's `evolution.gate.evaluated` is refused with exit 2 /
 * invalid_request saying forgetting cannot be rolled back, and nothing is written; the forget
 * gate's decision says "irreversible" and a zero rollback window instead of "reversible within".
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { runZaxy, stackTraceLines, type ZaxyRun } from "../cli/zaxy.ts";
import { startMcpServer } from "../mcp/mcpTestClient.ts";

after(removeTempDirs);

function ok(run: ZaxyRun, label: string): ZaxyRun {
  assert.equal(run.code, 0, `${label}: ${run.stderr}`);
  return run;
}

describe("forgetting cannot be rolled back", () => {
  test("memory rollback of a forget's gate decision is refused and the gate says irreversible", async () => {
    const dir = makeTempDir("forget-rollback");
    const root = path.join(dir, ".eventloom");
    const z = (args: string[]) => runZaxy(args, { cwd: dir });
    ok(z(["init", "--forgetting"]), "init");
    const first = JSON.parse(ok(z(["memory", "append", "decision.made", "--actor", "ci", "--payload-json", '{"decision":"the plan is secret"}', "--json"]), "append").stdout);
    const forgot = JSON.parse(ok(z(["memory", "forget", "--target-seq", "1", "--target-hash", first.hash, "--reason", "user asked", "--json"]), "forget").stdout);
    assert.equal(forgot.status, "forgotten");
    assert.match(forgot.gate.reason, /irreversible: forgetting cannot be rolled back/);
    assert.doesNotMatch(forgot.gate.reason, /reversible within/);
    const log = path.join(root, "default.jsonl");
    const before = fs.readFileSync(log, "utf8");
    const gateLine = JSON.parse(before.split("\n")[forgot.gate.seq - 1]);
    assert.equal(gateLine.payload.rollback_window_seconds, 0);
    assert.match(gateLine.payload.reason, /irreversible/);
    const rollback = z(["memory", "rollback", "--target-seq", String(forgot.gate.seq), "--target-hash", forgot.gate.hash, "--reason", "undo"]);
    assert.equal(rollback.code, 2, rollback.stdout + rollback.stderr);
    assert.equal(rollback.stdout, "");
    assert.match(rollback.stderr, /Cannot roll back event \d+: it is the gate decision of a forget, and forgetting cannot be rolled back/);
    assert.deepEqual(stackTraceLines(rollback.stderr), []);
    assert.equal(fs.readFileSync(log, "utf8"), before, "nothing was written");
    const gate = JSON.parse(ok(z(["memory", "evolution-gate", "forget", "--confidence", "0.99", "--tier", "auto_with_rollback", "--json"]), "gate").stdout);
    assert.match(gate.reason, /irreversible/);
    assert.equal(gate.rollback_window_seconds, 0);
    const server = await startMcpServer(root);
    try {
      const error = await server.callError("memory_rollback", { target_seq: forgot.gate.seq, target_hash: forgot.gate.hash, reason: "undo" }, "invalid_request");
      assert.match(error.message, /forgetting cannot be rolled back/);
    } finally {
      await server.close();
    }
  });
});
