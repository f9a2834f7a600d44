/**
 * The long-horizon plan (src/consolidation/longHorizonLane.ts; DESIGN §9, reference §4): the split, which
 * candidates enter the remote tier (accepted and older than the split only), the I3 span
 * relevance by the formula, the budget, the diagnostics shape, and that a checkout without the
 * section is byte-identical to one built without the feature.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { buildLongHorizonPlan, longHorizonMergeRule, pythonRound6, spanRelevance } from "../../src/consolidation/longHorizonLane.ts";
import { mergeByScore } from "../../src/checkout/mergeLanes.ts";
import { projectionTokens } from "../../src/retrieval/projectionSearch.ts";
import { buildCheckout } from "../../src/checkout/mod.ts";
import type { EventRecord } from "../../src/eventloom/envelope.ts";
import { events, hashOf } from "../consolidation/testkit.ts";
import { python, skipWithoutPython } from "../eventloom/testkit.ts";
import { context, retrieval } from "./fixtures.ts";

const session = "agent-1";
const cite = (seq: number) => `eventloom://${session}/events/${seq}#${hashOf(seq).slice(0, 12)}`;

type Spec = [type: string, payload: Record<string, unknown>];

function toolCalls(count: number): Spec[] {
  return Array.from({ length: count }, (_, i) => ["tool.call.completed", { tool: "pytest", summary: `run ${i + 1}` }] as Spec);
}

function created(id: string, sources: number[], extra: Record<string, unknown> = {}): Spec {
  return ["consolidation.candidate.created", {
    candidate_id: id,
    candidate_type: "claim",
    title: `Cache decision ${id.slice(-4)}`,
    summary: "the cache layer uses redis with a 60 s ttl",
    source_events: sources.map((seq) => ({ seq, hash: hashOf(seq) })),
    confidence: 0.8,
    method: "manual_review_v1",
    review_status: "pending",
    authority_status: "non_authoritative",
    ...extra,
  }];
}

function reviewed(id: string, status: string): Spec {
  return ["consolidation.candidate.reviewed", { candidate_id: id, status, authority_status: "non_authoritative", rationale: "checked" }];
}

const idA = "consolidation:claim:" + "a".repeat(24);
const idB = "consolidation:claim:" + "b".repeat(24);
const idC = "consolidation:claim:" + "c".repeat(24);

/** 10 old events, then candidates and reviews, padded so the window covers only the tail. */
function sessionEvents(specs: Spec[], padTo: number): EventRecord[] {
  const all = [...specs];
  while (all.length < padTo) all.push(["tool.call.completed", { tool: "ls", summary: "filler" }]);
  return events(all.map(([type, payload]) => [type, payload, session]));
}

describe("buildLongHorizonPlan", () => {
  test("a session no longer than the window has no remote tier and a null split", () => {
    const log = sessionEvents([...toolCalls(3), created(idA, [1, 2]), reviewed(idA, "accepted")], 5);
    const plan = buildLongHorizonPlan({ sessionId: session, events: log, recentWindow: 5, budget: 10, query: "cache" });
    assert.deepEqual(plan.diagnostics, {
      enabled: true,
      recent_window: 5,
      episodic_count: 5,
      horizon_split_seq: null,
      consolidated_count: 0,
      items: [],
      non_authoritative: true,
    });
    assert.deepEqual(plan.contexts, []);
    assert.equal(plan.promptLine, "Long horizon: recent_window=5, episodic=5, horizon_split_seq=none, consolidated=0, authority=non_authoritative");
  });

  test("an accepted candidate whose sources are all before the split is a cited, non-authoritative item", () => {
    // seqs 1-3 tool calls, 4 created (sources 1, 2), 5 accepted; 20 events, window 10 → split 10.
    const log = sessionEvents([...toolCalls(3), created(idA, [1, 2]), reviewed(idA, "accepted")], 20);
    const plan = buildLongHorizonPlan({ sessionId: session, events: log, recentWindow: 10, budget: 10, query: "redis cache" });
    assert.equal(plan.diagnostics.horizon_split_seq, 10);
    assert.equal(plan.diagnostics.episodic_count, 10);
    assert.equal(plan.diagnostics.consolidated_count, 1);
    assert.deepEqual(plan.diagnostics.items, [{
      candidate_id: idA,
      candidate_type: "claim",
      citation: cite(4),
      source_event_citations: [cite(1), cite(2)],
      source_event_count: 2,
      review_status: "accepted",
      confidence: 0.8,
      non_authoritative: true,
      authority_status: "non_authoritative",
    }]);
    const [item] = plan.contexts;
    assert.equal(item.source, "consolidated");
    assert.equal(item.sourceLane, "consolidated");
    assert.equal(item.citation, cite(4));
    assert.equal(item.eventSeq, 4);
    assert.equal(item.validTo, null);
    assert.equal(item.content, "Cache decision aaaa: the cache layer uses redis with a 60 s ttl");
    assert.deepEqual(Object.keys(item.metadata), [
      "assembly_lane", "source_lane", "tier", "citation", "source_event_citations", "source_event_count", "non_authoritative",
      "authority_status", "review_status", "candidate_id", "candidate_type", "confidence", "entity_type", "entity_name", "relevance_terms",
    ]);
    assert.equal(item.metadata.non_authoritative, true);
    assert.equal(item.metadata.tier, "consolidated");
    assert.equal(item.metadata.entity_type, "consolidation_candidate");
    // I3: query {redis, cache} both in the item → 1.0; 2 sources / 8; max source 2 / split 10; confidence 0.8.
    const expected = Math.round((0.4 * 1 + 0.25 * (2 / 8) + 0.2 * (2 / 10) + 0.15 * 0.8) * 1e6) / 1e6;
    assert.equal(item.score, expected);
    assert.equal(item.score, 0.6225);
    assert.deepEqual(item.metadata.relevance_terms, {
      query_overlap: 1,
      span_coverage: 0.25,
      horizon_proximity: 0.2,
      authoring_prior: 0.8,
      weights: { query_overlap: 0.4, span_coverage: 0.25, horizon_proximity: 0.2, authoring_prior: 0.15 },
      span_coverage_saturation: 8,
      horizon_split_seq: 10,
      max_source_seq: 2,
      source_event_count: 2,
    });
  });

  test("pending, rejected and rolled-back acceptances stay out of the remote tier", () => {
    const log = sessionEvents([
      ...toolCalls(3),
      created(idA, [1]), // 4: never reviewed → pending
      created(idB, [2]), // 5
      reviewed(idB, "rejected"), // 6
      created(idC, [3]), // 7
      reviewed(idC, "accepted"), // 8
    ], 30);
    // Roll back C's acceptance (seq 8) at seq 9 by rewriting the filler there.
    log[8] = events([["memory.rolled_back", { target: { seq: 8, hash: hashOf(8) } }, session]])[0];
    log[8] = { ...log[8], seq: 9, hash: hashOf(9), prevHash: hashOf(8) };
    const plan = buildLongHorizonPlan({ sessionId: session, events: log, recentWindow: 10, budget: 10, query: "cache" });
    assert.equal(plan.diagnostics.horizon_split_seq, 20);
    assert.deepEqual(plan.diagnostics.items, []);
    assert.equal(plan.diagnostics.consolidated_count, 0);
  });

  test("a candidate citing any source after the split, or a hash that is not the log's, is excluded", () => {
    const wrongHash = created(idC, [1]);
    (wrongHash[1].source_events as Array<{ seq: number; hash: string }>)[0].hash = "f".repeat(64);
    const log = sessionEvents([
      ...toolCalls(3),
      created(idA, [1, 12]), // 4: source 12 is after the split (10)
      reviewed(idA, "accepted"), // 5
      created(idB, [1, 10]), // 6: source 10 is exactly the split → allowed
      reviewed(idB, "accepted"), // 7
      wrongHash, // 8
      reviewed(idC, "accepted"), // 9
    ], 20);
    const plan = buildLongHorizonPlan({ sessionId: session, events: log, recentWindow: 10, budget: 10, query: "cache" });
    assert.equal(plan.diagnostics.horizon_split_seq, 10);
    assert.deepEqual(plan.diagnostics.items.map((item) => item.candidate_id), [idB]);
    assert.equal(plan.contexts[0].metadata.relevance_terms && (plan.contexts[0].metadata.relevance_terms as { max_source_seq: number }).max_source_seq, 10);
  });

  test("stale, superseded or closed candidates are not current and stay out", () => {
    const log = sessionEvents([
      ...toolCalls(3),
      created(idA, [1], { stale: true }),
      reviewed(idA, "accepted"),
      created(idB, [2], { superseded_by: idC }),
      reviewed(idB, "accepted"),
      created(idC, [3], { valid_to: "2026-02-01T00:00:00Z" }),
      reviewed(idC, "accepted"),
    ], 20);
    const plan = buildLongHorizonPlan({ sessionId: session, events: log, recentWindow: 10, budget: 10, query: "cache" });
    assert.deepEqual(plan.diagnostics.items, []);
  });

  test("items are sorted by span relevance and cut to the budget", () => {
    const log = sessionEvents([
      ...toolCalls(8),
      created(idA, [1], { confidence: 0.1 }), // 9: low prior, 1 source
      reviewed(idA, "accepted"),
      created(idB, [1, 2, 3, 4, 5, 6, 7, 8]), // 11: 8 sources → coverage 1
      reviewed(idB, "accepted"),
      created(idC, [2, 3]), // 13
      reviewed(idC, "accepted"),
    ], 40);
    const plan = buildLongHorizonPlan({ sessionId: session, events: log, recentWindow: 20, budget: 2, query: "unrelated words" });
    assert.equal(plan.diagnostics.horizon_split_seq, 20);
    assert.deepEqual(plan.diagnostics.items.map((item) => item.candidate_id), [idB, idC]);
    assert.equal(plan.diagnostics.consolidated_count, 2);
    const scores = plan.contexts.map((item) => item.score);
    // B: 0.25·1 + 0.2·8/20 + 0.15·0.8; C: 0.25·2/8 + 0.2·3/20 + 0.15·0.8.
    assert.deepEqual(scores, [0.45, 0.2125]);
  });

  test("a query without tokens scores zero overlap, not NaN", () => {
    const log = sessionEvents([...toolCalls(3), created(idA, [1]), reviewed(idA, "accepted")], 20);
    const plan = buildLongHorizonPlan({ sessionId: session, events: log, recentWindow: 10, budget: 10, query: "?" });
    assert.equal((plan.contexts[0].metadata.relevance_terms as { query_overlap: number }).query_overlap, 0);
    assert.equal(plan.contexts[0].score, Math.round((0.25 / 8 + 0.2 * 0.1 + 0.15 * 0.8) * 1e6) / 1e6);
  });
});

describe("tokens, Python rounding and the long-horizon merge", () => {
  test("tokens are casefolded runs longer than one character, keeping path and ref punctuation", () => {
    assert.deepEqual([...projectionTokens("Straße docs/a.md:1-3 a B2 eventloom://s/events/1#ab")], [
      "strasse", "docs/a.md:1-3", "b2", "eventloom://s/events/1#ab",
    ]);
  });

  test("span relevance matches Python's formula and round(x, 6), ties included (seed 20260101)", { skip: skipWithoutPython }, () => {
    // A fixed-seed LCG, so the cases are the same on every run; plus exact-tie values.
    let state = 20260101;
    const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
    const cases = Array.from({ length: 400 }, () => ({
      query_overlap: Math.floor(next() * 7) / Math.max(1, Math.floor(next() * 7)),
      span_coverage: Math.min(1, Math.floor(next() * 12) / 8),
      horizon_proximity: Math.min(1, Math.floor(next() * 5000) / Math.max(1, Math.floor(next() * 5000))),
      authoring_prior: Math.round(next() * 100) / 100,
    })).map((terms) => ({ ...terms, query_overlap: Math.min(1, terms.query_overlap) }));
    const program = "import json, sys\n" +
      "cases = json.load(sys.stdin)\n" +
      "print(json.dumps([round(0.40*c['query_overlap'] + 0.25*c['span_coverage'] + 0.20*c['horizon_proximity'] + 0.15*c['authoring_prior'], 6) for c in cases]))\n";
    const expected = JSON.parse(python(program, JSON.stringify(cases))) as number[];
    assert.deepEqual(cases.map(spanRelevance), expected);
    const ties = [0.0078125, 0.0234375, 0.5078125, 0.9921875, 0.0000005, 0.1234565];
    const pythonTies = JSON.parse(python("import json, sys\nprint(json.dumps([round(x, 6) for x in json.load(sys.stdin)]))", JSON.stringify(ties)));
    assert.deepEqual(ties.map(pythonRound6), pythonTies);
    assert.equal(pythonRound6(0.0078125), 0.007812);
  });

  test("remote items go before the first retrieved context that scores lower; retrieval order is kept", () => {
    const retrieved = [{ id: "r1", score: 0.9 }, { id: "r2", score: 0.3 }, { id: "r3", score: 0.5 }];
    const remote = [{ id: "c1", score: 0.6 }, { id: "c2", score: 0.1 }];
    assert.deepEqual(mergeByScore(retrieved, remote, longHorizonMergeRule).map((item) => item.id), ["r1", "c1", "r2", "r3", "c2"]);
  });

  test("a remote item goes before the retrieved graph context of the same candidate, whatever the scores", () => {
    const retrieved = [{ id: "r1", score: 0.9, entityName: idA }, { id: "r2", score: 0.8 }];
    const remote = [{ id: "c1", score: 0.7, entityName: idB }, { id: "c2", score: 0.1, entityName: idA }];
    assert.deepEqual(mergeByScore(retrieved, remote, longHorizonMergeRule).map((item) => item.id), ["c2", "r1", "r2", "c1"]);
  });
});

describe("checkout with the long-horizon section", () => {
  const base = {
    sessionId: "default",
    query: "release plan",
    retrieval: retrieval([context(1, "Release plan: ship friday")]),
    recentEvents: [],
    withheldRuleSeqs: new Set<number>(),
    replayEventCount: 0,
    compacted: false,
    limit: 10,
  };

  test("without the section the checkout is byte-identical to one built without the feature", () => {
    const without = JSON.stringify(buildCheckout(base));
    const emptyExtras = JSON.stringify(buildCheckout({ ...base, extraDiagnostics: {}, extraDiagnosticLines: [] }));
    assert.equal(emptyExtras, without);
    assert.equal(without.includes("long_horizon"), false);
  });

  test("with the section the diagnostics carry long_horizon and the prompt its line", () => {
    const log = sessionEvents([...toolCalls(3), created(idA, [1]), reviewed(idA, "accepted")], 20);
    const plan = buildLongHorizonPlan({ sessionId: session, events: log, recentWindow: 10, budget: 10, query: "cache" });
    const checkout = buildCheckout({
      ...base,
      extraDiagnostics: { long_horizon: plan.diagnostics as never },
      extraDiagnosticLines: [plan.promptLine],
    });
    assert.deepEqual(checkout.diagnostics.long_horizon, plan.diagnostics);
    assert.ok(checkout.prompt.includes("- Long horizon: recent_window=10, episodic=10, horizon_split_seq=10, consolidated=1"), checkout.prompt);
  });
});
