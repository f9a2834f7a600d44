// test-lane: full (concurrent processes)
/**
 * Concurrent promotions into one fleet thread (DESIGN §2.3, §10): separate `zaxy` processes
 * promote at the same time. The chain must stay valid, nothing may be lost, the same evidence
 * promoted twice must still be one promotion, and conflict decisions must have been made on the
 * state they appended to (so at most one outcome value is active per claim key at the end).
 */
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { readEvents } from "../../src/eventloom/mod.ts";
import { summarizeFleetEvents } from "../../src/fleet/mod.ts";
import { runZaxy, runZaxyAsync } from "../cli/zaxy.ts";
import { refVerify, removeTempDirs, skipWithoutPython } from "../eventloom/testkit.ts";
import { agentOfTier, makeFleet } from "./fleetkit.ts";

after(removeTempDirs);

describe("concurrent promotions", () => {
  test("12 processes promoting into one fleet at once: valid chain, every promotion exactly once, consistent supersession", { timeout: 120_000 }, async () => {
    const fx = await makeFleet(10);
    const argsFor = (i: number) => [
      "fleet", "promote-outcome", "alpha",
      "--outcome", i % 2 === 0 ? "failure" : "success",
      "--summary", `lesson ${i}`,
      "--claim-key", "auth.failure.cause",
      "--origin-session", "origin",
      "--source-event", `${fx.sources[i].seq}:${fx.sources[i].hash}`,
      "--confidence", "0.9",
      "--actor", agentOfTier.member,
      "--eventloom-path", fx.root,
      "--json",
    ];
    // Sources 0..9 once each, and source 0 twice more: 10 distinct promotions from 12 processes.
    const indexes = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0];
    const runs = await Promise.all(indexes.map((i) => runZaxyAsync(argsFor(i), { cwd: fx.dir })));
    runs.forEach((run, k) => assert.equal(run.code, 0, `process ${k}: ${run.stderr}`));
    const results = runs.map((run) => JSON.parse(run.stdout) as { promotion_id: string; idempotent: boolean });
    const distinct = new Set(results.map((r) => r.promotion_id));
    assert.equal(distinct.size, 10);
    assert.equal(results.filter((r) => r.idempotent).length, 2, "the two repeats of source 0 found the first one");

    const verify = runZaxy(["verify", fx.fleetLog, "--json"], { cwd: fx.dir });
    assert.equal(verify.code, 0, verify.stdout);
    assert.equal(JSON.parse(verify.stdout).ok, true);

    if (skipWithoutPython === false) assert.equal(refVerify(fx.fleetLog).verdict.ok, true, "the Python reference verifier accepts the fleet log");

    const events = readEvents(fx.fleetLog).events;
    const promotions = events.filter((e) => e.type === "fleet.outcome.propagated");
    assert.deepEqual(promotions.map((e) => e.payload.get("promotion_id")).sort(), [...distinct].sort());
    assert.equal(events.filter((e) => e.type === "evolution.gate.evaluated").length, 10);
    for (const event of promotions) {
      const gate = event.payload.get("gate_event") as Map<string, unknown>;
      assert.equal(events[event.seq - 2].type, "evolution.gate.evaluated");
      assert.equal(gate.get("hash"), events[event.seq - 2].hash, "each promotion cites the gate event sealed just before it");
    }
    const state = summarizeFleetEvents("alpha", events);
    const active = [...state.promotions.values()].filter((p) => p.reviewStatus === "active");
    assert.equal(active.length >= 1, true);
    assert.equal(new Set(active.map((p) => p.conflictValue)).size, 1, "no two conflicting outcomes are both active");
    // The most recent promotion is the winner: it is active.
    const last = promotions[promotions.length - 1].payload.get("promotion_id") as string;
    assert.equal(state.promotions.get(last)!.reviewStatus, "active");
  });
});
