// deno-test: own-process (runs zaxy in this process, which may load kuzu-wasm; scripts/deno-test.sh runs it alone)
// test-lane: full (slow)
/**
 * Forgetting erases every copy the engine made of an event's content (docs/forgetting.md
 * "Copies"). A correction quotes the fact it corrects (`previous_content`, `entity_name`), and
 * rolling the correction back quotes it again (`reverts.restore_content`, `reverts.entity_name`
 * of `memory.rolled_back`, a bookkeeping event that is otherwise plain): each copy is sealed as
 * its own erasable cell, and forgetting the original destroys the copies' keys with its own.
 * The CLI, run in this process: append → edit → rollback → forget the original and the correction;
 * then no file under the root holds the value (log, vault, projections, read models, graph), and
 * no checkout, query or replay serves it, before and after a reproject.
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import { after, test } from "node:test";
import type { ZaxyRun } from "../cli/zaxy.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { holding } from "./filesHolding.ts";
import { runZaxyInProcess } from "../cli/inProcessRoot.ts";

after(removeTempDirs);

const value = "kestrel-umber-4471";
const corrected = "branch=main";

// deno-lint-ignore no-explicit-any
function ok(run: ZaxyRun, what: string): { [key: string]: any } {
  assert.equal(run.code, 0, `${what}: exit ${run.code}\n${run.stderr}${run.stdout}`);
  return JSON.parse(run.stdout);
}

test("edit, rollback, then forgetting the original and the correction leaves the value in no file under the root and in no answer", { timeout: 300_000 }, async () => {
  const dir = makeTempDir("zaxy-forget-copies");
  const root = path.join(dir, ".eventloom");
  const z = (args: string[]) => runZaxyInProcess([...args, "--json"], { cwd: dir });
  ok(await z(["init", "--forgetting"]), "init");
  const original = ok(await z(["memory", "append", "user.preference_changed", "--allow-envelope-switch", "--actor", "ci", "--payload-json", JSON.stringify({ user: "ci", key: "branch", value })]), "append");
  const edit = ok(await z(["memory", "edit", "--target-seq", String(original.seq), "--target-hash", original.hash, "--content", corrected, "--reason", "wrong branch"]), "edit");
  assert.equal(edit.previous_content, `branch=${value}`, "the correction quotes the fact it corrects");
  const rollback = ok(await z(["memory", "rollback", "--target-seq", String(edit.seq), "--target-hash", edit.hash, "--reason", "the edit was wrong"]), "rollback");
  assert.equal(rollback.reverts.restore_content, `branch=${value}`, "the rollback restores the quoted value");
  assert.ok(JSON.stringify(ok(await z(["memory", "checkout", "which branch does ci use"]), "checkout").current_facts).includes(value), "checkout serves the restored value");
  assert.deepEqual(holding(root, value).filter((file) => file.endsWith(".jsonl")), [], "no log line holds the value in clear");

  const forgot = ok(await z(["memory", "forget", "--target-seq", String(original.seq), "--target-hash", original.hash, "--reason", "user asked"]), "forget original");
  assert.equal(forgot.status, "forgotten");
  assert.ok(Array.isArray(forgot.copy_cell_ids) && forgot.copy_cell_ids.length >= 2, "the correction's and the rollback's copies are erased with it");
  ok(await z(["memory", "forget", "--target-seq", String(edit.seq), "--target-hash", edit.hash, "--reason", "user asked"]), "forget correction");

  const answers = async () => [
    await z(["memory", "checkout", "which branch does ci use"]),
    await z(["memory", "query", "branch kestrel"]),
    await z(["replay"]),
    await z(["memory", "log"]),
  ].map((run, i) => JSON.stringify(ok(run, `reader ${i}`)));
  for (const answer of await answers()) assert.ok(!answer.includes(value), "no reader serves the value");
  ok(await z(["reproject"]), "reproject");
  ok(await z(["graph", "sync"]), "graph sync");
  for (const answer of await answers()) assert.ok(!answer.includes(value), "no reader serves the value after a rebuild");
  assert.deepEqual(holding(root, value), [], "no file under the root holds the value");
  ok(await z(["verify", path.join(root, "default.jsonl")]), "verify");
});
