/**
 * `zaxy bench checkout` on 300 events and 10 queries against the BUILT binary (`dist/zaxy`):
 * warm memory_checkout latency over MCP stdio, cold fresh processes, cold after an append.
 * Skipped when dist/zaxy has not been built (`node_modules/.bin/bun build.ts`).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import { runCheckoutBench } from "../../src/bench/checkoutBench.ts";
import { builtBinary } from "../cli/zaxy.ts";

const skip = fs.existsSync(builtBinary) ? false : `${builtBinary} does not exist; build it with node_modules/.bin/bun build.ts`;
if (skip) console.error(`skipping bench checkout test: ${skip}`);

test("runCheckoutBench reports warm percentiles, cold medians and targets", { skip, timeout: 180_000 }, async () => {
  const doc = await runCheckoutBench({ events: 300, queries: 10, coldRuns: 3, appendRuns: 1, baselineEvents: 100, zaxyCommand: [builtBinary] });
  assert.equal(doc.warm.error, null);
  assert.equal(doc.warm.errors, 0);
  assert.equal(doc.warm.queries, 10);
  const latency = doc.warm.latency!;
  assert.equal(latency.count, 10);
  assert.ok(latency.p50_ms > 0 && latency.p50_ms <= latency.p95_ms && latency.p95_ms <= latency.p99_ms);
  assert.ok(doc.warm.first_call_ms !== null && doc.warm.first_call_ms > 0);
  assert.deepEqual(doc.cold.failures, []);
  assert.equal(doc.cold.runs_ms.length, 3);
  assert.ok(doc.cold.median_ms !== null && doc.cold.median_ms > 0);
  assert.deepEqual(doc.cold_after_append.failures, []);
  assert.equal(doc.cold_after_append.runs_ms.length, 1);
  assert.ok(doc.setup.entity_versions > 0);
  // Each fresh process reports its own peak RSS (ZAXY_PEAK_RSS_FILE), not the largest child's.
  assert.equal(doc.cold.peak_rss_mib.length, 3);
  assert.ok(doc.cold.max_peak_rss_mib! > 10 && doc.cold.max_peak_rss_mib! < 2048, String(doc.cold.max_peak_rss_mib));
  assert.equal(doc.baseline!.events, 100);
  assert.equal(doc.baseline!.runs_ms.length, 3);
  assert.equal(doc.baseline!.ratio, Math.round((doc.cold.median_ms! / doc.baseline!.median_ms!) * 100) / 100);
  assert.deepEqual(doc.agent_loop.failures, []);
  assert.equal(doc.agent_loop.runs_ms.length, 1);
  assert.deepEqual(Object.keys(doc.targets), ["warm_p95_ms", "cold_median_ms", "cold_peak_rss_mib", "cold_ratio_to_baseline", "first_mcp_checkout_ms", "agent_loop_median_ms"]);
  assert.equal(doc.targets.warm_p95_ms.met, latency.p95_ms <= 50);
  assert.equal(doc.targets.cold_median_ms.met, doc.cold.median_ms! <= 150);
  assert.equal(doc.targets.cold_ratio_to_baseline.met, doc.baseline!.ratio! <= 3);
});
