// deno-test: own-process (runs zaxy in this process, which may load kuzu-wasm; scripts/deno-test.sh runs it alone)
// test-lane: full (slow)
/**
 * Verified forgetting (issue 16 item 3), from the CLI (run in this process) and through the built
 * binary's MCP server: with
 * forgetting on, memory payloads are sealed as AES-256-GCM cells; `memory forget` destroys a
 * cell's key and appends a tombstone; afterwards the content is unrecoverable from the log, the
 * projections, the vector index and the read models, the chain still verifies (zaxy and
 * ref_verify.py), and the event stays citable as forgotten.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import type { ZaxyRun } from "../cli/zaxy.ts";
import { makeTempDir, refVerify, removeTempDirs, skipWithoutPython } from "../eventloom/testkit.ts";
import { skipWithoutBinary as skip, startMcpServer } from "../mcp/mcpTestClient.ts";
import { runZaxyInProcess } from "../cli/inProcessRoot.ts";

after(removeTempDirs);
const secret = "launch-zebra-omega-7731";

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(full));
    else out.push(full);
  }
  return out;
}

/** Every file under the root whose bytes contain `needle` (as UTF-8). */
function holding(root: string, needle: string): string[] {
  const bytes = Buffer.from(needle);
  return filesUnder(root).filter((file) => fs.readFileSync(file).includes(bytes));
}

function ok(run: ZaxyRun, what: string): ZaxyRun {
  assert.equal(run.code, 0, `${what}: ${run.stderr}${run.stdout}`);
  return run;
}

describe("verified forgetting", { skip }, () => {
  test("sealed at rest, readable until forgotten, then gone from every file under the root; the chain verifies; citable as forgotten", { timeout: 120_000 }, async () => {
    const dir = makeTempDir("zaxy-forget");
    const root = path.join(dir, ".eventloom");
    const z = (args: string[]) => runZaxyInProcess(args, { cwd: dir });
    assert.equal(JSON.parse(ok(await z(["init", "--forgetting", "--json"]), "init").stdout).forgetting_enabled, true);
    const first = JSON.parse(ok(await z(["memory", "append", "decision.made", "--actor", "ci", "--payload-json", JSON.stringify({ decision: `the plan is ${secret}`, rationale: "classified" }), "--json"]), "append").stdout);
    ok(await z(["memory", "append", "goal.created", "--actor", "ci", "--payload-json", '{"title":"ship the store"}']), "append 2");
    assert.deepEqual(holding(root, secret), [], "the log holds only the sealed cell");
    const log = fs.readFileSync(path.join(root, "default.jsonl"), "utf8");
    assert.match(log, /"__zaxy_cipher":\{"v":1,"alg":"AES-256-GCM","cell_id":"[0-9a-f]{32}"/);
    assert.equal(fs.statSync(path.join(root, "__erasure_kek__.key")).mode & 0o777, 0o600);
    assert.equal(fs.statSync(path.join(root, "__erasure_vault__.json")).mode & 0o777, 0o600);
    // Readers see the content while its key exists.
    const before = JSON.parse(ok(await z(["memory", "checkout", "what is the plan", "--json"]), "checkout").stdout);
    assert.ok(JSON.stringify(before.current_facts).includes(secret));
    ok(await z(["reproject", "--json"]), "reproject");
    ok(await z(["graph", "sync", "--json"]), "graph sync");
    assert.ok(holding(root, secret).length > 0, "the derived copies hold it before the forget");
    const forgot = JSON.parse(ok(await z(["memory", "forget", "--target-seq", "1", "--target-hash", first.hash, "--reason", "user asked", "--json"]), "forget").stdout);
    assert.deepEqual([forgot.status, forgot.event_type, forgot.gate.decision], ["forgotten", "memory.forgotten", "auto_apply"]);
    assert.match(forgot.forget_id, /^forget:[0-9a-f]{24}$/);
    // Every reader and every rebuilt projection: [FORGOTTEN], and the bytes are nowhere.
    const replay = JSON.parse(ok(await z(["replay", "--json"]), "replay").stdout);
    assert.deepEqual(replay.events[0].payload, { content: "[FORGOTTEN]", __zaxy_forgotten: true });
    const after = JSON.parse(ok(await z(["memory", "checkout", "what is the plan", "--json"]), "checkout after").stdout);
    assert.ok(!JSON.stringify(after).includes(secret));
    ok(await z(["memory", "query", "plan classified", "--json"]), "query");
    ok(await z(["reproject", "--json"]), "reproject after");
    ok(await z(["graph", "sync", "--json"]), "graph sync after");
    assert.deepEqual(holding(root, secret), [], "no file under the root holds the content");
    const cited = JSON.parse(ok(await z(["memory", "get", forgot.target_citation, "--json"]), "get").stdout);
    assert.equal(cited.event.payload.content, "[FORGOTTEN]");
    ok(await z(["verify", path.join(root, "default.jsonl")]), "verify");
    if (skipWithoutPython === false) assert.equal(refVerify(path.join(root, "default.jsonl")).verdict.ok, true);
    // Refusals write nothing: twice, a bookkeeping event, a wrong hash.
    const size = fs.statSync(path.join(root, "default.jsonl")).size;
    for (const args of [["--target-seq", "1", "--target-hash", first.hash], ["--target-seq", "3", "--target-hash", forgot.gate.hash], ["--target-seq", "2", "--target-hash", "0".repeat(64)]]) {
      const refused = await z(["memory", "forget", ...args, "--reason", "x", "--json"]);
      assert.equal(refused.code, 2, args.join(" "));
    }
    assert.equal(fs.statSync(path.join(root, "default.jsonl")).size, size);
  });

  test("a root without forgetting refuses to forget (exit 2); events appended before it was enabled stay plain and cannot be forgotten", async () => {
    const dir = makeTempDir("zaxy-forget-off");
    const z = (args: string[]) => runZaxyInProcess(args, { cwd: dir });
    const plain = JSON.parse(ok(await z(["memory", "append", "goal.created", "--actor", "a", "--payload-json", '{"title":"plain"}', "--json"]), "append").stdout);
    const off = await z(["memory", "forget", "--target-seq", "1", "--target-hash", plain.hash, "--reason", "x", "--json"]);
    assert.equal(off.code, 2);
    assert.equal(JSON.parse(off.stdout).error.code, "forgetting_disabled");
    ok(await z(["init", "--forgetting"]), "enable");
    const old = await z(["memory", "forget", "--target-seq", "1", "--target-hash", plain.hash, "--reason", "x", "--json"]);
    assert.equal(old.code, 2);
    assert.match(JSON.parse(old.stdout).error.message, /not sealed as an erasable cell/);
  });

  test("MCP: memory_forget in a warm server: the server's next checkout no longer has the content", { timeout: 120_000 }, async () => {
    const dir = makeTempDir("zaxy-forget-mcp");
    ok(await runZaxyInProcess(["init", "--forgetting"], { cwd: dir }), "init");
    const mcp = await startMcpServer(path.join(dir, ".eventloom"), { profile: "full", clientName: "zaxy-forget-test" });
    try {
      const appended = await mcp.callOk("memory_append", { event_type: "decision.made", actor: "ci", payload: { decision: `use ${secret}` } });
      const warm = await mcp.callOk("memory_checkout", { query: "launch zebra omega" });
      assert.ok(JSON.stringify(warm.current_facts).includes(secret));
      const forgot = await mcp.callOk("memory_forget", { target_seq: appended.seq, target_hash: appended.hash, reason: "asked" });
      assert.equal(forgot.status, "forgotten");
      const after = await mcp.callOk("memory_checkout", { query: "launch zebra omega" });
      assert.ok(!JSON.stringify(after).includes(secret), JSON.stringify(after.current_facts));
      assert.deepEqual(holding(path.join(dir, ".eventloom"), secret), []);
      // Forgotten by another process while this server holds the content warm.
      const second = await mcp.callOk("memory_append", { event_type: "decision.made", actor: "ci", payload: { decision: `pick ${secret}-b` } });
      const warmAgain = await mcp.callOk("memory_checkout", { query: "pick launch zebra omega" });
      assert.ok(JSON.stringify(warmAgain.current_facts).includes(`${secret}-b`));
      ok(await runZaxyInProcess(["memory", "forget", "--target-seq", String(second.seq), "--target-hash", second.hash, "--reason", "asked"], { cwd: dir }), "forget from another process");
      const afterOther = await mcp.callOk("memory_checkout", { query: "pick launch zebra omega" });
      assert.ok(!JSON.stringify(afterOther.current_facts).includes(secret), JSON.stringify(afterOther.current_facts));
      const replayed = await mcp.callOk("memory_replay", {});
      assert.deepEqual(replayed.events[second.seq - 1].payload, { content: "[FORGOTTEN]", __zaxy_forgotten: true });
    } finally {
      await mcp.close();
    }
  });
});
