// deno-test: own-process (loads kuzu-wasm in this process; scripts/deno-test.sh runs it alone)
// test-lane: full (slow)
/**
 * `queryGraph` runs each statement on a worker thread of its own and terminates it at its
 * limits: memory the query adds to the process (lowered here so a test can reach it), the time
 * limit, and the row limit. The calling thread keeps running meanwhile.
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import { test } from "node:test";
import { fromJs } from "../../src/canonical/mod.ts";
import { appendEvents } from "../../src/events/append.ts";
import { queryGraph } from "../../src/projection/graphQuery.ts";
import { makeTempDir } from "../eventloom/testkit.ts";

const slow = { timeout: 180_000 };
const runaway = "UNWIND range(1, 30000000) AS x RETURN count(x)";
const warn = (message: string) => assert.fail(`unexpected warning: ${message}`);

/**
 * One session for every test (made once): the queries only read it, and the first brings its
 * graph up to date, so the tests after it skip that step.
 */
let sharedRoot: Promise<string> | undefined;

function sessionRoot(): Promise<string> {
  sharedRoot ??= (async () => {
    const root = path.join(makeTempDir("zaxy-graph-limits"), ".eventloom");
    await appendEvents(root, "s", [{ type: "goal.created", actor: "agent-1", payload: fromJs({ title: "Ship the release" }) }]);
    return root;
  })();
  return sharedRoot;
}

test("queryGraph stops a statement that grows the process past its memory bound, keeps this thread running, and answers the next query", slow, async () => {
  const root = await sessionRoot();
  let ticks = 0;
  const ticker = setInterval(() => void ticks++, 50);
  try {
    const error = await queryGraph(root, "s", { query: runaway, timeoutMs: 60_000, memoryBytesMax: 64 * 1024 * 1024 }, warn).then(
      () => assert.fail("the runaway query returned"),
      (e) => e,
    );
    assert.equal(error.code, "query_memory_exceeded");
    assert.equal(error.exitCode, 2);
    assert.equal(error.message, "The graph query used more than 64 MiB of memory (the limit for one graph query) and was stopped; nothing was changed");
  } finally {
    clearInterval(ticker);
  }
  assert.ok(ticks > 5, `this thread ran ${ticks} timer ticks while the query ran`);
  const next = await queryGraph(root, "s", { query: "MATCH (e:Entity {entity_type: 'goal'}) RETURN e.name AS name" }, warn);
  assert.deepEqual(next.rows, [{ name: "Ship the release" }]);
  assert.equal(next.truncated, false);
  assert.equal(next.limit, 1000);
});

test("queryGraph stops a runaway statement at timeoutMs with query_timeout naming the limit", slow, async () => {
  const root = await sessionRoot();
  const started = performance.now();
  const error = await queryGraph(root, "s", { query: runaway, timeoutMs: 500 }, warn).then(() => assert.fail("the runaway query returned"), (e) => e);
  assert.equal(error.code, "query_timeout");
  assert.equal(error.message, "The graph query ran past its time limit (timeout_ms 500) and was stopped; nothing was changed");
  assert.equal(error.details.field, "timeout_ms");
  assert.ok(performance.now() - started < 60_000);
});

test("queryGraph returns exactly limit rows with truncated when there are more, and all of them without when there are not", slow, async () => {
  const root = await sessionRoot();
  const cut = await queryGraph(root, "s", { query: "UNWIND range(1, 11) AS x RETURN x", limit: 10 }, warn);
  assert.equal(cut.row_count, 10);
  assert.equal(cut.truncated, true);
  assert.equal(cut.limit, 10);
  assert.deepEqual(cut.rows.at(-1), { x: 10 });
  const whole = await queryGraph(root, "s", { query: "UNWIND range(1, 10) AS x RETURN x", limit: 10 }, warn);
  assert.equal(whole.row_count, 10);
  assert.equal(whole.truncated, false);
});
