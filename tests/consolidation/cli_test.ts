// test-lane: full (slow)
/**
 * `zaxy memory consolidation ...` and `zaxy memory rollback` through the binary: propose-from-log
 * twice creates the candidates once; every candidate and review on disk is non_authoritative and
 * cited; review then rollback restores the earlier status; refused rollbacks and bad input exit 2
 * naming the field and leave the log byte-identical; checkout gains consolidation diagnostics only
 * when candidates are retrieved.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { runZaxy, stackTraceLines } from "../cli/zaxy.ts";

after(removeTempDirs);

const slow = { timeout: 120_000 };
let dir = "";
let log = "";

function zaxy(args: string[]) {
  return runZaxy(args, { cwd: dir });
}

// deno-lint-ignore no-explicit-any
function jsonOk(args: string[]): any {
  const run = zaxy([...args, "--json"]);
  assert.equal(run.code, 0, `${args.join(" ")}: ${run.stdout}${run.stderr}`);
  assert.equal(run.stderr, "");
  return JSON.parse(run.stdout);
}

/** Exit 2, one error document naming `field`, no stack trace, and the log unchanged. */
function refused(args: string[], code: string, field: string, message: RegExp): void {
  const before = fs.readFileSync(log);
  const run = zaxy([...args, "--json"]);
  assert.equal(run.code, 2, `${args.join(" ")}: ${run.stdout}${run.stderr}`);
  assert.deepEqual(stackTraceLines(run.stderr), []);
  const doc = JSON.parse(run.stdout);
  assert.equal(doc.error.code, code, run.stdout);
  assert.equal(doc.error.field, field, run.stdout);
  assert.match(doc.error.message, message);
  assert.deepEqual(fs.readFileSync(log), before, "log byte-identical");
}

function append(type: string, payload: unknown): { seq: number; hash: string } {
  return jsonOk(["memory", "append", type, "--actor", "agent", "--payload-json", JSON.stringify(payload)]);
}

/** The log's lines; the v1 envelope's security block (`payload.__zaxy_security`) is dropped. */
function logLines(): Array<Record<string, unknown>> {
  return fs.readFileSync(log, "utf8").trim().split("\n").map((text) => {
    const line = JSON.parse(text);
    delete line.payload.__zaxy_security;
    return line;
  });
}

before(() => {
  dir = makeTempDir("cli-consolidation");
  log = path.join(dir, ".eventloom", "default.jsonl");
  append("tool.call.completed", { tool_name: "pytest", status: "failed" });
  append("memory.checkout.completed", { query: "why did pytest fail?" });
  append("file.edit.applied", { path: "src/retry.py", summary: "retry budget with jitter" });
  append("tool.call.completed", { tool_name: "pytest", status: "passed" });
  append("command.completed", { command: "ruff check", exit_code: 0 });
});

describe("zaxy memory consolidation", () => {
  let first: { candidate_count: number; events: Array<{ candidate_id: string; candidate_type: string; seq: number; hash: string }> };

  test("propose-from-log proposes once; the re-run creates nothing and reports every id as skipped", slow, () => {
    first = jsonOk(["memory", "consolidation", "propose-from-log"]);
    assert.deepEqual(Object.keys(first), ["schema", "session_id", "segment_count", "candidate_count", "skipped_existing_count", "skipped_existing_candidate_ids", "threads_seen", "events"]);
    assert.equal(first.candidate_count, 3);
    assert.deepEqual(first.events.map((e) => e.candidate_type), ["episode", "claim", "procedure"]);
    assert.deepEqual(Object.keys(first.events[0]), ["event_type", "seq", "hash", "candidate_id", "candidate_type"]);
    const bytes = fs.readFileSync(log);
    const second = jsonOk(["memory", "consolidation", "propose-from-log"]);
    assert.equal(second.candidate_count, 0);
    assert.equal(second.skipped_existing_count, first.candidate_count);
    assert.deepEqual(second.skipped_existing_candidate_ids, first.events.map((e) => e.candidate_id));
    assert.deepEqual(second.events, []);
    assert.deepEqual(fs.readFileSync(log), bytes);
  });

  test("consolidation status lists every candidate with its full id (review takes it), aligned (issue 18 item 6)", slow, () => {
    const run = zaxy(["memory", "consolidation", "status"]);
    assert.equal(run.code, 0, run.stderr);
    const lines = run.stdout.trimEnd().split("\n");
    assert.match(lines[0], /^Consolidation status for /);
    assert.match(lines[2], /^CANDIDATE +TYPE +STATUS +CREATED$/);
    for (const event of first.events) assert.ok(lines.some((line) => line.startsWith(`${event.candidate_id}  `) && line.includes(event.candidate_type)), event.candidate_id);
  });

  test("every candidate on disk is pending, non_authoritative and cites the actionable events (not the checkout)", slow, () => {
    const created = logLines().filter((line) => line.type === "consolidation.candidate.created");
    assert.equal(created.length, 3);
    const sources = logLines().filter((_, i) => [0, 2, 3, 4].includes(i)).map((line) => String((line.integrity as { hash: string }).hash).slice(7));
    for (const line of created) {
      const payload = line.payload as Record<string, unknown>;
      assert.equal(payload.authority_status, "non_authoritative");
      assert.equal(payload.review_status, "pending");
      assert.deepEqual(payload.source_events, [1, 3, 4, 5].map((seq, i) => ({ seq, hash: sources[i] })));
    }
  });

  test("review then rollback: accepted changes only the review status, the rollback restores the earlier status", slow, () => {
    const claim = first.events[1].candidate_id;
    const accepted = jsonOk(["memory", "consolidation", "review", "--candidate-id", claim, "--status", "accepted", "--rationale", "reproduced the fix"]);
    assert.equal(accepted.authority_status, "non_authoritative");
    const reviewLine = logLines().at(-1)!;
    assert.deepEqual(reviewLine.payload, { candidate_id: claim, status: "accepted", authority_status: "non_authoritative", rationale: "reproduced the fix" });
    let status = jsonOk(["memory", "consolidation", "status"]);
    assert.deepEqual([status.pending_count, status.accepted_count], [2, 1]);
    assert.deepEqual(status.authority_status_counts, { non_authoritative: 3 });

    const rejected = jsonOk(["memory", "consolidation", "review", "--candidate-id", claim, "--status", "rejected", "--rationale", "flaky"]);
    refused(["memory", "rollback", "--target-seq", String(accepted.seq), "--target-hash", accepted.hash, "--reason", "r"], "rollback_not_latest_review", "--target-seq", /only the current \(latest\) review is reversible/);
    const rolled = jsonOk(["memory", "rollback", "--target-seq", String(rejected.seq), "--target-hash", rejected.hash, "--reason", "rejected by mistake"]);
    assert.deepEqual(rolled.reverts, { event_type: "consolidation.candidate.reviewed", candidate_id: claim, to_status: "accepted" });
    assert.deepEqual(rolled.target, { seq: rejected.seq, hash: rejected.hash });
    const rollbackLine = logLines().at(-1)!;
    assert.equal(rollbackLine.type, "memory.rolled_back");
    assert.deepEqual(Object.keys(rollbackLine.payload as object), ["rollback_id", "target", "reason", "authority_status", "reverts"]);
    status = jsonOk(["memory", "consolidation", "status"]);
    const candidate = status.candidates.find((c: { candidate_id: string }) => c.candidate_id === claim);
    assert.deepEqual([candidate.review_status, candidate.rolled_back_review_count, status.rollback_count], ["accepted", 1, 1]);
    const text = zaxy(["memory", "consolidation", "status"]);
    assert.equal(text.stdout.split("\n")[0], "Consolidation status for default: pending=2, accepted=1, rejected=0, deferred=0, conflicted=0");
    assert.match(text.stdout, new RegExp(`^${claim}  +claim  +accepted  +seq \\d+$`, "m"));
    refused(["memory", "rollback", "--target-seq", String(rejected.seq), "--target-hash", rejected.hash, "--reason", "again"], "already_rolled_back", "--target-seq", /already rolled back/);
    refused(["memory", "rollback", "--target-seq", "1", "--target-hash", first.events[0].hash, "--reason", "r"], "rollback_hash_mismatch", "--target-hash", /does not match/);
    refused(["memory", "rollback", "--target-seq", String(first.events[0].seq), "--target-hash", first.events[0].hash, "--reason", "r"], "not_rollbackable", "--target-seq", /not a reversible evolution/);
  });

  test("bad input exits 2 naming the field and writes nothing", slow, () => {
    const [seq, hash] = [first.events[0].seq, first.events[0].hash];
    const propose = (extra: string[]) => ["memory", "consolidation", "propose", "--candidate-type", "claim", "--title", "T", "--summary", "S", "--method", "manual", ...extra];
    refused(propose(["--source-event", `${seq}:${hash}`, "--confidence", "1.5"]), "invalid_consolidation_candidate", "--confidence", /between 0.0 and 1.0/);
    refused(propose(["--source-event", `${seq}:${hash}`, "--confidence", "high"]), "invalid_option", "--confidence", /must be a number/);
    refused(propose(["--source-event", `${seq}:${hash.toUpperCase()}`, "--confidence", "0.5"]), "invalid_source_event", "--source-event", /SEQ:HASH/);
    refused(propose(["--source-event", `2:${hash}`, "--confidence", "0.5"]), "uncited_source_event", "source_events[0]", /not an event of session/);
    refused(propose(["--confidence", "0.5"]), "usage", "--source-event", /--source-event/);
    refused([...propose(["--source-event", `${seq}:${hash}`, "--confidence", "0.5"]).slice(0, 5), "--title", "  "], "usage", "--summary", /--summary is required/);
    refused(["memory", "consolidation", "review", "--candidate-id", "consolidation:claim:" + "0".repeat(24), "--status", "accepted", "--rationale", "r"], "unknown_candidate", "--candidate-id", /Unknown consolidation candidate/);
    refused(["memory", "consolidation", "review", "--candidate-id", first.events[0].candidate_id, "--status", "approved", "--rationale", "r"], "invalid_consolidation_review", "--status", /accepted, conflicted, deferred, rejected/);
    refused(["memory", "consolidation", "review", "--candidate-id", "consolidation:claim:XYZ", "--status", "accepted", "--rationale", "r"], "invalid_candidate_id", "--candidate-id", /not a consolidation candidate id/);
    refused(["memory", "consolidation", "review", "--candidate-id", first.events[0].candidate_id, "--status", "accepted", "--rationale", " "], "invalid_consolidation_review", "--rationale", /non-empty/);
    refused(["memory", "consolidation", "propose-from-log", "--window-size", "51"], "invalid_option", "--window-size", /1\.\.50/);
    refused(["memory", "consolidation", "propose-from-log", "--purpose", "   "], "invalid_consolidation_candidate", "--purpose", /non-empty/);
    const unknown = zaxy(["memory", "consolidation", "status", "--session-id", "nope", "--json"]);
    assert.equal(unknown.code, 2);
    assert.equal(JSON.parse(unknown.stdout).error.code, "unknown_session");
  });

  test("a manual candidate is written with a float confidence and its cited sources", slow, () => {
    const [seq, hash] = [first.events[0].seq, first.events[0].hash];
    const doc = jsonOk(["memory", "consolidation", "propose", "--candidate-type", "claim", "--title", "Café 😀", "--summary", "S", "--source-event", `${seq}:${hash}`, "--confidence", "1", "--method", "manual"]);
    assert.match(doc.candidate_id, /^consolidation:claim:[0-9a-f]{16}$/);
    assert.equal(doc.review_status, "pending");
    assert.match(fs.readFileSync(log, "utf8").trim().split("\n").at(-1)!, /"confidence":1\.0,/);
  });

  test("checkout reports consolidation_candidates only when candidates are retrieved", slow, () => {
    const withCandidates = jsonOk(["memory", "checkout", "candidate claim procedure episode pytest", "--limit", "20"]);
    const section = withCandidates.diagnostics.consolidation_candidates;
    assert.ok(section, JSON.stringify(withCandidates.diagnostics));
    assert.equal(section.authority_status, "non_authoritative");
    assert.ok(section.candidate_count >= 1);
    assert.ok(withCandidates.guidance.trust.includes("Use consolidation candidates as cited summaries that still require review."));
    assert.ok(withCandidates.guidance.ignore.includes("Do not treat consolidation candidates as authoritative memory without a separate promotion event."));
    assert.match(
      withCandidates.prompt,
      /- Consolidation candidates: candidates=\d+, pending=\d+, accepted=\d+, rejected=\d+, conflicted=\d+, stale=\d+, superseded=\d+, authority=non_authoritative, types=/,
    );
    const other = makeTempDir("cli-consolidation-none");
    const run = (args: string[]) => runZaxy(args, { cwd: other });
    assert.equal(run(["memory", "append", "goal.created", "--actor", "a", "--payload-json", '{"title":"Ship"}']).code, 0);
    const without = JSON.parse(run(["memory", "checkout", "Ship", "--json"]).stdout);
    assert.equal("consolidation_candidates" in without.diagnostics, false);
    assert.doesNotMatch(without.prompt, /Consolidation candidates/);
  });
});
