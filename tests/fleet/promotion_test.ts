/**
 * The promotion algorithm and membership rules (DESIGN §10; reference §5.4 and the
 * test_fleet / test_fleet_manager checklists), asserted on the bytes of the fleet thread.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { readEvents, verifyLog } from "../../src/eventloom/mod.ts";
import { isZaxyError } from "../../src/errors.ts";
import {
  createFleet,
  enrollAgent,
  fleetAudit,
  fleetStatus,
  fleetStatusDocument,
  promote,
  type PromotionInput,
  reviewPromotion,
  rollbackPromotion,
  summarizeFleetEvents,
  trustTiers,
  visibilityScopes,
} from "../../src/fleet/mod.ts";
import { python, removeTempDirs, skipWithoutPython } from "../eventloom/testkit.ts";
import { agentOfTier, assignTrust, autoPolicy, fileBytes, makeFleet, reviewPolicy, steward } from "./fleetkit.ts";

after(removeTempDirs);

function outcome(fixture: { sources: { seq: number; hash: string }[] }, actor: string, sourceIndex: number, extra: Partial<PromotionInput> = {}): PromotionInput {
  return {
    fleetId: "alpha",
    actor,
    originSession: "origin",
    sourceEvents: [fixture.sources[sourceIndex]],
    confidence: 0.95,
    outcome: "failure",
    summary: `lesson ${sourceIndex}`,
    claimKey: "auth.failure.cause",
    ...extra,
  };
}

function fleetTypes(log: string): string[] {
  return readEvents(log).events.map((e) => e.type);
}

function isCode(code: string, exitCode: number) {
  return (e: unknown) => isZaxyError(e) && e.code === code && e.exitCode === exitCode;
}

describe("trust × visibility scope", () => {
  test("every tier × scope: narrower than fleet is bad input, above the tier's ceiling rejected with nothing appended, else promoted", async () => {
    const fx = await makeFleet(40);
    const ceiling = { untrusted: "session", member: "fleet", trusted: "global", steward: "global" } as const;
    let source = 0;
    for (const tier of trustTiers) {
      for (const scope of visibilityScopes) {
        const before = fileBytes(fx.fleetLog);
        const input = outcome(fx, agentOfTier[tier], source++, { visibilityScope: scope, claimKey: `claim-${tier}-${scope}` });
        if (scope !== "fleet" && scope !== "global") {
          await assert.rejects(promote(fx.root, "outcome", input, { policy: autoPolicy }), isCode("invalid_visibility_scope", 2), `${tier} × ${scope}`);
          assert.deepEqual(fileBytes(fx.fleetLog), before, `${tier} × ${scope}: log unchanged`);
          continue;
        }
        const allowed = visibilityScopes.indexOf(scope) <= visibilityScopes.indexOf(ceiling[tier]);
        const result = await promote(fx.root, "outcome", input, { policy: autoPolicy });
        if (allowed) {
          assert.equal(result.rejected, false, `${tier} × ${scope}`);
          assert.equal(result.review_status, "active");
          assert.ok(fileBytes(fx.fleetLog).length > before.length);
        } else {
          assert.equal(result.rejected, true, `${tier} × ${scope}`);
          assert.equal(
            result.reason,
            `insufficient trust: actor '${agentOfTier[tier]}' (tier '${tier}') may not propose visibility_scope '${scope}'; max proposable scope is '${ceiling[tier]}'`,
          );
          assert.equal(result.gate_event, null);
          assert.deepEqual(fileBytes(fx.fleetLog), before, `${tier} × ${scope}: rejection leaves the log byte-identical`);
        }
      }
    }
    assert.equal((await verifyLog(fx.fleetLog)).ok, true);
  });

  test("an agent that is not enrolled is rejected and nothing is appended", async () => {
    const fx = await makeFleet();
    const before = fileBytes(fx.fleetLog);
    const result = await promote(fx.root, "outcome", outcome(fx, "stranger", 0), { policy: autoPolicy });
    assert.equal(result.rejected, true);
    assert.equal(result.reason, "insufficient trust: actor 'stranger' (not enrolled) may not propose visibility_scope 'fleet'; max proposable scope is 'none'");
    assert.deepEqual(fileBytes(fx.fleetLog), before);
  });
});

describe("promotion events", () => {
  test("gate event first, then the promotion citing it and its sources; every fleet event non_authoritative", async () => {
    const fx = await makeFleet();
    const result = await promote(fx.root, "skill", { fleetId: "alpha", actor: agentOfTier.member, originSession: "origin", originActor: "origin-agent", sourceEvents: [fx.sources[2], fx.sources[3]], confidence: 0.9, skillId: "jwks-refresh", skillVersion: "2" }, { policy: autoPolicy });
    const events = readEvents(fx.fleetLog).events;
    const gate = events[result.gate_event!.seq - 1];
    const promotion = events[result.promotion_event!.seq - 1];
    assert.equal(gate.type, "evolution.gate.evaluated");
    assert.equal(promotion.seq, gate.seq + 1);
    assert.equal(promotion.type, "fleet.skill.promoted");
    const payload = promotion.payload;
    assert.deepEqual([payload.get("review_status"), payload.get("keystone"), payload.get("visibility_scope"), payload.get("origin_actor")], ["active", false, "fleet", "origin-agent"]);
    const gateRef = payload.get("gate_event") as Map<string, unknown>;
    assert.equal(gateRef.get("hash"), gate.hash);
    const cited = (payload.get("source_events") as Array<Map<string, unknown>>).map((m) => m.get("hash"));
    assert.deepEqual(cited, [fx.sources[2].hash, fx.sources[3].hash]);
    assert.equal((gate.payload.get("candidate_ref") as Map<string, unknown>).get("candidate_id"), result.promotion_id);
    assert.equal(gate.payload.get("op"), "promote");
    for (const event of events.filter((e) => e.type.startsWith("fleet."))) {
      assert.equal(event.payload.get("authority_status"), "non_authoritative", event.type);
      assert.equal(event.payload.get("fleet_id"), "alpha", event.type);
    }
  });

  test("the same promotion twice: one gate, one promotion event, one id", async () => {
    const fx = await makeFleet();
    const first = await promote(fx.root, "outcome", outcome(fx, agentOfTier.member, 0), { policy: autoPolicy });
    const bytes = fileBytes(fx.fleetLog);
    const second = await promote(fx.root, "outcome", outcome(fx, agentOfTier.member, 0, { summary: "reworded", confidence: 0.99 }), { policy: autoPolicy });
    assert.equal(second.promotion_id, first.promotion_id);
    assert.equal(second.idempotent, true);
    assert.deepEqual(second.promotion_event, first.promotion_event);
    assert.deepEqual(fileBytes(fx.fleetLog), bytes);
    const types = fleetTypes(fx.fleetLog);
    assert.equal(types.filter((t) => t === "fleet.outcome.propagated").length, 1);
    assert.equal(types.filter((t) => t === "evolution.gate.evaluated").length, 1);
  });

  test("confidence 0.5 under the default policy is pending; require_review is pending, then accepted → active", async () => {
    const fx = await makeFleet();
    const low = await promote(fx.root, "outcome", outcome(fx, agentOfTier.member, 0, { confidence: 0.5 }), { policy: autoPolicy });
    assert.deepEqual([low.review_status, low.auto_applied], ["pending", false]);
    assert.equal(low.reason, "promote: held for review under auto_with_rollback (confidence 0.500 < threshold 0.850)");
    const held = await promote(fx.root, "outcome", outcome(fx, agentOfTier.member, 1, { claimKey: "other" }), { policy: reviewPolicy });
    assert.equal(held.review_status, "pending");
    assert.equal(held.reason, "promote: held for review (tier require_review)");
    const review = await reviewPromotion(fx.root, { fleetId: "alpha", promotionId: held.promotion_id, decision: "accepted", actor: steward, rationale: "checked" });
    assert.equal(review.review_status, "active");
    const status = await fleetStatus(fx.root, "alpha");
    const byId = new Map((status.promotions as Array<{ promotion_id: string; review_status: string }>).map((p) => [p.promotion_id, p.review_status]));
    assert.equal(byId.get(held.promotion_id), "active");
    assert.equal(byId.get(low.promotion_id), "pending");
  });

  test("a conflicting auto-applied promotion supersedes the older one additively", async () => {
    const fx = await makeFleet();
    const older = await promote(fx.root, "outcome", outcome(fx, agentOfTier.member, 0), { policy: autoPolicy });
    const lengthBefore = readEvents(fx.fleetLog).events.length;
    const newer = await promote(fx.root, "outcome", outcome(fx, agentOfTier.trusted, 1, { outcome: "success" }), { policy: autoPolicy });
    assert.equal(newer.supersessions.length, 1);
    assert.equal(newer.supersessions[0].superseded_promotion_id, older.promotion_id);
    const events = readEvents(fx.fleetLog).events;
    assert.deepEqual(events.slice(lengthBefore).map((e) => e.type), ["evolution.gate.evaluated", "fleet.outcome.propagated", "fleet.memory.superseded"]);
    const superseded = events[events.length - 1].payload;
    assert.equal(superseded.get("claim_key"), "auth.failure.cause");
    const cited = (superseded.get("source_events") as Array<Map<string, unknown>>).map((m) => m.get("hash"));
    assert.deepEqual(cited, [older.promotion_event!.hash, newer.promotion_event!.hash]);
    // Additive: the older promotion event is still there, byte for byte.
    assert.equal(events[older.promotion_event!.seq - 1].hash, older.promotion_event!.hash);
    const state = summarizeFleetEvents("alpha", events);
    assert.equal(state.promotions.get(older.promotion_id)!.reviewStatus, "superseded");
    assert.equal(state.promotions.get(newer.promotion_id)!.reviewStatus, "active");
  });

  test("a conflict with an active keystone is held pending and supersedes nothing", async () => {
    const fx = await makeFleet();
    const base = { fleetId: "alpha", originSession: "origin", confidence: 0.95, trigger: "auth 401 spike" };
    const keystone = await promote(fx.root, "rule", { ...base, actor: agentOfTier.trusted, sourceEvents: [fx.sources[0]], rule: "refresh JWKS", keystone: true }, { policy: autoPolicy });
    assert.equal(keystone.review_status, "active");
    const challenger = await promote(fx.root, "rule", { ...base, actor: agentOfTier.member, sourceEvents: [fx.sources[1]], rule: "restart the pod" }, { policy: autoPolicy });
    assert.equal(challenger.review_status, "pending");
    assert.equal(challenger.reason, "held pending steward review: conflicts with an active keystone");
    assert.deepEqual(challenger.supersessions, []);
    assert.equal(fleetTypes(fx.fleetLog).filter((t) => t === "fleet.memory.superseded").length, 0);
    const state = summarizeFleetEvents("alpha", readEvents(fx.fleetLog).events);
    assert.equal(state.promotions.get(keystone.promotion_id)!.reviewStatus, "active");
  });

  test("rolling back the winner re-activates the loser; within_rollback_window recorded", async () => {
    const fx = await makeFleet();
    const loser = await promote(fx.root, "skill", { fleetId: "alpha", actor: agentOfTier.member, originSession: "origin", sourceEvents: [fx.sources[0]], confidence: 0.9, skillId: "s", skillVersion: "1" }, { policy: autoPolicy });
    const winner = await promote(fx.root, "skill", { fleetId: "alpha", actor: agentOfTier.member, originSession: "origin", sourceEvents: [fx.sources[1]], confidence: 0.9, skillId: "s", skillVersion: "2" }, { policy: autoPolicy });
    assert.equal(winner.supersessions.length, 1);
    const rollback = await rollbackPromotion(fx.root, { fleetId: "alpha", promotionId: winner.promotion_id, reason: "version 2 regressed", actor: agentOfTier.member }, { policy: autoPolicy });
    assert.deepEqual([rollback.refused, rollback.within_rollback_window, rollback.reactivated], [false, true, [loser.promotion_id]]);
    const events = readEvents(fx.fleetLog).events;
    const rolled = events[events.length - 1];
    assert.equal(rolled.type, "fleet.promotion.rolled_back");
    assert.equal(rolled.payload.get("within_rollback_window"), true);
    const state = summarizeFleetEvents("alpha", events);
    assert.equal(state.promotions.get(winner.promotion_id)!.reviewStatus, "rolled_back");
    assert.equal(state.promotions.get(loser.promotion_id)!.reviewStatus, "active");
    const again = await rollbackPromotion(fx.root, { fleetId: "alpha", promotionId: winner.promotion_id, reason: "again", actor: steward }, { policy: autoPolicy });
    assert.equal(again.refused, true);
  });

  test("rollback outside the window is recorded as such; only a steward or the proposer may roll back", async () => {
    const fx = await makeFleet();
    const p = await promote(fx.root, "outcome", outcome(fx, agentOfTier.member, 0), { policy: autoPolicy });
    const before = fileBytes(fx.fleetLog);
    const other = await rollbackPromotion(fx.root, { fleetId: "alpha", promotionId: p.promotion_id, reason: "x", actor: agentOfTier.trusted }, { policy: autoPolicy });
    assert.equal(other.refused, true);
    assert.deepEqual(fileBytes(fx.fleetLog), before);
    const late = Date.now() * 1000 + 2 * 86_400 * 1_000_000;
    const bySteward = await rollbackPromotion(fx.root, { fleetId: "alpha", promotionId: p.promotion_id, reason: "x", actor: steward }, { policy: autoPolicy, clock: () => late });
    assert.deepEqual([bySteward.refused, bySteward.within_rollback_window], [false, false]);
  });

  test("review is steward-only and only for pending or deferred promotions", async () => {
    const fx = await makeFleet();
    const pending = await promote(fx.root, "outcome", outcome(fx, agentOfTier.member, 0), { policy: reviewPolicy });
    const before = fileBytes(fx.fleetLog);
    const byMember = await reviewPromotion(fx.root, { fleetId: "alpha", promotionId: pending.promotion_id, decision: "accepted", actor: agentOfTier.trusted });
    assert.equal(byMember.refused, true);
    assert.deepEqual(fileBytes(fx.fleetLog), before);
    await reviewPromotion(fx.root, { fleetId: "alpha", promotionId: pending.promotion_id, decision: "rejected", actor: steward });
    const twice = await reviewPromotion(fx.root, { fleetId: "alpha", promotionId: pending.promotion_id, decision: "accepted", actor: steward });
    assert.equal(twice.refused, true);
    await assert.rejects(
      reviewPromotion(fx.root, { fleetId: "alpha", promotionId: "fleetpromo:" + "0".repeat(24), decision: "accepted", actor: steward }),
      isCode("unknown_promotion", 2),
    );
    await assert.rejects(reviewPromotion(fx.root, { fleetId: "alpha", promotionId: pending.promotion_id, decision: "maybe", actor: steward }), isCode("invalid_review_decision", 2));
  });
});

describe("membership", () => {
  test("the creator is the first steward; enrolment is steward-only and never escalates; assign-trust records the prior tier", async () => {
    const fx = await makeFleet();
    const state = summarizeFleetEvents("alpha", readEvents(fx.fleetLog).events);
    assert.equal(state.createdActor, steward);
    assert.equal(state.agents.get(steward), "steward");
    const before = fileBytes(fx.fleetLog);
    const byMember = await enrollAgent(fx.root, { fleetId: "alpha", agentId: "newbie", actor: agentOfTier.member });
    assert.equal(byMember.refused, true);
    const escalate = await enrollAgent(fx.root, { fleetId: "alpha", agentId: agentOfTier.member, actor: steward, trustTier: "steward" });
    assert.deepEqual([escalate.refused, escalate.already_enrolled, escalate.trust_tier], [false, true, "member"]);
    assert.deepEqual(fileBytes(fx.fleetLog), before);
    const raised = await assignTrust(fx.root, { fleetId: "alpha", agentId: agentOfTier.member, trustTier: "trusted", actor: steward, rationale: "clean record" });
    assert.deepEqual([raised.prior_tier, raised.trust_tier], ["member", "trusted"]);
    const last = readEvents(fx.fleetLog).events.at(-1)!;
    assert.equal(last.type, "fleet.trust.assigned");
    assert.equal(last.payload.get("prior_tier"), "member");
    const denied = await assignTrust(fx.root, { fleetId: "alpha", agentId: agentOfTier.untrusted, trustTier: "steward", actor: agentOfTier.trusted });
    assert.equal(denied.refused, true);
    await assert.rejects(assignTrust(fx.root, { fleetId: "alpha", agentId: "ghost", trustTier: "member", actor: steward }), isCode("unknown_agent", 2));
    const again = await createFleet(fx.root, { fleetId: "alpha", summary: "again" });
    assert.equal(again.refused, true);
  });

  test("a fleet without agents enrolls its first agent on trust-on-first-use", async () => {
    const fx = await makeFleet(1);
    // A fleet.created without the creator's enrolment (as an older writer may leave it).
    const root = fx.root;
    const { appendEvents } = await import("../../src/events/append.ts");
    const { fleetCreatedPayload } = await import("../../src/fleet/mod.ts");
    await appendEvents(root, "fleet.empty", [{ type: "fleet.created", actor: "someone", payload: fleetCreatedPayload("empty", "no agents") }]);
    const first = await enrollAgent(root, { fleetId: "empty", agentId: "pioneer", actor: "pioneer", trustTier: "steward" });
    assert.equal(first.refused, false);
    const second = await enrollAgent(root, { fleetId: "empty", agentId: "late", actor: "late" });
    assert.equal(second.refused, true);
  });
});

describe("replay", () => {
  test("replaying the fleet thread from scratch (a copy in an empty root) reproduces fleet status exactly", async () => {
    const fx = await makeFleet();
    await promote(fx.root, "outcome", outcome(fx, agentOfTier.member, 0), { policy: autoPolicy });
    const w = await promote(fx.root, "outcome", outcome(fx, agentOfTier.trusted, 1, { outcome: "success" }), { policy: autoPolicy });
    await promote(fx.root, "rule", { fleetId: "alpha", actor: agentOfTier.member, originSession: "origin", sourceEvents: [fx.sources[2]], confidence: 0.4, rule: "r", trigger: "t" }, { policy: autoPolicy });
    await rollbackPromotion(fx.root, { fleetId: "alpha", promotionId: w.promotion_id, reason: "wrong", actor: steward }, { policy: autoPolicy });
    const live = await fleetStatus(fx.root, "alpha");
    const copyRoot = path.join(fx.dir, "copy");
    fs.mkdirSync(copyRoot);
    fs.copyFileSync(fx.fleetLog, path.join(copyRoot, "fleet.alpha.jsonl"));
    assert.equal(JSON.stringify(await fleetStatus(copyRoot, "alpha")), JSON.stringify(live));
    assert.equal(JSON.stringify(fleetStatusDocument(summarizeFleetEvents("alpha", readEvents(fx.fleetLog).events))), JSON.stringify(live));
    assert.equal(live.active_promotion_count, 1);
    assert.deepEqual(live.status_counts, { pending: 1, active: 1, rejected: 0, deferred: 0, superseded: 0, rolled_back: 1 });
  });

  test("a duplicate promotion event is inert: it never demotes or reverts a steward's acceptance", async () => {
    const fx = await makeFleet();
    const p = await promote(fx.root, "outcome", outcome(fx, agentOfTier.member, 0), { policy: reviewPolicy });
    await reviewPromotion(fx.root, { fleetId: "alpha", promotionId: p.promotion_id, decision: "accepted", actor: steward });
    const events = readEvents(fx.fleetLog).events;
    const original = events[p.promotion_event!.seq - 1];
    const { appendEvents } = await import("../../src/events/append.ts");
    await appendEvents(fx.root, "fleet.alpha", [{ type: original.type, actor: original.actor, payload: original.payload }]);
    const state = summarizeFleetEvents("alpha", readEvents(fx.fleetLog).events);
    assert.equal(state.promotions.get(p.promotion_id)!.reviewStatus, "active");
    assert.equal(state.promotions.get(p.promotion_id)!.event.seq, p.promotion_event!.seq);
  });
});

describe("bad input writes nothing", () => {
  test("unsealed source, unknown origin session, unknown fleet, bad confidence are exit-2 errors", async () => {
    const fx = await makeFleet();
    const before = fileBytes(fx.fleetLog);
    const wrongHash = { seq: 1, hash: fx.sources[1].hash };
    await assert.rejects(promote(fx.root, "outcome", { ...outcome(fx, agentOfTier.member, 0), sourceEvents: [wrongHash] }), isCode("unsealed_source_event", 2));
    await assert.rejects(promote(fx.root, "outcome", { ...outcome(fx, agentOfTier.member, 0), originSession: "nowhere" }), isCode("unknown_origin_session", 2));
    await assert.rejects(promote(fx.root, "outcome", { ...outcome(fx, agentOfTier.member, 0), fleetId: "beta" }), isCode("unknown_fleet", 2));
    await assert.rejects(promote(fx.root, "outcome", { ...outcome(fx, agentOfTier.member, 0), confidence: 1.5 }), isCode("invalid_confidence", 2));
    await assert.rejects(promote(fx.root, "outcome", { ...outcome(fx, agentOfTier.member, 0), sourceEvents: [] }), isCode("missing_source_events", 2));
    await assert.rejects(promote(fx.root, "bogus", outcome(fx, agentOfTier.member, 0)), isCode("invalid_promotion_kind", 2));
    assert.deepEqual(fileBytes(fx.fleetLog), before);
    assert.equal(fs.existsSync(path.join(fx.root, "fleet.beta.jsonl")), false);
  });
});

describe("audit", () => {
  test("every source ref the audit prints resolves: python3 reads the same seq and hash from the origin log", { skip: skipWithoutPython }, async () => {
    const fx = await makeFleet();
    await promote(fx.root, "outcome", outcome(fx, agentOfTier.member, 0), { policy: autoPolicy });
    await promote(fx.root, "skill", { fleetId: "alpha", actor: agentOfTier.trusted, originSession: "origin", originActor: "origin-agent", sourceEvents: [fx.sources[4], fx.sources[7]], confidence: 0.9, skillId: "s", skillVersion: "1" }, { policy: autoPolicy });
    await promote(fx.root, "rule", { fleetId: "alpha", actor: agentOfTier.member, originSession: "origin", sourceEvents: [fx.sources[9]], confidence: 0.3, rule: "r", trigger: "t" }, { policy: autoPolicy });
    const audit = await fleetAudit(fx.root, "alpha");
    assert.deepEqual([audit.ok, audit.promotion_count, audit.ref_count, audit.unresolved_count], [true, 3, 7, 0]);
    const refs = (audit.promotions as Array<{ origin_session: string; source_refs: Array<{ seq: number; hash: string; citation: string; resolved: boolean }> }>)
      .flatMap((p) => p.source_refs.map((r) => ({ ...r, session: p.origin_session })));
    assert.equal(refs.length, 4);
    const program =
      "import json, sys, re\n" +
      "out = []\n" +
      "for r in json.load(sys.stdin):\n" +
      "    m = re.match(r'^eventloom://([^/]+)/events/(\\d+)#([0-9a-f]{12})$', r['citation'])\n" +
      "    lines = open(r['root'] + '/' + m.group(1) + '.jsonl', encoding='utf-8').read().splitlines()\n" +
      "    rec = json.loads(lines[int(m.group(2)) - 1])\n" +
      "    h = rec['integrity']['hash'].split(':', 1)[1] if 'integrity' in rec else rec['hash']\n" +
      "    out.append([m.group(1), int(m.group(2)), h, h.startswith(m.group(3))])\n" +
      "print(json.dumps(out))\n";
    const checked = JSON.parse(python(program, JSON.stringify(refs.map((r) => ({ ...r, root: fx.root }))))) as Array<[string, number, string, boolean]>;
    refs.forEach((ref, i) => {
      assert.equal(ref.resolved, true);
      assert.deepEqual(checked[i], ["origin", ref.seq, ref.hash, true]);
    });
    const promotions = audit.promotions as Array<{ actor: string; origin_actor: string }>;
    assert.deepEqual([promotions[1].actor, promotions[1].origin_actor], [agentOfTier.trusted, "origin-agent"]);
  });
});
