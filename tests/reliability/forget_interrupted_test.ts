// deno-test: own-process (runs zaxy in this process, which may load kuzu-wasm; scripts/deno-test.sh runs it alone)
// test-lane: full (kill -9, slow)
/**
 * `memory forget` killed half-way (docs/forgetting.md "Interrupted forgets"): the record of who
 * forgot what and why is never lost. The real CLI forgets event 1 of a 1,500-event session and
 * is stopped by `kill -9` or SIGTERM at several points: right after the gate is appended, right
 * after the key is destroyed (seen in the vault file, or at the `forget-key-destroyed` test
 * pause), and at fixed delays. Whatever the point, running the same forget again then either
 * finishes it (exit 0, writing the `memory.forgotten` record with the first run's reason) or says
 * it is already forgotten because the record is there; in the end the log holds exactly one
 * record for the target, the target reads `[FORGOTTEN]`, and the chain verifies.
 *
 * The template and the forgets that are stopped are real processes; the re-runs and checks run
 * the CLI in this process. The template must not be opened here: this process's readers open a
 * cell with the key of any vault it opened, and every trial is a copy of the template's keys.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, test } from "node:test";
import { childEnv, runZaxy, type ZaxyRun, zaxyInvocation } from "../cli/zaxy.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { runZaxyInProcess } from "../cli/inProcessRoot.ts";

after(removeTempDirs);

const eventCount = 1500;
const reason = "the user asked to forget the runbook";
let template = "";
let targetHash = "";

function ok(run: ZaxyRun, what: string): ZaxyRun {
  assert.equal(run.code, 0, `${what}: exit ${run.code}\n${run.stderr}${run.stdout}`);
  return run;
}

before(() => {
  template = makeTempDir("zaxy-forget-kill-template");
  ok(runZaxy(["init", "--forgetting", "--json"], { cwd: template }), "init");
  const lines = Array.from({ length: eventCount }, (_, i) =>
    JSON.stringify({ event_type: "document.indexed", actor: "indexer", payload: { path: `docs/page-${i}.md`, content: `runbook page ${i} says code-${i}` } }));
  fs.writeFileSync(path.join(template, "events.jsonl"), lines.join("\n") + "\n");
  ok(runZaxy(["memory", "ingest", "events.jsonl", "--json"], { cwd: template }), "ingest");
  targetHash = JSON.parse(ok(runZaxy(["replay", "--json"], { cwd: template }), "replay").stdout).events[0].hash;
});

interface Started {
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill: (signal: NodeJS.Signals) => void;
}

function startZaxy(args: string[], dir: string, env: Record<string, string> = {}): Started {
  const child = spawn(zaxyInvocation.command, [...zaxyInvocation.args, ...args], { cwd: dir, env: childEnv(env), stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => void (stderr += chunk));
  child.stdout.resume();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("close", (code, signal) => resolve({ code, signal })));
  return { stderr: () => stderr, exited, kill: (signal) => child.kill(signal) };
}

const forgetArgs = () => ["memory", "forget", "--target-seq", "1", "--target-hash", targetHash, "--reason", reason, "--json"];
const logOf = (dir: string) => fs.readFileSync(path.join(dir, ".eventloom", "default.jsonl"), "utf8");
const records = (dir: string) => logOf(dir).split("\n").filter((line) => line.includes('"type":"memory.forgotten"'));

function keyDestroyed(dir: string): boolean {
  try {
    return Object.keys(JSON.parse(fs.readFileSync(path.join(dir, ".eventloom", "__erasure_vault__.json"), "utf8")).destroyed).length > 0;
  } catch {
    return false;
  }
}

/** Starts the forget, kills it with `signal` once `when` holds (polled every 2 ms), returns how it ended. */
async function killForget(dir: string, signal: NodeJS.Signals, when: (startedMs: number, child: Started) => boolean, env: Record<string, string> = {}) {
  const child = startZaxy(forgetArgs(), dir, env);
  let exited = false;
  void child.exited.then(() => (exited = true));
  const started = Date.now();
  while (!exited && !when(started, child)) await new Promise((resolve) => setTimeout(resolve, 2));
  if (!exited) child.kill(signal);
  return await child.exited;
}

/** A re-run finishes the forget; exactly one record, with the first run's reason, and the chain verifies. */
async function assertCompletes(dir: string, point: string): Promise<void> {
  const recordedBefore = records(dir).length;
  const again = await runZaxyInProcess(forgetArgs(), { cwd: dir });
  if (recordedBefore === 0) {
    assert.equal(again.code, 0, `${point}: the re-run must finish the forget\n${again.stderr}${again.stdout}`);
    const out = JSON.parse(again.stdout);
    assert.equal(out.status, "forgotten");
    if (out.completed_earlier_forget === true) assert.equal(out.gate.decision, "auto_apply", `${point}: it reports the first run's gate decision`);
  } else {
    assert.equal(again.code, 2, `${point}: recorded already, so the re-run says so\n${again.stderr}`);
    assert.match(again.stdout + again.stderr, /already forgotten/);
  }
  const recorded = records(dir);
  assert.equal(recorded.length, 1, `${point}: exactly one memory.forgotten record`);
  const payload = JSON.parse(recorded[0]).payload;
  assert.deepEqual([payload.target.seq, payload.target.hash, payload.reason], [1, targetHash, reason], point);
  const replay = JSON.parse(ok(await runZaxyInProcess(["replay", "--json"], { cwd: dir }), "replay").stdout);
  assert.equal(replay.events[0].payload.content, "[FORGOTTEN]", point);
  ok(await runZaxyInProcess(["verify", path.join(dir, ".eventloom", "default.jsonl")], { cwd: dir }), `${point}: verify`);
}

function trialDir(name: string): string {
  const dir = makeTempDir(`zaxy-forget-kill-${name}`);
  fs.cpSync(template, dir, { recursive: true });
  return dir;
}

test("memory forget killed (kill -9) after the key is destroyed and before its record: a re-run writes the record", { timeout: 300_000 }, async () => {
  const dir = trialDir("after-destroy");
  const ended = await killForget(dir, "SIGKILL", (_, child) => keyDestroyed(dir) || child.stderr().includes("zaxy: test pause at forget-key-destroyed"), { ZAXY_TEST_PAUSE_AT: "forget-key-destroyed" });
  assert.equal(ended.signal, "SIGKILL", "killed before it finished");
  assert.ok(keyDestroyed(dir), "the key was destroyed");
  await assertCompletes(dir, "after the key is destroyed");
});

test("memory forget killed (kill -9 and SIGTERM) after its gate, as soon as the key is gone, and at 0.2-0.35 s: a re-run always ends with one record", { timeout: 600_000 }, async () => {
  const gateAppended = (dir: string) => () => logOf(dir).includes('"type":"evolution.gate.evaluated"');
  const trials: { name: string; signal: NodeJS.Signals; when: (dir: string) => (startedMs: number) => boolean }[] = [
    { name: "gate-kill", signal: "SIGKILL", when: gateAppended },
    { name: "gate-term", signal: "SIGTERM", when: gateAppended },
    { name: "destroyed-term", signal: "SIGTERM", when: (dir) => () => keyDestroyed(dir) },
    { name: "destroyed-kill", signal: "SIGKILL", when: (dir) => () => keyDestroyed(dir) },
  ];
  for (const delayMs of [200, 250, 300, 350]) {
    for (const signal of ["SIGKILL", "SIGTERM"] as const) trials.push({ name: `${delayMs}ms-${signal}`, signal, when: () => (startedMs) => Date.now() - startedMs >= delayMs });
  }
  for (const trial of trials) {
    const dir = trialDir(trial.name);
    await killForget(dir, trial.signal, trial.when(dir));
    await assertCompletes(dir, trial.name);
  }
});
