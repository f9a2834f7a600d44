/**
 * Causal traversal over sessions written through the real appender and producers (DESIGN §7;
 * reference §3.4): predecessors are true reverse traversal (causes, never effects), successors
 * the forward walk, depth limits, relation and entity-type filters, shortest path first with the
 * path's labels and citations, retracted edges gone, re-asserted ones cited anew, and edges that
 * are not registered causal labels, claim authority or cannot be cited never traversed.
 */
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { traverseCausal } from "../../src/causal/mod.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { CausalSession, ref } from "./testkit.ts";

after(removeTempDirs);

const a = ref("config drift", "cause");
const b = ref("stale pool", "symptom");
const c = ref("latency spike", "symptom");
const d = ref("payment timeouts", "outcome");
const e = ref("pool alerts", "symptom");
const x = ref("hotfix", "change");

/** a -caused-> b -caused-> c -caused-> d; b -enabled-> e; x -fixed-> c. */
async function chain() {
  const session = new CausalSession(makeTempDir("causal-chain"));
  const ab = await session.explain(a, b, "caused", 0.9);
  const bc = await session.explain(b, c, "caused", 0.8);
  const cd = await session.explain(c, d, "caused", 0.7);
  const be = await session.explain(b, e, "enabled", 0.6);
  const xc = await session.explain(x, c, "fixed", 0.95);
  return { session, ab, bc, cd, be, xc };
}

const pairs = (results: ReturnType<typeof traverseCausal>) => results.map((r) => `${r.source.name} -> ${r.target.name}@${r.path_length}`);

describe("traverseCausal", () => {
  test("predecessors of an effect are its causes through multi-hop chains, nearest first, never its effects", async () => {
    const { session } = await chain();
    const edges = session.edges();
    assert.deepEqual(pairs(traverseCausal(edges, { direction: "predecessors", entityName: "payment timeouts", depth: 3 })), [
      "latency spike -> payment timeouts@1",
      "stale pool -> latency spike@2",
      "hotfix -> latency spike@2",
      "config drift -> stale pool@3",
    ]);
    // The effects of "stale pool" (latency spike, pool alerts, payment timeouts) are not its causes.
    assert.deepEqual(pairs(traverseCausal(edges, { direction: "predecessors", entityName: "stale pool", depth: 5 })), ["config drift -> stale pool@1"]);
    assert.deepEqual(traverseCausal(edges, { direction: "successors", entityName: "payment timeouts", depth: 5 }), []);
    assert.deepEqual(traverseCausal(edges, { direction: "predecessors", entityName: "config drift", depth: 5 }), []);
  });

  test("successors walk forward; depth bounds the hops", async () => {
    const { session } = await chain();
    const edges = session.edges();
    assert.deepEqual(pairs(traverseCausal(edges, { direction: "successors", entityName: "config drift", depth: 5 })), [
      "config drift -> stale pool@1",
      "stale pool -> latency spike@2",
      "stale pool -> pool alerts@2",
      "latency spike -> payment timeouts@3",
    ]);
    assert.deepEqual(pairs(traverseCausal(edges, { direction: "successors", entityName: "config drift", depth: 1 })), ["config drift -> stale pool@1"]);
    assert.equal(traverseCausal(edges, { direction: "successors", entityName: "config drift", depth: 2 }).length, 3);
  });

  test("each result carries its relation, citation, path labels and citations, evidence and the authority boundary", async () => {
    const { session, ab, bc, cd } = await chain();
    const results = traverseCausal(session.edges(), { direction: "predecessors", entityName: "payment timeouts", depth: 3 });
    const deepest = results.at(-1)!;
    assert.deepEqual(Object.keys(deepest), [
      "source", "target", "relation_type", "graph_relation_type", "confidence", "method", "citation", "review_status", "authority_status", "evidence",
      "path_length",
    ]);
    assert.deepEqual(deepest.source, { name: "config drift", entity_type: "cause" });
    assert.equal(deepest.relation_type, "caused");
    assert.equal(deepest.graph_relation_type, "causal_caused");
    assert.equal(deepest.confidence, 0.9);
    assert.equal(deepest.method, "explicit_outcome_explanation_v1");
    assert.equal(deepest.citation, ab.citation);
    assert.equal(deepest.review_status, "proposed");
    assert.equal(deepest.authority_status, "non_authoritative");
    assert.deepEqual(deepest.evidence.path_relation_types, ["causal_caused", "causal_caused", "causal_caused"]);
    assert.deepEqual(deepest.evidence.path_citations, [cd.citation, bc.citation, ab.citation]);
    // The cited evidence of the explanation rides along: seq and full hash of the observation.
    assert.equal(deepest.evidence.source_event_seq, ab.seq - 2);
    assert.match(String(deepest.evidence.source_event_hash), /^[0-9a-f]{64}$/);
    for (const result of results) assert.equal(result.authority_status, "non_authoritative");
  });

  test("a relation filter follows only that relation; an entity type narrows the start versions", async () => {
    const { session } = await chain();
    const edges = session.edges();
    assert.deepEqual(pairs(traverseCausal(edges, { direction: "predecessors", entityName: "latency spike", relationType: "fixed", depth: 2 })), [
      "hotfix -> latency spike@1",
    ]);
    // Only "caused" edges: b -enabled-> e is not followed.
    assert.deepEqual(pairs(traverseCausal(edges, { direction: "successors", entityName: "stale pool", relationType: "caused", depth: 5 })), [
      "stale pool -> latency spike@1",
      "latency spike -> payment timeouts@2",
    ]);
    assert.equal(traverseCausal(edges, { direction: "successors", entityName: "config drift", entityType: "symptom", depth: 5 }).length, 0);
    assert.equal(traverseCausal(edges, { direction: "successors", entityName: "config drift", entityType: "cause", depth: 5 }).length, 4);
  });

  test("two entities sharing a name: the entity type picks whose effects", async () => {
    const session = new CausalSession(makeTempDir("causal-types"));
    await session.explain(ref("cache warmup", "task"), ref("cold start", "symptom"));
    await session.explain(ref("cache warmup", "change"), ref("faster boot", "outcome"), "enabled");
    const edges = session.edges();
    assert.deepEqual(pairs(traverseCausal(edges, { direction: "successors", entityName: "cache warmup", entityType: "task", depth: 2 })), ["cache warmup -> cold start@1"]);
    assert.deepEqual(pairs(traverseCausal(edges, { direction: "successors", entityName: "cache warmup", depth: 2 })), [
      "cache warmup -> cold start@1",
      "cache warmup -> faster boot@1",
    ]);
  });

  test("the shortest path wins; start nodes are never results, even on a cycle", async () => {
    const session = new CausalSession(makeTempDir("causal-cycle"));
    await session.explain(a, b);
    await session.explain(b, c);
    const direct = await session.explain(a, c, "enabled");
    await session.explain(c, a, "regressed");
    const results = traverseCausal(session.edges(), { direction: "successors", entityName: "config drift", depth: 5 });
    assert.deepEqual(pairs(results), ["config drift -> stale pool@1", "config drift -> latency spike@1"]);
    assert.equal(results[1].citation, direct.citation);
  });

  test("a retracted edge is gone; explained again, it is found with the new citation", async () => {
    const { session, bc } = await chain();
    await session.contradict(b, c, "caused", bc);
    const edges = session.edges();
    assert.deepEqual(pairs(traverseCausal(edges, { direction: "predecessors", entityName: "payment timeouts", depth: 5 })), [
      "latency spike -> payment timeouts@1",
      "hotfix -> latency spike@2",
    ]);
    const again = await session.explain(b, c, "caused", 0.85);
    const results = traverseCausal(session.edges(), { direction: "predecessors", entityName: "latency spike", relationType: "caused", depth: 1 });
    assert.equal(results.length, 1);
    assert.equal(results[0].citation, again.citation);
    assert.notEqual(results[0].citation, bc.citation);
    assert.equal(results[0].confidence, 0.85);
  });

  test("after an endpoint gets a new version, the carried-over edge still cites its causal.edge.generated event", async () => {
    const session = new CausalSession(makeTempDir("causal-versioned"));
    const task = ref("T7", "task");
    const failure = ref("deploy failed", "outcome");
    const edge = await session.explain(task, failure, "caused", 0.9);
    // A new version of the cause: the projection copies its open relations onto it.
    const update = await session.record("task.proposed", { taskId: "T7", summary: "retry the deploy with the pinned image" });
    const results = traverseCausal(session.edges(), { direction: "predecessors", entityName: "deploy failed", depth: 1 });
    assert.deepEqual(pairs(results), ["T7 -> deploy failed@1"]);
    assert.equal(results[0].citation, edge.citation);
    assert.notEqual(results[0].citation, update.events[0].citation);
    assert.deepEqual(results[0].evidence.path_citations, [edge.citation]);
  });

  test("unregistered causal_* labels, authoritative claims and uncited explanations are never traversed", async () => {
    const session = new CausalSession(makeTempDir("causal-noise"));
    await session.explain(a, b);
    const cited = await session.evidence("a hunch");
    await session.record("inference.edge.generated", {
      source: ref("moon phase", "cause"), target: a, relation_type: "causal_correlated", confidence: 0.2, inference_method: "hunch_v0", evidence: cited,
    });
    await session.record("inference.edge.generated", {
      source: ref("oracle", "cause"), target: a, relation_type: "causal_caused", confidence: 0.9, inference_method: "oracle_v1",
      evidence: { ...cited, authority_status: "authoritative" },
    });
    await session.record("inference.edge.generated", {
      source: ref("committee", "cause"), target: a, relation_type: "causal_caused", confidence: 0.9, inference_method: "vote_v1",
      evidence: { ...cited, review_status: "approved" },
    });
    const uncited = await session.record("outcome.explained", { cause: ref("gremlins", "cause"), effect: a, relation_type: "caused", confidence: 0.9 });
    assert.deepEqual(uncited.generated, []);
    const edges = session.edges();
    assert.deepEqual(edges.map((edge) => `${edge.source.name} -> ${edge.target.name}`), ["config drift -> stale pool"]);
    assert.deepEqual(traverseCausal(edges, { direction: "predecessors", entityName: "config drift", depth: 5 }), []);
    assert.deepEqual(pairs(traverseCausal(edges, { direction: "predecessors", entityName: "stale pool", depth: 5 })), ["config drift -> stale pool@1"]);
  });

  test("an inference.edge.generated with a registered causal label is causal memory too, with its own method", async () => {
    const session = new CausalSession(makeTempDir("causal-inferred"));
    const cited = await session.evidence("trace");
    await session.record("inference.edge.generated", {
      source: a, target: b, relation_type: "causal_blocked", confidence: 0.5, inference_method: "trace_rule_v1", evidence: cited,
    });
    const [result] = traverseCausal(session.edges(), { direction: "successors", entityName: "config drift", depth: 1 });
    assert.equal(result.relation_type, "blocked");
    assert.equal(result.method, "trace_rule_v1");
    assert.equal(result.review_status, "proposed");
    assert.equal(result.authority_status, "non_authoritative");
  });
});
