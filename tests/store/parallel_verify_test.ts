// test-lane: full (PostgreSQL server, log of 10000+ events, slow)
/**
 * `verify --store` of a large thread on several connections (src/store/parallelVerify.ts), on a
 * real PostgreSQL server: the fast path gives the file's verdict on an intact thread, gives none
 * (so the sequential pass runs) whenever a row is wrong, and from the binary the verdicts with
 * several readers are those of one, for every kind of damage, also at a range boundary.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { writeSyntheticLog } from "../../src/bench/syntheticLog.ts";
import { verifyLog } from "../../src/eventloom/verify.ts";
import { isZaxyError } from "../../src/errors.ts";
import { parallelCoresMin, parallelEventsMin, storeReaders, verifyOnReaders } from "../../src/store/parallelVerify.ts";
import { openStoreClient, type StoreClient } from "../../src/store/storeClient.ts";
import { resolveStoreUrl } from "../../src/store/storeUrl.ts";
import { verifyWorkersMax } from "../../src/eventloom/verify.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { runZaxy, stackTraceLines, type ZaxyRun } from "../cli/zaxy.ts";
import { freshDatabase, type PgServer, pgServer, sqlOn, stopPgServer } from "./pgTestkit.ts";

const server: PgServer | undefined = pgServer();
after(() => stopPgServer(server));
after(removeTempDirs);

const events = 60_000;

function ok(run: ZaxyRun, what: string): ZaxyRun {
  assert.equal(run.code, 0, `${what} exited ${run.code}: ${run.stderr}`);
  return run;
}

function clientFor(store: string): StoreClient {
  const url = resolveStoreUrl(store, {}, makeTempDir("zaxy-parallel-root"));
  assert.ok(url !== undefined);
  return openStoreClient(url, {});
}

describe("parallel verify --store", { skip: server === undefined ? "no PostgreSQL server programs" : false }, () => {
  let store = "";
  let dir = "";
  let file = "";

  before(async () => {
    store = await freshDatabase(server as PgServer, "parallel");
    dir = makeTempDir("zaxy-parallel");
    file = path.join(dir, "big.jsonl");
    writeSyntheticLog({ path: file, events, style: "python-legacy" });
    ok(runZaxy(["store", "init", "--store", store], { cwd: dir }), "store init");
    ok(runZaxy(["store", "import", file, "--store", store], { cwd: dir }), "import");
  });

  test("how many readers: one below the event threshold or cores, ZAXY_STORE_READERS when set, a bad value is bad input (exit 2)", () => {
    const bad = runZaxy(["verify", "--store", store, "--session-id", "big", "--json"], { cwd: dir, env: { ZAXY_STORE_READERS: "two" } });
    assert.equal(bad.code, 2, bad.stderr);
    assert.equal(JSON.parse(bad.stdout).error.code, "invalid_option");
    assert.match(JSON.parse(bad.stdout).error.message, /ZAXY_STORE_READERS must be an integer from 1 to 64/);
    assert.deepEqual(stackTraceLines(bad.stderr), []);
    const unreachable = runZaxy(["verify", "--store", "postgres://zaxy@127.0.0.1:1/zaxy", "--session-id", "big", "--json"], { cwd: dir, env: { ZAXY_STORE_READERS: "two" } });
    assert.equal(unreachable.code, 2, "checked before connecting");
    assert.equal(storeReaders(parallelEventsMin - 1, { ZAXY_STORE_READERS: "4" }), 1);
    assert.equal(storeReaders(parallelEventsMin, { ZAXY_STORE_READERS: "4" }), 4);
    assert.equal(storeReaders(parallelEventsMin, {}), verifyWorkersMax() >= parallelCoresMin ? verifyWorkersMax() : 1);
    for (const raw of ["0", "x", "2.5", "65"]) {
      for (const size of [10, parallelEventsMin]) {
        assert.throws(() => storeReaders(size, { ZAXY_STORE_READERS: raw }), (error: unknown) => isZaxyError(error) && error.code === "invalid_option" && /ZAXY_STORE_READERS/.test(error.message), `${raw} for ${size} events`);
      }
    }
  });

  test("an intact thread: the verdict of the file, its bytes, from 2, 3 and 7 readers (ranges of unequal sizes)", async () => {
    const fileReport = await verifyLog(file);
    const client = clientFor(store);
    try {
      for (const readers of [2, 3, 7]) {
        const verdict = await verifyOnReaders(client, "big", events, readers);
        assert.ok(verdict !== undefined, `${readers} readers gave a verdict`);
        assert.equal(verdict.rows, events);
        assert.equal(verdict.bytes, fs.statSync(file).size);
        assert.deepEqual(verdict.report, fileReport, `${readers} readers`);
      }
      // Below two readers it is not its job.
      assert.equal(await verifyOnReaders(client, "big", events, 1), undefined);
    } finally {
      await client.sql.end({ timeout: 1 }); // not close(): it ends the process soon after, as the CLI wants
    }
  });

  test("a changed, empty or missing row, in a range or at its boundary, gives no fast verdict; the binary's verdict with 3 readers is the one of 1", async () => {
    // With 3 readers over 60,000 events the ranges are (0, 20000], (20000, 40000], (40000, 60000]:
    // row 20000 is the boundary both of the first two read.
    const original = new Map<number, string>();
    for (const seq of [20_000, 30_001]) {
      const rows = await sqlOn(store, (sql) => sql`SELECT line FROM eventloom_events WHERE thread = 'big' AND seq = ${seq}`);
      original.set(seq, rows[0].line as string);
    }
    const restore = async () => {
      for (const [seq, line] of original) {
        await sqlOn(store, (sql) => sql`INSERT INTO eventloom_events (thread, seq, line) VALUES ('big', ${seq}, ${line}) ON CONFLICT (thread, seq) DO UPDATE SET line = EXCLUDED.line`);
      }
      await sqlOn(store, (sql) => sql`UPDATE eventloom_heads SET seq = ${events} WHERE thread = 'big'`);
    };
    const verdictWith = (readers: number) => {
      const run = runZaxy(["verify", "--store", store, "--session-id", "big", "--json"], { cwd: dir, env: { ZAXY_STORE_READERS: String(readers) } });
      assert.deepEqual(stackTraceLines(run.stderr), []);
      const log = JSON.parse(run.stdout).logs[0];
      return { code: run.code, ok: log.ok, seq: log.broken_at_seq, reason: log.broken_reason, code_: log.code, total: log.total_events, errors: log.errors.length };
    };
    const faults: [string, string, RegExp][] = [
      ["a changed value mid-range", `UPDATE eventloom_events SET line = replace(line, '"actor":"', '"actor":"x') WHERE thread = 'big' AND seq = 30001`, /Event 30001 hash mismatch/],
      ["a changed boundary row", `UPDATE eventloom_events SET line = replace(line, '"actor":"', '"actor":"x') WHERE thread = 'big' AND seq = 20000`, /Event 20000 hash mismatch/],
      ["an empty boundary row", `UPDATE eventloom_events SET line = '' WHERE thread = 'big' AND seq = 20000`, /Event 20000 is an empty row/],
      ["a missing boundary row", `DELETE FROM eventloom_events WHERE thread = 'big' AND seq = 20000`, /20000|missing|gap/],
      ["a missing row mid-range", `DELETE FROM eventloom_events WHERE thread = 'big' AND seq = 30001`, /30001|missing|gap/],
      ["a head row ahead of the rows", `UPDATE eventloom_heads SET seq = ${events + 5} WHERE thread = 'big'`, /head row says 60005 events/],
    ];
    const client = clientFor(store);
    try {
      for (const [what, damage, reason] of faults) {
        await sqlOn(store, (sql) => sql.unsafe(damage));
        if (!what.startsWith("a head row")) assert.equal(await verifyOnReaders(client, "big", events, 3), undefined, `${what}: no fast verdict`);
        const [one, three] = [verdictWith(1), verdictWith(3)];
        assert.deepEqual(three, one, what);
        assert.deepEqual([three.code, three.ok], [1, false], what);
        assert.match(three.reason, reason, what);
        await restore();
      }
    } finally {
      await client.sql.end({ timeout: 1 }); // not close(): it ends the process soon after, as the CLI wants
    }
    const intact = verdictWith(3);
    assert.deepEqual([intact.code, intact.ok, intact.total], [0, true, events]);
  });

  test("a server that accepts and never answers: store_timeout after the query deadline (not the reading's longer one), whatever the thread's size", async () => {
    const silent = net.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const port = (silent.address() as net.AddressInfo).port;
    const url = resolveStoreUrl(`postgres://zaxy:pw-not-shown@127.0.0.1:${port}/zaxy?sslmode=disable`, {}, makeTempDir("zaxy-parallel-silent"));
    assert.ok(url !== undefined);
    const client = openStoreClient(url, { ZAXY_STORE_TIMEOUT_MS: "400" });
    const started = performance.now();
    try {
      await assert.rejects(verifyOnReaders(client, "big", 1_000_000, 3), (error: unknown) => isZaxyError(error) && error.code === "store_timeout" && /within 400 ms/.test(error.message) && !error.message.includes("pw-not-shown"));
      assert.ok(performance.now() - started < 5_000, `took ${Math.round(performance.now() - started)} ms`);
    } finally {
      await client.sql.end({ timeout: 1 }); // not close(): it ends the process soon after, as the CLI wants
      silent.close();
    }
  });

  test("a server nobody listens on rejects as the store's other reads do (store_unreachable, exit 3), not as a worker crash", async () => {
    const dead = store.replace(/@([^/:@]+):(\d+)\//, "@$1:1/");
    const client = clientFor(dead);
    try {
      await assert.rejects(verifyOnReaders(client, "big", events, 3), (error: unknown) => isZaxyError(error) && error.code === "store_unreachable" && !error.message.includes("zaxy-test-pw"));
    } finally {
      await client.sql.end({ timeout: 1 }); // not close(): it ends the process soon after, as the CLI wants
    }
  });
});
