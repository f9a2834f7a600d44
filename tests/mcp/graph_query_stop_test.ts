// test-lane: full (kill -9, slow)
/**
 * Graph queries stop at their limits, through the real front doors: `zaxy serve --http` with two
 * MCP clients, and the `zaxy memory graph` command. A runaway statement (`UNWIND` of a 30 million
 * element range, which Kuzu builds while preparing and never interrupts) is stopped at its
 * `timeout_ms` with `query_timeout` while another client is answered, the server's memory comes
 * back, and the next query works; rows beyond `limit` are cut and the answer says so.
 *
 * Runs the binary that tests/cli/zaxy.ts picks (`ZAXY_TEST_BIN`, `ZAXY_TEST_FROM_SOURCE=1`).
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import { after, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { childEnv, runZaxy, zaxyInvocation } from "../cli/zaxy.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { serveHttp } from "./httpServe.ts";

after(removeTempDirs);

const slow = { timeout: 180_000 };
const runaway = "UNWIND range(1, 30000000) AS x RETURN count(x)";
/**
 * How much longer than an ordinary graph query a stopped one may take: its 1 s limit plus a
 * margin for a loaded 2-core machine. Both first bring the session up to date and start a worker
 * that loads its own Kuzu (0.5-8 s under load). Without the stop the statement runs ~80 s and
 * aborts the engine.
 */
const stopBoundMs = 10_000;
/**
 * Longest wait for another client's answer while the runaway query is under way, unless an
 * ordinary graph query takes longer: the statement itself never holds the serving thread, but
 * bringing the session's graph up to date first does, briefly (~0.5 s idle, seconds under load).
 */
const answerBoundMs = 8_000;
/** After the stop the server's resident memory is back to within this much of what it was before. */
const rssReturnedMarginBytes = 256 * 1024 * 1024;

async function serve(root: string): Promise<{ url: string; child: ChildProcess; stop: () => Promise<void> }> {
  const served = await serveHttp(root, ["--session-id", "s"]);
  return { url: served.url, child: served.child, stop: () => served.stop("SIGKILL") };
}

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: "zaxy-graph-stop-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

// deno-lint-ignore no-explicit-any
async function call(client: Client, name: string, args: Record<string, unknown>): Promise<{ isError: boolean; doc: any }> {
  const result = await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 });
  return { isError: result.isError === true, doc: JSON.parse((result.content as Array<{ text: string }>)[0].text) };
}

/** Resident memory of a process in bytes (Linux), or null where /proc is not there. */
function rssBytes(pid: number): number | null {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

function mib(bytes: number | null): string {
  return bytes === null ? "n/a" : `${Math.round(bytes / 1024 / 1024)} MiB`;
}

/** `promise`, or a rejection naming `what` once `ms` have passed. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([promise, bound]).finally(() => clearTimeout(timer));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("graph queries stop at their limits", () => {
  test("memory_graph_query over HTTP stops a runaway UNWIND at timeout_ms while another client is answered; memory comes back and the next query works", slow, async (t) => {
    const root = makeTempDir("zaxy-graph-stop");
    const server = await serve(`${root}/.eventloom`);
    const pid = server.child.pid!;
    const clients: Client[] = [];
    try {
      const querying = await connect(server.url);
      const other = await connect(server.url);
      clients.push(querying, other);
      const appended = await call(querying, "memory_append", { event_type: "goal.created", actor: "agent-1", payload: { title: "Ship the release" } });
      assert.equal(appended.isError, false, JSON.stringify(appended.doc));
      const warm = await call(querying, "memory_graph_query", { query: "MATCH (e:Entity) WHERE e.session_id = $session_id RETURN count(*) AS n" });
      assert.equal(warm.isError, false, JSON.stringify(warm.doc));
      const ordinaryStarted = performance.now();
      const ordinary = await call(querying, "memory_graph_query", { query: "MATCH (e:Entity) RETURN count(*) AS n" });
      assert.equal(ordinary.isError, false, JSON.stringify(ordinary.doc));
      const ordinaryMs = performance.now() - ordinaryStarted;
      const answerWithinMs = Math.max(answerBoundMs, ordinaryMs);
      const rssBefore = rssBytes(pid);

      const sent = performance.now();
      let settled = false;
      const stopped = call(querying, "memory_graph_query", { query: runaway, timeout_ms: 1000 }).finally(() => void (settled = true));
      // Another client meanwhile: each memory_capabilities (and one memory_append) must be answered promptly.
      const answeredMs: number[] = [];
      let rssPeak = rssBefore;
      const meanwhile = (async () => {
        let round = 0;
        while (!settled) {
          const rss = rssBytes(pid);
          if (rss !== null && rssPeak !== null) rssPeak = Math.max(rssPeak, rss);
          const asked = performance.now();
          const answer = round % 4 === 3
            ? await call(other, "memory_append", { event_type: "note.added", actor: "agent-2", payload: { text: `meanwhile ${round}` } })
            : await call(other, "memory_capabilities", {});
          assert.equal(answer.isError, false, JSON.stringify(answer.doc));
          if (!settled) answeredMs.push(performance.now() - asked);
          round++;
          await sleep(200);
        }
      })();
      // Marked handled: when a bound below fails, the server is killed and these reject late.
      stopped.catch(() => {});
      meanwhile.catch(() => {});
      const { isError, doc } = await within(stopped, ordinaryMs + stopBoundMs, "the runaway graph query");
      const stopMs = performance.now() - sent;
      await within(meanwhile, answerWithinMs * 2, "the other client's calls");
      assert.equal(isError, true);
      assert.equal(doc.error.code, "invalid_request");
      assert.equal(
        doc.error.message,
        "The graph query ran past its time limit (timeout_ms 1000) and was stopped; nothing was changed",
      );
      assert.equal(doc.error.remediation, "Narrow the query (filter on session_id, add LIMIT) or raise timeout_ms (at most 60000); see zaxy help --topic graph (docs/graph.md)");
      assert.ok(answeredMs.length >= 2, `the other client was answered ${answeredMs.length} times while the query ran`);
      assert.ok(Math.max(...answeredMs) < answerWithinMs, `answers meanwhile took ${answeredMs.map(Math.round).join(", ")} ms`);

      // The stopped thread lets go of its heap within a moment of the answer (measured: well under
      // a second under Bun; the allocator may take a little longer to hand pages back).
      let rssAfter = rssBytes(pid);
      for (let waitedMs = 0; rssBefore !== null && rssAfter !== null && rssAfter >= rssBefore + rssReturnedMarginBytes && waitedMs < 10_000; waitedMs += 250) {
        await sleep(250);
        rssAfter = rssBytes(pid);
      }
      t.diagnostic(`stopped after ${Math.round(stopMs)} ms (an ordinary query: ${Math.round(ordinaryMs)} ms); ${answeredMs.length} answers meanwhile, slowest ${Math.round(Math.max(...answeredMs))} ms; server RSS ${mib(rssBefore)} before, ${mib(rssPeak)} at most during, ${mib(rssAfter)} after`);
      if (rssBefore !== null && rssPeak !== null && rssAfter !== null) {
        assert.ok(rssPeak < rssBefore + 1536 * 1024 * 1024, `server RSS grew from ${mib(rssBefore)} to ${mib(rssPeak)} during the query`);
        assert.ok(rssAfter < rssBefore + rssReturnedMarginBytes, `server RSS ${mib(rssBefore)} before the query, ${mib(rssAfter)} after its stop`);
      }

      const next = await call(querying, "memory_graph_query", {
        query: "MATCH (e:Entity) WHERE e.session_id = $session_id AND e.entity_type = 'goal' RETURN e.name AS name",
      });
      assert.equal(next.isError, false, JSON.stringify(next.doc));
      assert.deepEqual(next.doc.rows, [{ name: "Ship the release" }]);
      assert.equal(next.doc.truncated, false);

      const capped = await call(querying, "memory_graph_query", { query: "UNWIND range(1, 50) AS x RETURN x", limit: 10 });
      assert.equal(capped.isError, false, JSON.stringify(capped.doc));
      assert.deepEqual(capped.doc.rows, Array.from({ length: 10 }, (_, i) => ({ x: i + 1 })));
      assert.equal(capped.doc.row_count, 10);
      assert.equal(capped.doc.truncated, true);
      assert.equal(capped.doc.limit, 10);
      const whole = await call(querying, "memory_graph_query", { query: "UNWIND range(1, 10) AS x RETURN x", limit: 10 });
      assert.equal(whole.doc.row_count, 10);
      assert.equal(whole.doc.truncated, false);
      assert.equal(whole.doc.limit, 10);
    } finally {
      await Promise.allSettled(clients.map((client) => client.close()));
      await server.stop();
    }
  });

  test("zaxy memory graph stops a runaway UNWIND at --timeout-ms: exit 2, query_timeout, nothing on stdout but the error", slow, async () => {
    const root = makeTempDir("zaxy-graph-stop-cli");
    const where = ["--eventloom-path", `${root}/.eventloom`, "--session-id", "s"];
    const appended = runZaxy(["memory", "append", "goal.created", "--actor", "agent-1", "--payload-json", '{"title":"Ship the release"}', ...where], { cwd: root });
    assert.equal(appended.code, 0, appended.stderr);
    // The runaway may take its 1 s limit plus a margin longer than an ordinary query: both bring
    // the session up to date and load Kuzu first, which on a loaded machine takes many seconds.
    const ordinaryStarted = performance.now();
    const ordinary = runZaxy(["memory", "graph", "MATCH (e:Entity) RETURN count(*) AS n", "--json", ...where], { cwd: root });
    assert.equal(ordinary.code, 0, ordinary.stderr);
    const boundMs = performance.now() - ordinaryStarted + stopBoundMs;
    const started = performance.now();
    const run = await within(
      new Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }>((resolve, reject) => {
        const child = spawn(zaxyInvocation.command, [...zaxyInvocation.args, "memory", "graph", runaway, "--timeout-ms", "1000", "--json", ...where], { cwd: root, env: childEnv(), stdio: ["ignore", "pipe", "pipe"] });
        let stdout = "";
        let stderr = "";
        child.stdout!.on("data", (chunk) => void (stdout += chunk));
        child.stderr!.on("data", (chunk) => void (stderr += chunk));
        const killer = setTimeout(() => child.kill("SIGKILL"), boundMs + 1000);
        child.once("error", reject);
        child.once("close", (code, signal) => (clearTimeout(killer), resolve({ code, signal, stdout, stderr })));
      }),
      boundMs + 5000,
      "zaxy memory graph",
    );
    const elapsedMs = performance.now() - started;
    assert.ok(elapsedMs < boundMs, `zaxy memory graph took ${Math.round(elapsedMs)} ms, more than ${Math.round(boundMs)} ms (signal ${run.signal})`);
    assert.equal(run.code, 2, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), {
      error: {
        code: "query_timeout",
        message: "The graph query ran past its time limit (--timeout-ms 1000) and was stopped; nothing was changed",
        hint: "Narrow the query (filter on session_id, add LIMIT) or raise --timeout-ms (at most 60000); see zaxy help --topic graph (docs/graph.md)",
        field: "--timeout-ms",
      },
    });

    const next = runZaxy(["memory", "graph", "UNWIND range(1, 5) AS x RETURN x", "--limit", "3", "--json", ...where], { cwd: root });
    assert.equal(next.code, 0, next.stderr);
    const doc = JSON.parse(next.stdout);
    assert.deepEqual(doc.rows, [{ x: 1 }, { x: 2 }, { x: 3 }]);
    assert.equal(doc.truncated, true);
    assert.equal(doc.limit, 3);
  });
});
