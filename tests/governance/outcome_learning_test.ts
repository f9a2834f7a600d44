/**
 * Outcome learning builders (reference §5.2): the rule id agrees with python3
 * (`"rule:" + sha256(json.dumps({rule, trigger, source_events}, sort_keys=True,
 * separators=(",", ":")))[:24]`, ensure_ascii) on seeded random inputs with non-ASCII and astral
 * text; payload key orders; rule event type and review status by gate decision; prediction
 * error; rule replay (active, pending, rolled back) and the withheld set.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { canonicalJson, fromJs } from "../../src/canonical/mod.ts";
import type { EventRecord } from "../../src/eventloom/envelope.ts";
import {
  defaultRuleConfidence,
  outcomePayload,
  predictionError,
  preventiveRuleConfidence,
  ruleEvent,
  ruleId,
} from "../../src/governance/outcomeLearning.ts";
import { replayRules, withheldRuleEventSeqs } from "../../src/folds/ruleStatus.ts";
import { Rng } from "../testkit/rng.ts";
import { python, skipWithoutPython } from "../eventloom/testkit.ts";

const hashA = "a".repeat(64);
const hashB = "0123456789abcdef".repeat(4);

const alphabet = ["a", "z", " ", "é", "ß", "—", "\u00a0", "\n", "\"", "\\", "/", "\u007f", "\u0001", "日", "本", "😀", "𝄞", "\ufb01", "<", "&"];

function randomText(rng: Rng): string {
  const length = 1 + rng.int(24);
  let text = "";
  for (let i = 0; i < length; i++) text += alphabet[rng.int(alphabet.length)];
  return text;
}

describe("ruleId", () => {
  test("matches python3 on seeded inputs with non-ASCII, astral and control characters", { skip: skipWithoutPython }, () => {
    const seed = 20261123;
    console.error(`ruleId property seed ${seed}`);
    const rng = new Rng(seed);
    const cases = Array.from({ length: 150 }, () => ({
      rule: randomText(rng),
      trigger: randomText(rng),
      source_events: Array.from({ length: 1 + rng.int(3) }, () => ({ seq: 1 + rng.int(100000), hash: rng.int(2) === 0 ? hashA : hashB })),
    }));
    const expected = JSON.parse(python(
      "import hashlib,json,sys\n" +
        "out=[]\n" +
        "for c in json.load(sys.stdin):\n" +
        "  i={'rule':c['rule'],'trigger':c['trigger'],'source_events':c['source_events']}\n" +
        "  out.append('rule:'+hashlib.sha256(json.dumps(i,sort_keys=True,separators=(',',':')).encode('utf-8')).hexdigest()[:24])\n" +
        "print(json.dumps(out))",
      JSON.stringify(cases),
    ));
    assert.deepEqual(cases.map((c) => ruleId(c.rule, c.trigger, c.source_events)), expected, `seed ${seed}`);
  });

  test("is deterministic and changes with the rule, the trigger and the cited events", () => {
    const base = ruleId("run the dry-run", "deploy failed", [{ seq: 3, hash: hashA }]);
    assert.match(base, /^rule:[0-9a-f]{24}$/);
    assert.equal(ruleId("run the dry-run", "deploy failed", [{ seq: 3, hash: hashA }]), base);
    assert.notEqual(ruleId("run the dry-run!", "deploy failed", [{ seq: 3, hash: hashA }]), base);
    assert.notEqual(ruleId("run the dry-run", "deploy failed.", [{ seq: 3, hash: hashA }]), base);
    assert.notEqual(ruleId("run the dry-run", "deploy failed", [{ seq: 4, hash: hashA }]), base);
  });
});

describe("payloads", () => {
  test("outcome payload: Python's key order; prior and prediction_error as floats", () => {
    const payload = outcomePayload({ outcome: "failure", summary: "broke", target: { seq: 2, hash: hashA }, taskId: "t1", prior: 1, predictionError: 1 });
    assert.deepEqual([...payload.keys()], ["outcome", "summary", "authority_status", "target", "task_id", "prior", "prediction_error"]);
    assert.equal(canonicalJson(payload), `{"authority_status":"non_authoritative","outcome":"failure","prediction_error":1.0,"prior":1.0,"summary":"broke","target":{"hash":"${hashA}","seq":2},"task_id":"t1"}`);
    assert.deepEqual([...outcomePayload({ outcome: "success", summary: "ok" }).keys()], ["outcome", "summary", "authority_status"]);
  });

  test("rule event: generated/active when auto-applied, proposed/pending otherwise; keys in Python's order", () => {
    const input = { rule: "pin it", trigger: "build broke", confidence: 0.9, outcome: "failure" as const, sourceEvents: [{ seq: 5, hash: hashB }] };
    const generated = ruleEvent({ ...input, autoApplied: true });
    assert.deepEqual([generated.type, generated.reviewStatus], ["memory.rule.generated", "active"]);
    assert.deepEqual([...generated.payload.keys()], ["rule_id", "rule", "trigger", "confidence", "outcome", "source_events", "review_status", "authority_status"]);
    assert.equal(generated.payload.get("rule_id"), ruleId("pin it", "build broke", [{ seq: 5, hash: hashB }]));
    const proposed = ruleEvent({ ...input, autoApplied: false });
    assert.deepEqual([proposed.type, proposed.reviewStatus, proposed.payload.get("review_status")], ["memory.rule.proposed", "pending", "pending"]);
    assert.throws(() => ruleEvent({ ...input, autoApplied: true, sourceEvents: [] }), /source_events must cite at least one event/);
  });

  test("rule confidence defaults (failure 0.9, partial 0.7) and prediction error |actual - prior|", () => {
    assert.deepEqual(defaultRuleConfidence, { failure: 0.9, partial: 0.7 });
    assert.deepEqual([preventiveRuleConfidence("failure"), preventiveRuleConfidence("partial"), preventiveRuleConfidence("partial", 0.95)], [0.9, 0.7, 0.95]);
    assert.deepEqual([predictionError("success", 0.25), predictionError("failure", 0.25), predictionError("partial", 0.25)], [0.75, 0.25, 0.25]);
  });
});

function record(seq: number, type: string, payload: Record<string, unknown>): EventRecord {
  return {
    seq,
    timestamp: "2026-11-23T10:00:00Z",
    type,
    actor: "a",
    thread: "s",
    payload: fromJs(payload) as Map<string, never>,
    security: null,
    prevHash: null,
    hash: String(seq).padStart(64, "0"),
    id: null,
    parentEventId: null,
    causedBy: [],
    envelope: "legacy",
  };
}

describe("replayRules", () => {
  test("generated is active, proposed pending, a rollback of either (same seq and hash) rolled_back; only active rules reach checkout", () => {
    const events = [
      record(1, "memory.rule.generated", { rule_id: "rule:a" }),
      record(2, "memory.rule.proposed", { rule_id: "rule:b" }),
      record(3, "memory.rule.generated", { rule_id: "rule:c" }),
      record(4, "memory.rolled_back", { target: { seq: 3, hash: String(3).padStart(64, "0") } }),
      // A rollback naming the right seq with the wrong hash reverses nothing.
      record(5, "memory.rolled_back", { target: { seq: 1, hash: hashA } }),
    ];
    const rules = replayRules(events);
    assert.deepEqual(rules.map((r) => [r.ruleId, r.reviewStatus, r.rolledBackBySeq]), [["rule:a", "active", null], ["rule:b", "pending", null], ["rule:c", "rolled_back", 4]]);
    assert.deepEqual([...withheldRuleEventSeqs(events)].sort(), [2, 3]);
  });
});
