// test-lane: full (PostgreSQL server, slow)
/**
 * A lost acknowledgement, on a real PostgreSQL server behind a small TCP proxy that drops the
 * client's connection at its COMMIT: after the server committed (the answer is lost) or before
 * the COMMIT reached it. Either way the append says its outcome is unknown (exit 3
 * `store_outcome_unknown`) and names the request id; a retry with that id appends the events
 * exactly once, and reports the seqs the first attempt wrote when it had committed.
 */
import assert from "node:assert/strict";
import * as net from "node:net";
import { after, describe, test } from "node:test";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { runZaxyAsync, stackTraceLines, type ZaxyRun } from "../cli/zaxy.ts";
import { freshDatabase, type PgServer, pgServer, sqlOn, stopPgServer } from "./pgTestkit.ts";

const server: PgServer | undefined = pgServer();
after(() => stopPgServer(server));
after(removeTempDirs);

interface CommitProxy {
  /** The store URL through the proxy. */
  url: string;
  /** Connections dropped at their COMMIT so far. */
  dropped(): number;
  close(): Promise<void>;
}

/**
 * Forwards connections to the server of `store`. The first connection that sends a COMMIT after
 * inserting into eventloom_events is dropped: `after` the server answered it (the answer is
 * never forwarded: the row is committed, the client does not know), or `before` the COMMIT is
 * forwarded (nothing is committed, the client does not know either). Every other byte passes.
 */
async function commitProxy(store: string, when: "after" | "before"): Promise<CommitProxy> {
  const target = new URL(store);
  let dropped = 0;
  const sockets = new Set<net.Socket>();
  const proxy = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    let inserted = false;
    let losing = false;
    // The client prepares "commit" once per connection and then only binds it by name.
    const commitStatements = new Set<string>();
    const isCommit = (text: string) => {
      for (const match of text.matchAll(/([A-Za-z0-9_]*)\x00commit\x00/gi)) commitStatements.add(match[1]);
      return /\bcommit\b/i.test(text) || [...commitStatements].some((name) => name !== "" && text.includes(`B\x00\x00\x00`) && text.includes(`\x00${name}\x00`));
    };
    const drop = () => {
      dropped++;
      client.destroy();
      upstream.destroy();
    };
    client.on("data", (chunk: Buffer) => {
      const text = chunk.toString("latin1");
      if (text.includes("INSERT INTO eventloom_events")) inserted = true;
      const commit = isCommit(text);
      if (inserted && dropped === 0 && commit) {
        if (when === "before") return drop();
        losing = true;
      }
      upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => {
      if (losing) return drop();
      client.write(chunk);
    });
    for (const [from, to] of [[client, upstream], [upstream, client]] as const) {
      from.on("error", () => to.destroy());
      from.on("close", () => {
        sockets.delete(from);
        to.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", () => resolve()));
  const port = (proxy.address() as net.AddressInfo).port;
  const url = new URL(store);
  url.port = String(port);
  return {
    url: url.toString(),
    dropped: () => dropped,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}

function z(store: string, cwd: string, args: string[]): Promise<ZaxyRun> {
  return runZaxyAsync([...args, "--store", store], { cwd });
}

async function rowsOf(store: string): Promise<{ seq: number; title: string }[]> {
  const rows = await sqlOn(store, (sql) => sql`SELECT seq, line FROM eventloom_events WHERE thread = 'default' ORDER BY seq`);
  return rows.map((row) => ({ seq: Number(row.seq), title: JSON.parse(row.line as string).payload.title }));
}

const append = (title: string, extra: string[] = []) => ["memory", "append", "goal.created", "--actor", "a", "--payload-json", JSON.stringify({ title }), "--json", ...extra];

describe("a lost acknowledgement of an append", { skip: server === undefined ? "no PostgreSQL server programs" : false }, () => {
  test("COMMIT answered but the answer lost: outcome unknown (exit 3), and a retry with the named request id writes nothing twice", async () => {
    const store = await freshDatabase(server as PgServer, "lostack");
    const dir = makeTempDir("zaxy-lost-ack");
    assert.equal((await z(store, dir, ["store", "init"])).code, 0);
    assert.equal((await z(store, dir, append("first"))).code, 0);
    const proxy = await commitProxy(store, "after");
    let lost: ZaxyRun;
    try {
      lost = await z(proxy.url, dir, append("second"));
    } finally {
      await proxy.close();
    }
    assert.equal(proxy.dropped(), 1, "the proxy dropped the connection at the COMMIT");
    assert.deepEqual(stackTraceLines(lost.stderr), []);
    assert.equal(lost.code, 3, lost.stdout + lost.stderr);
    const error = JSON.parse(lost.stdout).error;
    assert.equal(error.code, "store_outcome_unknown");
    assert.match(error.message, /Cannot tell whether the append to session "default" was committed/);
    assert.doesNotMatch(error.message, /nothing was written/);
    assert.match(error.hint, /zaxy memory log --session-id default --store URL/);
    const requestId = /--request-id (req_[0-9a-f]{32})/.exec(error.message)?.[1];
    assert.ok(requestId !== undefined, `the message names the request id: ${error.message}`);
    // The server did commit it.
    assert.deepEqual(await rowsOf(store), [{ seq: 1, title: "first" }, { seq: 2, title: "second" }]);
    // The advised retry: the same command with the request id reports seq 2 and writes nothing.
    const retry = await z(store, dir, append("second", ["--request-id", requestId]));
    assert.equal(retry.code, 0, retry.stdout + retry.stderr);
    const retried = JSON.parse(retry.stdout);
    const [row2] = await sqlOn(store, (sql) => sql`SELECT line FROM eventloom_events WHERE thread = 'default' AND seq = 2`);
    const hash2 = JSON.parse(row2.line as string).integrity.hash.replace(/^sha256:/, "");
    assert.deepEqual([retried.seq, retried.hash], [2, hash2]);
    assert.match(retry.stderr, new RegExp(`request ${requestId} already appended these events to session "default" as seq 2; they were not appended again`));
    assert.deepEqual((await rowsOf(store)).map((row) => row.seq), [1, 2]);
    // Once more: still nothing new. A new request appends as usual.
    assert.equal((await z(store, dir, append("second", ["--request-id", requestId]))).code, 0);
    assert.equal((await z(store, dir, append("third"))).code, 0);
    assert.deepEqual(await rowsOf(store), [{ seq: 1, title: "first" }, { seq: 2, title: "second" }, { seq: 3, title: "third" }]);
    const verify = await z(store, makeTempDir("zaxy-lost-ack-verify"), ["verify", "--json"]);
    assert.equal(verify.code, 0, verify.stdout);
  });

  test("COMMIT never reached the server: outcome unknown too, and the retry with a client-supplied request id appends the events once", async () => {
    const store = await freshDatabase(server as PgServer, "lostcommit");
    const dir = makeTempDir("zaxy-lost-commit");
    assert.equal((await z(store, dir, ["store", "init"])).code, 0);
    const proxy = await commitProxy(store, "before");
    let lost: ZaxyRun;
    try {
      lost = await z(proxy.url, dir, append("only once", ["--request-id", "deploy-42.step:1"]));
    } finally {
      await proxy.close();
    }
    assert.equal(proxy.dropped(), 1);
    assert.equal(lost.code, 3, lost.stdout + lost.stderr);
    assert.equal(JSON.parse(lost.stdout).error.code, "store_outcome_unknown");
    assert.match(JSON.parse(lost.stdout).error.message, /--request-id deploy-42\.step:1/);
    assert.deepEqual(await rowsOf(store), [], "the server rolled the transaction back");
    const retry = await z(store, dir, append("only once", ["--request-id", "deploy-42.step:1"]));
    assert.equal(retry.code, 0, retry.stdout + retry.stderr);
    assert.equal(JSON.parse(retry.stdout).seq, 1);
    assert.equal((await z(store, dir, append("only once", ["--request-id", "deploy-42.step:1"]))).code, 0);
    assert.deepEqual(await rowsOf(store), [{ seq: 1, title: "only once" }]);
    const requests = await sqlOn(store, (sql) => sql`SELECT thread, request_id, batch, first_seq, events FROM eventloom_requests ORDER BY first_seq`);
    assert.deepEqual(requests.map((r) => [r.thread, r.request_id, Number(r.batch), Number(r.first_seq), Number(r.events)]), [["default", "deploy-42.step:1", 1, 1, 1]]);
    // A request id that could not be one is bad input before anything is asked of the store.
    const bad = await z(store, dir, append("x", ["--request-id", "no spaces; please"]));
    assert.equal(bad.code, 2, bad.stdout);
    assert.equal(JSON.parse(bad.stdout).error.code, "invalid_request_id");
  });
});
