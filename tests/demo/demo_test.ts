// test-lane: full (slow)
/** `zaxy demo` (what `npm start` runs): the session verifies, the tampered copy is caught. */
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { runZaxy, type ZaxyRun } from "../cli/zaxy.ts";
import { makeTempDir } from "../eventloom/testkit.ts";

/**
 * One `zaxy demo --dir DIR --json` run (seconds under load) shared by the tests that read its
 * document and directory; what they run afterwards only reads the directory.
 */
let sharedDemo: { dir: string; run: ZaxyRun } | undefined;

function demoJson(): { dir: string; run: ZaxyRun } {
  if (sharedDemo === undefined) {
    const dir = makeTempDir("zaxy-demo");
    sharedDemo = { dir, run: runZaxy(["demo", "--dir", dir, "--json"], { cwd: dir }) };
  }
  return sharedDemo;
}

test("demo records a cited session, verifies it and catches the tampered copy", () => {
  const { dir, run } = demoJson();
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stderr, "");
  const doc = JSON.parse(run.stdout);
  assert.equal(doc.schema, "zaxy.demo.v1");
  assert.equal(doc.ok, true);
  assert.equal(doc.integrity.ok, true);
  assert.equal(doc.integrity.total_events, 8);
  assert.equal(doc.tamper.report.ok, false);
  assert.equal(doc.tamper.report.broken_at_seq, 4);
  assert.equal(doc.tamper.report.broken_reason, "Event 4 hash mismatch");
  // The first 8 events are the session; the checkout step appends 4 more, the causal step 2
  // explanations and the 2 edges the producer generates, then the candidates and one review.
  const log = fs.readFileSync(path.join(dir, ".eventloom", "demo-agent.jsonl"), "utf8").trim().split("\n");
  assert.equal(log.length, 12 + 4 + doc.consolidation.first.candidate_count + 1);
  doc.events.forEach((event: { seq: number; hash: string; citation: string }, i: number) => {
    assert.equal(event.seq, i + 1);
    assert.equal(event.citation, `eventloom://demo-agent/events/${i + 1}#${event.hash.slice(0, 12)}`);
    assert.ok(log[i].includes(event.hash), "the citation's hash is the stored hash");
  });
  assert.ok(!log[3].includes("sk-live"), "the secret never reaches the log");
  assert.deepEqual(doc.redacted_paths, ["seq 4: api_key"]);
});

test("demo prints a readable text report", () => {
  const dir = makeTempDir("zaxy-demo");
  const run = runZaxy(["demo", "--dir", dir], { cwd: dir });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /2\. Verify: OK, 8 events/);
  assert.match(run.stdout, /BROKEN at seq 4: Event 4 hash mismatch/);
  assert.match(run.stdout, /1 hop   stale JWKS cache after key rotation --caused--> test_login_refreshes_jwks failed .*evidence seq 4, non_authoritative\)  eventloom:\/\/demo-agent\/events\/15#/);
  assert.match(run.stdout, /2 hops  24 h JWKS cache TTL --caused--> stale JWKS cache after key rotation/);
  assert.match(run.stdout, /proposed again: 0 new, \d+ skipped as existing/);
  assert.match(run.stdout, /status replayed from the log: 1 accepted/);
  assert.match(run.stdout, /Demo OK/);
});

test("demo checkout cites only the current release branch and counts the superseded ones", () => {
  const { dir, run } = demoJson();
  assert.equal(run.code, 0, run.stderr);
  const { checkout } = JSON.parse(run.stdout);
  const log = fs.readFileSync(path.join(dir, ".eventloom", "demo-agent.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line));
  const facts = checkout.current_facts.map((f: { content: string }) => f.content);
  assert.ok(facts.includes("maya:release_branch (preference): release_branch=release/1.5"), facts.join(" | "));
  assert.ok(!facts.some((f: string) => /release_branch=(main|release\/1\.4)$/.test(f)), facts.join(" | "));
  assert.equal(checkout.superseded_contexts_excluded, 2);
  assert.deepEqual(checkout.superseded.map((s: { content: string }) => s.content).sort(), [
    "maya:release_branch (preference): release_branch=main",
    "maya:release_branch (preference): release_branch=release/1.4",
  ]);
  for (const item of [...checkout.current_facts, ...checkout.superseded]) {
    const match = /^eventloom:\/\/demo-agent\/events\/(\d+)#([0-9a-f]{12})$/.exec(item.citation);
    assert.ok(match, item.citation);
    const event = log[Number(match[1]) - 1];
    const hash: string = event.hash ?? event.integrity.hash.replace(/^sha256:/, "");
    assert.ok(hash.startsWith(match[2]), `${item.citation} matches the log`);
  }
  assert.match(checkout.prompt, /^# Memory Checkout\nQuery: Which release branch/);
});

test("demo explains the failure causally: predecessors walk back both hops, each cited by its causal.edge.generated event", () => {
  const { dir, run } = demoJson();
  assert.equal(run.code, 0, run.stderr);
  const { causal, events } = JSON.parse(run.stdout);
  const log = fs.readFileSync(path.join(dir, ".eventloom", "demo-agent.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line));
  const typeAt = (seq: number) => log[seq - 1].type ?? log[seq - 1].event_type;
  assert.deepEqual(causal.explained.map((e: { seq: number }) => typeAt(e.seq)), ["outcome.explained", "outcome.explained"]);
  assert.deepEqual(causal.generated.map((e: { seq: number }) => typeAt(e.seq)), ["causal.edge.generated", "causal.edge.generated"]);
  assert.deepEqual(
    causal.predecessors.map((p: { source: { name: string }; target: { name: string }; path_length: number }) => `${p.source.name} -> ${p.target.name}@${p.path_length}`),
    ["stale JWKS cache after key rotation -> test_login_refreshes_jwks failed@1", "24 h JWKS cache TTL -> stale JWKS cache after key rotation@2"],
  );
  // Each result cites the generated edge; its evidence is the event the agent saw (the failing run, the file read).
  assert.deepEqual(causal.predecessors.map((p: { citation: string }) => p.citation), causal.generated.map((e: { citation: string }) => e.citation));
  assert.deepEqual(causal.predecessors.map((p: { evidence: { source_event_seq: number; source_event_hash: string } }) => [p.evidence.source_event_seq, p.evidence.source_event_hash]), [
    [4, events[3].hash],
    [3, events[2].hash],
  ]);
  for (const p of causal.predecessors) assert.equal(p.authority_status, "non_authoritative");
});

test("demo proposes candidates from the session once, reviews one, and replays the status", () => {
  const { dir, run } = demoJson();
  assert.equal(run.code, 0, run.stderr);
  const { consolidation } = JSON.parse(run.stdout);
  const created = consolidation.first.events.map((e: { candidate_id: string }) => e.candidate_id);
  assert.ok(created.length >= 1);
  assert.equal(consolidation.second.candidate_count, 0);
  assert.deepEqual(consolidation.second.skipped_existing_candidate_ids, created);
  assert.equal(consolidation.review.status, "accepted");
  assert.equal(consolidation.review.authority_status, "non_authoritative");
  assert.equal(consolidation.status.accepted_count, 1);
  assert.equal(consolidation.status.pending_count, created.length - 1);
  assert.deepEqual(consolidation.status.candidates.map((c: { candidate_id: string }) => c.candidate_id), created);
  // The status command replays the same log to the same answer.
  const status = runZaxy(["memory", "consolidation", "status", "--eventloom-path", path.join(dir, ".eventloom"), "--session-id", "demo-agent", "--json"], { cwd: dir });
  assert.equal(status.code, 0, status.stderr);
  const replayed = JSON.parse(status.stdout);
  assert.equal(replayed.accepted_count, 1);
  assert.deepEqual(replayed.candidates, consolidation.status.candidates);
  const log = fs.readFileSync(path.join(dir, ".eventloom", "demo-agent.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line));
  const types = log.map((e) => e.type ?? e.event_type);
  assert.equal(types.filter((t: string) => t === "consolidation.candidate.created").length, created.length);
  assert.equal(types.filter((t: string) => t === "consolidation.candidate.reviewed").length, 1);
});

test("demo audits near-duplicate runbooks as unsafe and an exemplar projection keeps every identity", () => {
  const { dir, run } = demoJson();
  assert.equal(run.code, 0, run.stderr);
  const { compaction } = JSON.parse(run.stdout);
  assert.equal(compaction.audit.safe, false);
  assert.equal(compaction.audit.cluster_count, 1);
  assert.deepEqual(compaction.audit.unsafe_reasons, ["identity recall below 1.000"]);
  // One representative keeps one runbook's code and path; which one the medoid picks depends on
  // the events' timestamps (Python's event_context embeds them), so the test counts: of the six
  // runbooks, exactly five lose both their identity code and their path.
  const missing: string[] = compaction.audit.missing_identities;
  const lost = [1, 2, 3, 4, 5, 6].filter((k) => missing.includes(`identity-code-104${k}`));
  assert.equal(lost.length, 5, missing.join(", "));
  for (let k = 1; k <= 6; k++) {
    assert.equal(missing.includes(`docs/runbooks/payments-${k}.md:1-12`), lost.includes(k), `runbook ${k}: ${missing.join(", ")}`);
  }
  assert.equal(missing.length, 10, missing.join(", "));
  // The same audit from the command line: exit 1, unsafe.
  const audit = runZaxy(["compact", compaction.log_path, "--audit", "--json"], { cwd: dir });
  assert.equal(audit.code, 1, audit.stderr);
  assert.equal(JSON.parse(audit.stdout).safe, false);
  // The exemplar projection keeps every identity and is a file of real events.
  assert.deepEqual(compaction.projection.identities_missing, []);
  assert.equal(compaction.projection.records, 6);
  const artifact = JSON.parse(fs.readFileSync(compaction.projection.path, "utf8"));
  assert.equal(artifact.projection_id, compaction.projection.projection_id);
  const log = fs.readFileSync(compaction.log_path, "utf8").trim().split("\n").map((line) => JSON.parse(line));
  for (const record of artifact.records) {
    const match = /^eventloom:\/\/demo-runbooks\/events\/(\d+)#([0-9a-f]{12})$/.exec(record.event_ref);
    assert.ok(match, record.event_ref);
    const event = log[Number(match[1]) - 1];
    const hash: string = event.hash ?? event.integrity.hash.replace(/^sha256:/, "");
    assert.ok(hash.startsWith(match[2]));
  }
  // Retrieval finds the asked-for runbook through the projection, with its source citation.
  assert.equal(compaction.projection_hits[0].citation.startsWith("eventloom://demo-runbooks/events/4#"), true);
  assert.deepEqual(compaction.projection_hits[0].source_citations, ["docs/runbooks/payments-4.md:1-12"]);
});

test("demo refuses a --dir that already holds an Eventloom, writing nothing", () => {
  const dir = makeTempDir("zaxy-demo");
  fs.mkdirSync(path.join(dir, ".eventloom"));
  const run = runZaxy(["demo", "--dir", dir, "--json"], { cwd: dir });
  assert.equal(run.code, 2);
  const { error } = JSON.parse(run.stdout);
  assert.equal(error.field, "--dir");
  assert.match(error.message, /already holds an Eventloom/);
  assert.deepEqual(fs.readdirSync(path.join(dir, ".eventloom")), []);
});

test("demo promotes the agent's lesson into a fleet, refuses an unenrolled agent, and another agent's checkout cites it", () => {
  const { dir, run } = demoJson();
  assert.equal(run.code, 0, run.stderr);
  const { fleet, events } = JSON.parse(run.stdout);
  assert.equal(fleet.refused.rejected, true);
  assert.match(fleet.refused.reason, /insufficient trust: actor 'agent-x'/);
  assert.equal(fleet.refused.log_bytes_unchanged, true);
  // Design 003: the refusal is audited in the refused agent's own session, not the fleet thread.
  assert.match(fleet.refused.audit_citation, /^eventloom:\/\/agent-x\/events\/1#[0-9a-f]{12}$/);
  assert.equal(fleet.promotion.rejected, false);
  assert.equal(fleet.promotion.review_status, "active");
  assert.ok(fleet.promotion.gate_event.seq < fleet.promotion.promotion_event.seq, "the gate event comes first");
  // The promotion cites the agent's sealed events: the passing run (seq 6) and the decision (seq 7).
  const thread = fs.readFileSync(fleet.thread_log, "utf8").trim().split("\n").map((line) => JSON.parse(line));
  const promoted = thread[fleet.promotion.promotion_event.seq - 1];
  const payload = promoted.payload;
  assert.equal(promoted.type ?? promoted.event_type, "fleet.outcome.propagated");
  assert.deepEqual(payload.source_events, [{ seq: 6, hash: events[5].hash }, { seq: 7, hash: events[6].hash }]);
  assert.equal(payload.authority_status, "non_authoritative");
  // agent-b's checkout cites the promotion event of the fleet thread.
  assert.deepEqual(fleet.receiver.fleet_facts.map((f: { citation: string }) => f.citation), [fleet.promotion.citation]);
  assert.match(fleet.promotion.citation, /^eventloom:\/\/fleet\.platform\/events\/\d+#[0-9a-f]{12}$/);
  assert.equal(fleet.receiver.fleet_items.count, 1);
  assert.equal(fleet.receiver.fleet_items.items[0].promotion_id, fleet.promotion.promotion_id);
  // The fleet thread verifies and its audit resolves every ref.
  const audit = runZaxy(["fleet", "audit", "platform", "--eventloom-path", path.join(dir, ".eventloom"), "--json"], { cwd: dir });
  assert.equal(audit.code, 0, audit.stdout + audit.stderr);
  assert.equal(JSON.parse(audit.stdout).unresolved_count, 0);
});
