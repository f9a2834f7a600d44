/**
 * Governance and integrity behaviours of the design documents, through the binary:
 * - 002 (long-horizon checkout): only candidates accepted by a review event enter the remote
 *   tier; a candidate's self-declared `review_status` is never trusted.
 * - 002 (compaction projections): an artifact record whose `event_ref` does not resolve to the
 *   sealed event is not served as a cited fact and is named under `# Context Warnings`.
 * - 001 (causal edges): a raw `causal.edge.generated` the producer would never emit is refused
 *   (exit 2, nothing written); one already in a log is reported by `memory status` and
 *   `compact --audit`.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { runZaxy, stackTraceLines } from "../cli/zaxy.ts";

after(removeTempDirs);

const slow = { timeout: 120_000 };

interface Workspace {
  dir: string;
  root: string;
  zaxy: (args: string[], input?: string) => { code: number | null; stdout: string; stderr: string };
  append: (type: string, payload: Record<string, unknown>, session?: string) => { seq: number; hash: string; citation: string };
}

function workspace(label: string): Workspace {
  const dir = makeTempDir(label);
  const root = path.join(dir, ".eventloom");
  const zaxy = (args: string[], input?: string) => runZaxy(args, { cwd: dir, input });
  const append = (type: string, payload: Record<string, unknown>, session = "default") => {
    const run = zaxy(["memory", "append", type, "--actor", "agent", "--session-id", session, "--payload-json", JSON.stringify(payload), "--json"]);
    assert.equal(run.code, 0, run.stderr);
    const doc = JSON.parse(run.stdout);
    return { seq: doc.seq as number, hash: doc.hash as string, citation: doc.citation as string };
  };
  return { dir, root, zaxy, append };
}

function checkoutJson(ws: Workspace, args: string[]): { [key: string]: any } {
  const run = ws.zaxy(["memory", "checkout", ...args, "--json"]);
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout);
}

describe("design 002: the long-horizon remote tier admits only review-accepted candidates", () => {
  test("a candidate appended raw with review_status accepted stays out until a review accepts it, and leaves again when the review is rolled back", slow, () => {
    const ws = workspace("zaxy-seed-long-horizon");
    const source = ws.append("tool.call.completed", { tool: "pytest", summary: "release pipeline uses blue green deploys" });
    const candidateId = "consolidation:claim:0123456789abcdef01234567";
    ws.append("consolidation.candidate.created", {
      candidate_id: candidateId,
      candidate_type: "claim",
      title: "Release blue green",
      summary: "the release pipeline uses blue green deploys",
      source_events: [{ seq: source.seq, hash: source.hash }],
      confidence: 0.9,
      review_status: "accepted",
      authority_status: "non_authoritative",
    });
    for (let i = 0; i < 4; i++) ws.append("note.added", { text: `later note ${i}` });
    const args = ["release blue green", "--long-horizon", "--recent-window", "2", "--max-recent-events", "2"];

    const unreviewed = checkoutJson(ws, args);
    assert.equal(unreviewed.diagnostics.long_horizon.consolidated_count, 0, "a self-declared status must not grant the remote tier");
    assert.deepEqual(unreviewed.diagnostics.long_horizon.items, []);
    assert.equal(JSON.stringify(unreviewed).includes('"consolidated"'), false);

    const review = ws.zaxy(["memory", "consolidation", "review", "--candidate-id", candidateId, "--status", "accepted", "--rationale", "checked the run", "--json"]);
    assert.equal(review.code, 0, review.stderr);
    const reviewed = JSON.parse(review.stdout);
    const accepted = checkoutJson(ws, args);
    assert.equal(accepted.diagnostics.long_horizon.consolidated_count, 1);
    assert.equal(accepted.diagnostics.long_horizon.items[0].candidate_id, candidateId);
    assert.equal(accepted.diagnostics.long_horizon.items[0].review_status, "accepted");
    assert.deepEqual(accepted.diagnostics.long_horizon.items[0].source_event_citations, [source.citation]);

    const rollback = ws.zaxy(["memory", "rollback", "--target-seq", String(reviewed.seq), "--target-hash", reviewed.hash, "--reason", "premature", "--json"]);
    assert.equal(rollback.code, 0, rollback.stderr);
    const rolledBack = checkoutJson(ws, args);
    assert.equal(rolledBack.diagnostics.long_horizon.consolidated_count, 0, "the rolled-back review no longer grants the remote tier; the payload's status does not either");
  });
});
