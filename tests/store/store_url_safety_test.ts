// test-lane: full (PostgreSQL server)
/**
 * Store URLs and passwords, against a real PostgreSQL server: a URL that cannot work (a bad
 * percent-escape, an unknown target_session_attrs) is bad input naming what is wrong, never an
 * internal error; `zaxy config set store` refuses a URL carrying a password (config.json is a
 * plain file); a password given with --store (visible in ps) or left in config.json is warned
 * about on stderr, while one from ZAXY_STORE or the password file is not.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { runZaxy, stackTraceLines } from "../cli/zaxy.ts";
import { freshDatabase, type PgServer, passwordOf, pgServer, stopPgServer } from "./pgTestkit.ts";

const server: PgServer | undefined = pgServer();
after(() => stopPgServer(server));
after(removeTempDirs);

async function initStore(label: string): Promise<string> {
  const store = await freshDatabase(server as PgServer, label);
  const run = runZaxy(["store", "init", "--store", store], { cwd: makeTempDir("zaxy-url-init") });
  assert.equal(run.code, 0, run.stderr);
  return store;
}

describe("store URLs and passwords", { skip: server === undefined ? "no PostgreSQL server programs" : false }, () => {
  test("a bad percent-escape or an unknown target_session_attrs is exit 2 invalid_store_url naming the problem, never the password", async () => {
    const store = await initStore("badurl");
    const secret = passwordOf(store);
    const at = store.indexOf("@");
    const userinfo = store.slice("postgres://".length, at);
    const hostAndDb = store.slice(at + 1);
    const dir = makeTempDir("zaxy-bad-url");
    const cases: [string, RegExp][] = [
      [`postgres://${userinfo}%zz@${hostAndDb}`, /the password has a bad percent-escape \(a percent sign itself is written %25\)/],
      [`postgres://zaxy%@${hostAndDb}`, /the user name has a bad percent-escape "%@"|the user name has a bad percent-escape "%"/],
      [`${store}%4`, /the database name has a bad percent-escape "%4"/],
      [`${store}%C3%28`, /the database name has percent-escapes that do not decode to UTF-8 text/],
      [`${store}?application_name=a%2`, /the value of the query parameter "application_name" has a bad percent-escape "%2"/],
      [`${store}?target_session_attrs=bogus`, /target_session_attrs must be one of read-write, read-only, primary, standby, prefer-standby \(or left out: any server\), not "bogus"/],
    ];
    for (const [url, reason] of cases) {
      for (const args of [["memory", "log", "--json"], ["verify", "--json"], ["store", "status", "--json"]]) {
        const run = runZaxy([...args, "--store", url], { cwd: dir });
        const what = `${args.join(" ")} with ${url.replace(secret, "***")}`;
        assert.equal(run.code, 2, `${what}: ${run.stdout}${run.stderr}`);
        assert.deepEqual(stackTraceLines(run.stderr), [], what);
        const error = JSON.parse(run.stdout).error;
        assert.equal(error.code, "invalid_store_url", what);
        assert.match(error.message, /--store is not a usable PostgreSQL URL: /, what);
        assert.match(error.message, reason, what);
        if (secret !== "") assert.ok(!run.stdout.includes(secret) && !run.stderr.includes(secret), `${what}: the password leaked`);
      }
    }
    // The same URL with a value the client supports works.
    const fine = runZaxy(["store", "status", "--json", "--store", `${store}?target_session_attrs=read-write`], { cwd: dir });
    assert.equal(fine.code, 0, fine.stdout + fine.stderr);
    assert.equal(JSON.parse(fine.stdout).schema_version, 2);
  });

  test("config set store refuses a password (config.json is a plain file); the password file serves the URL without one, and a password on the command line or in config.json is warned about", async () => {
    const store = await initStore("config");
    const secret = passwordOf(store);
    if (secret === "") return; // A server without a password: nothing to refuse or warn about.
    const dir = makeTempDir("zaxy-config-store");
    const root = path.join(dir, ".eventloom");
    const configFile = path.join(root, "config.json");
    const refused = runZaxy(["config", "set", "store", store, "--json"], { cwd: dir });
    assert.equal(refused.code, 2, refused.stdout + refused.stderr);
    const error = JSON.parse(refused.stdout).error;
    assert.equal(error.code, "password_in_config");
    assert.match(error.message, /carries a password/);
    assert.match(error.hint, /PGPASSFILE/);
    assert.match(error.hint, /ZAXY_STORE/);
    assert.ok(!refused.stdout.includes(secret) && !refused.stderr.includes(secret));
    assert.equal(fs.existsSync(configFile), false, "nothing was written");
    const queryPassword = store.replace(`:${encodeURIComponent(secret)}@`, "@") + `?password=${encodeURIComponent(secret)}`;
    assert.equal(runZaxy(["config", "set", "store", queryPassword], { cwd: dir }).code, 2, "a password= parameter is a password too");
    // Without the password: written, and the password comes from the password file.
    const bare = store.replace(`:${encodeURIComponent(secret)}@`, "@");
    const set = runZaxy(["config", "set", "store", bare], { cwd: dir });
    assert.equal(set.code, 0, set.stderr);
    const url = new URL(store);
    const pgpass = path.join(dir, "pgpass");
    fs.writeFileSync(pgpass, `${url.hostname}:${url.port}:*:${url.username}:${secret}\n`, { mode: 0o600 });
    const viaConfig = runZaxy(["memory", "append", "goal.created", "--actor", "a", "--payload-json", '{"title":"via config"}', "--json"], { cwd: dir, env: { PGPASSFILE: pgpass } });
    assert.equal(viaConfig.code, 0, viaConfig.stdout + viaConfig.stderr);
    assert.equal(viaConfig.stderr, "", "no warning without a password in config.json or on the command line");
    // ZAXY_STORE with a password: not on the command line, no warning.
    const viaEnv = runZaxy(["memory", "log", "--json"], { cwd: dir, env: { ZAXY_STORE: store } });
    assert.equal(viaEnv.code, 0, viaEnv.stderr);
    assert.equal(viaEnv.stderr, "");
    // --store with a password: it works, with a warning that ps shows it.
    for (const args of [["memory", "log", "--json"], ["store", "status", "--json"], ["verify", "--json"]]) {
      const viaFlag = runZaxy([...args, "--store", store], { cwd: dir });
      assert.equal(viaFlag.code, 0, viaFlag.stdout + viaFlag.stderr);
      assert.match(viaFlag.stderr, /^zaxy: warning: the store URL given with --store carries a password, which other users of this machine can read in the process list \(ps\); put the password in PGPASSFILE/m, args.join(" "));
      assert.ok(!viaFlag.stderr.includes(secret));
    }
    // A password written into config.json by hand still works, with a warning each time.
    fs.writeFileSync(configFile, JSON.stringify({ store }) + "\n");
    const handEdited = runZaxy(["memory", "log", "--json"], { cwd: dir });
    assert.equal(handEdited.code, 0, handEdited.stderr);
    assert.match(handEdited.stderr, /config\.json stores the store URL with its password in plain text/);
    assert.ok(!handEdited.stderr.includes(secret));
  });
});
