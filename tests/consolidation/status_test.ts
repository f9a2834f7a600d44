/**
 * Status by replay and the rollback rules (reference §2.6, §2.10): first creation wins, the
 * latest surviving review wins, a rollback of a review restores the previous status,
 * authority is always non_authoritative, and planRollback refuses what Python refuses.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { consolidationCandidatePayload } from "../../src/consolidation/candidate.ts";
import { planRollback, rollbackId } from "../../src/governance/rollbackPlan.ts";
import { consolidationStatus, continueConsolidationCandidates, replayConsolidation, statusLine } from "../../src/folds/consolidationStatus.ts";
import { isZaxyError } from "../../src/errors.ts";
import { events, hashOf } from "./testkit.ts";

const statusKeys = [
  "session_id", "candidate_count", "review_count", "duplicate_candidate_count", "rollback_count", "pending_count", "accepted_count",
  "rejected_count", "deferred_count", "conflicted_count", "stale_count", "superseded_count", "valid_to_count", "review_status_counts",
  "authority_status_counts", "candidate_type_counts", "candidates",
];

function candidate(type: string, title: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...consolidationCandidatePayload({ candidateType: type, title, summary: "s", sourceEvents: [{ seq: 1, hash: hashOf(1) }], confidence: 0.6, method: "m" }), ...extra };
}

const claim = candidate("claim", "C");
const episode = candidate("episode", "E");
const claimId = claim.candidate_id as string;
const review = (status: string) => ["consolidation.candidate.reviewed", { candidate_id: claimId, status, authority_status: "non_authoritative", rationale: "r" }] as [string, Record<string, unknown>];
const rollback = (seq: number) => ["memory.rolled_back", { rollback_id: "x", target: { seq, hash: hashOf(seq) }, reason: "r", authority_status: "non_authoritative" }] as [string, Record<string, unknown>];

describe("consolidationStatus", () => {
  test("counts by replay: duplicates, latest review wins, rollback restores the previous surviving review", () => {
    const log = events([
      ["tool.call.completed", {}], // 1
      ["consolidation.candidate.created", claim], // 2
      ["consolidation.candidate.created", episode], // 3
      ["consolidation.candidate.created", { ...claim, summary: "dup" }], // 4: duplicate, ignored
      review("accepted"), // 5
      review("rejected"), // 6
      rollback(6), // 7
    ]);
    const status = consolidationStatus("agent-1", log);
    assert.deepEqual(Object.keys(status), statusKeys);
    assert.deepEqual(
      { ...status, candidates: undefined },
      {
        session_id: "agent-1", candidate_count: 2, review_count: 2, duplicate_candidate_count: 1, rollback_count: 1, pending_count: 1,
        accepted_count: 1, rejected_count: 0, deferred_count: 0, conflicted_count: 0, stale_count: 0, superseded_count: 0, valid_to_count: 0,
        review_status_counts: { accepted: 1, pending: 1 }, authority_status_counts: { non_authoritative: 2 },
        candidate_type_counts: { claim: 1, episode: 1 }, candidates: undefined,
      },
    );
    assert.deepEqual(status.candidates, [
      {
        candidate_id: claimId, candidate_type: "claim", review_status: "accepted", authority_status: "non_authoritative", created_seq: 2,
        created_hash: hashOf(2), reviewed_seq: 5, reviewed_hash: hashOf(5), rolled_back_review_count: 1,
      },
      { candidate_id: episode.candidate_id, candidate_type: "episode", review_status: "pending", authority_status: "non_authoritative", created_seq: 3, created_hash: hashOf(3) },
    ]);
    assert.equal(statusLine(status), "Consolidation status for agent-1: pending=1, accepted=1, rejected=0, deferred=0, conflicted=0");
  });

  test("rolling back the only review returns the candidate to pending; reviews of unknown ids are ignored", () => {
    const log = events([
      ["consolidation.candidate.reviewed", { candidate_id: claimId, status: "accepted", rationale: "early" }], // 1: before creation
      ["consolidation.candidate.created", claim], // 2
      review("accepted"), // 3
      rollback(3), // 4
    ]);
    const status = consolidationStatus("agent-1", log);
    assert.equal(status.review_count, 1);
    assert.equal(status.pending_count, 1);
    assert.equal(status.accepted_count, 0);
    assert.deepEqual((status.candidates as Record<string, unknown>[])[0].rolled_back_review_count, 1);
    assert.equal("reviewed_seq" in (status.candidates as Record<string, unknown>[])[0], false);
  });

  test("an authoritative payload is still reported non_authoritative; stale, superseded and valid_to are counted", () => {
    const log = events([
      ["consolidation.candidate.created", { ...claim, authority_status: "authoritative", stale: true, superseded_by: "x", valid_to: "2026-01-02T00:00:00Z" }],
      ["consolidation.candidate.created", { ...episode, review_status: "stale" }],
    ]);
    const status = consolidationStatus("agent-1", log);
    assert.deepEqual(status.authority_status_counts, { non_authoritative: 2 });
    // The second candidate's declared "stale" status is a creation payload's claim, not a review.
    assert.deepEqual([status.stale_count, status.superseded_count, status.valid_to_count], [1, 1, 1]);
    const [first, second] = status.candidates as Record<string, unknown>[];
    assert.deepEqual([first.stale, first.superseded_by, first.valid_to], [true, "x", "2026-01-02T00:00:00Z"]);
    assert.equal(second.review_status, "pending");
  });

  test("a creation payload declaring itself accepted is pending until a review accepts it", () => {
    const declared = ["consolidation.candidate.created", { ...claim, review_status: "accepted", authority_status: "authoritative" }] as [string, Record<string, unknown>];
    const unreviewed = consolidationStatus("agent-1", events([declared]));
    assert.deepEqual([unreviewed.pending_count, unreviewed.accepted_count], [1, 0]);
    assert.deepEqual((unreviewed.candidates as Record<string, unknown>[])[0].authority_status, "non_authoritative");
    const reviewed = consolidationStatus("agent-1", events([declared, review("accepted")]));
    assert.deepEqual([reviewed.pending_count, reviewed.accepted_count], [0, 1]);
  });

  test("memory.invalidated naming a candidate closes it at invalid_at; a later creation of the same id reopens it", () => {
    const invalidation = ["memory.invalidated", { entity_name: claimId, entity_type: "consolidation_candidate", invalid_at: "2026-01-01T00:00:00.000000Z" }] as [string, Record<string, unknown>];
    const otherType = ["memory.invalidated", { entity_name: claimId, entity_type: "preference", invalid_at: "2026-01-01T00:00:00.000000Z" }] as [string, Record<string, unknown>];
    const log = events([["consolidation.candidate.created", claim], review("accepted"), otherType, invalidation]);
    const status = consolidationStatus("agent-1", log);
    const [closed] = status.candidates as Record<string, unknown>[];
    assert.deepEqual([closed.review_status, closed.stale, closed.valid_to, closed.invalidated_seq], ["accepted", true, "2026-01-01T00:00:00.000000Z", 4]);
    assert.deepEqual([status.stale_count, status.valid_to_count], [1, 1]);

    const reopened = consolidationStatus("agent-1", events([["consolidation.candidate.created", claim], invalidation, ["consolidation.candidate.created", claim]]));
    assert.deepEqual([reopened.stale_count, reopened.valid_to_count, reopened.duplicate_candidate_count], [0, 0, 1]);

    // Continued from the first events' candidates, the replay gives the whole replay's answer.
    for (let cut = 0; cut <= log.length; cut++) {
      const base = replayConsolidation(log.slice(0, cut)).candidates;
      assert.deepEqual(continueConsolidationCandidates(base, log.slice(cut)), replayConsolidation(log).candidates, `cut at ${cut}`);
    }
  });
});

describe("planRollback", () => {
  const log = events([
    ["tool.call.completed", {}], // 1
    ["consolidation.candidate.created", claim], // 2
    review("accepted"), // 3
    review("deferred"), // 4
  ]);

  function refused(request: Parameters<typeof planRollback>[2], code: string, field: string, message: RegExp, on = log): void {
    assert.throws(() => planRollback("agent-1", on, request), (error: unknown) => {
      assert.ok(isZaxyError(error));
      assert.equal(error.exitCode, 2);
      assert.equal(error.code, code);
      assert.equal(error.details.field, field);
      assert.match(error.message, message);
      return true;
    });
  }

  test("the latest review: payload in Python's key order, reverting to the previous status", () => {
    const plan = planRollback("agent-1", log, { targetSeq: 4, targetHash: hashOf(4), reason: "deferred by mistake" });
    assert.deepEqual(plan.payload, {
      rollback_id: rollbackId({ seq: 4, hash: hashOf(4) }, "deferred by mistake"),
      target: { seq: 4, hash: hashOf(4) },
      reason: "deferred by mistake",
      authority_status: "non_authoritative",
      reverts: { event_type: "consolidation.candidate.reviewed", candidate_id: claimId, to_status: "accepted" },
    });
    assert.match(String(plan.payload.rollback_id), /^rollback:[0-9a-f]{24}$/);
  });

  test("refuses a superseded review, a non-rollbackable event, a wrong hash, a missing seq, a double rollback, a blank reason", () => {
    refused({ targetSeq: 3, targetHash: hashOf(3), reason: "r" }, "rollback_not_latest_review", "target_seq", /later review \(seq 4\)/);
    refused({ targetSeq: 2, targetHash: hashOf(2), reason: "r" }, "not_rollbackable", "target_seq", /consolidation\.candidate\.created\) is not a reversible evolution/);
    refused({ targetSeq: 4, targetHash: hashOf(3), reason: "r" }, "rollback_hash_mismatch", "target_hash", /does not match the sealed event at seq 4/);
    refused({ targetSeq: 9, targetHash: hashOf(9), reason: "r" }, "unknown_rollback_target", "target_seq", /No event at seq 9/);
    refused({ targetSeq: 0, targetHash: hashOf(9), reason: "r" }, "invalid_rollback_target", "target_seq", /positive integer/);
    refused({ targetSeq: 4, targetHash: "A".repeat(64), reason: "r" }, "invalid_rollback_target", "target_hash", /64 lowercase hex/);
    refused({ targetSeq: 4, targetHash: hashOf(4), reason: "  " }, "invalid_rollback", "reason", /non-empty/);
    const rolledBack = events([...log.map((e) => [e.type, Object.fromEntries([...e.payload].map(([k, v]) => [k, v]))] as [string, Record<string, unknown>]), rollback(4)]);
    refused({ targetSeq: 4, targetHash: hashOf(4), reason: "again" }, "already_rolled_back", "target_seq", /already rolled back/, rolledBack);
  });
});
