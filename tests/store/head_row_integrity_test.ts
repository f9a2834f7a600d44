// test-lane: full (PostgreSQL server, slow)
/**
 * A hostile peer with SQL access to the store, on a real PostgreSQL server: a thread whose rows
 * disagree with its head row (a deleted last row, a head row moved ahead, lowered, re-hashed or
 * deleted) is refused by reads, appends and `zaxy serve`, and reported by `verify --store`,
 * never repaired silently by the next append; and a root that verified a thread before refuses
 * a forgery re-hashed after it in `verify --store` and `store export` too, as checkout does.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { runZaxy, stackTraceLines, type ZaxyRun } from "../cli/zaxy.ts";
import { startMcpServer } from "../mcp/mcpTestClient.ts";
import { freshDatabase, type PgServer, pgServer, sqlOn, stopPgServer } from "./pgTestkit.ts";

const server: PgServer | undefined = pgServer();
after(() => stopPgServer(server));
after(removeTempDirs);

function z(store: string, cwd: string, args: string[]): ZaxyRun {
  const run = runZaxy([...args, "--store", store], { cwd });
  assert.deepEqual(stackTraceLines(run.stderr), [], `no stack trace from ${args.join(" ")}: ${run.stderr}`);
  return run;
}

function ok(run: ZaxyRun, what: string): ZaxyRun {
  assert.equal(run.code, 0, `${what} exited ${run.code}: ${run.stderr}${run.stdout}`);
  return run;
}

// deno-lint-ignore no-explicit-any
function json(run: ZaxyRun): any {
  return JSON.parse(run.stdout);
}

async function initStore(label: string): Promise<string> {
  const store = await freshDatabase(server as PgServer, label);
  ok(runZaxy(["store", "init", "--store", store], { cwd: makeTempDir("zaxy-head-init") }), "store init");
  return store;
}

async function rowsOf(store: string, thread = "default"): Promise<{ seq: number; line: string }[]> {
  const rows = await sqlOn(store, (sql) => sql`SELECT seq, line FROM eventloom_events WHERE thread = ${thread} ORDER BY seq`);
  return rows.map((row) => ({ seq: Number(row.seq), line: row.line as string }));
}

async function headOf(store: string, thread = "default"): Promise<{ seq: number; hash: string | null } | undefined> {
  const rows = await sqlOn(store, (sql) => sql`SELECT seq, hash FROM eventloom_heads WHERE thread = ${thread}`);
  return rows.length === 0 ? undefined : { seq: Number(rows[0].seq), hash: rows[0].hash as string | null };
}

function hashOf(line: string): string {
  const event = JSON.parse(line);
  return (event.integrity?.hash ?? event.hash).replace(/^sha256:/, "");
}

/** A store with `events` goal.created events in session "default", appended from `root`. */
async function storeWith(label: string, events: number, root: string): Promise<string> {
  const store = await initStore(label);
  for (let i = 1; i <= events; i++) {
    ok(z(store, root, ["memory", "append", "goal.created", "--actor", "a", "--payload-json", JSON.stringify({ title: `goal number ${i}` })]), `append ${i}`);
  }
  return store;
}

/** Every way a command that reads or appends must refuse the thread: exit 1, integrity_failure, naming the head row. */
function assertRefused(store: string, cwd: string, what: string, reason: RegExp): void {
  const log = z(store, cwd, ["memory", "log", "--json"]);
  assert.equal(log.code, 1, `${what}: memory log exits 1: ${log.stdout}${log.stderr}`);
  assert.equal(json(log).error.code, "integrity_failure", what);
  assert.match(json(log).error.message, reason, what);
  const checkout = z(store, cwd, ["memory", "checkout", "goal", "--json"]);
  assert.equal(checkout.code, 1, `${what}: checkout exits 1: ${checkout.stdout}`);
  assert.equal(json(checkout).error.code, "integrity_failure", what);
  const append = z(store, cwd, ["memory", "append", "goal.created", "--actor", "b", "--payload-json", '{"title":"written over the evidence"}', "--json"]);
  assert.equal(append.code, 1, `${what}: append exits 1: ${append.stdout}${append.stderr}`);
  assert.equal(json(append).error.code, "integrity_failure", what);
  const verify = z(store, cwd, ["verify", "--json"]);
  assert.equal(verify.code, 1, `${what}: verify --store exits 1: ${verify.stdout}`);
  assert.equal(json(verify).logs[0].ok, false, what);
  assert.equal(json(verify).logs[0].code, "store_mismatch", what);
}

describe("head rows against a hostile peer", { skip: server === undefined ? "no PostgreSQL server programs" : false }, () => {
  test("a deleted last row is refused by log, checkout, append and serve on a fresh root; the next append does not hide it", async () => {
    const writer = makeTempDir("zaxy-head-writer");
    const store = await storeWith("deletedlast", 6, writer);
    // A server already running on another root, which has not read the session yet.
    const mcp = await startMcpServer(path.join(makeTempDir("zaxy-head-serve"), ".eventloom"), { args: ["--store", store, "--session-id", "elsewhere"] });
    await sqlOn(store, (sql) => sql`DELETE FROM eventloom_events WHERE thread = 'default' AND seq = 6`);
    const fresh = makeTempDir("zaxy-head-fresh");
    assertRefused(store, fresh, "deleted last row", /head row says 6 events but the store holds 5 rows/);
    // Nothing was written and the head row is untouched: verify still names the deletion.
    assert.equal((await rowsOf(store)).length, 5);
    assert.equal((await headOf(store))?.seq, 6);
    const verify = z(store, makeTempDir("zaxy-head-verify"), ["verify", "--json"]);
    assert.match(json(verify).logs[0].broken_reason, /head row says 6 events but the store holds 5 rows/);
    // The server refuses the session too, and stays up.
    try {
      const replay = await mcp.callError("memory_replay", { session_id: "default" }, "integrity_failure");
      assert.match(replay.message, /head row says 6 events but the store holds 5 rows/);
      await mcp.callError("memory_append", { session_id: "default", event_type: "note.added", actor: "b", payload: { text: "from the server" } }, "integrity_failure");
      await mcp.callError("memory_checkout", { query: "goal", session_id: "default" }, "integrity_failure");
    } finally {
      await mcp.close();
    }
    assert.equal((await rowsOf(store)).length, 5, "the server wrote nothing");
  });

  test("a head row moved ahead, re-hashed, lowered or deleted is refused by reads and appends and reported by verify --store", async () => {
    const writer = makeTempDir("zaxy-head-writer2");
    const store = await storeWith("moved", 6, writer);
    const rows = await rowsOf(store);
    const original = await headOf(store);
    assert.deepEqual(original, { seq: 6, hash: hashOf(rows[5].line) }, "an append leaves the head row naming its last event");
    const restore = () => sqlOn(store, (sql) => sql`INSERT INTO eventloom_heads (thread, seq, hash) VALUES ('default', ${original!.seq}, ${original!.hash}) ON CONFLICT (thread) DO UPDATE SET seq = EXCLUDED.seq, hash = EXCLUDED.hash`);
    const damages: [string, string, RegExp][] = [
      ["moved ahead", "UPDATE eventloom_heads SET seq = 7 WHERE thread = 'default'", /head row says 7 events but the store holds 6 rows/],
      ["another hash", `UPDATE eventloom_heads SET hash = '${"0".repeat(64)}' WHERE thread = 'default'`, /head row gives hash 000000000000\.\.\. for its last event, but event 6 has hash/],
      ["lowered consistently", `UPDATE eventloom_heads SET seq = 5, hash = '${hashOf(rows[4].line)}' WHERE thread = 'default'`, /head row says 5 events but the store holds 6 rows/],
      ["deleted", "DELETE FROM eventloom_heads WHERE thread = 'default'", /6 rows for the thread but it has no head row/],
    ];
    for (const [what, damage, reason] of damages) {
      await sqlOn(store, (sql) => sql.unsafe(damage));
      assertRefused(store, makeTempDir("zaxy-head-fresh2"), what, reason);
      // The root that wrote the rows refuses them as well.
      const warm = z(store, writer, ["memory", "log", "--json"]);
      assert.equal(warm.code, 1, `${what}: the writer's root: ${warm.stdout}`);
      assert.equal((await rowsOf(store)).length, 6, `${what}: nothing was appended`);
      await restore();
      assert.deepEqual(await headOf(store), original, `${what}: no command moved the head row`);
    }
    // Restored, every command works again and the next append continues the chain.
    ok(z(store, makeTempDir("zaxy-head-after"), ["memory", "append", "goal.created", "--actor", "a", "--payload-json", '{"title":"after the restore"}']), "append after the restore");
    assert.equal(json(ok(z(store, writer, ["verify", "--json"]), "verify")).logs[0].total_events, 7);
  });

  test("a root that verified a thread refuses a forgery re-hashed after it in verify --store and store export, as checkout does; a fresh root cannot tell", async () => {
    const warm = makeTempDir("zaxy-forgery-warm");
    const store = await storeWith("forgery", 4, warm);
    ok(z(store, warm, ["memory", "log", "--json"]), "the warm root reads the thread");
    // The forgery: event 1 kept, events 2-4 rewritten and sealed again on a file root, so the
    // whole chain verifies, and the head row moved to match.
    const rows = await rowsOf(store);
    const forger = makeTempDir("zaxy-forger");
    fs.mkdirSync(path.join(forger, ".eventloom"), { recursive: true });
    fs.writeFileSync(path.join(forger, ".eventloom", "default.jsonl"), rows[0].line + "\n");
    for (let i = 2; i <= 4; i++) {
      ok(runZaxy(["memory", "append", "goal.created", "--actor", "a", "--payload-json", JSON.stringify({ title: `forged goal ${i}` })], { cwd: forger }), `forge ${i}`);
    }
    const forged = fs.readFileSync(path.join(forger, ".eventloom", "default.jsonl"), "utf8").trimEnd().split("\n");
    assert.equal(forged.length, 4);
    await sqlOn(store, async (sql) => {
      for (let seq = 2; seq <= 4; seq++) await sql`UPDATE eventloom_events SET line = ${forged[seq - 1]} WHERE thread = 'default' AND seq = ${seq}`;
      await sql`UPDATE eventloom_heads SET hash = ${hashOf(forged[3])} WHERE thread = 'default'`;
    });
    // A fresh root has nothing to compare with: the forged chain verifies.
    assert.equal(json(ok(z(store, makeTempDir("zaxy-forgery-fresh"), ["verify", "--json"]), "fresh verify")).ok, true);
    // The warm root refuses it everywhere.
    const checkout = z(store, warm, ["memory", "checkout", "goal", "--json"]);
    assert.equal(checkout.code, 1);
    assert.match(json(checkout).error.message, /differs from the copy this root verified before, at event 2/);
    const verify = z(store, warm, ["verify", "--json"]);
    assert.equal(verify.code, 1, verify.stdout);
    const report = json(verify).logs[0];
    assert.deepEqual([report.ok, report.code, report.broken_at_seq], [false, "store_mismatch", 2]);
    assert.match(report.broken_reason, /differ from the copy this root verified before, at event 2/);
    const out = path.join(warm, "exported.jsonl");
    const exported = z(store, warm, ["store", "export", "--session-id", "default", "--output", out, "--json"]);
    assert.equal(exported.code, 1, exported.stdout + exported.stderr);
    assert.equal(json(exported).error.code, "integrity_failure");
    assert.match(json(exported).error.message, /differ from the copy this root verified before, at event 2/);
    assert.equal(fs.existsSync(out), false, "nothing exported");
    const toStdout = z(store, warm, ["store", "export", "--session-id", "default"]);
    assert.equal(toStdout.code, 1);
    assert.equal(toStdout.stdout, "", "no forged line reaches stdout");
    // Rows deleted from the end with the head row lowered to match: the warm root still has them.
    await sqlOn(store, async (sql) => {
      for (let seq = 2; seq <= 4; seq++) await sql`UPDATE eventloom_events SET line = ${rows[seq - 1].line} WHERE thread = 'default' AND seq = ${seq}`;
      await sql`DELETE FROM eventloom_events WHERE thread = 'default' AND seq = 4`;
      await sql`UPDATE eventloom_heads SET seq = 3, hash = ${hashOf(rows[2].line)} WHERE thread = 'default'`;
    });
    const shortened = z(store, warm, ["verify", "--json"]);
    assert.equal(shortened.code, 1);
    assert.match(json(shortened).logs[0].broken_reason, /at event 4: the store has no event 4 \(this root has 4\)/);
    assert.equal(z(store, warm, ["store", "export", "--session-id", "default", "--output", out]).code, 1);
    // Put back as it was, the warm root verifies and exports it byte for byte.
    await sqlOn(store, async (sql) => {
      await sql`INSERT INTO eventloom_events (thread, seq, line) VALUES ('default', 4, ${rows[3].line})`;
      await sql`UPDATE eventloom_heads SET seq = 4, hash = ${hashOf(rows[3].line)} WHERE thread = 'default'`;
    });
    assert.equal(json(ok(z(store, warm, ["verify", "--json"]), "verify restored")).ok, true);
    ok(z(store, warm, ["store", "export", "--session-id", "default", "--output", out]), "export restored");
    assert.equal(fs.readFileSync(out, "utf8"), rows.map((row) => row.line + "\n").join(""));
  });
});
