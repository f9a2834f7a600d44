/**
 * `zaxy compact LOG --projection-output PATH` through the binary: the text and --json reports,
 * the artifact on disk, the log's bytes unchanged, exit 2 naming the flag for bad strategy /
 * max-records / purpose / output path (nothing written), exit 1 and no artifact for a tampered
 * log, and `zaxy memory query` / `memory checkout` returning `source: "projection"` items with
 * citations once an artifact sits under the Eventloom root.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { makeTempDir, readLines, removeTempDirs, sha256Hex, writeLines } from "../eventloom/testkit.ts";
import { runZaxy, stackTraceLines, type ZaxyRun } from "./zaxy.ts";

after(removeTempDirs);

const slow = { timeout: 60_000 };
let dir = "";
let log = "";
let logHash = "";

function zaxy(args: string[], cwd = dir): ZaxyRun {
  return runZaxy(args, { cwd });
}

function append(cwd: string, type: string, payload: Record<string, unknown>): void {
  const run = runZaxy(["memory", "append", type, "--actor", "indexer", "--payload-json", JSON.stringify(payload)], { cwd });
  assert.equal(run.code, 0, run.stderr);
}

function artifactFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(d, e.name));
      else if (e.name.includes(".compaction.json") || e.name.endsWith(".tmp")) out.push(path.join(d, e.name));
    }
  };
  if (fs.existsSync(root)) walk(root);
  return out;
}

before(() => {
  dir = makeTempDir("zaxy-compact-projection");
  for (let i = 0; i < 6; i++) {
    const code = String(i).padStart(4, "0");
    append(dir, "document.indexed", {
      path: `docs/service-${code}.md`, start_line: 1, end_line: 5,
      content: `Migration rollback readiness note records identity-code-${code} for release coordination.`,
    });
  }
  log = path.join(dir, ".eventloom", "default.jsonl");
  // An artifact's directory must exist (zaxy never creates one).
  fs.mkdirSync(path.join(dir, "out"));
  logHash = sha256Hex(fs.readFileSync(log));
});

describe("zaxy compact --projection-output", () => {
  test("medoid (default): text report, one record, artifact on disk, log bytes unchanged", slow, () => {
    const out = path.join(dir, "out", "medoid.compaction.json");
    const run = zaxy(["compact", log, "--projection-output", out]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, "");
    assert.equal(run.stdout, `Wrote compaction projection: ${out}\nStrategy: medoid\nRecords: 1\nSource identities: 18\n`);
    const artifact = JSON.parse(fs.readFileSync(out, "utf8"));
    assert.equal(artifact.strategy, "medoid");
    assert.equal(artifact.records.length, 1);
    assert.equal(artifact.records[0].kind, "medoid");
    assert.match(artifact.records[0].event_ref, /^eventloom:\/\/default\/events\/[1-6]#[0-9a-f]{12}$/);
    assert.match(artifact.projection_id, /^[0-9a-f]{64}$/);
    assert.equal(artifact.audit.safe, false);
    assert.equal(sha256Hex(fs.readFileSync(log)), logHash);
  });

  test("exemplar --json: one document with the summary keys; enough records keep every identity", slow, () => {
    const out = path.join(dir, "out", "exemplar.compaction.json");
    const run = zaxy(["compact", log, "--projection-output", out, "--strategy", "exemplar", "--max-records", "6", "--json"]);
    assert.equal(run.code, 0, run.stderr);
    const doc = JSON.parse(run.stdout);
    assert.deepEqual(Object.keys(doc), [
      "schema", "projection_path", "discoverable", "projection_id", "strategy", "purpose", "source_event_count", "record_count", "source_identity_count",
      "records", "audit", "consolidation_policy",
    ]);
    assert.equal(doc.schema, "zaxy.compact.projection.v1");
    assert.equal(doc.discoverable, true);
    assert.equal(doc.strategy, "exemplar");
    assert.equal(doc.record_count, 6);
    assert.equal(doc.source_event_count, 6);
    const artifact = JSON.parse(fs.readFileSync(out, "utf8"));
    assert.equal(doc.projection_id, artifact.projection_id);
    const kept = new Set(artifact.records.flatMap((r: { identities: string[] }) => r.identities));
    for (const identity of artifact.source_identities) assert.ok(kept.has(identity), identity);
    assert.equal(sha256Hex(fs.readFileSync(log)), logHash);
  });

  test("--purpose security keeps every event as security_retained", slow, () => {
    const out = path.join(dir, "out", "security.compaction.json");
    const run = zaxy(["compact", log, "--projection-output", out, "--purpose", "security", "--max-records", "1"]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^Strategy: purpose_preserve_all$/m);
    assert.match(run.stdout, /^Records: 6$/m);
  });

  test("bad strategy, max-records, purpose or output path: exit 2 naming the flag, nothing written", slow, () => {
    const out = path.join(dir, "bad", "x.compaction.json");
    const cases: Array<[string[], RegExp]> = [
      [["--strategy", "centroid"], /--strategy/],
      [["--max-records", "0"], /--max-records/],
      [["--max-records", "two"], /--max-records/],
      [["--purpose", "marketing"], /--purpose "marketing" is not a purpose profile; expected one of general, coding/],
    ];
    for (const [flags, message] of cases) {
      const run = zaxy(["compact", log, "--projection-output", out, ...flags]);
      assert.equal(run.code, 2, `${flags.join(" ")}: ${run.stderr}`);
      assert.match(run.stderr, message);
      assert.deepEqual(stackTraceLines(run.stderr), []);
      assert.equal(run.stdout, "");
    }
    const intoLog = zaxy(["compact", log, "--projection-output", log]);
    assert.equal(intoLog.code, 2);
    assert.match(intoLog.stderr, /--projection-output .* is the log itself/);
    const intoDir = zaxy(["compact", log, "--projection-output", dir]);
    assert.equal(intoDir.code, 2);
    assert.match(intoDir.stderr, /--projection-output .* is a directory/);
    const missing = zaxy(["compact", path.join(dir, "nope.jsonl"), "--projection-output", out, "--json"]);
    assert.equal(missing.code, 2);
    assert.equal(JSON.parse(missing.stdout).error.code, "unreadable_log");
    assert.equal(fs.existsSync(path.join(dir, "bad")), false);
    assert.equal(sha256Hex(fs.readFileSync(log)), logHash);
  });

  test("a tampered log: exit 1, integrity failure reported, no artifact written", slow, () => {
    const tamperedDir = makeTempDir("zaxy-compact-tampered");
    append(tamperedDir, "goal.created", { title: "Original" });
    append(tamperedDir, "goal.created", { title: "Second" });
    const tampered = path.join(tamperedDir, ".eventloom", "default.jsonl");
    const lines = readLines(tampered);
    writeLines(tampered, [lines[0].replace("Original", "Tampered"), lines[1]]);
    const before = fs.readFileSync(tampered);
    const out = path.join(tamperedDir, ".eventloom", "projections", "default.compaction.json");
    fs.mkdirSync(path.dirname(out));
    const run = zaxy(["compact", tampered, "--projection-output", out], tamperedDir);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, /integrity check failed \(Event 1 hash mismatch\); no artifact was written/);
    const json = zaxy(["compact", tampered, "--projection-output", out, "--json"], tamperedDir);
    assert.equal(json.code, 1);
    assert.equal(JSON.parse(json.stdout).error.code, "integrity_failure");
    assert.deepEqual(artifactFiles(path.join(tamperedDir, ".eventloom")), []);
    assert.deepEqual(fs.readFileSync(tampered), before);
  });
});

describe("retrieval over a root holding an artifact", () => {
  let root = "";
  before(() => {
    root = makeTempDir("zaxy-projection-retrieval");
    append(root, "document.indexed", { path: "docs/cache.md", start_line: 2, end_line: 6, content: "Cache routing note records identity-code-0001." });
    append(root, "document.indexed", { path: "docs/auth.md", start_line: 4, end_line: 8, content: "Auth routing note records identity-code-0002." });
    fs.mkdirSync(path.join(root, ".eventloom", "projections"));
    const run = runZaxy(["compact", ".eventloom/default.jsonl", "--projection-output", ".eventloom/projections/default.compaction.json", "--strategy", "exemplar", "--max-records", "2"], { cwd: root });
    assert.equal(run.code, 0, run.stderr);
  });

  test("memory query returns source 'projection' items with projection_id, event_ref and citations", slow, () => {
    const run = runZaxy(["memory", "query", "cache identity-code-0001", "--json"], { cwd: root });
    assert.equal(run.code, 0, run.stderr);
    const doc = JSON.parse(run.stdout);
    const items = doc.results.filter((r: { source: string }) => r.source === "projection");
    assert.ok(items.length >= 1, run.stdout);
    const artifact = JSON.parse(fs.readFileSync(path.join(root, ".eventloom", "projections", "default.compaction.json"), "utf8"));
    const top = items[0];
    assert.equal(top.score, 1);
    assert.equal(top.metadata.projection_id, artifact.projection_id);
    assert.match(top.metadata.event_ref, /^eventloom:\/\/default\/events\/1#[0-9a-f]{12}$/);
    assert.equal(top.citation, top.metadata.event_ref);
    assert.ok(top.metadata.citations.includes("docs/cache.md:2-6"));
    assert.equal(doc.diagnostics.source_lanes.projection, items.length);
  });

  test("memory checkout carries projection evidence with citations and no context warning", slow, () => {
    const run = runZaxy(["memory", "checkout", "cache identity-code-0001", "--json"], { cwd: root });
    assert.equal(run.code, 0, run.stderr);
    const doc = JSON.parse(run.stdout);
    const evidence = doc.evidence.filter((e: { source: string }) => e.source === "projection");
    assert.ok(evidence.length >= 1, run.stdout);
    assert.match(evidence[0].citation, /^eventloom:\/\/default\/events\/\d+#[0-9a-f]{12}$/);
    assert.equal(doc.prompt.includes("# Context Warnings"), false);
    assert.ok(doc.diagnostics.source_lanes.projection >= 1);
  });

  test("an uncited record in an artifact under the root adds a # Context Warnings line to the checkout prompt", slow, () => {
    const file = path.join(root, ".eventloom", "projections", "default.compaction.json");
    const artifact = JSON.parse(fs.readFileSync(file, "utf8"));
    const legacy = structuredClone(artifact);
    legacy.projection_id = "legacy";
    legacy.records = [{ ...artifact.records[0], event_ref: "", citations: [], identities: [], text: "Legacy summary of the cache routing notes" }];
    const legacyFile = path.join(root, ".eventloom", "projections", "legacy.compaction.json");
    fs.writeFileSync(legacyFile, JSON.stringify(legacy, null, 2));
    try {
      const run = runZaxy(["memory", "checkout", "legacy cache routing", "--json"], { cwd: root });
      assert.equal(run.code, 0, run.stderr);
      const doc = JSON.parse(run.stdout);
      assert.ok(doc.warnings.includes("projection context 'Legacy summary of the cache routing notes' lacks source-level citation"), run.stdout);
      assert.ok(doc.prompt.includes("# Context Warnings\n- projection context 'Legacy summary of the cache routing notes' lacks source-level citation"));
    } finally {
      fs.rmSync(legacyFile);
    }
  });
});
