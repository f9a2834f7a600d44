/**
 * Generated inferred-edge events (DESIGN §4; Python `inference.py`): exact payloads for a
 * task.completed citing its decision and for a contradicted inference, nothing without explicit
 * citations, nothing for inferred edges or events by zaxy-inference, and that what is generated
 * projects through the ordinary extractor.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { canonicalJson, fromJs, type JsonObject } from "../../src/canonical/mod.ts";
import type { EventRecord } from "../../src/eventloom/envelope.ts";
import { extractEvent } from "../../src/projection/extract/mod.ts";
import { generatedEvents } from "../../src/projection/inference.ts";

const hash = (seq: number) => seq.toString(16).padStart(64, "0");
const decisionHash = "ab".repeat(32);

function record(type: string, payload: Record<string, unknown>, options: { seq?: number; actor?: string; timestamp?: string } = {}): EventRecord {
  const seq = options.seq ?? 9;
  return {
    seq,
    timestamp: options.timestamp ?? "2026-01-01T00:00:09+00:00",
    type,
    actor: options.actor ?? "agent-a",
    thread: "sess-1",
    payload: fromJs(payload) as JsonObject,
    security: null,
    prevHash: hash(seq - 1),
    hash: hash(seq),
    id: null,
    parentEventId: null,
    causedBy: [],
    envelope: "legacy",
  };
}

const canonical = (value: unknown) => canonicalJson(fromJs(value));

const citing = { taskId: "T-1", decision: "Use Kuzu", decision_event_seq: 4, decision_event_hash: decisionHash };

describe("generatedEvents from task.completed", () => {
  test("a task.completed citing its decision event yields the exact inference.edge.generated", () => {
    const generated = generatedEvents(record("task.completed", citing));
    assert.equal(generated.length, 1);
    assert.equal(generated[0].type, "inference.edge.generated");
    assert.equal(generated[0].actor, "zaxy-inference");
    // Python's json.dumps(payload, sort_keys=True, separators=(",", ":")) of the same payload.
    assert.equal(
      canonical(generated[0].payload),
      '{"confidence":0.86,"evidence":{"decision_event_hash":"' + decisionHash + '","decision_event_seq":4,' +
        '"reason":"task.completed explicitly cited a decision Eventloom event","source_event_hash":"' + hash(9) + '","source_event_seq":9},' +
        '"inference_method":"task_completed_decision_citation_v1","relation_type":"likely_implemented_decision",' +
        '"source":{"entity_type":"task","name":"T-1"},"target":{"entity_type":"decision","name":"Use Kuzu"}}',
    );
    assert.deepEqual(Object.keys(generated[0].payload), ["source", "target", "relation_type", "confidence", "inference_method", "evidence"]);
    assert.deepEqual(Object.keys(generated[0].payload.evidence as object), [
      "source_event_seq",
      "source_event_hash",
      "decision_event_seq",
      "decision_event_hash",
      "reason",
    ]);
  });

  test("the task's summary rides along on the source reference", () => {
    const [generated] = generatedEvents(record("task.completed", { ...citing, summary: "  Wired the store  " }));
    assert.deepEqual(generated.payload.source, { name: "T-1", entity_type: "task", summary: "Wired the store" });
  });

  test("task_id / task and decision_name are read too; an integer-string seq counts", () => {
    const [a] = generatedEvents(record("task.completed", { task_id: "T-2", decision_name: "D", decision_event_seq: "5", decision_event_hash: decisionHash }));
    assert.deepEqual(a.payload.source, { name: "T-2", entity_type: "task" });
    assert.deepEqual(a.payload.target, { name: "D", entity_type: "decision" });
    assert.equal((a.payload.evidence as { decision_event_seq: number }).decision_event_seq, 5);
    const [b] = generatedEvents(record("task.completed", { task: "T-3", decision: "D", decision_event_seq: 1, decision_event_hash: decisionHash }));
    assert.equal((b.payload.source as { name: string }).name, "T-3");
  });

  test("nothing without a complete, well-formed citation", () => {
    const incomplete: Array<Record<string, unknown>> = [
      { taskId: "T-1" },
      { ...citing, taskId: undefined },
      { ...citing, decision: "" },
      { ...citing, decision_event_seq: 0 },
      { ...citing, decision_event_seq: -3 },
      { ...citing, decision_event_seq: 4.5 },
      { ...citing, decision_event_seq: true },
      { ...citing, decision_event_hash: decisionHash.toUpperCase() },
      { ...citing, decision_event_hash: decisionHash.slice(1) },
      { ...citing, decision_event_hash: `sha256:${decisionHash}` },
      { ...citing, decision_event_hash: 42 },
    ];
    for (const payload of incomplete) assert.deepEqual(generatedEvents(record("task.completed", payload)), [], JSON.stringify(payload));
  });
});

describe("generatedEvents from inference.edge.contradicted", () => {
  const contradicted = {
    source: { name: "T-1", entity_type: "task" },
    target: { name: "Use Kuzu", entity_type: "decision", summary: "embedded graph" },
    relation_type: "likely_implemented_decision",
    valid_from: "2026-01-01T00:00:05+00:00",
    original_event_seq: 5,
    original_event_hash: hash(5),
    reason: "the task implemented a different decision",
  };

  test("yields the exact inference.edge.retracted closing the edge at the contradiction's time", () => {
    const generated = generatedEvents(record("inference.edge.contradicted", contradicted, { seq: 12, timestamp: "2026-01-02T00:00:00+00:00" }));
    assert.equal(generated.length, 1);
    assert.equal(generated[0].type, "inference.edge.retracted");
    assert.equal(generated[0].actor, "zaxy-inference");
    assert.deepEqual(generated[0].payload, {
      source: { name: "T-1", entity_type: "task" },
      target: { name: "Use Kuzu", entity_type: "decision", summary: "embedded graph" },
      relation_type: "likely_implemented_decision",
      valid_from: "2026-01-01T00:00:05+00:00",
      valid_to: "2026-01-02T00:00:00+00:00",
      confidence: 0,
      inference_method: "contradicting_evidence_retraction_v1",
      evidence: {
        source_event_seq: 12,
        source_event_hash: hash(12),
        original_event_seq: 5,
        original_event_hash: hash(5),
        reason: "the task implemented a different decision",
      },
    });
    assert.deepEqual(Object.keys(generated[0].payload), ["source", "target", "relation_type", "valid_from", "valid_to", "confidence", "inference_method", "evidence"]);
  });

  test("nothing when a field of the contradiction is missing", () => {
    for (const key of Object.keys(contradicted)) {
      const payload: Record<string, unknown> = { ...contradicted };
      delete payload[key];
      assert.deepEqual(generatedEvents(record("inference.edge.contradicted", payload)), [], key);
    }
    assert.deepEqual(generatedEvents(record("inference.edge.contradicted", { ...contradicted, source: { name: "T-1" } })), []);
  });
});

describe("generatedEvents produces nothing else", () => {
  test("unrelated events, inferred edges themselves and anything by zaxy-inference", () => {
    assert.deepEqual(generatedEvents(record("decision.made", citing)), []);
    assert.deepEqual(generatedEvents(record("goal.created", { title: "x" })), []);
    assert.deepEqual(generatedEvents(record("inference.edge.generated", citing)), []);
    assert.deepEqual(generatedEvents(record("task.completed", citing, { actor: "zaxy-inference" })), []);
    assert.deepEqual(generatedEvents(record("outcome.explained", { cause: { name: "a", entity_type: "x" } })), []);
  });
});

describe("generated events project through extraction", () => {
  test("the generated inference.edge.generated becomes one inferred edge task → decision", () => {
    const [generated] = generatedEvents(record("task.completed", citing));
    const appended = record(generated.type, generated.payload, { seq: 10, actor: generated.actor });
    const result = extractEvent(appended);
    assert.deepEqual(result.entities, []);
    assert.equal(result.edges.length, 1);
    const [edge] = result.edges;
    assert.deepEqual([edge.source, edge.target, edge.relationType], [{ name: "T-1", entityType: "task" }, { name: "Use Kuzu", entityType: "decision" }, "likely_implemented_decision"]);
    assert.equal(edge.inferred, true);
    assert.equal(edge.confidence, 0.86);
    assert.equal(edge.inferenceMethod, "task_completed_decision_citation_v1");
    assert.equal(edge.evidence.decision_event_hash, decisionHash);
    assert.deepEqual(generatedEvents(appended), []);
  });

  test("the generated retraction becomes the closed edge", () => {
    const contradiction = {
      source: { name: "T-1", entity_type: "task" },
      target: { name: "Use Kuzu", entity_type: "decision" },
      relation_type: "likely_implemented_decision",
      valid_from: "2026-01-01T00:00:10+00:00",
      original_event_seq: 10,
      original_event_hash: hash(10),
      reason: "wrong",
    };
    const [generated] = generatedEvents(record("inference.edge.contradicted", contradiction, { seq: 11, timestamp: "2026-01-03T00:00:00+00:00" }));
    const [edge] = extractEvent(record(generated.type, generated.payload, { seq: 12 })).edges;
    assert.equal(edge.validFrom, "2026-01-01T00:00:10+00:00");
    assert.equal(edge.validTo, "2026-01-03T00:00:00+00:00");
    assert.equal(edge.confidence, 0);
    assert.equal(edge.inferenceMethod, "contradicting_evidence_retraction_v1");
  });

  test("a cited outcome.explained yields a causal.edge.generated by zaxy-causal that projects as causal_<type>", () => {
    const explained = {
      cause: { name: "missing index", entity_type: "cause" },
      effect: { name: "slow query", entity_type: "symptom" },
      relation_type: "regressed",
      confidence: 0.7,
      evidence: { source_event_seq: 4, source_event_hash: decisionHash },
    };
    const [generated] = generatedEvents(record("outcome.explained", explained));
    assert.deepEqual([generated.type, generated.actor], ["causal.edge.generated", "zaxy-causal"]);
    const appended = record(generated.type, generated.payload, { seq: 10, actor: generated.actor });
    const [edge] = extractEvent(appended).edges;
    assert.deepEqual([edge.source, edge.target, edge.relationType], [{ name: "missing index", entityType: "cause" }, { name: "slow query", entityType: "symptom" }, "causal_regressed"]);
    assert.equal(edge.inferred, true);
    assert.equal(edge.inferenceMethod, "explicit_outcome_explanation_v1");
    assert.deepEqual([edge.evidence.source_event_seq, edge.evidence.authority_status], [4, "non_authoritative"]);
    assert.deepEqual(generatedEvents(appended), []);
    assert.deepEqual(generatedEvents(record("outcome.explained", { ...explained, evidence: { source_event_seq: 4 } })), []);
  });
});
