// test-lane: full (bench command, slow)
/**
 * `zaxy bench mcp-http` through the CLI: a real `zaxy serve --http` on loopback, a few hundred
 * mixed calls, RSS at the checkpoint and at the end, then a runaway graph query stopped at its
 * `timeout_ms` while another client is answered.
 */
import assert from "node:assert/strict";
import { runZaxy } from "../cli/zaxy.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { after, test } from "node:test";

after(removeTempDirs);

test("bench mcp-http reports RSS at the checkpoint and the end, and a runaway graph query stopped at its limit", { timeout: 300_000 }, () => {
  const dir = makeTempDir("zaxy-bench-mcp-http");
  const run = runZaxy(["bench", "mcp-http", "--calls", "300", "--checkpoint", "100", "--json"], { cwd: dir, timeoutMs: 290_000 });
  assert.equal(run.code, 0, run.stderr);
  const doc = JSON.parse(run.stdout);
  assert.equal(doc.calls, 300);
  assert.equal(doc.checkpoint_calls, 100);
  assert.equal(doc.errors, 0, "no call was answered with an HTTP error");
  assert.ok(doc.sessions_opened >= 30 && doc.sessions_abandoned >= 14, JSON.stringify(doc));
  for (const key of ["rss_start_mb", "rss_after_checkpoint_mb", "rss_after_all_mb"]) assert.ok(doc[key] > 10, `${key}: ${doc[key]}`);
  assert.equal(doc.rss_difference_mb, Math.round((doc.rss_after_all_mb - doc.rss_after_checkpoint_mb) * 10) / 10);
  const stop = doc.graph_query_stop;
  assert.equal(stop.query, "UNWIND range(1, 30000000) AS x RETURN count(x)");
  assert.equal(stop.timeout_ms, 1000);
  assert.equal(stop.stopped_at_limit, true, JSON.stringify(stop));
  assert.ok(stop.answered_ms >= 1000, `answered after its limit, not before: ${stop.answered_ms}`);
  assert.ok(stop.other_client_calls >= 1, "another client was answered while the query ran");
  assert.ok(stop.rss_peak_mb - stop.rss_before_mb < 1536, `the query's memory stayed bounded: ${JSON.stringify(stop)}`);
  assert.ok(stop.rss_settled_ms !== null && stop.rss_after_mb <= stop.rss_before_mb + 64, `the server's memory came back: ${JSON.stringify(stop)}`);
  assert.deepEqual(Object.keys(doc.targets), ["rss_growth_mb", "graph_query_stop_ms"]);
  assert.equal(doc.targets.graph_query_stop_ms.met, stop.answered_ms <= 1000 + stop.ordinary_query_ms + 5000);
});
