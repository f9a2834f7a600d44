/** `zaxy compact LOG --audit` through the binary: exit codes, text markers, JSON, log bytes, exit 2 cases. */
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fromJs } from "../../src/canonical/mod.ts";
import { appendEvents } from "../../src/events/append.ts";
import { runZaxy, stackTraceLines } from "./zaxy.ts";

async function logOf(payloads: Array<Record<string, unknown>>, type = "document.indexed"): Promise<{ dir: string; log: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "zaxy-compact-cli-"));
  const result = await appendEvents(dir, "default", payloads.map((p) => ({ type, actor: "agent", payload: fromJs(p) })));
  return { dir, log: result.logPath };
}

const dupDocs = [1, 2].map((i) => ({ path: `docs/service-000${i}.md`, start_line: 1, end_line: 5, content: `Service cache invalidation runbook identity-code-000${i} restart workers drain queue` }));

test("compact --audit on near-duplicates: exit 1, Python's text markers, the log bytes unchanged", async () => {
  const { dir, log } = await logOf(dupDocs);
  const before = fs.readFileSync(log);
  const run = runZaxy(["compact", log, "--audit"], { cwd: dir });
  assert.equal(run.code, 1, run.stderr);
  for (const marker of ["Compaction audit: UNSAFE", "Events: 2", "Integrity: OK", "Identities: 6", "Identity recall: 0.500", "Citation coverage: 1.000", "Unsafe reasons:", "  - identity recall below 1.000", "Missing identities:", "Remediation plan:", "  1. preserve_missing_identities:"]) {
    assert.ok(run.stdout.includes(marker), `missing ${JSON.stringify(marker)} in:\n${run.stdout}`);
  }
  assert.equal(run.stderr, "");
  assert.deepEqual(fs.readFileSync(log), before);
});

test("compact --audit --json on a safe log: exit 0, one document, Python floats", async () => {
  const { dir, log } = await logOf([{ path: "docs/one.md", start_line: 1, end_line: 3, content: "alpha doc-code-0001" }]);
  const run = runZaxy(["compact", log, "--audit", "--json"], { cwd: dir });
  assert.equal(run.code, 0, run.stderr);
  assert.ok(run.stdout.includes('"safe":true') && run.stdout.includes('"identity_recall":1.0'));
  const doc = JSON.parse(run.stdout);
  assert.equal(doc.schema, "zaxy.compact.audit.v1");
  for (const key of ["safe", "event_count", "integrity_ok", "integrity_reason", "identity_count", "identity_recall", "citation_coverage", "mean_within_cluster_distance", "identities", "identity_hits", "missing_identities", "unsafe_reasons", "clusters", "singleton_clusters", "remediation", "cluster_threshold"]) {
    assert.ok(key in doc, key);
  }
  assert.equal(doc.cluster_threshold, 0.2);
  // One event: no multi-event cluster; the singleton summary carries its figures as Python floats.
  assert.deepEqual(doc.clusters, []);
  assert.ok(run.stdout.includes(
    '"singleton_clusters":{"cluster_count":1,"content_identity_count":2,"cited_event_count":1,"citation_coverage":1.0,"nearest_neighbour_events":0,"nearest_neighbour_preservation":1.0}',
  ), run.stdout);
});

test("compact --audit --json is byte-identical across runs (deterministic clustering)", async () => {
  const payloads = Array.from({ length: 40 }, (_, i) => ({ path: `docs/p-${i % 7}.md`, content: `topic ${i % 5} note identity-code-${String(i).padStart(4, "0")} shared words here` }));
  const { dir, log } = await logOf(payloads);
  const first = runZaxy(["compact", log, "--audit", "--json"], { cwd: dir });
  const second = runZaxy(["compact", log, "--audit", "--json"], { cwd: dir });
  assert.ok(first.code === 0 || first.code === 1, first.stderr);
  assert.equal(second.stdout, first.stdout);
});

test("compact --audit on a tampered log: integrity failure first, exit 1", async () => {
  const { dir, log } = await logOf(dupDocs);
  fs.writeFileSync(log, fs.readFileSync(log, "utf8").replace("identity-code-0001", "identity-code-0009"));
  const run = runZaxy(["compact", log, "--audit", "--json"], { cwd: dir });
  assert.equal(run.code, 1);
  const doc = JSON.parse(run.stdout);
  assert.equal(doc.integrity_reason, "Event 1 hash mismatch");
  assert.deepEqual(doc.unsafe_reasons, ["integrity check failed"]);
  assert.equal(doc.remediation[0].code, "repair_eventloom_integrity");
});

test("compact bad input exits 2 naming the flag, writes nothing, no stack trace", async () => {
  const { dir, log } = await logOf(dupDocs);
  const cases: Array<[string[], string]> = [
    [["compact", path.join(dir, "missing.jsonl"), "--audit"], "LOG"],
    [["compact", log, "--audit", "--cluster-threshold", "1.5"], "--cluster-threshold"],
    [["compact", log, "--audit", "--cluster-threshold", "abc"], "--cluster-threshold"],
    [["compact", log, "--audit", "--strategy", "centroid"], "--strategy"],
    [["compact", log, "--audit", "--max-records", "0"], "--max-records"],
    [["compact", log, "--audit", "--whole-log", "--cluster-threshold", "0.3"], "--cluster-threshold"],
    [["compact", log, "--audit", "--output", "x.jsonl"], "--output"],
  ];
  const before = fs.readdirSync(dir).sort();
  for (const [args, field] of cases) {
    const run = runZaxy([...args, "--json"], { cwd: dir });
    assert.equal(run.code, 2, `${args.join(" ")}: ${run.stdout}${run.stderr}`);
    assert.equal(JSON.parse(run.stdout).error.field, field, args.join(" "));
    const text = runZaxy(args, { cwd: dir });
    assert.equal(text.code, 2);
    assert.ok(text.stderr.includes(field), text.stderr);
    assert.deepEqual(stackTraceLines(text.stderr), []);
  }
  assert.deepEqual(fs.readdirSync(dir).sort(), before);
});
