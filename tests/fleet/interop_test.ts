/**
 * The real FleetBench fleet log (fixtures/interop/v1-fleet.fleetbench.jsonl, written by the
 * Python implementation) replays to its one active outcome promotion, and for the same inputs
 * zaxy computes the same promotion_id, the same gate payload and the same promotion payload
 * (canonical bytes and key order).
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { canonicalJson, type JsonObject } from "../../src/canonical/mod.ts";
import { readEvents } from "../../src/eventloom/mod.ts";
import { defaultEvolutionPolicy, evaluateEvolutionGate, gateEventPayload } from "../../src/governance/evolutionGate.ts";
import { fleetAudit, fleetPromotionId, fleetStatus, promotionPayload, summarizeFleetEvents } from "../../src/fleet/mod.ts";
import { interopDir, makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";

after(removeTempDirs);

const fixture = path.join(interopDir, "v1-fleet.fleetbench.jsonl");
const recordedId = "fleetpromo:5f68f0accd2f9972a87693b9";

function withoutSecurity(payload: JsonObject): JsonObject {
  const copy = new Map(payload);
  copy.delete("__zaxy_security");
  return copy;
}

describe("FleetBench interop", () => {
  const { events } = readEvents(fixture);

  test("replays to one active outcome promotion with the recorded promotion_id", () => {
    const state = summarizeFleetEvents("fleetbench", events);
    assert.equal(state.summary, "FleetBench scale fleet");
    assert.deepEqual([...state.agents], [["coordinator", "steward"], ["fleet-agent-000", "member"], ["fleet-agent-001", "member"], ["fleet-agent-002", "member"]]);
    assert.deepEqual([...state.promotions.keys()], [recordedId]);
    const promotion = state.promotions.get(recordedId)!;
    assert.equal(promotion.kind, "outcome");
    assert.equal(promotion.reviewStatus, "active");
    assert.equal(promotion.conflictKey, "auth.failure.cause");
    assert.deepEqual(promotion.gateEvent, { seq: 6, hash: events[5].hash });
  });

  test("the same inputs give the same promotion_id, gate payload and promotion payload (bytes and key order)", () => {
    const recordedGate = withoutSecurity(events[5].payload);
    const recordedPromotion = withoutSecurity(events[6].payload);
    const sources = [{ seq: 1, hash: "376a8c1a11496c45860a2b58aa9cecf8844c07314e30fd38802d182a0bd0aaf8" }];
    const id = fleetPromotionId("fleetbench", "outcome", "fleet-agent-000", sources);
    assert.equal(id, recordedId);
    const gate = gateEventPayload(evaluateEvolutionGate("promote", 0.95, defaultEvolutionPolicy), {
      candidate_id: id,
      seq: 1,
      hash: sources[0].hash,
      name: "JWKS cache expiry is the accepted auth failure cause.",
      entity_type: "fleet.outcome",
    });
    assert.equal(canonicalJson(gate), canonicalJson(recordedGate));
    assert.deepEqual([...gate.keys()], [...recordedGate.keys()]);
    const payload = promotionPayload({
      promotionId: id,
      fleetId: "fleetbench",
      subject: { kind: "outcome", outcome: "failure", summary: "JWKS cache expiry is the accepted auth failure cause.", claimKey: "auth.failure.cause" },
      originSession: "fleet-agent-000",
      originActor: "fleet-agent-000",
      visibilityScope: "fleet",
      confidence: 0.95,
      sourceEvents: sources,
      gateEvent: { seq: 6, hash: events[5].hash },
      reviewStatus: "active",
    });
    assert.equal(canonicalJson(payload), canonicalJson(recordedPromotion));
    assert.deepEqual([...payload.keys()], [...recordedPromotion.keys()]);
  });

  test("status of a copy of the log; audit resolves the gate ref and reports the missing origin session", async () => {
    const root = path.join(makeTempDir("zaxy-fleetbench"), ".eventloom");
    fs.mkdirSync(root, { recursive: true });
    fs.copyFileSync(fixture, path.join(root, "fleet.fleetbench.jsonl"));
    const status = await fleetStatus(root, "fleetbench");
    assert.equal(status.active_promotion_count, 1);
    assert.equal((status.promotions as Array<{ promotion_id: string }>)[0].promotion_id, recordedId);
    const audit = await fleetAudit(root, "fleetbench");
    assert.equal(audit.ok, false);
    const unresolved = audit.unresolved as Array<{ ref: string; citation: string; problem: string }>;
    assert.equal(unresolved.length, 1);
    assert.equal(unresolved[0].ref, "source_event");
    assert.equal(unresolved[0].citation, "eventloom://fleet-agent-000/events/1#376a8c1a1149");
    assert.match(unresolved[0].problem, /origin session "fleet-agent-000" has no log/);
    const gate = (audit.promotions as Array<{ gate_event: { resolved: boolean; decision: string } }>)[0].gate_event;
    assert.deepEqual([gate.resolved, gate.decision], [true, "auto_apply"]);
  });
});
