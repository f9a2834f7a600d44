/**
 * The checkout feature (reference §2.7): a section, guidance and a prompt line only when the
 * current contexts include consolidation candidates, with statuses from the replay (a
 * rolled-back acceptance is pending again).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { consolidationCandidatePayload } from "../../src/consolidation/candidate.ts";
import { checkoutFeatureContributions, checkoutFeatures, consolidationCheckoutFeature } from "../../src/checkout/checkoutFeatures.ts";
import type { RetrievedContext } from "../../src/retrieval/types.ts";
import { events, hashOf } from "./testkit.ts";
import { MemorySessionFolds } from "../../src/retrieval/sessionIndex.ts";

const make = (type: string, title: string) =>
  consolidationCandidatePayload({ candidateType: type, title, summary: "s", sourceEvents: [{ seq: 1, hash: hashOf(1) }], confidence: 0.6, method: "m" });
const claim = make("claim", "C");
const episode = make("episode", "E");

function context(name: string, entityType: string, validTo: string | null = null): RetrievedContext {
  return {
    content: `${name} (${entityType}): s`, source: "graph", sourceLane: "keyword", score: 0.5, validFrom: null, validTo, citation: null,
    eventSeq: null, eventHash: null, entityName: name, entityType, scoreExplanation: {}, metadata: {},
  };
}

const log = events([
  ["tool.call.completed", {}], // 1
  ["consolidation.candidate.created", claim], // 2
  ["consolidation.candidate.created", episode], // 3
  ["consolidation.candidate.reviewed", { candidate_id: claim.candidate_id, status: "accepted", rationale: "r" }], // 4
]);

function contribute(contexts: RetrievedContext[], specs = log) {
  return consolidationCheckoutFeature.contribute({ sessionId: "agent-1", folds: new MemorySessionFolds("agent-1", null, specs), retrieval: { contexts, laneCounts: {}, degraded: false } });
}

describe("consolidationCheckoutFeature", () => {
  test("is registered in the checkout features", () => {
    assert.ok(checkoutFeatures.includes(consolidationCheckoutFeature));
  });

  test("summarises the retrieved candidates with replayed statuses", () => {
    const out = contribute([
      context(String(claim.candidate_id), "consolidation_candidate"),
      context(String(episode.candidate_id), "consolidation_candidate"),
      context(String(claim.candidate_id), "consolidation_candidate", "2026-01-01T00:00:00Z"),
      context("goal:ship", "goal"),
    ]);
    assert.deepEqual(out, {
      diagnostics: {
        candidate_count: 2,
        candidate_types: ["claim", "episode"],
        pending_count: 1,
        accepted_count: 1,
        rejected_count: 0,
        conflicted_count: 0,
        stale_count: 0,
        superseded_count: 0,
        authority_status: "non_authoritative",
      },
      trust: ["Use consolidation candidates as cited summaries that still require review."],
      ignore: ["Do not treat consolidation candidates as authoritative memory without a separate promotion event."],
      promptLines: [
        "Consolidation candidates: candidates=2, pending=1, accepted=1, rejected=0, conflicted=0, stale=0, superseded=0, authority=non_authoritative, types=claim, episode",
      ],
    });
  });

  test("a rolled-back acceptance counts as pending again", () => {
    const rolled = events([
      ...log.map((e) => [e.type, Object.fromEntries(e.payload)] as [string, Record<string, unknown>]),
      ["memory.rolled_back", { target: { seq: 4, hash: hashOf(4) }, reason: "r" }],
    ]);
    const out = contribute([context(String(claim.candidate_id), "consolidation_candidate")], rolled);
    assert.deepEqual(out?.diagnostics, {
      candidate_count: 1,
      candidate_types: ["claim"],
      pending_count: 1,
      accepted_count: 0,
      rejected_count: 0,
      conflicted_count: 0,
      stale_count: 0,
      superseded_count: 0,
      authority_status: "non_authoritative",
    });
  });

  test("adds nothing when no candidate was retrieved", () => {
    assert.equal(contribute([context("goal:ship", "goal")]), null);
    const merged = checkoutFeatureContributions({ sessionId: "agent-1", folds: new MemorySessionFolds("agent-1", null, log), retrieval: { contexts: [context("goal:ship", "goal")], laneCounts: {}, degraded: false } }, [consolidationCheckoutFeature]);
    assert.deepEqual(merged, { extraDiagnostics: {}, extraGuidance: { trust: [], ignore: [] }, extraDiagnosticLines: [] });
  });
});
