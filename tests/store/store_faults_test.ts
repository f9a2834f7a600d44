// test-lane: full (PostgreSQL server, kill -9, concurrent processes, slow)
/**
 * The store under concurrency and faults, on a real PostgreSQL server (issue 15): processes on
 * separate roots appending and promoting at once, a client killed mid-transaction, the server
 * stopped mid-run, and `zaxy serve` following other hosts' appends without a restart.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { writeSyntheticLog } from "../../src/bench/syntheticLog.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { childEnv, repoRoot, runZaxy, runZaxyAsync, stackTraceLines, zaxyInvocation, type ZaxyRun } from "../cli/zaxy.ts";
import { startMcpServer } from "../mcp/mcpTestClient.ts";
import { freshDatabase, type PgServer, pgServer, sqlOn, startPrivateCluster, stopPgServer } from "./pgTestkit.ts";

const server: PgServer | undefined = pgServer();
after(() => stopPgServer(server));
after(removeTempDirs);

const clusterScript = path.join(repoRoot, "scripts", "pg-cluster.sh");

function ok(run: ZaxyRun, what: string): ZaxyRun {
  assert.equal(run.code, 0, `${what} exited ${run.code}: ${run.stderr}`);
  return run;
}

async function initStore(label: string, on: PgServer = server as PgServer): Promise<string> {
  const store = await freshDatabase(on, label);
  ok(runZaxy(["store", "init", "--store", store], { cwd: makeTempDir("zaxy-store-init") }), "store init");
  return store;
}

function fleetRoot(label: string): string {
  const dir = makeTempDir(label);
  fs.mkdirSync(path.join(dir, ".eventloom"), { recursive: true });
  fs.writeFileSync(path.join(dir, ".eventloom", "config.json"), JSON.stringify({ fleet_enabled: true }) + "\n");
  return dir;
}

async function threadLines(store: string, thread: string): Promise<{ seq: number; line: string }[]> {
  const rows = await sqlOn(store, (sql) => sql`SELECT seq, line FROM eventloom_events WHERE thread = ${thread} ORDER BY seq`);
  return rows.map((row) => ({ seq: Number(row.seq), line: row.line as string }));
}

/**
 * Runs zaxy `args` in `cwd` while a lock on the events table makes its statement starting with
 * `statementPrefix` wait (so it is inside its transaction), kills it with -9 there, and returns
 * once the server has dropped its connection.
 */
async function killWhileItWaits(store: string, cwd: string, args: string[], statementPrefix: string): Promise<void> {
  const blocker = (await import("postgres")).default(store, { max: 1, onnotice: () => {} });
  const reserved = await blocker.reserve();
  await reserved`BEGIN`;
  await reserved`LOCK TABLE eventloom_events IN SHARE MODE`;
  const child = spawn(zaxyInvocation.command, [...zaxyInvocation.args, ...args, "--store", store], { cwd, env: childEnv(), stdio: "ignore" });
  const exited = new Promise<number | null>((resolve) => child.on("close", (code, signal) => resolve(signal === "SIGKILL" ? -9 : code)));
  let waiting = false;
  for (let i = 0; i < 400 && !waiting; i++) {
    const rows = await sqlOn(store, (sql) => sql`SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'zaxy' AND wait_event_type = 'Lock' AND query LIKE ${statementPrefix + "%"}`);
    waiting = Number(rows[0].n) > 0;
    if (!waiting) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.ok(waiting, `the client reached its ${statementPrefix} inside the transaction`);
  child.kill("SIGKILL");
  assert.equal(await exited, -9);
  await reserved`ROLLBACK`;
  reserved.release();
  await blocker.end();
  // The server aborts the dead client's transaction once it notices; give it a moment.
  for (let i = 0; i < 100; i++) {
    const rows = await sqlOn(store, (sql) => sql`SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'zaxy'`);
    if (Number(rows[0].n) === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("the store under concurrency and faults", { skip: server === undefined ? "no PostgreSQL server programs" : false }, () => {
  test("8 processes on separate roots append and promote concurrently: nothing lost or duplicated, every chain valid", async () => {
    const store = await initStore("concurrent");
    const coordinator = fleetRoot("zaxy-coord");
    ok(runZaxy(["fleet", "create", "shared", "--summary", "cross-host fleet", "--actor", "steward", "--store", store], { cwd: coordinator }), "fleet create");
    const workers = 8;
    const appendsEach = 12;
    const roots = Array.from({ length: workers }, (_, i) => fleetRoot(`zaxy-worker-${i}`));
    // Every worker appends to its own session and, interleaved, to the shared one.
    await Promise.all(roots.map(async (root, worker) => {
      for (let i = 0; i < appendsEach; i++) {
        const own = await runZaxyAsync(["memory", "append", "task.proposed", "--actor", `w${worker}`, "--session-id", `w${worker}`, "--payload-json", JSON.stringify({ title: `w${worker} task ${i}` }), "--store", store], { cwd: root });
        assert.equal(own.code, 0, own.stderr);
        const shared = await runZaxyAsync(["memory", "append", "tool.call.completed", "--actor", `w${worker}`, "--payload-json", JSON.stringify({ tool: "t", worker, i }), "--store", store, "--json"], { cwd: root });
        assert.equal(shared.code, 0, shared.stderr);
      }
      const log = await runZaxyAsync(["memory", "log", "--session-id", `w${worker}`, "--json", "--store", store], { cwd: root });
      const first = JSON.parse(log.stdout).events[0];
      const promoted = await runZaxyAsync(["fleet", "promote-outcome", "shared", "--outcome", "success", "--summary", `worker ${worker} finished`, "--origin-session", `w${worker}`, "--source-event", `1:${first.hash}`, "--confidence", "0.9", "--actor", "steward", "--store", store, "--json"], { cwd: root });
      assert.equal(promoted.code, 0, promoted.stderr + promoted.stdout);
    }));
    const shared = await threadLines(store, "default");
    assert.equal(shared.length, workers * appendsEach);
    assert.deepEqual(shared.map((r) => r.seq), Array.from({ length: workers * appendsEach }, (_, i) => i + 1));
    const seen = new Set(shared.map((r) => { const p = JSON.parse(r.line).payload; return `${p.worker}:${p.i}`; }));
    assert.equal(seen.size, workers * appendsEach, "every append landed exactly once");
    for (let worker = 0; worker < workers; worker++) assert.equal((await threadLines(store, `w${worker}`)).length, appendsEach);
    const verified = JSON.parse(ok(runZaxy(["verify", "--all", "--json", "--store", store], { cwd: coordinator }), "verify --all").stdout);
    assert.equal(verified.ok, true);
    assert.equal(verified.logs.length, workers + 2);
    const fleet = (await threadLines(store, "fleet.shared")).map((r) => JSON.parse(r.line));
    const promotions = fleet.filter((event) => (event.type ?? event.event_type) === "fleet.outcome.propagated");
    assert.equal(promotions.length, workers, JSON.stringify(fleet.map((e) => e.type ?? e.event_type)));
    // The coordinator's audit resolves every promotion's source event in sessions written from other roots.
    const audit = runZaxy(["fleet", "audit", "shared", "--json", "--store", store], { cwd: coordinator });
    assert.equal(audit.code, 0, audit.stderr + audit.stdout);
    const report = JSON.parse(audit.stdout);
    assert.deepEqual([report.ok, report.promotion_count, report.unresolved_count], [true, workers, 0]);
    assert.ok(report.promotions.every((p: { source_refs: { resolved: boolean }[] }) => p.source_refs.every((r) => r.resolved)));
  });

  test("a client killed mid-transaction leaves nothing behind; the next append continues the chain", async () => {
    const store = await initStore("killed");
    const dir = makeTempDir("zaxy-killed");
    ok(runZaxy(["memory", "append", "goal.created", "--actor", "a", "--payload-json", '{"title":"before"}', "--store", store], { cwd: dir }), "first append");
    const batch = path.join(dir, "batch.jsonl");
    fs.writeFileSync(batch, Array.from({ length: 500 }, (_, i) => JSON.stringify({ event_type: "note.added", actor: "a", payload: { i } })).join("\n") + "\n");
    // The client's INSERT waits on a lock: it is inside its transaction, the head row locked.
    await killWhileItWaits(store, dir, ["memory", "ingest", batch], "INSERT INTO eventloom_events");
    assert.equal((await threadLines(store, "default")).length, 1, "no row of the killed batch");
    const head = await sqlOn(store, (sql) => sql`SELECT seq FROM eventloom_heads WHERE thread = 'default'`);
    assert.equal(Number(head[0].seq), 1);
    ok(runZaxy(["memory", "append", "goal.created", "--actor", "a", "--payload-json", '{"title":"after"}', "--store", store], { cwd: dir }), "append after the kill");
    const verified = JSON.parse(ok(runZaxy(["verify", "--json", "--store", store], { cwd: dir }), "verify").stdout);
    assert.equal(verified.logs[0].total_events, 2);
  });

  test("an import killed with -9 inside its COPY leaves no row and no head; importing the file again gives it byte for byte", async () => {
    const store = await initStore("killedimport");
    const dir = makeTempDir("zaxy-killed-import");
    const file = path.join(dir, "big.jsonl");
    writeSyntheticLog({ path: file, events: 5000, style: "python-legacy" });
    // The COPY waits on a lock: the import is inside its transaction, the thread's head locked.
    await killWhileItWaits(store, dir, ["store", "import", file], "COPY eventloom_events");
    assert.deepEqual(await threadLines(store, "big"), [], "no row of the killed import");
    assert.equal((await sqlOn(store, (sql) => sql`SELECT seq FROM eventloom_heads WHERE thread = 'big'`)).length, 0, "no head row either");
    const again = JSON.parse(ok(runZaxy(["store", "import", file, "--json", "--store", store], { cwd: dir }), "import again").stdout).imports[0];
    assert.deepEqual([again.already_present, again.imported], [0, 5000]);
    const out = path.join(dir, "out.jsonl");
    ok(runZaxy(["store", "export", "--session-id", "big", "--output", out, "--store", store], { cwd: dir }), "export");
    assert.ok(Buffer.compare(fs.readFileSync(out), fs.readFileSync(file)) === 0, "byte for byte");
  });

  test("the server stopped mid-run: appends exit 3 with a clear message, nothing half-written, the chain stays valid", async () => {
    const own = startPrivateCluster("zaxy-pg-stop");
    try {
      const store = await initStore("stopped", own);
      const roots = Array.from({ length: 3 }, (_, i) => makeTempDir(`zaxy-stop-${i}`));
      const attempts: ZaxyRun[] = [];
      let stopped = false;
      const loops = roots.map(async (root, worker) => {
        for (let i = 0; i < 200; i++) {
          const run = await runZaxyAsync(["memory", "append", "note.added", "--actor", `w${worker}`, "--payload-json", JSON.stringify({ worker, i }), "--store", store, "--json"], { cwd: root, env: { ZAXY_STORE_TIMEOUT_MS: "10000" } });
          attempts.push(run);
          if (stopped && run.code !== 0) break;
        }
      });
      await new Promise((resolve) => setTimeout(resolve, 1500));
      spawnSync(clusterScript, ["stop", own.clusterDir as string, "immediate"], { timeout: 60_000 });
      stopped = true;
      await Promise.all(loops);
      const failures = attempts.filter((run) => run.code !== 0);
      assert.ok(failures.length >= 1, "appends after the stop fail");
      // An append that could not reach the server is store_unreachable; one whose COMMIT was on
      // the wire when the server went down cannot know its outcome and says how to retry safely.
      const outcomeUnknown: ZaxyRun[] = [];
      for (const failure of failures) {
        assert.equal(failure.code, 3, failure.stderr + failure.stdout);
        const error = JSON.parse(failure.stdout).error;
        assert.ok(["store_unreachable", "store_outcome_unknown"].includes(error.code), failure.stdout);
        if (error.code === "store_outcome_unknown") {
          assert.match(error.message, /run the same command again with --request-id \S+/);
          outcomeUnknown.push(failure);
        }
        assert.deepEqual(stackTraceLines(failure.stderr), []);
      }
      assert.ok(outcomeUnknown.length <= roots.length, "at most one append per writer was in flight");
      const successes = attempts.filter((run) => run.code === 0).length;
      const restart = spawnSync(clusterScript, ["restart", own.clusterDir as string], { encoding: "utf8", timeout: 120_000 });
      assert.equal(restart.status, 0, restart.stderr);
      const rows = await threadLines(store, "default");
      // An acknowledged append is there; one whose acknowledgement the crash swallowed may be too.
      assert.ok(rows.length >= successes && rows.length <= successes + failures.length, `${rows.length} rows for ${successes} acknowledged appends`);
      assert.deepEqual(rows.map((r) => r.seq), rows.map((_, i) => i + 1));
      const verified = JSON.parse(ok(runZaxy(["verify", "--json", "--store", store], { cwd: roots[0] }), "verify after the restart").stdout);
      assert.equal(verified.ok, true);
      ok(runZaxy(["memory", "append", "note.added", "--actor", "w0", "--payload-json", '{"after":true}', "--store", store], { cwd: roots[0] }), "append after the restart");
    } finally {
      stopPgServer(own);
    }
  });

  test("TLS: sslmode=require and the default (prefer) connect encrypted to a server that only accepts TLS; disable is refused; verify-full refuses a self-signed certificate", async () => {
    const own = startPrivateCluster("zaxy-pg-tls", { PG_CLUSTER_SSL: "1" });
    try {
      const dir = makeTempDir("zaxy-tls");
      const url = own.adminUrl;
      ok(runZaxy(["store", "init", "--store", `${url}?sslmode=require`], { cwd: dir }), "init over TLS");
      ok(runZaxy(["memory", "append", "goal.created", "--actor", "a", "--payload-json", '{"title":"encrypted"}', "--store", `${url}?sslmode=require`], { cwd: dir }), "append over TLS");
      const viaDefault = JSON.parse(ok(runZaxy(["memory", "log", "--json", "--store", url], { cwd: dir }), "default sslmode").stdout);
      assert.equal(viaDefault.events.length, 1);
      // verify and export read the rows on a connection of their own (the line reader): TLS there too.
      for (const tlsUrl of [url, `${url}?sslmode=require`]) {
        const verified = JSON.parse(ok(runZaxy(["verify", "--json", "--store", tlsUrl], { cwd: dir }), `verify over TLS (${tlsUrl.split("?")[1] ?? "prefer"})`).stdout);
        assert.deepEqual([verified.ok, verified.logs[0].total_events], [true, 1]);
      }
      const exported = ok(runZaxy(["store", "export", "--session-id", "default", "--store", `${url}?sslmode=require`], { cwd: dir }), "export over TLS");
      assert.equal(exported.stdout.split("\n").filter(Boolean).length, 1);
      const plain = runZaxy(["memory", "log", "--json", "--store", `${url}?sslmode=disable`], { cwd: dir });
      assert.equal(plain.code, 3);
      assert.match(JSON.parse(plain.stdout).error.message, /no encryption/);
      const strict = runZaxy(["memory", "log", "--json", "--store", `${url}?sslmode=verify-full`], { cwd: dir });
      assert.equal(strict.code, 3);
      assert.equal(JSON.parse(strict.stdout).error.code, "store_tls_failed");
      assert.ok(!strict.stdout.includes("zaxy-test-pw") && !strict.stderr.includes("zaxy-test-pw"));
    } finally {
      stopPgServer(own);
    }
  });

  test("every log command works on the store: causal, consolidation, trigger, governance, projection output, reproject, graph sync, fleet status", async () => {
    const store = await initStore("everything");
    const dir = fleetRoot("zaxy-everything");
    const z = (args: string[]) => runZaxy([...args, "--store", store, "--json"], { cwd: dir });
    const first = JSON.parse(ok(z(["memory", "append", "goal.created", "--actor", "a", "--payload-json", '{"title":"ship the store"}']), "append").stdout);
    ok(z(["memory", "append", "outcome.explained", "--actor", "a", "--payload-json", JSON.stringify({ cause: { name: "flaky dns", entity_type: "cause" }, effect: { name: "ci timeout", entity_type: "outcome" }, relation_type: "caused", confidence: 0.8, evidence: { source_event_seq: 1, source_event_hash: first.hash } })]), "outcome.explained");
    const causal = JSON.parse(ok(z(["memory", "causal", "predecessors", "ci timeout"]), "causal").stdout);
    assert.deepEqual(causal.results.map((r: { source: { name: string } }) => r.source.name), ["flaky dns"]);
    ok(z(["memory", "consolidation", "propose-from-log"]), "propose-from-log");
    ok(z(["memory", "consolidation", "status"]), "consolidation status");
    ok(z(["memory", "consolidation", "trigger"]), "trigger");
    const gate = JSON.parse(ok(z(["memory", "evolution-gate", "promote", "--confidence", "0.9"]), "evolution gate").stdout);
    assert.equal(gate.decision, "auto_apply");
    ok(z(["memory", "outcome", "failure", "--summary", "deploy broke", "--lesson", "pin the resolver"]), "outcome");
    const projection = path.join(dir, "default.compaction.json");
    ok(z(["compact", "--projection-output", projection]), "compact --projection-output");
    assert.ok(fs.existsSync(projection));
    ok(z(["reproject"]), "reproject");
    ok(z(["graph", "sync"]), "graph sync");
    ok(z(["memory", "status"]), "memory status");
    ok(z(["fleet", "create", "ops", "--summary", "ops", "--actor", "steward"]), "fleet create");
    const status = JSON.parse(ok(z(["fleet", "status", "ops"]), "fleet status").stdout);
    assert.equal(status.fleet_id, "ops");
    // Everything those commands appended is in the store, in one valid chain per thread.
    const verified = JSON.parse(ok(runZaxy(["verify", "--all", "--json", "--store", store], { cwd: dir }), "verify --all").stdout);
    assert.equal(verified.ok, true);
    const rows = await threadLines(store, "default");
    assert.ok(rows.length >= 6, `${rows.length} events in the session`);
  });

  test("zaxy serve on a store sees events another host appends at its next call, without a restart", async () => {
    const store = await initStore("follow");
    const hostA = makeTempDir("zaxy-follow-a");
    const hostB = makeTempDir("zaxy-follow-b");
    ok(runZaxy(["memory", "append", "goal.created", "--actor", "a", "--payload-json", '{"title":"first"}', "--store", store], { cwd: hostA }), "A appends");
    const mcp = await startMcpServer(path.join(hostB, ".eventloom"), { args: ["--store", store] });
    try {
      const before = await mcp.callOk("memory_replay", { session_id: "default" });
      assert.equal(before.events.length, 1);
      ok(runZaxy(["memory", "append", "task.proposed", "--actor", "a", "--payload-json", '{"title":"appended on host A"}', "--store", store], { cwd: hostA }), "A appends again");
      const afterAppend = await mcp.callOk("memory_replay", { session_id: "default" });
      assert.deepEqual(afterAppend.events.map((e: { seq: number }) => e.seq), [1, 2]);
      const checkout = await mcp.callOk("memory_checkout", { query: "appended on host A", session_id: "default" });
      assert.match(JSON.stringify(checkout), /eventloom:\/\/default\/events\/2#/);
      // An append through the server lands in the store, where host A reads it.
      await mcp.callOk("memory_append", { session_id: "default", event_type: "note.added", actor: "b", payload: { text: "from the server" } });
      const log = JSON.parse(ok(runZaxy(["memory", "log", "--json", "--store", store], { cwd: hostA }), "A reads").stdout);
      assert.equal(log.events.length, 3);
    } finally {
      await mcp.close();
    }
  });
});
