// test-lane: full (bench command)
/**
 * `zaxy bench fleet` through the BUILT binary on 4 scenarios (one of each kind and one global
 * scope): the document's shape, transfer 1.0, negative control 0, every governance check held,
 * sample counts that match the plan, and exit 2 for a scenario count outside its range. The
 * scenario plan itself is checked in-process.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { receiversMax, receiversMin, scenarioPlan } from "../../src/bench/fleetBench.ts";
import { repoRoot, runZaxy, stackTraceLines } from "../cli/zaxy.ts";

test("scenarioPlan rotates kinds, 3..10 receivers and a global scope every fourth scenario", () => {
  const plans = Array.from({ length: 24 }, (_, i) => scenarioPlan(i));
  assert.deepEqual(plans.slice(0, 4).map((p) => [p.kind, p.scope, p.receivers.length]), [
    ["skill", "fleet", 3], ["outcome", "fleet", 4], ["rule", "fleet", 5], ["skill", "global", 6],
  ]);
  assert.deepEqual([Math.min(...plans.map((p) => p.receivers.length)), Math.max(...plans.map((p) => p.receivers.length))], [receiversMin, receiversMax]);
  assert.equal(plans.filter((p) => p.scope === "global").length, 6);
  assert.deepEqual(plans[9].receivers.slice(0, 2), ["agent-r01", "agent-r02"]);
  assert.equal(new Set(plans.map((p) => p.code)).size, 24);
});

test("bench fleet: transfer 1, negative control 0, governance 1, with timings and the machine", { timeout: 120_000 }, () => {
  const run = runZaxy(["bench", "fleet", "--scenarios", "4", "--json"], { cwd: repoRoot });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stderr, "");
  const doc = JSON.parse(run.stdout);
  assert.equal(doc.schema, "zaxy.bench.fleet.v1");
  assert.deepEqual(Object.keys(doc), ["schema", "scenarios", "scenario_plan", "transfer", "negative_control", "governance", "timings_ms", "failures", "targets", "machine"]);
  assert.equal(doc.scenarios, 4);
  assert.deepEqual(doc.scenario_plan, { receivers_min: 3, receivers_max: 10, kinds: { skill: 2, outcome: 1, rule: 1 }, scopes: { fleet: 3, global: 1 } });
  assert.deepEqual(doc.transfer, { rate: 1, hits: 18, receivers: 18 });
  assert.deepEqual(doc.negative_control, { rate: 0, leaks: 0, checkouts: 12, stranger_leaks: 0, untrusted_leaks: 0, lane_off_leaks: 0 });
  assert.deepEqual(doc.governance, {
    rate: 1, scenarios_held: 4, rejection_appends_nothing_rate: 1, gate_event_cited_rate: 1, keystone_hold_pending_rate: 1,
    pending_excluded_until_review_rate: 1, rollback_reactivates_rate: 1,
  });
  assert.deepEqual(doc.failures, []);
  assert.deepEqual([doc.timings_ms.promote.count, doc.timings_ms.checkout_fleet_lane.count, doc.timings_ms.fleet_lane_build.count, doc.timings_ms.scenario.count], [4, 18, 4, 4]);
  assert.ok(doc.timings_ms.checkout_fleet_lane.p50_ms > 0 && doc.timings_ms.total_ms > 0);
  assert.deepEqual(Object.values(doc.targets).map((t) => (t as { met: boolean }).met), [true, true, true]);
  assert.equal(typeof doc.machine.cpu, "string");
});

test("bench fleet refuses a scenario count outside 1..1000 with exit 2 naming the flag", () => {
  for (const value of ["0", "1001", "x"]) {
    const run = runZaxy(["bench", "fleet", "--scenarios", value, "--json"], { cwd: repoRoot });
    assert.equal(run.code, 2, value);
    assert.deepEqual(stackTraceLines(run.stderr), []);
    const { error } = JSON.parse(run.stdout);
    assert.equal(error.field, "--scenarios");
    assert.match(error.message, new RegExp(`--scenarios must be an integer 1\\.\\.1000, got "${value}"`));
  }
});
