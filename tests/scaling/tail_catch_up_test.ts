// test-lane: full (slow)
/**
 * Issue 14 item 1 (a catch-up costs the delta): a fresh read whose log is a short tail past the
 * read model folds that tail on top of the model in memory and writes nothing, and answers
 * exactly what the full catch-up answers at the same head — every lane, fold and citation. A
 * tail past the bound, a log that no longer continues the model, and a damaged model all go
 * through the full path (with a warning where something was repaired), never a wrong answer.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { appendEvents } from "../../src/events/append.ts";
import { fromJs } from "../../src/canonical/json.ts";
import { mixedSessionItems, sampleQueries, writeMixedSession } from "../../src/bench/mixedSession.ts";
import { readModelTailEventsMax } from "../../src/limits.ts";
import { readModelDir } from "../../src/readmodel/manifest.ts";
import { CausalSession, ref } from "../causal/testkit.ts";
import { runZaxy } from "../cli/zaxy.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";

after(removeTempDirs);

const slow = { timeout: 600_000 };
const sessionId = "s";
let queries: string[] = [];

function zaxyIn(root: string, args: string[]) {
  return runZaxy(["--eventloom-path", root, "--session-id", sessionId, ...args], { cwd: path.dirname(root) });
}

function zaxyOk(root: string, args: string[]): string {
  const run = zaxyIn(root, args);
  assert.equal(run.code, 0, `${args.join(" ")}: ${run.stdout.slice(0, 400)}${run.stderr}`);
  return run.stdout;
}

/** Every file under the read model and the vector index, with its bytes: what a read must not rewrite. */
function derivedFiles(root: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const dir of [readModelDir(root, sessionId), path.join(root, "projections", "vectors")]) {
    if (!fs.existsSync(dir)) continue;
    for (const name of fs.readdirSync(dir)) out.set(path.join(dir, name), fs.readFileSync(path.join(dir, name)).toString("base64"));
  }
  return out;
}

function withoutProjection(stdout: string): unknown {
  const answer = JSON.parse(stdout);
  delete answer.diagnostics.projection;
  return answer;
}

/** A root whose read model is at its log head, a copy of `from`. */
function copyRoot(from: string): string {
  const root = path.join(makeTempDir(), ".eventloom");
  fs.cpSync(from, root, { recursive: true });
  return root;
}

let base = "";

before(async () => {
  base = path.join(makeTempDir(), ".eventloom");
  const causal = new CausalSession(base, sessionId);
  await causal.explain(ref("config drift", "cause"), ref("stale connection pool", "symptom"));
  // Larger sessions are compared lane by lane in tail_overlay_test.ts.
  const session = mixedSessionItems(90, 31);
  await writeMixedSession(base, sessionId, session.items);
  queries = [...sampleQueries(session, 16, 9), "config drift", "stale connection pool", "cache eviction storm", "never retry payment webhooks twice", "editor"];
  zaxyOk(base, ["memory", "consolidation", "propose-from-log"]);
  // The first read projects the session and writes its read model at the head.
  zaxyOk(base, ["memory", "checkout", "status", "--json"]);
}, slow);

/** Appends a tail that touches every fold and rule of the projection the model holds. */
async function appendVariedTail(root: string): Promise<number> {
  const causal = new CausalSession(root, sessionId);
  const edge = await causal.explain(ref("cache eviction storm", "cause"), ref("stale connection pool", "symptom"), "caused", 0.7);
  await causal.contradict(ref("cache eviction storm", "cause"), ref("stale connection pool", "symptom"), "caused", edge);
  await causal.explain(ref("config drift", "cause"), ref("checkout latency spike", "symptom"), "caused", 0.9);
  const more = mixedSessionItems(30, 77).items;
  await appendEvents(root, sessionId, more.map((item) => ({ type: item.type, actor: item.actor, payload: fromJs(item.payload) })));
  zaxyOk(root, ["memory", "append", "user.preference_changed", "--allow-envelope-switch", "--actor", "agent", "--payload-json", JSON.stringify({ user: "ci", key: "editor", value: "helix" })]);
  zaxyOk(root, ["memory", "feedback", "stale connection pool", "--entity-type", "symptom", "--feedback", "helpful"]);
  zaxyOk(root, ["memory", "outcome", "failure", "--summary", "payment webhook retried twice", "--lesson", "never retry payment webhooks twice", "--confidence", "0.4"]);
  return 3 + 30 + 1 + 1 + 1;
}

describe("tail catch-up on the read model (issue 14)", () => {
  test("a fresh read past the read model folds the tail in memory, writes nothing, and answers as the full catch-up does", slow, async () => {
    const root = copyRoot(base);
    const headBefore = JSON.parse(zaxyOk(root, ["memory", "query", "status", "--json"])).diagnostics.projection;
    assert.equal(headBefore.source, "read_model");
    const appendedFloor = await appendVariedTail(root);
    const tailLength = JSON.parse(zaxyOk(root, ["memory", "log", "--json", "--limit", "1"])).events.at(-1).seq - headBefore.head_seq;
    assert.ok(tailLength >= appendedFloor, `tail of ${tailLength} events`);
    const derived = derivedFiles(root);
    const full = copyRoot(root);
    fs.rmSync(readModelDir(full, sessionId), { recursive: true });

    for (const query of queries) {
      const tail = zaxyIn(root, ["memory", "query", query, "--json"]);
      assert.equal(tail.code, 0, tail.stderr);
      // The semantic lane covers the tail's new facts a few per read (the same ones in both roots,
      // read in the same order) and says so; nothing else is warned about.
      assert.equal(tail.stderr.replace(/^zaxy: warning: semantic lane compared \d+ of \d+ current facts;.*\n/m, ""), "", "a tail read warns about nothing else");
      const projection = JSON.parse(tail.stdout).diagnostics.projection;
      assert.equal(projection.source, "read_model_tail");
      assert.equal(projection.events_applied, tailLength);
      assert.equal(projection.head_seq, headBefore.head_seq + tailLength);
      const reference = zaxyOk(full, ["memory", "query", query, "--json"]);
      assert.equal(JSON.parse(reference).diagnostics.projection.head_seq, projection.head_seq);
      assert.deepEqual(withoutProjection(tail.stdout), withoutProjection(reference), `memory query ${JSON.stringify(query)}`);
      const checkout = zaxyOk(root, ["memory", "checkout", query, "--json"]);
      assert.deepEqual(withoutProjection(checkout), withoutProjection(zaxyOk(full, ["memory", "checkout", query, "--json"])), `memory checkout ${JSON.stringify(query)}`);
    }
    // Causal queries read the same folds: the tail's new edge (config drift -> checkout latency
    // spike) is there, the contradicted one is not, exactly as after the full catch-up.
    for (const [direction, name] of [["successors", "config drift"], ["predecessors", "stale connection pool"], ["successors", "cache eviction storm"]]) {
      const args = ["memory", "causal", direction, name, "--depth", "3", "--json"];
      const tailCausal = zaxyIn(root, args);
      assert.equal(tailCausal.code, 0, tailCausal.stderr);
      assert.equal(tailCausal.stderr, "");
      assert.deepEqual(JSON.parse(tailCausal.stdout), JSON.parse(zaxyOk(full, args)), `memory causal ${direction} ${name}`);
    }
    assert.match(zaxyOk(root, ["memory", "causal", "successors", "config drift", "--json"]), /checkout latency spike/);
    // The tail changed what the folds answer: the new causal edge, the contradicted one, the preference.
    const editor = JSON.parse(zaxyOk(root, ["memory", "checkout", "editor", "--json"]));
    assert.ok(editor.current_facts.some((fact: { content: string }) => fact.content.includes("editor=helix")), JSON.stringify(editor.current_facts));
    assert.deepEqual(derivedFiles(root), derived, "a tail read rewrites no read-model file or vector index");
    // Status says where each derived state stands and what the next read does.
    const status = JSON.parse(zaxyOk(root, ["memory", "status", "--json"]));
    assert.deepEqual([status.read_model.head_seq, status.read_model.behind_by, status.read_model.next_read], [headBefore.head_seq, tailLength, "read_model_tail"]);
    assert.equal(status.projection.behind_by, tailLength);
    assert.match(zaxyOk(root, ["memory", "status"]), new RegExp(`read model: head seq ${headBefore.head_seq}, ${tailLength} events behind \\(reads fold them in memory\\)`));
  });

  test("a tail longer than readModelTailEventsMax goes through the full catch-up, which rewrites the read model at the head", slow, async () => {
    const root = copyRoot(base);
    const before = JSON.parse(fs.readFileSync(path.join(readModelDir(root, sessionId), "manifest.json"), "utf8").split("\n")[1]);
    const items = mixedSessionItems(readModelTailEventsMax + 1, 5).items;
    await appendEvents(root, sessionId, items.map((item) => ({ type: item.type, actor: item.actor, payload: fromJs(item.payload) })));
    assert.equal(JSON.parse(zaxyOk(root, ["memory", "status", "--json"])).read_model.next_read, "catch_up");
    const projection = JSON.parse(zaxyOk(root, ["memory", "query", "status", "--json"])).diagnostics.projection;
    assert.equal(projection.source, "caught_up");
    assert.equal(projection.events_applied, readModelTailEventsMax + 1);
    const after = JSON.parse(fs.readFileSync(path.join(readModelDir(root, sessionId), "manifest.json"), "utf8").split("\n")[1]);
    assert.equal(after.head.seq, before.head.seq + readModelTailEventsMax + 1);
    assert.equal(JSON.parse(zaxyOk(root, ["memory", "query", "status", "--json"])).diagnostics.projection.source, "read_model");
    const status = JSON.parse(zaxyOk(root, ["memory", "status", "--json"]));
    assert.deepEqual([status.read_model.behind_by, status.read_model.next_read, status.projection.up_to_date], [0, "read_model", true]);
  });

  test("a log that no longer continues the read model (rewritten below its head, then grown past it) is read through the full path, with the new events", slow, async () => {
    const root = copyRoot(base);
    const log = path.join(root, `${sessionId}.jsonl`);
    const lines = fs.readFileSync(log, "utf8").split("\n").filter((line) => line !== "");
    // Drop the last five events and append six others: the log is one event past the model's
    // head, but its event at the model's head seq is another one.
    fs.writeFileSync(log, lines.slice(0, -5).join("\n") + "\n");
    fs.rmSync(path.join(root, "projections", "verified"), { recursive: true, force: true });
    for (let i = 0; i < 6; i++) zaxyOk(root, ["memory", "append", "decision.made", "--actor", "agent", "--payload-json", JSON.stringify({ decision: `adopt quokka scheduler ${i}` })]);
    const full = copyRoot(root);
    fs.rmSync(readModelDir(full, sessionId), { recursive: true });
    const first = zaxyIn(root, ["memory", "query", "quokka scheduler", "--json"]);
    assert.equal(first.code, 0, first.stderr);
    assert.notEqual(JSON.parse(first.stdout).diagnostics.projection.source, "read_model_tail");
    // The reference's first read repairs the same rewritten projection (and warns about it).
    zaxyOk(full, ["memory", "query", "quokka scheduler", "--json"]);
    const run = zaxyIn(root, ["memory", "checkout", "quokka scheduler", "--json"]);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(withoutProjection(run.stdout), withoutProjection(zaxyOk(full, ["memory", "checkout", "quokka scheduler", "--json"])));
    const recent = JSON.parse(run.stdout).prompt as string;
    assert.match(recent, /adopt quokka scheduler 5/);
  });

  test("a damaged relation file under a tail is noticed: the read is rebuilt from the log with a warning and answers as the full path", slow, async () => {
    const root = copyRoot(base);
    await appendVariedTail(root);
    const dir = readModelDir(root, sessionId);
    const relations = fs.readdirSync(dir).find((name) => name.startsWith("relations-"))!;
    const bytes = fs.readFileSync(path.join(dir, relations));
    bytes[bytes.length - 3] ^= 0x5a;
    fs.writeFileSync(path.join(dir, relations), bytes);
    const full = copyRoot(root);
    fs.rmSync(readModelDir(full, sessionId), { recursive: true });
    const run = zaxyIn(root, ["memory", "query", "stale connection pool", "--json"]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /read model of session "s" is rebuilt from the log: .*relations-/);
    assert.deepEqual(withoutProjection(run.stdout), withoutProjection(zaxyOk(full, ["memory", "query", "stale connection pool", "--json"])));
  });

  test("a copied root's first read checks the model's files by SHA-256 and records their new stamps, so the next read does not hash them again", slow, () => {
    const root = copyRoot(base);
    const manifestFile = path.join(readModelDir(root, sessionId), "manifest.json");
    const manifestOf = () => JSON.parse(fs.readFileSync(manifestFile, "utf8").split("\n")[1]) as { files: Record<string, { name: string; stamp: string }> };
    const hashed = ["entities", "names", "adjacency", "events", "relations", "node_keys"];
    const stale = manifestOf();
    // Without the semantic lane, whose coverage grows with every read: the two reads must agree.
    const first = zaxyOk(root, ["memory", "query", "editor", "--no-semantic", "--json"]);
    assert.equal(JSON.parse(first).diagnostics.projection.source, "read_model");
    const restamped = manifestOf();
    for (const key of hashed) assert.notEqual(restamped.files[key].stamp, stale.files[key].stamp, `${key}: the copy's stamp is recorded`);
    // The binary's stamps (Bun: nanosecond times) are not comparable with this test runtime's
    // (Deno rounds them), so the proof is that the next read finds them current: it does not
    // hash and swap in a manifest again.
    const before = fs.statSync(manifestFile);
    const bytes = fs.readFileSync(manifestFile);
    assert.deepEqual(withoutProjection(zaxyOk(root, ["memory", "query", "editor", "--no-semantic", "--json"])), withoutProjection(first));
    assert.deepEqual(fs.readFileSync(manifestFile), bytes, "a read at recorded stamps writes nothing");
    assert.equal(fs.statSync(manifestFile).ino, before.ino, "the manifest was not swapped again");
  });

  test("a tampered tail event is refused as before (exit 1, integrity_failure), never folded", slow, async () => {
    const root = copyRoot(base);
    zaxyOk(root, ["memory", "append", "decision.made", "--actor", "agent", "--payload-json", JSON.stringify({ decision: "adopt the walrus cache" })]);
    const log = path.join(root, `${sessionId}.jsonl`);
    fs.writeFileSync(log, fs.readFileSync(log, "utf8").replace("adopt the walrus cache", "adopt the walrus cachf"));
    const run = zaxyIn(root, ["memory", "query", "walrus", "--json"]);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.equal(JSON.parse(run.stdout).error.code, "integrity_failure");
  });
});
