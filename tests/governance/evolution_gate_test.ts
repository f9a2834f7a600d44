/**
 * The evolution gate library (reference §5.1, test_evolution_policy): decisions and exact reason
 * strings for every tier at, above and below the threshold; per-op overrides; Python's `.3f`
 * rounding (python3 agrees); the `evolution.gate.evaluated` payload bytes; policy resolution
 * from config.json < env < explicit overrides, and bad values as exit-2 errors naming the setting.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { canonicalJson, pythonFixed3 } from "../../src/canonical/mod.ts";
import { ZaxyError } from "../../src/errors.ts";
import {
  autonomyTiers,
  defaultEvolutionPolicy,
  evaluateEvolutionGate,
  type EvolutionPolicy,
  evolutionOps,
  gateEventPayload,
  gateEventType,
  resolveEvolutionPolicy,
} from "../../src/governance/evolutionGate.ts";
import { makeTempDir, python, removeTempDirs, skipWithoutPython } from "../eventloom/testkit.ts";

after(removeTempDirs);

function policy(overrides: Partial<EvolutionPolicy> = {}): EvolutionPolicy {
  return { ...defaultEvolutionPolicy, opTiers: {}, opThresholds: {}, ...overrides };
}

/** Throws a ZaxyError with exit code 2 whose field and message match. */
function badInput(fn: () => unknown, field: RegExp | string, message: RegExp): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof ZaxyError, String(error));
    assert.equal(error.exitCode, 2);
    if (typeof field === "string") assert.equal(error.details.field, field);
    else assert.match(error.details.field ?? "", field);
    assert.match(error.message, message);
    return true;
  });
}

describe("evaluateEvolutionGate", () => {
  test("vocabulary and defaults are Python's (auto_with_rollback, 0.85, 86400 s)", () => {
    assert.deepEqual([...evolutionOps], ["consolidate", "update", "forget", "rule_generate", "promote"]);
    assert.deepEqual([...autonomyTiers], ["propose_only", "auto_with_rollback", "require_review"]);
    assert.deepEqual(defaultEvolutionPolicy, { defaultTier: "auto_with_rollback", confidenceThreshold: 0.85, rollbackWindowSeconds: 86400, opTiers: {}, opThresholds: {} });
    assert.equal(gateEventType, "evolution.gate.evaluated");
  });

  test("auto_with_rollback auto-applies at and above the threshold, holds below, with Python's reason strings", () => {
    const at = evaluateEvolutionGate("rule_generate", 0.85, policy());
    assert.deepEqual(at, {
      op: "rule_generate",
      tier: "auto_with_rollback",
      confidence: 0.85,
      threshold: 0.85,
      decision: "auto_apply",
      auto_apply: true,
      requires_review: false,
      rollback_window_seconds: 86400,
      reason: "rule_generate: auto-applied under auto_with_rollback (confidence 0.850 >= threshold 0.850); reversible within 86400s",
    });
    assert.deepEqual(Object.keys(at), ["op", "tier", "confidence", "threshold", "decision", "auto_apply", "requires_review", "rollback_window_seconds", "reason"]);
    const above = evaluateEvolutionGate("promote", 1, policy());
    assert.equal(above.reason, "promote: auto-applied under auto_with_rollback (confidence 1.000 >= threshold 0.850); reversible within 86400s");
    const below = evaluateEvolutionGate("forget", 0.8499, policy());
    assert.deepEqual([below.decision, below.auto_apply, below.requires_review], ["requires_review", false, true]);
    assert.equal(below.reason, "forget: held for review under auto_with_rollback (confidence 0.850 < threshold 0.850)");
    assert.equal(evaluateEvolutionGate("update", 0, policy()).reason, "update: held for review under auto_with_rollback (confidence 0.000 < threshold 0.850)");
  });

  test("require_review and propose_only hold every confidence for review", () => {
    for (const confidence of [0, 0.5, 0.85, 1]) {
      const review = evaluateEvolutionGate("consolidate", confidence, policy({ defaultTier: "require_review" }));
      assert.deepEqual([review.tier, review.decision, review.auto_apply, review.requires_review], ["require_review", "requires_review", false, true]);
      assert.equal(review.reason, "consolidate: held for review (tier require_review)");
      const propose = evaluateEvolutionGate("consolidate", confidence, policy({ defaultTier: "propose_only" }));
      assert.deepEqual([propose.tier, propose.decision, propose.auto_apply], ["propose_only", "requires_review", false]);
      assert.equal(propose.reason, "consolidate: proposed for review (tier propose_only; no autonomous promotion)");
    }
  });

  test("per-op tier and threshold overrides apply to that op only; the window is carried into the reason", () => {
    const p = policy({ opTiers: { promote: "require_review" }, opThresholds: { rule_generate: 0.95 }, rollbackWindowSeconds: 60 });
    assert.equal(evaluateEvolutionGate("promote", 0.99, p).tier, "require_review");
    assert.equal(evaluateEvolutionGate("update", 0.99, p).tier, "auto_with_rollback");
    const ruleHeld = evaluateEvolutionGate("rule_generate", 0.9, p);
    assert.deepEqual([ruleHeld.threshold, ruleHeld.decision], [0.95, "requires_review"]);
    assert.equal(ruleHeld.reason, "rule_generate: held for review under auto_with_rollback (confidence 0.900 < threshold 0.950)");
    assert.equal(evaluateEvolutionGate("update", 0.9, p).reason, "update: auto-applied under auto_with_rollback (confidence 0.900 >= threshold 0.850); reversible within 60s");
  });

  test("an unknown op or a confidence outside 0..1 is bad input listing what is valid", () => {
    badInput(() => evaluateEvolutionGate("merge" as never, 0.9, policy()), "op", /op must be one of: consolidate, update, forget, rule_generate, promote/);
    for (const confidence of [-0.01, 1.01, Number.NaN, Number.POSITIVE_INFINITY, true, "0.9"] as number[]) {
      badInput(() => evaluateEvolutionGate("update", confidence, policy()), "confidence", /between 0\.0 and 1\.0/);
    }
  });

  test("reason numbers round like Python's .3f (half-even on the exact double; python3 agrees)", { skip: skipWithoutPython }, () => {
    const values = [0, 1, 0.85, 0.0625, 0.0005, 0.0015, 0.1235, 0.9995, 0.125, 0.3333333, 2 / 3, 0.8495, 0.8505, 1e-9];
    for (let i = 0; i < 200; i++) values.push(((i * 7919) % 10007) / 10007);
    const expected = python("import json,sys\nprint(json.dumps([f'{x:.3f}' for x in json.load(sys.stdin)]))", JSON.stringify(values));
    assert.deepEqual(values.map(pythonFixed3), JSON.parse(expected));
  });
});

describe("gateEventPayload", () => {
  test("keys in Python's order, floats written as floats, non_authoritative, candidate_ref keeps only non-null keys", () => {
    const decision = evaluateEvolutionGate("promote", 1, policy());
    const payload = gateEventPayload(decision, { candidate_id: "skill:deploy", seq: 4, hash: "a".repeat(64), name: null, entity_type: undefined });
    assert.deepEqual([...payload.keys()], [
      "op", "tier", "confidence", "threshold", "decision", "auto_apply", "requires_review", "rollback_window_seconds", "reason", "authority_status", "candidate_ref",
    ]);
    assert.equal(
      canonicalJson(payload),
      `{"authority_status":"non_authoritative","auto_apply":true,"candidate_ref":{"candidate_id":"skill:deploy","hash":"${"a".repeat(64)}","seq":4},` +
        `"confidence":1.0,"decision":"auto_apply","op":"promote","reason":"promote: auto-applied under auto_with_rollback (confidence 1.000 >= threshold 0.850); ` +
        `reversible within 86400s","requires_review":false,"rollback_window_seconds":86400,"threshold":0.85,"tier":"auto_with_rollback"}`,
    );
    assert.equal(gateEventPayload(decision).has("candidate_ref"), false);
  });

  test("an empty candidate_ref is bad input", () => {
    badInput(() => gateEventPayload(evaluateEvolutionGate("promote", 1, policy()), { name: null }), "candidate_ref", /at least one of candidate_id, seq, hash, name/);
  });
});

describe("resolveEvolutionPolicy", () => {
  function root(config?: Record<string, unknown>): string {
    const dir = path.join(makeTempDir("gate-policy"), ".eventloom");
    fs.mkdirSync(dir, { recursive: true });
    if (config !== undefined) fs.writeFileSync(path.join(dir, "config.json"), JSON.stringify(config));
    return dir;
  }

  test("no config, no env: the defaults", () => {
    assert.deepEqual(resolveEvolutionPolicy(root(), { env: {} }), defaultEvolutionPolicy);
  });

  test("config.json keys, then env replacing each setting, then explicit overrides per op", () => {
    const dir = root({
      envelope: "v1",
      evolution_autonomy_default: "require_review",
      evolution_confidence_threshold: 0.7,
      evolution_rollback_window_seconds: 3600,
      evolution_op_autonomy: "promote=propose_only, update=auto_with_rollback",
      evolution_op_thresholds: "forget=0.99",
    });
    assert.deepEqual(resolveEvolutionPolicy(dir, { env: {} }), {
      defaultTier: "require_review",
      confidenceThreshold: 0.7,
      rollbackWindowSeconds: 3600,
      opTiers: { promote: "propose_only", update: "auto_with_rollback" },
      opThresholds: { forget: 0.99 },
    });
    const env = {
      ZAXY_EVOLUTION_AUTONOMY_DEFAULT: "auto_with_rollback",
      ZAXY_EVOLUTION_CONFIDENCE_THRESHOLD: "0.6",
      ZAXY_EVOLUTION_ROLLBACK_WINDOW_SECONDS: "120",
      ZAXY_EVOLUTION_OP_AUTONOMY: "consolidate=require_review",
    };
    assert.deepEqual(resolveEvolutionPolicy(dir, { env }), {
      defaultTier: "auto_with_rollback",
      confidenceThreshold: 0.6,
      rollbackWindowSeconds: 120,
      // The env op map replaces the config's; the config's per-op thresholds stay (not overridden).
      opTiers: { consolidate: "require_review" },
      opThresholds: { forget: 0.99 },
    });
    const flags = resolveEvolutionPolicy(dir, { env, opTiers: { promote: "require_review" }, opThresholds: { forget: "0.5" }, confidenceThreshold: 0.9 });
    assert.deepEqual(flags.opTiers, { consolidate: "require_review", promote: "require_review" });
    assert.deepEqual([flags.opThresholds.forget, flags.confidenceThreshold], [0.5, 0.9]);
  });

  test("a blank env value counts as unset", () => {
    assert.equal(resolveEvolutionPolicy(root({ evolution_autonomy_default: "propose_only" }), { env: { ZAXY_EVOLUTION_AUTONOMY_DEFAULT: " " } }).defaultTier, "propose_only");
  });

  test("bad values are bad input naming the setting where they came from", () => {
    badInput(() => resolveEvolutionPolicy(root({ evolution_autonomy_default: "yolo" }), { env: {} }), /config\.json evolution_autonomy_default$/, /must be one of: propose_only, auto_with_rollback, require_review/);
    badInput(() => resolveEvolutionPolicy(root({ evolution_confidence_threshold: 1.5 }), { env: {} }), /evolution_confidence_threshold$/, /between 0\.0 and 1\.0/);
    badInput(() => resolveEvolutionPolicy(root({ evolution_confidence_threshold: true }), { env: {} }), /evolution_confidence_threshold$/, /between 0\.0 and 1\.0/);
    badInput(() => resolveEvolutionPolicy(root({ evolution_rollback_window_seconds: -1 }), { env: {} }), /evolution_rollback_window_seconds$/, /non-negative integer/);
    badInput(() => resolveEvolutionPolicy(root({ evolution_op_autonomy: "promote" }), { env: {} }), /evolution_op_autonomy$/, /must have the form op=value/);
    badInput(() => resolveEvolutionPolicy(root({ evolution_op_autonomy: "merge=require_review" }), { env: {} }), /evolution_op_autonomy \(op\)$/, /must be one of: consolidate/);
    badInput(() => resolveEvolutionPolicy(root(), { env: { ZAXY_EVOLUTION_OP_THRESHOLDS: "forget=2" } }), "environment variable ZAXY_EVOLUTION_OP_THRESHOLDS [forget]", /between 0\.0 and 1\.0/);
    badInput(() => resolveEvolutionPolicy(root(), { env: { ZAXY_EVOLUTION_ROLLBACK_WINDOW_SECONDS: "1.5" } }), "environment variable ZAXY_EVOLUTION_ROLLBACK_WINDOW_SECONDS", /non-negative integer/);
    badInput(() => resolveEvolutionPolicy(root(), { env: {}, opTiers: { promote: "nope" }, fieldNames: { opTiers: "--tier" } }), "--tier", /must be one of/);
    const broken = root();
    fs.writeFileSync(path.join(broken, "config.json"), "{not json");
    badInput(() => resolveEvolutionPolicy(broken, { env: {} }), "config.json", /not valid JSON/);
  });
});
