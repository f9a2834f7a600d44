/**
 * The causal contract (DESIGN §7; reference §3.1–3.3): the taxonomy and its graph labels, the
 * exact `causal.edge.generated` payload (bytes Python's `json.dumps(sort_keys=True)` gives, and
 * Python's key order), every refusal naming its field, snapshots, and the `outcome.explained`
 * producer writing an edge only for cited evidence.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { canonicalJson, fromJs, type JsonObject } from "../../src/canonical/mod.ts";
import {
  buildCausalEdgeEvent,
  causalGraphLabel,
  causalRelationOfLabel,
  causalRelationTypeList,
  causalReviewStatusList,
  outcomeExplainedCausalEdge,
  validateCausalAuthorityStatus,
  validateCausalReviewStatus,
} from "../../src/causal/mod.ts";
import type { EventRecord } from "../../src/eventloom/envelope.ts";
import { ZaxyError } from "../../src/errors.ts";
import { generatedEvents } from "../../src/projection/inference.ts";

const evidenceHash = "ab".repeat(32);
const ownHash = "cd".repeat(32);

function record(type: string, payload: Record<string, unknown>, actor = "agent-a"): EventRecord {
  return {
    seq: 7,
    timestamp: "2026-01-01T00:00:07Z",
    type,
    actor,
    thread: "sess-1",
    payload: fromJs(payload) as JsonObject,
    security: null,
    prevHash: "00".repeat(32),
    hash: ownHash,
    id: null,
    parentEventId: null,
    causedBy: [],
    envelope: "v1",
  };
}

const edgeInput = () => ({
  actor: "zaxy-causal",
  sessionId: "default",
  source: { name: "missing index", entity_type: "cause" },
  target: { name: "slow query", entity_type: "symptom" },
  relationType: "caused",
  confidence: 0.8,
  method: "explicit_outcome_explanation_v1",
  evidence: { source_event_seq: 3, source_event_hash: evidenceHash },
});

/** Runs `fn` and returns the ZaxyError it throws (failing when it does not). */
function refusal(fn: () => unknown): ZaxyError {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof ZaxyError, String(error));
    assert.equal(error.exitCode, 2);
    return error;
  }
  assert.fail("expected a refusal");
}

describe("causal taxonomy", () => {
  test("the seven relations, five review statuses, and causal_<type> labels", () => {
    assert.deepEqual([...causalRelationTypeList], ["caused", "enabled", "blocked", "prevented", "regressed", "fixed", "explained"]);
    assert.deepEqual([...causalReviewStatusList], ["proposed", "accepted", "rejected", "deferred", "conflicted"]);
    for (const type of causalRelationTypeList) {
      assert.equal(causalGraphLabel(type), `causal_${type}`);
      assert.equal(causalRelationOfLabel(`causal_${type}`), type);
    }
    assert.equal(causalRelationOfLabel("causal_correlated"), undefined);
    assert.equal(causalRelationOfLabel("caused"), undefined);
  });

  test("labels and foreign spellings are refused as input, listing the valid types", () => {
    for (const bad of ["causal_caused", "CAUSES", "Caused", ""]) {
      const error = refusal(() => causalGraphLabel(bad));
      assert.equal(error.message, `relation_type must be one of: blocked, caused, enabled, explained, fixed, prevented, regressed; got ${JSON.stringify(bad)}`);
      assert.equal(error.details.field, "relation_type");
    }
  });

  test("review statuses are the five dispositions; the only authority is non_authoritative", () => {
    for (const status of causalReviewStatusList) assert.equal(validateCausalReviewStatus(status), status);
    assert.equal(refusal(() => validateCausalReviewStatus("pending")).message, "review_status must be one of: accepted, conflicted, deferred, proposed, rejected");
    assert.equal(validateCausalAuthorityStatus("non_authoritative"), "non_authoritative");
    for (const bad of ["authoritative", "", null]) {
      assert.equal(refusal(() => validateCausalAuthorityStatus(bad)).message, "authority_status must be one of: non_authoritative");
    }
  });
});

describe("buildCausalEdgeEvent", () => {
  test("the exact payload: Python's key order and canonical bytes, proposed and non_authoritative", () => {
    const event = buildCausalEdgeEvent(edgeInput());
    assert.equal(event.type, "causal.edge.generated");
    assert.equal(event.actor, "zaxy-causal");
    assert.deepEqual(Object.keys(event.payload), [
      "source", "target", "relation_type", "graph_relation_type", "confidence", "causal_method", "review_status", "authority_status", "evidence",
    ]);
    assert.equal(
      canonicalJson(fromJs(event.payload)),
      '{"authority_status":"non_authoritative","causal_method":"explicit_outcome_explanation_v1","confidence":0.8,' +
        `"evidence":{"source_event_hash":"${evidenceHash}","source_event_seq":3},"graph_relation_type":"causal_caused",` +
        '"relation_type":"caused","review_status":"proposed","source":{"entity_type":"cause","name":"missing index"},' +
        '"target":{"entity_type":"symptom","name":"slow query"}}',
    );
  });

  test("entity refs keep only name and entity_type; evidence extras are kept; inputs are snapshotted", () => {
    const input = edgeInput();
    const source = { name: "missing index", entity_type: "cause", summary: "dropped" };
    const evidence = { source_event_seq: 3, source_event_hash: evidenceHash, reason: "cited", extra: { n: 1 } };
    const event = buildCausalEdgeEvent({ ...input, source, evidence });
    source.name = "changed later";
    evidence.extra.n = 2;
    evidence.reason = "changed later";
    assert.deepEqual(event.payload.source, { name: "missing index", entity_type: "cause" });
    assert.deepEqual(event.payload.evidence, { source_event_seq: 3, source_event_hash: evidenceHash, reason: "cited", extra: { n: 1 } });
  });

  test("every malformed field is refused with a message naming it", () => {
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ source: { name: " ", entity_type: "cause" } }, "source.name", "source.name must be a non-empty string"],
      [{ source: { name: "x" } }, "source.entity_type", "source.entity_type must be a non-empty string"],
      [{ target: { name: "x", entity_type: 3 } }, "target.entity_type", "target.entity_type must be a non-empty string"],
      [{ target: "slow query" }, "target", "target must be an entity reference mapping"],
      [{ relationType: "causal_caused" }, "relation_type", "relation_type must be one of: blocked, caused, enabled, explained, fixed, prevented, regressed; got \"causal_caused\""],
      [{ confidence: true }, "confidence", "confidence must be a number between 0.0 and 1.0"],
      [{ confidence: "0.5" }, "confidence", "confidence must be a number between 0.0 and 1.0"],
      [{ confidence: 1.01 }, "confidence", "confidence must be between 0.0 and 1.0"],
      [{ confidence: -0.1 }, "confidence", "confidence must be between 0.0 and 1.0"],
      [{ method: "  " }, "causal_method", "causal method must be a non-empty string"],
      [{ actor: "" }, "actor", "actor must be a non-empty string"],
      [{ sessionId: "" }, "session_id", "session_id must be a non-empty string"],
      [{ evidence: [] }, "evidence", "evidence must be a mapping"],
      [{ evidence: { source_event_hash: evidenceHash } }, "evidence.source_event_seq", "evidence.source_event_seq must be an integer"],
    ];
    for (const seq of [0, -1]) {
      cases.push([{ evidence: { source_event_seq: seq, source_event_hash: evidenceHash } }, "evidence.source_event_seq", "evidence.source_event_seq must be a positive integer"]);
    }
    for (const seq of [true, "3", 1.5]) {
      cases.push([{ evidence: { source_event_seq: seq, source_event_hash: evidenceHash } }, "evidence.source_event_seq", "evidence.source_event_seq must be an integer"]);
    }
    for (const hash of ["", "a".repeat(63), "a".repeat(65), "A".repeat(64), "g".repeat(64), true]) {
      cases.push([
        { evidence: { source_event_seq: 3, source_event_hash: hash } },
        "evidence.source_event_hash",
        "evidence.source_event_hash must be exactly 64 lowercase hex characters",
      ]);
    }
    for (const [override, field, message] of cases) {
      const error = refusal(() => buildCausalEdgeEvent({ ...edgeInput(), ...override }));
      assert.equal(error.message, message, JSON.stringify(override));
      assert.equal(error.details.field, field, JSON.stringify(override));
    }
  });

  test("confidence bounds 0 and 1 are accepted", () => {
    assert.equal(buildCausalEdgeEvent({ ...edgeInput(), confidence: 0 }).payload.confidence, 0);
    assert.equal(buildCausalEdgeEvent({ ...edgeInput(), confidence: 1 }).payload.confidence, 1);
  });
});

const explained = {
  cause: { name: "missing index", entity_type: "cause", summary: "no index on orders.user_id" },
  effect: { name: "slow query", entity_type: "symptom" },
  relation_type: "caused",
  confidence: 0.8,
  evidence: { source_event_seq: 3, source_event_hash: evidenceHash, reason: "EXPLAIN shows a full scan" },
};

describe("outcome.explained producer", () => {
  test("a cited explanation yields the causal edge by zaxy-causal, citing the explanation's evidence", () => {
    const [event] = generatedEvents(record("outcome.explained", explained));
    assert.equal(event.type, "causal.edge.generated");
    assert.equal(event.actor, "zaxy-causal");
    assert.equal(
      canonicalJson(fromJs(event.payload)),
      '{"authority_status":"non_authoritative","causal_method":"explicit_outcome_explanation_v1","confidence":0.8,' +
        `"evidence":{"reason":"EXPLAIN shows a full scan","source_event_hash":"${evidenceHash}","source_event_seq":3},` +
        '"graph_relation_type":"causal_caused","relation_type":"caused","review_status":"proposed",' +
        '"source":{"entity_type":"cause","name":"missing index"},"target":{"entity_type":"symptom","name":"slow query"}}',
    );
    assert.deepEqual(Object.keys(event.payload.evidence as object), ["source_event_seq", "source_event_hash", "reason"]);
  });

  test("Python's lenient reads: trimmed text, an integer-string seq, the default reason", () => {
    const payload = {
      ...explained,
      relation_type: " fixed ",
      cause: { name: "  hotfix ", entity_type: "change" },
      evidence: { source_event_seq: "3", source_event_hash: ` ${evidenceHash} ` },
    };
    const event = outcomeExplainedCausalEdge(record("outcome.explained", payload))!;
    assert.deepEqual(event.payload.source, { name: "hotfix", entity_type: "change" });
    assert.equal(event.payload.relation_type, "fixed");
    assert.deepEqual(event.payload.evidence, {
      source_event_seq: 3,
      source_event_hash: evidenceHash,
      reason: "outcome.explained explicitly cited Eventloom evidence",
    });
  });

  test("anything missing or malformed produces nothing", () => {
    const without = (key: string) => Object.fromEntries(Object.entries(explained).filter(([k]) => k !== key));
    const bad: Record<string, unknown>[] = [
      without("evidence"),
      without("cause"),
      without("effect"),
      without("confidence"),
      without("relation_type"),
      { ...explained, evidence: "eventloom://sess-1/events/3#abababababab" },
      { ...explained, evidence: { source_event_hash: evidenceHash } },
      { ...explained, evidence: { source_event_seq: 0, source_event_hash: evidenceHash } },
      { ...explained, evidence: { source_event_seq: true, source_event_hash: evidenceHash } },
      { ...explained, evidence: { source_event_seq: 3, source_event_hash: evidenceHash.slice(1) } },
      { ...explained, evidence: { source_event_seq: 3, source_event_hash: evidenceHash.toUpperCase() } },
      { ...explained, relation_type: "causal_caused" },
      { ...explained, relation_type: "correlated" },
      { ...explained, confidence: "0.8" },
      { ...explained, confidence: 1.5 },
      { ...explained, confidence: true },
      { ...explained, cause: { name: "x" } },
      { ...explained, effect: { name: " ", entity_type: "symptom" } },
    ];
    for (const payload of bad) assert.deepEqual(generatedEvents(record("outcome.explained", payload)), [], JSON.stringify(payload));
  });

  test("events by zaxy-causal and causal edges themselves never generate more", () => {
    assert.deepEqual(generatedEvents(record("outcome.explained", explained, "zaxy-causal")), []);
    const edge = buildCausalEdgeEvent(edgeInput());
    assert.deepEqual(generatedEvents(record("causal.edge.generated", edge.payload)), []);
    assert.deepEqual(generatedEvents(record("causal.edge.generated", edge.payload, "agent-a")), []);
  });
});
