// deno-test: own-process (loads kuzu-wasm in this process; scripts/deno-test.sh runs it alone)
// test-lane: full (slow)
/**
 * `zaxy graph sync` (issue 14): no read answers from the Kuzu graph store, so reads leave it
 * behind; this command brings it up to the log head, incrementally from its own head, and
 * `zaxy memory status --graph` says how far behind it is without changing it.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { runZaxyInProcess } from "./inProcessRoot.ts";
import { runZaxy, stackTraceLines } from "./zaxy.ts";

after(removeTempDirs);

const slow = { timeout: 180_000 };

/**
 * Every command here loads Kuzu, which costs seconds per child process on a loaded machine, and
 * what is asserted is the commands' output and the files they leave: they run in this process.
 * The first sync (the default root, reported absolute) and the tampered log's exit 1 run in a
 * real process.
 */
const zaxy = (args: string[], cwd: string) => runZaxyInProcess(args, { cwd });

async function ok(args: string[], cwd: string): Promise<Record<string, unknown>> {
  const run = await zaxy([...args, "--json"], cwd);
  assert.equal(run.code, 0, `zaxy ${args.join(" ")}: ${run.stdout}${run.stderr}`);
  assert.equal(run.stderr, "", `zaxy ${args.join(" ")} warned`);
  return JSON.parse(run.stdout);
}

async function append(cwd: string, decision: string, session = "default"): Promise<void> {
  await ok(["memory", "append", "decision.made", "--actor", "agent", "--session-id", session, "--payload-json", JSON.stringify({ decision })], cwd);
}

interface GraphDoc {
  head: { seq: number; entityCount: number } | null;
  counts: { events: number; entities: number };
  behind_by: number;
  sessions: string[];
}

async function graphOf(cwd: string, session = "default"): Promise<GraphDoc> {
  return ((await ok(["memory", "status", "--graph", "--session-id", session], cwd)) as { graph: GraphDoc }).graph;
}

describe("zaxy graph sync", () => {
  test("reads leave the graph store behind; status --graph says by how much; sync catches it up from its own head", slow, async () => {
    const dir = makeTempDir("graph-sync");
    for (let i = 1; i <= 3; i++) await append(dir, `use sqlite database ${i}`);
    await ok(["memory", "checkout", "which database"], dir);
    const kuzu = path.join(dir, ".eventloom", "projections", "embedded.kuzu");
    assert.ok(!fs.existsSync(kuzu), "a read wrote the graph store");

    const firstRun = runZaxy(["graph", "sync", "--json"], { cwd: dir });
    assert.equal(firstRun.code, 0, firstRun.stdout + firstRun.stderr);
    assert.equal(firstRun.stderr, "");
    const first = JSON.parse(firstRun.stdout);
    assert.deepEqual(Object.keys(first), ["schema", "ok", "root", "sessions"]);
    assert.equal(first.schema, "zaxy.graph.sync.v1");
    assert.equal(first.ok, true);
    assert.equal(first.root, path.join(fs.realpathSync(dir), ".eventloom"));
    const [report] = first.sessions as Array<Record<string, unknown>>;
    assert.deepEqual(Object.keys(report), ["session_id", "ok", "source", "events_applied", "head_seq", "entity_versions", "relations", "seconds"]);
    assert.deepEqual([report.session_id, report.ok, report.source, report.events_applied, report.head_seq], ["default", true, "rebuilt", 3, 3]);
    const synced = await graphOf(dir);
    assert.deepEqual([synced.head?.seq, synced.behind_by, synced.counts.events], [3, 0, 3]);

    await append(dir, "use postgres database");
    await append(dir, "use duckdb database");
    await ok(["memory", "checkout", "which database"], dir);
    // Status reports without changing anything: asked twice, the store is still behind.
    assert.equal((await graphOf(dir)).behind_by, 2);
    assert.equal((await graphOf(dir)).head?.seq, 3);

    const second = await ok(["graph", "sync"], dir);
    const [caught] = second.sessions as Array<Record<string, unknown>>;
    assert.deepEqual([caught.source, caught.events_applied, caught.head_seq], ["caught_up", 2, 5]);
    const graph = await graphOf(dir);
    assert.deepEqual([graph.head?.seq, graph.behind_by, graph.counts.events], [5, 0, 5]);
    assert.equal(graph.head?.entityCount, caught.entity_versions);

    const third = await ok(["graph", "sync"], dir);
    assert.deepEqual((third.sessions as Array<Record<string, unknown>>).map((s) => [s.source, s.events_applied]), [["store", 0]]);
    const text = await zaxy(["graph", "sync"], dir);
    assert.equal(text.code, 0);
    assert.equal(text.stdout, "default: graph store already at seq 5\n");
  });

  test("--all syncs every session; an unknown session exits 2; a tampered log exits 1 and is not projected", slow, async () => {
    const dir = makeTempDir("graph-sync-all");
    await append(dir, "use sqlite database");
    await append(dir, "use redis cache", "side");
    const all = await ok(["graph", "sync", "--all"], dir);
    assert.deepEqual((all.sessions as Array<Record<string, unknown>>).map((s) => [s.session_id, s.ok, s.head_seq]), [["default", true, 1], ["side", true, 1]]);
    assert.deepEqual((await graphOf(dir)).sessions, ["default", "side"]);

    const unknown = await zaxy(["graph", "sync", "--session-id", "nosuch", "--json"], dir);
    assert.equal(unknown.code, 2);
    assert.equal(JSON.parse(unknown.stdout).error.code, "unknown_session");
    assert.deepEqual(stackTraceLines(unknown.stderr), []);

    await append(dir, "use postgres database");
    const log = path.join(dir, ".eventloom", "default.jsonl");
    fs.writeFileSync(log, fs.readFileSync(log, "utf8").replace("use postgres database", "use mongodb database"));
    const tampered = runZaxy(["graph", "sync", "--json"], { cwd: dir });
    assert.equal(tampered.code, 1, tampered.stdout + tampered.stderr);
    const doc = JSON.parse(tampered.stdout);
    assert.equal(doc.ok, false);
    assert.equal(doc.sessions[0].error.code, "integrity_failure");
    assert.match(doc.sessions[0].error.message, /seq 2/);
    const status = await zaxy(["memory", "status", "--graph", "--json"], dir);
    assert.equal(JSON.parse(status.stdout).graph.head.seq, 1, "the store stayed at its head");
  });
});
