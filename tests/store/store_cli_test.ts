// test-lane: full (PostgreSQL server, kill -9, log of 10000+ events, bench command, slow)
/**
 * The shared Eventloom on a real PostgreSQL server (issue 15), from the built binary: schema,
 * byte-exact import/export of every interop log, two hosts (two roots) sharing one database,
 * tampering caught at its seq, credentials never printed, files-only commands refused.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { makeTempDir, refVerify, removeTempDirs, skipWithoutPython } from "../eventloom/testkit.ts";
import { repoRoot, runZaxy, stackTraceLines, childEnv, type ZaxyRun, zaxyInvocation } from "../cli/zaxy.ts";
import { writeSyntheticLog } from "../../src/bench/syntheticLog.ts";
import { canMountTmpfs, mountTmpfs, unmount } from "../reliability/fsFaults.ts";
import { freshDatabase, passwordOf, type PgServer, pgServer, sqlOn, stopPgServer } from "./pgTestkit.ts";

const server: PgServer | undefined = pgServer();
after(() => stopPgServer(server));
after(removeTempDirs);

const interopDir = path.join(repoRoot, "fixtures", "interop");
const interopLogs = fs.readdirSync(interopDir).filter((name) => name.endsWith(".jsonl")).sort();

/** Runs zaxy in `cwd` against `store` and asserts the password never reaches its output. */
function z(store: string, cwd: string, args: string[], env: Record<string, string> = {}): ZaxyRun {
  const run = runZaxy([...args, "--store", store], { cwd, env });
  const secret = passwordOf(store);
  if (secret !== "") {
    assert.ok(!run.stdout.includes(secret), `the password leaked to stdout of ${args.join(" ")}`);
    assert.ok(!run.stderr.includes(secret), `the password leaked to stderr of ${args.join(" ")}`);
  }
  assert.deepEqual(stackTraceLines(run.stderr), [], `no stack trace from ${args.join(" ")}: ${run.stderr}`);
  return run;
}

function ok(run: ZaxyRun, what: string): ZaxyRun {
  assert.equal(run.code, 0, `${what} exited ${run.code}: ${run.stderr}`);
  return run;
}

// deno-lint-ignore no-explicit-any
function json(run: ZaxyRun): any {
  return JSON.parse(run.stdout);
}

async function rowsOf(store: string, thread: string): Promise<{ seq: number; line: string }[]> {
  const rows = await sqlOn(store, (sql) => sql`SELECT seq, line FROM eventloom_events WHERE thread = ${thread} ORDER BY seq`);
  return rows.map((row) => ({ seq: Number(row.seq), line: row.line as string }));
}

async function initStore(label: string): Promise<string> {
  const store = await freshDatabase(server as PgServer, label);
  ok(runZaxy(["store", "init", "--store", store, "--json"], { cwd: makeTempDir("zaxy-store-init") }), "store init");
  return store;
}

describe("zaxy store on PostgreSQL", { skip: server === undefined ? "no PostgreSQL server programs" : false }, () => {
  test("store init creates the schema once; commands before it exit 2 with the hint; status reports threads", async () => {
    const store = await freshDatabase(server as PgServer, "init");
    const dir = makeTempDir("zaxy-store");
    const early = z(store, dir, ["memory", "append", "goal.created", "--actor", "a", "--payload-json", "{}", "--json"]);
    assert.equal(early.code, 2);
    assert.equal(json(early).error.code, "store_not_initialised");
    assert.match(json(early).error.hint, /zaxy store init/);
    assert.equal(fs.existsSync(path.join(dir, ".eventloom", "stores")), false, "nothing written locally either");
    const first = json(ok(z(store, dir, ["store", "init", "--json"]), "init"));
    assert.deepEqual([first.created, first.schema_version, first.schema_version_before], [true, 2, null]);
    const again = json(ok(z(store, dir, ["store", "init", "--json"]), "init again"));
    assert.deepEqual([again.created, again.schema_version_before], [false, 2]);
    ok(z(store, dir, ["memory", "append", "goal.created", "--actor", "a", "--payload-json", '{"title":"one"}']), "append");
    ok(z(store, dir, ["memory", "append", "goal.created", "--actor", "a", "--payload-json", '{"title":"two"}', "--session-id", "other"]), "append other");
    const status = json(ok(z(store, dir, ["store", "status", "--json"]), "status"));
    assert.equal(status.schema_version, 2);
    assert.equal(status.thread_count, 2);
    assert.equal(status.event_count, 2);
    assert.deepEqual(status.threads.map((t: { thread: string; events: number }) => [t.thread, t.events]), [["default", 1], ["other", 1]]);
    assert.match(status.threads[0].head_hash, /^[0-9a-f]{64}$/);
    assert.equal(status.store.includes(passwordOf(store)) && passwordOf(store) !== "", false);
  });

  test("every interop log imports and exports byte for byte, and the export verifies with ref_verify.py", { skip: skipWithoutPython }, async () => {
    const store = await initStore("interop");
    const dir = makeTempDir("zaxy-store-interop");
    const imported = json(ok(z(store, dir, ["store", "import", ...interopLogs.map((name) => path.join(interopDir, name)), "--json"]), "import"));
    assert.equal(imported.imports.length, interopLogs.length);
    for (const name of interopLogs) {
      const session = name.replace(/\.jsonl$/, "");
      const source = fs.readFileSync(path.join(interopDir, name));
      const rows = await rowsOf(store, session);
      assert.equal(rows.length, source.toString("utf8").split("\n").length - 1, `${name}: one row per line`);
      const out = path.join(dir, `${session}.out.jsonl`);
      const exported = json(ok(z(store, dir, ["store", "export", "--session-id", session, "--output", out, "--json"]), `export ${name}`));
      assert.equal(exported.events, rows.length);
      assert.ok(Buffer.compare(fs.readFileSync(out), source) === 0, `${name}: export is byte-identical`);
      const stdout = ok(z(store, dir, ["store", "export", "--session-id", session]), `export ${name} to stdout`);
      assert.equal(stdout.stdout, source.toString("utf8"));
      assert.equal(refVerify(out).verdict.ok, true, `${name}: ref_verify.py accepts the export`);
      // The store's own rows verify, and the mirror a read builds is the same bytes.
      ok(z(store, dir, ["verify", "--session-id", session]), `verify ${name} from the store`);
      ok(z(store, dir, ["memory", "log", "--session-id", session, "--json"]), `memory log ${name}`);
      const mirror = fs.readdirSync(path.join(dir, ".eventloom", "stores"))[0];
      assert.ok(Buffer.compare(fs.readFileSync(path.join(dir, ".eventloom", "stores", mirror, name)), source) === 0, `${name}: the local mirror is byte-identical`);
    }
    // Importing the same files again adds nothing.
    const again = json(ok(z(store, dir, ["store", "import", ...interopLogs.map((name) => path.join(interopDir, name)), "--json"]), "re-import"));
    assert.deepEqual(again.imports.map((i: { imported: number }) => i.imported), interopLogs.map(() => 0));
    const verifyAll = json(ok(z(store, dir, ["verify", "--all", "--json"]), "verify --all"));
    assert.equal(verifyAll.logs.length, interopLogs.length);
  });

  test("import refuses a broken chain (exit 1), a clashing session (exit 2) and blank lines (exit 2), writing nothing", async () => {
    const store = await initStore("refuse");
    const dir = makeTempDir("zaxy-store-refuse");
    const good = fs.readFileSync(path.join(interopDir, "v1-worker-api.jsonl"), "utf8");
    const broken = path.join(dir, "broken.jsonl");
    fs.writeFileSync(broken, good.replace('"actorId":"', '"actorId":"x'));
    const refused = z(store, dir, ["store", "import", broken, "--json"]);
    assert.equal(refused.code, 1);
    assert.equal(json(refused).error.code, "integrity_failure");
    assert.match(json(refused).error.message, /Nothing was written/);
    assert.deepEqual(await rowsOf(store, "broken"), []);
    const source = path.join(dir, "s.jsonl");
    fs.writeFileSync(source, good);
    ok(z(store, dir, ["store", "import", source]), "import s");
    const other = path.join(dir, "other.jsonl");
    fs.copyFileSync(path.join(interopDir, "v1-worker-sub0.jsonl"), other);
    const clash = z(store, dir, ["store", "import", other, "--session-id", "s", "--json"]);
    assert.equal(clash.code, 2);
    assert.equal(json(clash).error.code, "session_exists");
    assert.equal((await rowsOf(store, "s")).map((r) => r.line + "\n").join(""), good);
    const blank = path.join(dir, "blank.jsonl");
    const lines = good.split("\n");
    fs.writeFileSync(blank, [lines[0], "", ...lines.slice(1)].join("\n"));
    const blanks = z(store, dir, ["store", "import", blank, "--json"]);
    assert.equal(blanks.code, 2);
    assert.equal(json(blanks).error.code, "blank_lines");
    assert.equal(json(blanks).error.line, 2);
    assert.deepEqual(await rowsOf(store, "blank"), []);
  });

  test("two hosts (two roots) share one database: appends, checkout, replay, query and verify see both", async () => {
    const store = await initStore("hosts");
    const hostA = makeTempDir("zaxy-host-a");
    const hostB = makeTempDir("zaxy-host-b");
    ok(z(store, hostA, ["memory", "append", "decision.made", "--actor", "agent-a", "--payload-json", '{"decision":"use postgres for the shared log","rationale":"fleet spans hosts"}']), "A appends");
    ok(z(store, hostB, ["memory", "append", "task.proposed", "--actor", "agent-b", "--payload-json", '{"title":"migrate the ingest workers"}']), "B appends");
    ok(z(store, hostA, ["memory", "append", "goal.created", "--actor", "agent-a", "--payload-json", '{"title":"ship the store"}']), "A appends again");
    const log = json(ok(z(store, hostB, ["memory", "log", "--json"]), "B reads the log"));
    assert.deepEqual(log.events.map((e: { seq: number; actor: string }) => [e.seq, e.actor]), [[1, "agent-a"], [2, "agent-b"], [3, "agent-a"]]);
    const checkout = json(ok(z(store, hostB, ["memory", "checkout", "postgres shared log", "--json"]), "B checks out"));
    assert.match(checkout.prompt, /eventloom:\/\/default\/events\/1#/);
    const replay = json(ok(z(store, hostA, ["replay", "--json"]), "A replays"));
    assert.equal(replay.integrity.ok, true);
    assert.equal(replay.total_events, 3);
    const query = json(ok(z(store, hostA, ["memory", "query", "ingest workers", "--json"]), "A queries"));
    assert.ok(JSON.stringify(query).includes("migrate the ingest workers"));
    const verified = json(ok(z(store, hostB, ["verify", "--json"]), "verify from the store"));
    assert.deepEqual([verified.logs[0].path, verified.logs[0].total_events], ["store:default", 3]);
    // Every line in the store is the line the file store would have written: the mirrors agree.
    const rows = await rowsOf(store, "default");
    const mirrorA = fs.readFileSync(path.join(hostA, ".eventloom", "stores", fs.readdirSync(path.join(hostA, ".eventloom", "stores"))[0], "default.jsonl"), "utf8");
    assert.equal(mirrorA, rows.map((r) => r.line + "\n").join(""));
    // Without --store the roots are plain file roots with no default log of their own.
    assert.equal(fs.existsSync(path.join(hostA, ".eventloom", "default.jsonl")), false);
    // ZAXY_STORE names the store as well as --store does.
    const viaEnv = runZaxy(["memory", "log", "--json"], { cwd: hostB, env: { ZAXY_STORE: store } });
    assert.equal(JSON.parse(viaEnv.stdout).events.length, 3);
  });

  test("on the store too, a switch to legacy lines needs --allow-envelope-switch and a misspelt type --allow-new-type; an imported legacy log needs neither", async () => {
    const store = await initStore("guard");
    const dir = makeTempDir("zaxy-store-guard");
    const append = (type: string, ...flags: string[]) =>
      z(store, dir, ["memory", "append", type, "--actor", "a", "--payload-json", '{"user":"a","key":"k","value":"v"}', "--json", ...flags]);
    ok(append("goal.created"), "append");
    for (const [type, code] of [["user.preference_changed", "envelope_switch"], ["Goal.Created", "unknown_event_type"]]) {
      const refused = append(type);
      assert.equal(refused.code, 2, refused.stdout);
      assert.equal(json(refused).error.code, code);
      assert.equal((await rowsOf(store, "default")).length, 1, `${type}: no row written`);
    }
    const allowed = json(ok(append("user.preference_changed", "--allow-envelope-switch"), "switch allowed"));
    assert.equal(allowed.envelope, "legacy");
    assert.equal((await rowsOf(store, "default")).length, 2);

    const legacyLog = interopLogs.find((name) => name.startsWith("legacy-"))!;
    ok(z(store, dir, ["store", "import", path.join(interopDir, legacyLog), "--json"]), "import");
    const session = legacyLog.replace(/\.jsonl$/, "");
    const before = (await rowsOf(store, session)).length;
    const onLegacy = ok(z(store, dir, ["memory", "append", "user.preference_changed", "--actor", "a", "--session-id", session, "--payload-json", '{"user":"a","key":"k","value":"v"}', "--json"]), "append to the imported log");
    assert.ok(!onLegacy.stderr.includes("legacy lines"), onLegacy.stderr);
    assert.equal((await rowsOf(store, session)).length, before + 1);
  });

  test("a version-1 store is read but refuses appends (exit 2) until store init migrates it to version 2, changing no event", async () => {
    const store = await initStore("migrate");
    const dir = makeTempDir("zaxy-store-migrate");
    ok(z(store, dir, ["memory", "append", "goal.created", "--actor", "a", "--payload-json", '{"title":"one"}']), "append");
    const before = await rowsOf(store, "default");
    // What a version-1 store looks like: no request records.
    await sqlOn(store, async (sql) => {
      await sql`DROP TABLE eventloom_requests`;
      await sql`UPDATE zaxy_store_meta SET value = '1' WHERE key = 'schema_version'`;
    });
    const fresh = makeTempDir("zaxy-store-migrate-fresh");
    assert.equal(json(ok(z(store, fresh, ["memory", "log", "--json"]), "log on version 1")).events.length, 1);
    const refused = z(store, fresh, ["memory", "append", "goal.created", "--actor", "a", "--payload-json", '{"title":"two"}', "--json"]);
    assert.equal(refused.code, 2, refused.stdout);
    assert.equal(json(refused).error.code, "store_schema_outdated");
    assert.match(json(refused).error.hint, /zaxy store init/);
    const migrated = json(ok(z(store, dir, ["store", "init", "--json"]), "migrate"));
    assert.deepEqual([migrated.created, migrated.schema_version_before, migrated.schema_version], [false, 1, 2]);
    assert.deepEqual(await rowsOf(store, "default"), before, "the migration changed no event");
    ok(z(store, fresh, ["memory", "append", "goal.created", "--actor", "a", "--payload-json", '{"title":"two"}']), "append after the migration");
    assert.equal((await rowsOf(store, "default")).length, 2);
  });

  test("a row tampered with in SQL is caught at its seq by verify and refused by checkout (exit 1), on a warm and a fresh root", async () => {
    const store = await initStore("tamper");
    const warm = makeTempDir("zaxy-tamper-warm");
    for (const title of ["alpha", "beta", "gamma", "delta"]) {
      ok(z(store, warm, ["memory", "append", "goal.created", "--actor", "a", "--payload-json", JSON.stringify({ title })]), `append ${title}`);
    }
    ok(z(store, warm, ["memory", "checkout", "gamma", "--json"]), "checkout before the tamper");
    await sqlOn(store, (sql) => sql`UPDATE eventloom_events SET line = replace(line, 'beta', 'bet4') WHERE thread = 'default' AND seq = 2`);
    const verify = z(store, warm, ["verify", "--json"]);
    assert.equal(verify.code, 1);
    assert.equal(json(verify).logs[0].broken_at_seq, 2);
    assert.match(json(verify).logs[0].broken_reason, /Event 2 hash mismatch/);
    const checkout = z(store, warm, ["memory", "checkout", "gamma", "--json"]);
    assert.equal(checkout.code, 1);
    assert.equal(json(checkout).error.code, "integrity_failure");
    assert.match(json(checkout).error.message, /at event 2/);
    const fresh = makeTempDir("zaxy-tamper-fresh");
    const freshCheckout = z(store, fresh, ["memory", "checkout", "gamma", "--json"]);
    assert.equal(freshCheckout.code, 1);
    assert.match(json(freshCheckout).error.message, /Event 2 hash mismatch/);
    // Appending on top of a tampered store is refused too, and writes nothing.
    const append = z(store, fresh, ["memory", "append", "goal.created", "--actor", "a", "--payload-json", '{"title":"epsilon"}', "--json"]);
    assert.equal(append.code, 1);
    assert.equal((await rowsOf(store, "default")).length, 4);
    // Restored, reads work again; a deleted last row is caught by the warm root and by verify.
    await sqlOn(store, (sql) => sql`UPDATE eventloom_events SET line = replace(line, 'bet4', 'beta') WHERE thread = 'default' AND seq = 2`);
    ok(z(store, warm, ["memory", "checkout", "gamma", "--json"]), "checkout after the restore");
    await sqlOn(store, (sql) => sql`DELETE FROM eventloom_events WHERE thread = 'default' AND seq = 4`);
    const shortened = z(store, warm, ["memory", "checkout", "gamma", "--json"]);
    assert.equal(shortened.code, 1);
    assert.match(json(shortened).error.message, /event 4/);
    const verifyShort = z(store, warm, ["verify", "--json"]);
    assert.equal(verifyShort.code, 1);
    assert.match(json(verifyShort).logs[0].broken_reason, /head row says 4 events but the store holds 3 rows/);
  });

  test("credentials come from the URL, PGPASSWORD or PGPASSFILE and never appear in output; a wrong one exits 3", async () => {
    const store = await initStore("creds");
    const secret = passwordOf(store);
    if (secret === "") return; // CI's server without a password: nothing to hide.
    const dir = makeTempDir("zaxy-creds");
    const bare = store.replace(`:${encodeURIComponent(secret)}@`, "@");
    const wrong = store.replace(`:${encodeURIComponent(secret)}@`, ":not-the-Pw-42@");
    const refused = runZaxy(["memory", "log", "--store", wrong, "--json"], { cwd: dir });
    assert.equal(refused.code, 3);
    assert.equal(JSON.parse(refused.stdout).error.code, "store_auth_failed");
    assert.ok(!refused.stdout.includes("not-the-Pw-42") && !refused.stderr.includes("not-the-Pw-42"));
    assert.match(JSON.parse(refused.stdout).error.message, /:\*\*\*@/);
    // The session exists, so the reads below succeed (an unknown session is exit 2).
    ok(z(store, dir, ["memory", "append", "goal.created", "--actor", "a", "--payload-json", '{"title":"x"}']), "URL password (append)");
    const viaEnv = z(store, dir, ["memory", "log", "--json"]);
    ok(viaEnv, "URL password");
    ok(runZaxy(["memory", "log", "--store", bare, "--json"], { cwd: dir, env: { PGPASSWORD: secret } }), "PGPASSWORD");
    const passfile = path.join(dir, "pgpass");
    fs.writeFileSync(passfile, `# test\n127.0.0.1:*:*:zaxy:${secret.replace(/:/g, "\\:")}\n`, { mode: 0o600 });
    fs.chmodSync(passfile, 0o600);
    const viaFile = runZaxy(["memory", "log", "--store", bare, "--json"], { cwd: dir, env: { PGPASSFILE: passfile } });
    assert.equal(viaFile.code, 0, viaFile.stderr);
    assert.ok(!viaFile.stderr.includes(secret) && !viaFile.stdout.includes(secret));
    fs.chmodSync(passfile, 0o644);
    const loose = runZaxy(["memory", "log", "--store", bare, "--json"], { cwd: dir, env: { PGPASSFILE: passfile } });
    assert.equal(loose.code, 3);
    assert.match(loose.stderr, /has group or world access; it is ignored/);
    assert.ok(!loose.stderr.includes(secret) && !loose.stdout.includes(secret));
  });

  test("files-only commands are refused on the store (exit 2); a bad store URL is bad input", async () => {
    const store = await initStore("filesonly");
    const dir = makeTempDir("zaxy-filesonly");
    ok(z(store, dir, ["memory", "append", "goal.created", "--actor", "a", "--payload-json", '{"title":"x"}']), "append");
    const compact = z(store, dir, ["compact", "--json"]);
    assert.equal(compact.code, 2);
    assert.equal(json(compact).error.code, "files_only");
    const repair = z(store, dir, ["repair", "--json"]);
    assert.equal(repair.code, 2);
    assert.equal(json(repair).error.code, "files_only");
    const audit = z(store, dir, ["compact", "--audit", "--json"]);
    assert.ok(audit.code === 0 || audit.code === 1, audit.stderr);
    assert.equal(typeof json(audit).safe, "boolean");
    const bad = runZaxy(["memory", "log", "--store", "mysql://u:topsecret@h/db", "--json"], { cwd: dir });
    assert.equal(bad.code, 2);
    assert.equal(JSON.parse(bad.stdout).error.code, "invalid_store_url");
    assert.ok(!bad.stdout.includes("topsecret"));
  });

  test("an export killed with -9 leaves no output; the next export removes the scratch file of a process that is gone, not a live one's", async () => {
    const store = await initStore("killed");
    const dir = makeTempDir("zaxy-store-killed");
    const file = path.join(dir, "killed.jsonl");
    writeSyntheticLog({ path: file, events: 30_000, style: "python-legacy" });
    ok(z(store, dir, ["store", "import", file]), "import");
    const outDir = path.join(dir, "out");
    fs.mkdirSync(outDir);
    const out = path.join(outDir, "x.jsonl");
    // Killed at some moment of the export: the output is absent or complete, never partial.
    const child = spawn(zaxyInvocation.command, [...zaxyInvocation.args, "store", "export", "--session-id", "killed", "--output", out, "--store", store], { cwd: dir, env: childEnv(), stdio: "ignore" });
    // Listened for from the start: an export that ends (or fails) before the kill has already
    // sent its exit event, and waiting for it after the kill would wait forever.
    const exited = new Promise((resolve) => child.once("exit", resolve));
    await new Promise((resolve) => setTimeout(resolve, 150));
    child.kill("SIGKILL");
    await exited;
    if (fs.existsSync(out)) assert.ok(Buffer.compare(fs.readFileSync(out), fs.readFileSync(file)) === 0, "a finished export is whole");
    // Scratch files as a killed export leaves them: one of a pid that is gone, one of this (live) process.
    const gonePid = spawnSync("true").pid as number;
    const stale = path.join(outDir, `.zaxy-store-export-${gonePid}-1.jsonl`);
    const live = path.join(outDir, `.zaxy-store-export-${process.pid}-1.jsonl`);
    fs.writeFileSync(stale, "partial");
    fs.writeFileSync(live, "being written");
    ok(z(store, dir, ["store", "export", "--session-id", "killed", "--output", out]), "export after the kill");
    assert.ok(Buffer.compare(fs.readFileSync(out), fs.readFileSync(file)) === 0);
    assert.ok(!fs.existsSync(stale), "the dead process's scratch file is removed");
    assert.ok(fs.existsSync(live), "a live process's scratch file is kept");
    assert.deepEqual(fs.readdirSync(outDir).filter((name) => name.startsWith(".zaxy-store-") && !name.includes(String(process.pid))), []);
  });

  test("an export onto a full disk exits 3 write_failed, through the line reader and through the pool, leaving nothing in the directory", { skip: !canMountTmpfs && "cannot mount a tmpfs here" }, async () => {
    const store = await initStore("fulldisk");
    const dir = makeTempDir("zaxy-store-fulldisk");
    const file = path.join(dir, "full.jsonl");
    writeSyntheticLog({ path: file, events: 12_000, style: "python-legacy" });
    ok(z(store, dir, ["store", "import", file]), "import");
    const small = makeTempDir("zaxy-store-fulldisk-mnt");
    assert.ok(mountTmpfs(small, 2048), "mount a 2 MiB tmpfs");
    try {
      for (const url of [store, store.replace(/@([^/@]+)\//, (_m, host: string) => `@${host},${host}/`)]) {
        const run = z(url, dir, ["store", "export", "--session-id", "full", "--output", path.join(small, "x.jsonl"), "--json"]);
        assert.equal(run.code, 3, run.stdout + run.stderr);
        assert.equal(json(run).error.code, "write_failed");
        assert.match(json(run).error.message, /no space left on device; nothing was exported/);
        assert.deepEqual(fs.readdirSync(small), []);
      }
    } finally {
      unmount(small);
    }
  });

  test("a log of several MB imports byte for byte (streamed in chunks) and a fresh root mirrors it exactly", async () => {
    const store = await initStore("large");
    const dir = makeTempDir("zaxy-store-large");
    const file = path.join(dir, "large.jsonl");
    writeSyntheticLog({ path: file, events: 6000, style: "python-legacy" });
    assert.ok(fs.statSync(file).size > 4 << 20, "more than one import chunk");
    ok(z(store, dir, ["store", "import", file]), "import");
    const out = path.join(dir, "out.jsonl");
    ok(z(store, dir, ["store", "export", "--session-id", "large", "--output", out]), "export");
    assert.ok(Buffer.compare(fs.readFileSync(out), fs.readFileSync(file)) === 0, "export is byte-identical");
    const fresh = makeTempDir("zaxy-store-large-fresh");
    const log = JSON.parse(ok(z(store, fresh, ["memory", "log", "--session-id", "large", "--limit", "1", "--json"]), "first read").stdout);
    assert.equal(log.total_events, 6000);
    const mirrorDir = path.join(fresh, ".eventloom", "stores", fs.readdirSync(path.join(fresh, ".eventloom", "stores"))[0]);
    assert.ok(Buffer.compare(fs.readFileSync(path.join(mirrorDir, "large.jsonl")), fs.readFileSync(file)) === 0, "the mirror is byte-identical");
    const verified = JSON.parse(ok(z(store, fresh, ["verify", "--session-id", "large", "--json"]), "verify from the store").stdout);
    assert.deepEqual([verified.ok, verified.logs[0].total_events], [true, 6000]);
  });

  test("lines with backslashes, quotes, raw tabs between tokens and UTF-8 import byte for byte; a file that grew adds only its new events, and the head row takes its last line's hash", async () => {
    const store = await initStore("bytes");
    const dir = makeTempDir("zaxy-store-bytes");
    const payloads = [
      { text: 'a \\ backslash, a "quote", a tab\there, CR\r and \\\\ two', path: "C:\\Users\\x" },
      { text: "naïve résumé ✓ 🚀" },
      { text: "\\N is not NULL here, nor is \\." },
      { text: "last" },
    ];
    for (const payload of payloads) {
      ok(runZaxy(["memory", "append", "note.added", "--actor", "a", "--payload-json", JSON.stringify(payload)], { cwd: dir }), "append to a file");
    }
    const lines = fs.readFileSync(path.join(dir, ".eventloom", "default.jsonl")).toString("utf8").split("\n").filter(Boolean);
    // Raw tabs and spaces between tokens: valid JSON, the same canonical form, so the same chain.
    lines[1] = lines[1].replace("{", "{\t").replace(",", " ,\t");
    const full = path.join(dir, "bytes.jsonl");
    fs.writeFileSync(full, lines.join("\n") + "\n");
    assert.equal(runZaxy(["verify", full], { cwd: dir }).code, 0, "the edited log verifies as a file");
    const prefix = path.join(dir, "prefix.jsonl");
    fs.writeFileSync(prefix, lines.slice(0, 2).join("\n") + "\n");
    const first = json(ok(z(store, dir, ["store", "import", prefix, "--session-id", "bytes", "--json"]), "import the first two events")).imports[0];
    assert.deepEqual([first.already_present, first.imported], [0, 2]);
    const grown = json(ok(z(store, dir, ["store", "import", full, "--session-id", "bytes", "--json"]), "import the grown file")).imports[0];
    assert.deepEqual([grown.already_present, grown.imported, grown.events], [2, 2, 4]);
    assert.deepEqual((await rowsOf(store, "bytes")).map((row) => row.line), lines, "each row holds its line exactly");
    const [head] = await sqlOn(store, (sql) => sql`SELECT seq, hash FROM eventloom_heads WHERE thread = 'bytes'`);
    assert.deepEqual([Number(head.seq), head.hash], [4, JSON.parse(lines[3]).integrity.hash.replace(/^sha256:/, "")]);
    const out = path.join(dir, "out.jsonl");
    ok(z(store, dir, ["store", "export", "--session-id", "bytes", "--output", out]), "export");
    assert.ok(Buffer.compare(fs.readFileSync(out), fs.readFileSync(full)) === 0, "export is byte-identical");
    assert.equal(json(ok(z(store, dir, ["verify", "--session-id", "bytes", "--json"]), "verify from the store")).ok, true);
  });

  test("verify and export read the rows through the line reader and, for a URL it leaves to the pool (two hosts), through the pool: same bytes, same verdicts", async () => {
    const store = await initStore("reader");
    const dir = makeTempDir("zaxy-store-reader");
    const file = path.join(dir, "big.jsonl");
    writeSyntheticLog({ path: file, events: 14_000, style: "python-legacy" });
    assert.ok(fs.statSync(file).size > 8 << 20, "more than one 8 MiB chunk");
    ok(z(store, dir, ["store", "import", file]), "import");
    // The same server named twice: the general client's multi-host form, which the line reader leaves alone.
    const pooled = store.replace(/@([^/@]+)\//, (_m, host: string) => `@${host},${host}/`);
    assert.notEqual(pooled, store);
    const verdicts = (what: string) =>
      [store, pooled].map((url) => {
        const run = z(url, dir, ["verify", "--session-id", "big", "--json"]);
        const log = json(run).logs[0];
        return { code: run.code, ok: log.ok, total: log.total_events, seq: log.broken_at_seq, reason: log.broken_reason, what };
      });
    const [direct, viaPool] = verdicts("intact");
    assert.deepEqual(direct, viaPool);
    assert.deepEqual([direct.code, direct.ok, direct.total], [0, true, 14_000]);
    for (const url of [store, pooled]) {
      const out = path.join(dir, `out-${url === store ? "reader" : "pool"}.jsonl`);
      ok(z(url, dir, ["store", "export", "--session-id", "big", "--output", out]), `export via ${url === store ? "reader" : "pool"}`);
      assert.ok(Buffer.compare(fs.readFileSync(out), fs.readFileSync(file)) === 0, "export is byte-identical");
    }
    const original = (await rowsOf(store, "big")).find((row) => row.seq === 9_001)?.line as string;
    const faults: [string, (sql: any) => Promise<unknown>, RegExp][] = [
      ["a changed value", (sql) => sql`UPDATE eventloom_events SET line = replace(line, '"actor":"', '"actor":"x') WHERE thread = 'big' AND seq = 9001`, /Event 9001 hash mismatch/],
      ["an empty row", (sql) => sql`UPDATE eventloom_events SET line = '' WHERE thread = 'big' AND seq = 9001`, /Event 9001 is an empty row/],
      ["a missing row", (sql) => sql`DELETE FROM eventloom_events WHERE thread = 'big' AND seq = 9001`, /missing|gap|9001/],
    ];
    for (const [what, fault, reason] of faults) {
      await sqlOn(store, fault);
      const [readerVerdict, poolVerdict] = verdicts(what);
      assert.deepEqual(readerVerdict, poolVerdict, what);
      assert.deepEqual([readerVerdict.code, readerVerdict.ok, readerVerdict.seq], [1, false, 9_001], what);
      assert.match(readerVerdict.reason, reason, what);
      await sqlOn(store, (sql) => sql`INSERT INTO eventloom_events (thread, seq, line) VALUES ('big', 9001, ${original}) ON CONFLICT (thread, seq) DO UPDATE SET line = EXCLUDED.line`);
    }
    assert.deepEqual(verdicts("restored")[0].ok, true);
  });

  test("verify --store and store export check the schema in the statement that reads the thread's extent: none, or a newer one, exits 2 through the reader and through the pool, and writes nothing", async () => {
    const bare = await freshDatabase(server as PgServer, "bare");
    const dir = makeTempDir("zaxy-store-schema-first");
    const pooledOf = (url: string) => url.replace(/@([^/@]+)\//, (_m, host: string) => `@${host},${host}/`);
    const refusals = (url: string) => {
      const verify = z(url, dir, ["verify", "--session-id", "s1", "--json"]);
      const out = path.join(dir, "out.jsonl");
      const exported = z(url, dir, ["store", "export", "--session-id", "s1", "--output", out, "--json"]);
      assert.equal(fs.existsSync(out), false, "no output");
      assert.deepEqual(fs.readdirSync(dir).filter((name) => name.startsWith(".zaxy-store-export-")), [], "no scratch file left");
      return [verify, exported].map((run) => ({ code: run.code, error: json(run).error?.code, hint: /zaxy store init|upgrade zaxy/.test(json(run).error?.hint ?? "") }));
    };
    for (const url of [bare, pooledOf(bare)]) {
      assert.deepEqual(refusals(url), [{ code: 2, error: "store_not_initialised", hint: true }, { code: 2, error: "store_not_initialised", hint: true }], url);
    }
    const store = await initStore("schema-new");
    const file = path.join(dir, "s1.jsonl");
    writeSyntheticLog({ path: file, events: 50, style: "python-legacy" });
    ok(z(store, dir, ["store", "import", file]), "import");
    await sqlOn(store, (sql) => sql`UPDATE zaxy_store_meta SET value = '99' WHERE key = 'schema_version'`);
    for (const url of [store, pooledOf(store)]) {
      assert.deepEqual(refusals(url), [{ code: 2, error: "store_schema_too_new", hint: true }, { code: 2, error: "store_schema_too_new", hint: true }], url);
    }
    await sqlOn(store, (sql) => sql`UPDATE zaxy_store_meta SET value = '2' WHERE key = 'schema_version'`);
    const verified = json(ok(z(store, dir, ["verify", "--session-id", "s1", "--json"]), "verify once the version is back"));
    assert.deepEqual([verified.ok, verified.logs[0].total_events], [true, 50]);
  });

  test("a bracketed IPv6 host ([::1]) works for appends, verify, export and status, alone and in a host list", async (t) => {
    const store = await initStore("ipv6");
    const port = /@[^/@]*:(\d+)\//.exec(store)?.[1];
    const listening = port !== undefined && (await new Promise<boolean>((resolve) => {
      const probe = net.connect(Number(port), "::1");
      probe.once("connect", () => (probe.destroy(), resolve(true)));
      probe.once("error", () => resolve(false));
    }));
    if (!listening) {
      t.skip("the server does not listen on ::1 (scripts/pg-cluster.sh does where the machine has IPv6)");
      return;
    }
    const v6 = store.replace(/@[^/@]+\//, `@[::1]:${port}/`);
    const dir = makeTempDir("zaxy-store-ipv6");
    ok(z(v6, dir, ["memory", "append", "goal.created", "--actor", "a", "--payload-json", '{"title":"over IPv6"}']), "append over [::1]");
    const listed = store.replace(/@[^/@]+\//, `@[::1]:${port},127.0.0.1:${port}/`);
    ok(z(listed, dir, ["memory", "append", "goal.created", "--actor", "a", "--payload-json", '{"title":"host list"}']), "append over a host list");
    const verified = json(ok(z(v6, dir, ["verify", "--json"]), "verify"));
    assert.deepEqual([verified.ok, verified.logs[0].total_events], [true, 2]);
    const status = json(ok(z(listed, dir, ["store", "status", "--json"]), "status"));
    assert.equal(status.event_count, 2);
    const out = path.join(dir, "default.jsonl");
    ok(z(v6, dir, ["store", "export", "--session-id", "default", "--output", out]), "export");
    assert.equal(fs.readFileSync(out, "utf8").trim().split("\n").length, 2);
  });

  test("bench store: writers, verify and import measured in one run, the contract's fields, the table vacuumed first, nothing left behind", async () => {
    const store = await initStore("bench");
    const dir = makeTempDir("zaxy-store-bench");
    const run = ok(z(store, dir, ["bench", "store", "--writers", "2", "--appends", "3", "--verify-events", "300", "--import-events", "200", "--runs", "1", "--json"]), "bench store");
    const result = json(run);
    assert.equal(result.schema, "zaxy.bench.store.v1");
    assert.ok(!result.store.includes(passwordOf(store)) || passwordOf(store) === "");
    for (const backend of ["store", "file"]) {
      const writers = result.writers[backend];
      assert.deepEqual([writers.events, writers.lost, writers.duplicated, writers.chain_ok, writers.failed_writers], [6, 0, 0, true, 0], backend);
      assert.equal(writers.latency_ms.count, 6);
    }
    assert.equal(result.verify.events, 300);
    assert.equal(result.verify.ok, true);
    assert.equal(result.verify.file.runs_s.length, 1);
    assert.equal(result.verify.store.runs_s.length, 1);
    assert.ok(result.verify.store_to_file > 0);
    assert.equal(result.verify.store_readers, 1, "300 events are read on one connection");
    assert.deepEqual(result.verify.table_settled, { vacuumed: true, note: "VACUUM (ANALYZE) eventloom_events after the bench's writes" });
    assert.equal(result.import.events, 200);
    assert.equal(result.import.ok, true);
    assert.deepEqual(Object.keys(result.targets).sort(), ["import_mb_per_s", "verify_store_to_file_throughput", "writers_zero_lost_or_duplicated_valid_chain"]);
    assert.equal(result.targets.writers_zero_lost_or_duplicated_valid_chain.met, true);
    // Only zaxy-bench-<pid>-* threads were written, and they are gone.
    const left = await sqlOn(store, (sql) => sql`SELECT count(*) AS n FROM eventloom_events WHERE thread LIKE 'zaxy-bench-%'`);
    assert.equal(Number(left[0].n), 0);
    const heads = await sqlOn(store, (sql) => sql`SELECT count(*) AS n FROM eventloom_heads WHERE thread LIKE 'zaxy-bench-%'`);
    assert.equal(Number(heads[0].n), 0);
    const requests = await sqlOn(store, (sql) => sql`SELECT count(*) AS n FROM eventloom_requests WHERE thread LIKE 'zaxy-bench-%'`);
    assert.equal(Number(requests[0].n), 0);
  });

  test("least privileges: a reader role reads and verifies, cannot append (exit 3); a writer appends and imports, cannot init", async () => {
    const store = await initStore("roles");
    const suffix = `${process.pid}_${Date.now().toString(36)}`;
    const reader = `zaxy_reader_${suffix}`;
    const writer = `zaxy_writer_${suffix}`;
    await sqlOn(store, async (sql) => {
      await sql.unsafe(`CREATE ROLE ${reader} LOGIN PASSWORD 'reader-pw-1'`);
      await sql.unsafe(`CREATE ROLE ${writer} LOGIN PASSWORD 'writer-pw-1'`);
      await sql.unsafe(`GRANT SELECT ON zaxy_store_meta, eventloom_heads, eventloom_events TO ${reader}`);
      await sql.unsafe(`GRANT SELECT ON zaxy_store_meta TO ${writer}`);
      await sql.unsafe(`GRANT SELECT, INSERT, UPDATE ON eventloom_heads TO ${writer}`);
      await sql.unsafe(`GRANT SELECT, INSERT ON eventloom_events TO ${writer}`);
      await sql.unsafe(`GRANT SELECT, INSERT ON eventloom_requests TO ${writer}`);
    });
    const as = (role: string, pw: string) => store.replace(/^postgres(ql)?:\/\/[^@]*@/, `postgres://${role}:${pw}@`);
    const readerUrl = as(reader, "reader-pw-1");
    const writerUrl = as(writer, "writer-pw-1");
    const dir = makeTempDir("zaxy-store-roles");
    ok(z(writerUrl, dir, ["memory", "append", "goal.created", "--actor", "w", "--payload-json", '{"title":"privileges"}']), "writer appends");
    ok(z(writerUrl, dir, ["store", "import", path.join(interopDir, "v1-worker-api.jsonl")]), "writer imports");
    ok(z(readerUrl, dir, ["memory", "checkout", "privileges", "--json"]), "reader checks out");
    ok(z(readerUrl, dir, ["verify", "--all"]), "reader verifies");
    const denied = z(readerUrl, dir, ["memory", "append", "goal.created", "--actor", "r", "--payload-json", "{}", "--json"]);
    assert.equal(denied.code, 3);
    assert.equal(json(denied).error.code, "store_permission_denied");
    const init = z(writerUrl, dir, ["store", "init", "--json"]);
    assert.equal(init.code, 3);
    assert.equal(json(init).error.code, "store_permission_denied");
    await sqlOn(store, async (sql) => {
      for (const role of [reader, writer]) {
        await sql.unsafe(`REVOKE ALL ON zaxy_store_meta, eventloom_heads, eventloom_events, eventloom_requests FROM ${role}`);
        await sql.unsafe(`DROP ROLE ${role}`);
      }
    });
  });

  test("an unreachable server exits 3 quickly with a clear message and writes nothing", () => {
    const dir = makeTempDir("zaxy-unreachable");
    const started = Date.now();
    const run = runZaxy(["memory", "append", "goal.created", "--actor", "a", "--payload-json", "{}", "--store", "postgres://zaxy:pw-unreach@127.0.0.1:1/zaxy", "--json"], { cwd: dir });
    assert.equal(run.code, 3);
    assert.equal(JSON.parse(run.stdout).error.code, "store_unreachable");
    assert.match(JSON.parse(run.stdout).error.message, /unreachable/);
    assert.ok(!run.stdout.includes("pw-unreach") && !run.stderr.includes("pw-unreach"));
    assert.ok(Date.now() - started < 30_000);
    assert.equal(fs.existsSync(path.join(dir, ".eventloom", "default.jsonl")), false);
  });
});
