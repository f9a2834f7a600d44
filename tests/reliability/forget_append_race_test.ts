// test-lane: full (concurrent processes, slow)
/**
 * `memory forget` racing appends (docs/forgetting.md "Concurrency"): with forgetting on, the
 * erasure vault is shared by every session of the root, so every change to it (an append
 * committing new cell keys, a forget destroying one) must read, change and write it under one
 * lock. Real processes: each round, five `zaxy memory append` processes (two in the forget's
 * session, three in others) run while `zaxy memory forget` destroys one earlier event's key.
 * Afterwards every event appended with exit 0 must still be readable, and only the forgotten
 * ones show `[FORGOTTEN]`; every cell on disk has its key either in `cells` or, for a forgotten
 * event only, in `destroyed`.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, test } from "node:test";
import { runZaxy, runZaxyAsync, type ZaxyRun } from "../cli/zaxy.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";

after(removeTempDirs);

const rounds = 4;
const appendsPerProcess = 3;
const sessions = ["default", "default", "alpha", "beta", "gamma"];

function ok(run: ZaxyRun, what: string): ZaxyRun {
  assert.equal(run.code, 0, `${what}: exit ${run.code}\n${run.stderr}${run.stdout}`);
  return run;
}

function append(dir: string, session: string, text: string): Promise<ZaxyRun> {
  return runZaxyAsync(["--session-id", session, "memory", "append", "decision.made", "--actor", "ci", "--payload-json", JSON.stringify({ decision: text }), "--json"], { cwd: dir });
}

async function appender(dir: string, session: string, tag: string): Promise<string[]> {
  const texts: string[] = [];
  for (let i = 0; i < appendsPerProcess; i++) {
    const text = `${tag}-${i}`;
    ok(await append(dir, session, text), `append ${text}`);
    texts.push(text);
  }
  return texts;
}

test("every event appended (exit 0) while memory forget runs in other processes keeps its cell key and stays readable", { timeout: 600_000 }, async () => {
  const dir = makeTempDir("zaxy-forget-race");
  const root = path.join(dir, ".eventloom");
  ok(runZaxy(["init", "--forgetting", "--json"], { cwd: dir }), "init");
  // Something to forget in every round, in the forget's session.
  const victims: { seq: number; hash: string; text: string }[] = [];
  for (let i = 0; i < rounds; i++) {
    const text = `victim-${i}`;
    const run = JSON.parse(ok(runZaxy(["memory", "append", "decision.made", "--actor", "ci", "--payload-json", JSON.stringify({ decision: text }), "--json"], { cwd: dir }), "append victim").stdout);
    victims.push({ seq: run.seq, hash: run.hash, text });
  }
  const appended = new Map<string, string[]>();
  for (let round = 0; round < rounds; round++) {
    const victim = victims[round];
    const forget = runZaxyAsync(["memory", "forget", "--target-seq", String(victim.seq), "--target-hash", victim.hash, "--reason", "race test", "--json"], { cwd: dir });
    const writers = sessions.map((session, i) => appender(dir, session, `r${round}-p${i}`).then((texts) => ({ session, texts })));
    ok(await forget, `forget round ${round}`);
    for (const { session, texts } of await Promise.all(writers)) appended.set(session, [...(appended.get(session) ?? []), ...texts]);
  }
  // Every reader: the forgotten victims are [FORGOTTEN], everything else reads as appended.
  const forgottenTexts = new Set(victims.map((v) => v.text));
  for (const session of new Set(sessions)) {
    const events = JSON.parse(ok(runZaxy(["--session-id", session, "replay", "--json"], { cwd: dir }), `replay ${session}`).stdout).events as { type: string; payload: Record<string, unknown> }[];
    const readable = events.filter((e) => e.type === "decision.made" && typeof e.payload.decision === "string").map((e) => e.payload.decision as string);
    const lost = (appended.get(session) ?? []).filter((text) => !readable.includes(text));
    assert.deepEqual(lost, [], `session ${session}: events appended with exit 0 whose key is gone`);
    const forgotten = events.filter((e) => e.payload.__zaxy_forgotten === true).length;
    assert.equal(forgotten, session === "default" ? rounds : 0, `session ${session}: only the forgotten events show [FORGOTTEN]`);
    if (session === "default") assert.deepEqual(readable.filter((text) => forgottenTexts.has(text)), []);
  }
  // The vault itself: every cell id on disk is either live or destroyed by a forget.
  const vault = JSON.parse(fs.readFileSync(path.join(root, "__erasure_vault__.json"), "utf8"));
  assert.equal(Object.keys(vault.destroyed).length, rounds);
  for (const file of fs.readdirSync(root).filter((name) => name.endsWith(".jsonl"))) {
    for (const match of fs.readFileSync(path.join(root, file), "utf8").matchAll(/"cell_id":"([0-9a-f]{32})"/g)) {
      assert.ok(vault.cells[match[1]] !== undefined || vault.destroyed[match[1]] !== undefined, `${file}: cell ${match[1]} is in neither cells nor destroyed`);
    }
  }
});
