// deno-test: own-process (runs zaxy in this process, which may load kuzu-wasm; scripts/deno-test.sh runs it alone)
// test-lane: full (slow)
/**
 * Forgetting erases every copy the engine made of an event's content, beyond corrections and
 * rollbacks (docs/forgetting.md "Copies"): a consolidation candidate's title and summary (a
 * `memory consolidation merge` title is built from the merged memories' names), the names a
 * derived causal or inferred edge copies from the event that produced it, and a fleet
 * promotion's summary in the fleet's own thread. Before the forget no log line holds the value in
 * clear; after it, no file under the root holds it and no reader serves it. A bookkeeping event
 * that quotes content (a rollback) can itself be forgotten. The CLI runs in this process throughout.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, test } from "node:test";
import type { ZaxyRun } from "../cli/zaxy.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { holding } from "./filesHolding.ts";
import { runZaxyInProcess } from "../cli/inProcessRoot.ts";

after(removeTempDirs);

const slow = { timeout: 300_000 };

// deno-lint-ignore no-explicit-any
function ok(run: ZaxyRun, what: string): { [key: string]: any } {
  assert.equal(run.code, 0, `${what}: exit ${run.code}\n${run.stderr}${run.stdout}`);
  return JSON.parse(run.stdout);
}

async function setUp(name: string, config: { [key: string]: unknown } = {}) {
  const dir = makeTempDir(name);
  const root = path.join(dir, ".eventloom");
  const z = (args: string[]) => runZaxyInProcess([...args, "--json"], { cwd: dir });
  ok(await z(["init", "--forgetting"]), "init");
  if (Object.keys(config).length > 0) {
    const configPath = path.join(root, "config.json");
    fs.writeFileSync(configPath, JSON.stringify({ ...JSON.parse(fs.readFileSync(configPath, "utf8")), ...config }, null, 2) + "\n");
  }
  return { dir, root, z };
}

test("a candidate, a merge, derived edges and a fleet promotion that restate an event are sealed, and forgetting the event erases them", slow, async () => {
  const { root, z } = await setUp("zaxy-forget-quoted", { fleet_enabled: true });
  const secret = "kestrel-umber-4471";
  const decision = ok(await z(["memory", "append", "decision.made", "--actor", "alice", "--payload-json", JSON.stringify({ decision: `Adopt the ${secret} queue`, rationale: "fewer lost orders" })]), "decision");
  const other = ok(await z(["memory", "append", "decision.made", "--actor", "alice", "--payload-json", JSON.stringify({ decision: "Keep retries at three", rationale: "enough" })]), "other decision");
  const explained = ok(await z(["memory", "append", "outcome.explained", "--actor", "alice", "--payload-json", JSON.stringify({
    cause: { name: `${secret} queue stall`, entity_type: "cause" },
    effect: { name: "orders were delayed", entity_type: "outcome" },
    relation_type: "caused",
    confidence: 0.8,
    evidence: { source_event_seq: other.seq, source_event_hash: other.hash },
  })]), "outcome.explained");
  assert.equal(explained.generated_events?.[0]?.event_type, "causal.edge.generated", "the explanation produced a causal edge");
  const task = ok(await z(["memory", "append", "task.completed", "--actor", "alice", "--payload-json", JSON.stringify({ task_id: `ship ${secret}`, decision: `Adopt the ${secret} queue`, decision_event_seq: decision.seq, decision_event_hash: decision.hash })]), "task.completed");
  assert.equal(task.generated_events?.[0]?.event_type, "inference.edge.generated", "the task produced an inferred edge");
  const candidate = ok(await z(["memory", "consolidation", "propose", "--candidate-type", "claim", "--title", `We adopted ${secret}`, "--summary", `The ${secret} queue was adopted`, "--source-event", `${decision.seq}:${decision.hash}`]), "propose");
  ok(await z(["memory", "consolidation", "review", "--candidate-id", candidate.candidate_id, "--status", "accepted", "--rationale", `confirmed ${secret} in standup`]), "review");
  const merged = ok(await z(["memory", "consolidation", "merge", "--memory", `Adopt the ${secret} queue`, "--memory", "Keep retries at three"]), "merge");
  ok(await z(["fleet", "create", "alpha", "--actor", "alice", "--summary", "Platform agents"]), "fleet create");
  const promotion = ok(await z([
    "fleet", "promote-outcome", "alpha", "--outcome", "success", "--summary", `The ${secret} queue stopped the lost orders`,
    "--source-event", `${decision.seq}:${decision.hash}`, "--confidence", "0.9", "--origin-session", "default", "--actor", "alice",
  ]), "promote-outcome");

  // Readers show every copy while the event is remembered; no log line holds it in clear.
  const before = ok(await z(["memory", "log"]), "log").events as { type: string; payload: { [key: string]: unknown } }[];
  const titles = before.filter((event) => event.type === "consolidation.candidate.created").map((event) => event.payload.title);
  assert.deepEqual(titles, [`We adopted ${secret}`, merged.title], "candidates read back opened");
  assert.ok(String(merged.title).includes(secret), `the merge's title names the memories: ${merged.title}`);
  assert.ok(JSON.stringify(ok(await z(["fleet", "status", "alpha"]), "fleet status")).includes(secret), "the promotion reads back opened");
  assert.ok(JSON.stringify(ok(await z(["memory", "causal", "predecessors", "orders were delayed"]), "causal")).includes(secret), "the causal edge reads back opened");
  assert.ok(JSON.stringify(ok(await z(["memory", "checkout", "what queue did we adopt"]), "checkout")).includes(secret), "checkout serves the decision");
  assert.deepEqual(holding(root, secret).filter((file) => file.endsWith(".jsonl")), [], "no log line holds the value in clear");

  for (const target of [decision, explained, task]) {
    const forgot = ok(await z(["memory", "forget", "--target-seq", String(target.seq), "--target-hash", target.hash, "--reason", "user asked"]), `forget ${target.seq}`);
    assert.equal(forgot.status, "forgotten");
    if (target === decision) assert.ok(forgot.copy_cell_ids.length >= 5, `the candidates', the merge's and the promotion's copies go with it: ${JSON.stringify(forgot.copy_cell_ids)}`);
    else assert.ok(forgot.copy_cell_ids.length >= 2, "the derived edge's names go with it");
  }
  // The review's rationale is the reviewer's own text: forgotten by itself, like a rollback's quote.
  const log = ok(await z(["memory", "log"]), "log").events as { seq: number; hash: string; type: string }[];
  const review = log.find((event) => event.type === "consolidation.candidate.reviewed")!;
  ok(await z(["memory", "forget", "--target-seq", String(review.seq), "--target-hash", review.hash, "--reason", "user asked"]), "forget the review");

  const answers = [
    await z(["memory", "checkout", "what queue did we adopt"]),
    await z(["memory", "query", "adopted queue stall"]),
    await z(["memory", "consolidation", "status"]),
    await z(["memory", "log"]),
    await z(["replay"]),
    await z(["fleet", "status", "alpha"]),
    await z(["fleet", "audit", "alpha"]),
    await z(["memory", "causal", "predecessors", "orders were delayed"]),
  ];
  for (const [i, run] of answers.entries()) {
    assert.ok(!JSON.stringify(ok(run, `reader ${i}`)).includes(secret), `reader ${i} does not serve the value`);
  }
  ok(await z(["reproject"]), "reproject");
  ok(await z(["graph", "sync"]), "graph sync");
  assert.deepEqual(holding(root, secret), [], "no file under the root holds the value");
  ok(await z(["verify", path.join(root, "default.jsonl")]), "verify");
  ok(await z(["verify", path.join(root, "fleet.alpha.jsonl")]), "verify the fleet thread");
  assert.equal(promotion.promotion_id !== undefined, true);
});

test("a rollback that restores a forgotten fact's text can itself be forgotten", slow, async () => {
  const { root, z } = await setUp("zaxy-forget-rollback");
  const value = "heron-slate-2290";
  const original = ok(await z(["memory", "append", "user.preference_changed", "--allow-envelope-switch", "--actor", "ci", "--payload-json", JSON.stringify({ user: "ci", key: "branch", value })]), "append");
  const edit = ok(await z(["memory", "edit", "--target-seq", String(original.seq), "--target-hash", original.hash, "--content", "branch=main", "--reason", "wrong branch"]), "edit");
  const rollback = ok(await z(["memory", "rollback", "--target-seq", String(edit.seq), "--target-hash", edit.hash, "--reason", "the edit was wrong"]), "rollback");
  const rolledBack = rollback.rollback_event as { seq: number; hash: string };
  const forgot = ok(await z(["memory", "forget", "--target-seq", String(rolledBack.seq), "--target-hash", rolledBack.hash, "--reason", "user asked"]), "forget the rollback");
  assert.equal(forgot.status, "forgotten");
  assert.equal(typeof forgot.cell_id, "string");
  const events = ok(await z(["memory", "log"]), "log").events as { seq: number; payload: { reverts?: { restore_content?: string } } }[];
  assert.equal(events.find((event) => event.seq === rolledBack.seq)!.payload.reverts!.restore_content, "[FORGOTTEN]");
  const again = await z(["memory", "forget", "--target-seq", String(rolledBack.seq), "--target-hash", rolledBack.hash, "--reason", "user asked"]);
  assert.equal(again.code, 2, "a second forget of the same rollback is refused");
  assert.match(again.stderr + again.stdout, /already forgotten/);
  ok(await z(["verify", path.join(root, "default.jsonl")]), "verify");
  assert.deepEqual(ok(await z(["memory", "status"]), "status").unauthorised_governance_events, [], "the commands' own records are never listed as unauthorised");
  assert.ok(holding(root, value).every((file) => !file.endsWith(".jsonl")), "no log line holds the value in clear");
});
