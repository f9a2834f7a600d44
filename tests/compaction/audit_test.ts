/** auditLog and the remediation plan (reference §6 test_compaction items for the audit). */
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fromJs } from "../../src/canonical/mod.ts";
import { auditLog } from "../../src/compaction/audit.ts";
import { remediationActions } from "../../src/compaction/remediation.ts";
import { appendEvents } from "../../src/events/append.ts";

async function logOf(payloads: Array<Record<string, unknown>>, type = "document.indexed"): Promise<string> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "zaxy-audit-"));
  const items = payloads.map((p) => ({ type, actor: "agent", payload: fromJs(p) }));
  return (await appendEvents(root, "default", items)).logPath;
}

const serviceDocs = [1, 2, 3, 4, 5].map((i) => ({
  path: `docs/service-000${i}.md`, start_line: 1, end_line: 5,
  content: `Service cache invalidation runbook identity-code-000${i} restart workers drain queue`,
}));

test("a single document is safe with recall 1.0, full citation coverage and distance 0.0", async () => {
  const report = await auditLog(await logOf([{ path: "docs/one.md", start_line: 1, end_line: 3, title: "One", content: "doc-code-0001 alpha" }]));
  assert.equal(report.safe, true);
  assert.equal(report.identity_recall, 1);
  assert.equal(report.citation_coverage, 1);
  assert.equal(report.mean_within_cluster_distance, 0);
  assert.match(report.identities[0], /^eventloom:\/\/default\/events\/1#[0-9a-f]{12}$/);
  assert.ok(report.identities.includes("docs/one.md:1-3"));
  assert.ok(report.identity_count >= 3);
  assert.deepEqual(report.remediation, []);
});

test("five near-duplicate documents differing by identity code form one cluster and are unsafe for a medoid", async () => {
  const report = await auditLog(await logOf(serviceDocs));
  assert.equal(report.cluster_count, 1);
  assert.equal(report.safe, false);
  assert.deepEqual(report.unsafe_reasons, ["identity recall below 1.000"]);
  const cluster = report.clusters[0];
  assert.deepEqual(cluster.event_seqs, [1, 2, 3, 4, 5]);
  assert.equal(cluster.identity_recall_medoid, 0.2);
  assert.equal(cluster.identity_recall_exemplars, 1);
  assert.equal(cluster.regime, "spread");
  assert.equal(cluster.recommended_operator, "exemplar");
  const medoid = cluster.medoid_seq;
  const lost = [1, 2, 3, 4, 5].filter((i) => i !== medoid);
  for (const i of lost) {
    assert.ok(report.missing_identities.includes(`docs/service-000${i}.md:1-5`));
    assert.ok(report.missing_identities.includes(`identity-code-000${i}`));
  }
  assert.equal(report.remediation[0].code, "preserve_missing_identities");
  assert.equal(report.remediation[0].action, "Use exemplar projection or increase max_records before compacting.");
  assert.deepEqual(report.remediation[0].details.missing_identities, report.missing_identities);
  // Exemplars (k = 5) keep every event of the cluster: the same log is safe under that operator.
  assert.equal((await auditLog(await logOf(serviceDocs), { strategy: "exemplar" })).safe, true);
});

test("a document without a path lowers citation coverage and plans restore_source_citations", async () => {
  const report = await auditLog(await logOf([{ path: "docs/a.md", content: "alpha" }, { content: "beta gamma delta" }]));
  assert.equal(report.citation_coverage, 0.5);
  assert.ok(report.unsafe_reasons.includes("citation coverage below 1.000"));
  const step = report.remediation.find((s) => s.code === "restore_source_citations");
  assert.deepEqual(step, { code: "restore_source_citations", action: remediationActions.restore_source_citations, details: { citation_coverage: 0.5 } });
});

test("a tampered payload is an integrity failure first, and nothing else is computed", async () => {
  const log = await logOf(serviceDocs);
  fs.writeFileSync(log, fs.readFileSync(log, "utf8").replace("identity-code-0001", "identity-code-9999"));
  const report = await auditLog(log);
  assert.equal(report.integrity_ok, false);
  assert.equal(report.integrity_reason, "Event 1 hash mismatch");
  assert.deepEqual(report.unsafe_reasons, ["integrity check failed"]);
  assert.equal(report.identity_recall, null);
  assert.deepEqual(report.clusters, []);
  assert.equal(report.singleton_clusters.cluster_count, 0);
  assert.deepEqual(report.identities, []);
  assert.deepEqual(report.remediation[0], {
    code: "repair_eventloom_integrity",
    action: "Restore the Eventloom log from backup or remove the tampered candidate from compaction.",
    details: { reason: "Event 1 hash mismatch" },
  });
});

test("near-identical events sharing one identity are safe; unrelated events stay in their own clusters", async () => {
  const same = await auditLog(await logOf([1, 2, 3].map(() => ({ content: "cache warmed identity-code-0001", title: "warm" })), "note.added"));
  assert.equal(same.safe, true);
  assert.equal(same.cluster_count, 1);
  assert.equal(same.clusters[0].regime, "tight");
  const mixed = await auditLog(await logOf([...serviceDocs.slice(0, 2), { path: "src/parser.ts", content: "tokenizer rewrite for unicode escapes" }]));
  // Multi-event clusters get full detail; the lone event is counted in the singleton summary.
  assert.deepEqual(mixed.clusters.map((c) => c.event_seqs), [[1, 2]]);
  assert.equal(mixed.cluster_count, 2);
  assert.equal(mixed.singleton_cluster_count, 1);
  assert.deepEqual(mixed.singleton_clusters, {
    cluster_count: 1, content_identity_count: 1, cited_event_count: 1, citation_coverage: 1, nearest_neighbour_events: 0, nearest_neighbour_preservation: 1,
  });
  assert.equal(mixed.nearest_neighbour_preservation, 1);
});

test("--whole-log treats the log as one cluster; thresholds outside (0, 1) are rejected naming the field", async () => {
  const log = await logOf([...serviceDocs.slice(0, 2), { path: "src/parser.ts", content: "tokenizer rewrite" }]);
  const whole = await auditLog(log, { wholeLog: true });
  assert.equal(whole.cluster_count, 1);
  assert.equal(whole.cluster_threshold, null);
  for (const bad of [0, 1, -0.1, 1.5, Number.NaN]) {
    await assert.rejects(auditLog(log, { clusterThreshold: bad }), (e: Error & { details?: { field?: string } }) => e.details?.field === "cluster_threshold" && e.message.startsWith("`cluster_threshold` must be a number in (0, 1)"));
  }
});

test("an identity that is also an event ref is listed once, where it is first seen, and counts as a hit", async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "zaxy-audit-"));
  const first = await appendEvents(root, "default", [{ type: "note.added", actor: "agent", payload: fromJs({ content: "alpha identity-code-0001" }) }]);
  const firstRef = (await auditLog(first.logPath)).identities[0];
  // The second event cites the first by its ref, as a path.
  await appendEvents(root, "default", [{ type: "document.indexed", actor: "agent", payload: fromJs({ path: firstRef, content: "beta" }) }]);
  const report = await auditLog(first.logPath);
  assert.match(firstRef, /^eventloom:\/\/default\/events\/1#[0-9a-f]{12}$/);
  const secondRef = report.identities[2];
  assert.match(secondRef, /^eventloom:\/\/default\/events\/2#[0-9a-f]{12}$/);
  assert.deepEqual(report.identities, [firstRef, "identity-code-0001", secondRef]);
  assert.deepEqual(report.identity_hits, report.identities);
  assert.equal(report.identity_count, 3);
  assert.equal(report.backpointer_count, 2);
  assert.equal(report.content_identity_count, 2);
});
