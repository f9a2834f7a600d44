/**
 * The store URL and credentials without a server: where the URL comes from, how it is
 * redacted, libpq's password file, and the deadline on a server that never answers.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { passwordFromFile } from "../../src/store/pgpass.ts";
import { bracketedHosts, redactStoreUrl, resolveStoreUrl, storeAddress, urlPassword } from "../../src/store/storeUrl.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { runZaxyAsync } from "../cli/zaxy.ts";

after(removeTempDirs);

describe("store URL", () => {
  test("redaction hides the password (also a percent-encoded or query one) and keeps the rest", () => {
    assert.equal(redactStoreUrl("postgres://app:s3cret@db:5432/zaxy"), "postgres://app:***@db:5432/zaxy");
    assert.equal(redactStoreUrl("postgresql://app:p%40ss%3Aword@db/zaxy?sslmode=require"), "postgresql://app:***@db/zaxy?sslmode=require");
    assert.equal(redactStoreUrl("postgres://app@db/zaxy?password=hunter2&sslmode=verify-full"), "postgres://app@db/zaxy?password=***&sslmode=verify-full");
    assert.equal(redactStoreUrl("postgres://db/zaxy"), "postgres://db/zaxy");
    assert.equal(urlPassword("postgresql://app:p%40ss%3Aword@db/zaxy"), "p@ss:word");
    assert.equal(urlPassword("postgres://app@db/zaxy"), undefined);
  });

  test("--store wins over ZAXY_STORE, which wins over config.json; absent means files", () => {
    const root = makeTempDir("zaxy-store-url");
    assert.equal(resolveStoreUrl(undefined, {}, root), undefined);
    fs.writeFileSync(path.join(root, "config.json"), JSON.stringify({ store: "postgres://c@config/db" }));
    assert.equal(resolveStoreUrl(undefined, {}, root)?.source, "config.json store");
    assert.equal(resolveStoreUrl(undefined, { ZAXY_STORE: "postgres://e@env/db" }, root)?.source, "ZAXY_STORE");
    const flag = resolveStoreUrl("postgres://f:pw@flag:6543/db", { ZAXY_STORE: "postgres://e@env/db" }, root);
    assert.deepEqual([flag?.source, flag?.redacted], ["--store", "postgres://f:***@flag:6543/db"]);
    assert.throws(() => resolveStoreUrl("mysql://u:pw@h/db", {}, root), (error: Error & { code?: string }) => error.code === "invalid_store_url" && !error.message.includes("pw@"));
    fs.writeFileSync(path.join(root, "config.json"), JSON.stringify({ store: 5 }));
    assert.throws(() => resolveStoreUrl(undefined, {}, root), /store must be a postgres:\/\/ URL string/);
  });

  test("a postgres:// URL that cannot work is bad input naming what is wrong (not a bare Invalid URL), without its password", () => {
    const root = makeTempDir("zaxy-store-url-bad");
    const cases: [string, RegExp][] = [
      ["postgres://u:s3cret@[bad/zaxy", /the host "\[bad" is not host\[:port\]/],
      ["postgres://u:s3cret@db:99999/zaxy", /the port "99999" is not a number from 1 to 65535/],
      ["postgres://u:s3cret@db:abc/zaxy", /the port "abc"/],
      ["postgres://u:s3cret@db1:5432,db2:x/zaxy", /the port "x"/],
      ["postgres://u:s3cret@db/zaxy?sslmode=bogus", /sslmode must be one of disable, allow, prefer, require, verify-ca, verify-full, not "bogus"/],
    ];
    for (const [url, reason] of cases) {
      assert.throws(() => resolveStoreUrl(url, {}, root), (error: Error & { code?: string; details?: { field?: string } }) => {
        assert.equal(error.code, "invalid_store_url", url);
        assert.equal(error.details?.field, "--store");
        assert.match(error.message, reason);
        assert.ok(!error.message.includes("s3cret"), url);
        return true;
      });
    }
    for (const url of ["postgres://u@db1:5432,db2:6543/zaxy", "postgresql://u@[::1]:5433/zaxy?sslmode=verify-full", "postgres:///zaxy", "postgres://u@db/zaxy?sslmode=allow"]) {
      assert.equal(resolveStoreUrl(url, {}, root)?.url, url);
    }
  });

  test("the mirror id depends on host, port and database, not on the user or password", () => {
    const root = makeTempDir("zaxy-store-id");
    const a = resolveStoreUrl("postgres://a:x@db:5432/zaxy", {}, root)?.id;
    assert.equal(resolveStoreUrl("postgres://b:y@db:5432/zaxy?sslmode=require", {}, root)?.id, a);
    assert.notEqual(resolveStoreUrl("postgres://a:x@db:5433/zaxy", {}, root)?.id, a);
    assert.notEqual(resolveStoreUrl("postgres://a:x@db:5432/other", {}, root)?.id, a);
    assert.deepEqual(storeAddress("postgres://u@[::1]:6000/d", {}), { host: "::1", port: "6000", database: "d", user: "u" });
  });

  test("bracketed IPv6 hosts are handed to the general client without brackets, with their ports; other URLs are left to it", () => {
    assert.deepEqual(bracketedHosts("postgres://u:p@[::1]:6000/d", {}), { host: ["::1"], port: [6000] });
    assert.deepEqual(bracketedHosts("postgres://u@[fe80::1%25eth0]/d?sslmode=require", { PGPORT: "6001" }), { host: ["fe80::1%25eth0"], port: [6001] });
    assert.deepEqual(bracketedHosts("postgres://u@[2001:db8::5]:7000,db2:7001,db3/d", {}), { host: ["2001:db8::5", "db2", "db3"], port: [7000, 7001, 5432] });
    for (const url of ["postgres://u@db:5432/d", "postgres://u@db1,db2:6543/d", "postgres:///d", "postgres://u:p%5B@db/d"]) assert.equal(bracketedHosts(url, {}), undefined, url);
  });

  test("the password file matches host, port, database and user with * and escapes; a loose mode is ignored", () => {
    const dir = makeTempDir("zaxy-pgpass");
    const file = path.join(dir, "pgpass");
    fs.writeFileSync(file, "# comment\nother:*:*:*:nope\ndb:5432:zaxy:app:pa\\:ss\\\\word\n*:*:*:app:fallback\n", { mode: 0o600 });
    fs.chmodSync(file, 0o600);
    const warnings: string[] = [];
    const env = { PGPASSFILE: file };
    assert.equal(passwordFromFile({ host: "db", port: "5432", database: "zaxy", user: "app" }, env, (w) => warnings.push(w)), "pa:ss\\word");
    assert.equal(passwordFromFile({ host: "db2", port: "5432", database: "zaxy", user: "app" }, env, (w) => warnings.push(w)), "fallback");
    assert.equal(passwordFromFile({ host: "db", port: "5432", database: "zaxy", user: "nobody" }, env, (w) => warnings.push(w)), undefined);
    fs.chmodSync(file, 0o640);
    assert.equal(passwordFromFile({ host: "db", port: "5432", database: "zaxy", user: "app" }, env, (w) => warnings.push(w)), undefined);
    assert.match(warnings.join("\n"), /group or world access; it is ignored/);
    assert.ok(!warnings.join("\n").includes("fallback"));
  });

  test("a server that accepts connections and never answers: exit 3 after ZAXY_STORE_TIMEOUT_MS, no hang", async () => {
    const sockets: net.Socket[] = [];
    const silent = net.createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", () => resolve()));
    const port = (silent.address() as net.AddressInfo).port;
    try {
      const dir = makeTempDir("zaxy-silent");
      const started = Date.now();
      const run = await runZaxyAsync(["memory", "log", "--json", "--store", `postgres://u:silent-pw@127.0.0.1:${port}/db`], { cwd: dir, env: { ZAXY_STORE_TIMEOUT_MS: "1500" } });
      const elapsedMs = Date.now() - started;
      assert.equal(run.code, 3, run.stderr + run.stdout);
      assert.match(JSON.parse(run.stdout).error.code, /^store_(timeout|unreachable)$/);
      assert.ok(elapsedMs < 20_000, `took ${elapsedMs} ms`);
      assert.ok(!run.stdout.includes("silent-pw") && !run.stderr.includes("silent-pw"));
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });
});
