// test-lane: full (slow)
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
import { fromJs, type JsonObject } from "../../src/canonical/mod.ts";
import { sealV1 } from "../../src/eventloom/envelope.ts";
import { interopDir, makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { runZaxy, stackTraceLines } from "../cli/zaxy.ts";
import { skipWithoutBinary, startMcpServer, tempEventloomRoot } from "../mcp/mcpTestClient.ts";

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

/** A valid causal edge payload as the producer writes it, citing `cited`. */
function causalEdgePayload(cited: { seq: number; hash: string }): Record<string, unknown> {
  return {
    source: { name: "missing index", entity_type: "cause" },
    target: { name: "slow deploy", entity_type: "outcome" },
    relation_type: "caused",
    graph_relation_type: "causal_caused",
    confidence: 0.8,
    causal_method: "explicit_outcome_explanation_v1",
    review_status: "proposed",
    authority_status: "non_authoritative",
    evidence: { source_event_seq: cited.seq, source_event_hash: cited.hash },
  };
}

/**
 * Seals an event onto the log without zaxy's append validation, as Python's `append_event` (or
 * an older zaxy) could have written it: a correct v1 seal chained to the last line.
 */
function sealRaw(logPath: string, type: string, payload: Record<string, unknown>): { seq: number; hash: string } {
  const lines = fs.readFileSync(logPath, "utf8").trimEnd().split("\n");
  const last = JSON.parse(lines[lines.length - 1]);
  const sealed = sealV1({
    seq: lines.length + 1,
    timestamp: "2026-11-24T22:00:00.000000+00:00",
    type,
    actor: "python-agent",
    thread: "default",
    payload: fromJs(payload) as JsonObject,
    security: { sensitivity: "public", redacted_paths: [] },
    prevHash: String(last.integrity.hash).replace(/^sha256:/, ""),
  });
  fs.appendFileSync(logPath, `${sealed.line}\n`);
  return { seq: lines.length + 1, hash: sealed.hash };
}

describe("design 001: a causal.edge.generated the producer would never emit is refused or reported", () => {
  test("a raw append of an invalid causal.edge.generated exits 2 naming the field, and writes nothing", slow, () => {
    const ws = workspace("zaxy-seed-causal-refused");
    const cited = ws.append("outcome.observed", { summary: "deploy took 40 minutes" });
    const logPath = path.join(ws.root, "default.jsonl");
    const before = fs.readFileSync(logPath);
    const valid = causalEdgePayload(cited);
    const cases: Array<[string, Record<string, unknown>, string, RegExp]> = [
      ["missing evidence citation", { ...valid, evidence: undefined }, "payload.evidence", /payload\.evidence must cite the justifying event/],
      ["evidence without a hash", { ...valid, evidence: { source_event_seq: cited.seq } }, "payload.evidence.source_event_hash", /payload\.evidence\.source_event_hash must be exactly 64 lowercase hex/],
      ["relation outside the taxonomy", { ...valid, relation_type: "correlated", graph_relation_type: undefined }, "payload.relation_type", /payload\.relation_type must be one of: blocked, caused, enabled, explained, fixed, prevented, regressed; got "correlated"/],
      ["confidence above 1", { ...valid, confidence: 1.5 }, "payload.confidence", /payload\.confidence must be a number between 0\.0 and 1\.0/],
      ["confidence below 0", { ...valid, confidence: -0.1 }, "payload.confidence", /payload\.confidence must be a number between 0\.0 and 1\.0/],
      ["an authoritative edge", { ...valid, authority_status: "authoritative" }, "payload.authority_status", /payload\.authority_status must be "non_authoritative"/],
    ];
    for (const [name, payload, field, message] of cases) {
      const run = ws.zaxy(["memory", "append", "causal.edge.generated", "--actor", "agent", "--payload-json", JSON.stringify(payload), "--json"]);
      assert.equal(run.code, 2, `${name}: ${run.stdout}${run.stderr}`);
      const error = JSON.parse(run.stdout).error;
      assert.equal(error.code, "invalid_event", name);
      assert.equal(error.field, field, name);
      assert.match(error.message, message, name);
      assert.match(error.message, /Nothing was written\.$/, name);
      assert.match(error.hint, /outcome\.explained/, name);
      assert.deepEqual(stackTraceLines(run.stderr), [], name);
      assert.deepEqual(fs.readFileSync(logPath), before, `${name}: the log is byte-identical`);
    }
    // The text front door says the same on stderr, with exit 2.
    const text = ws.zaxy(["memory", "append", "causal.edge.generated", "--actor", "agent", "--payload-json", JSON.stringify({ ...valid, confidence: 2 })]);
    assert.equal(text.code, 2);
    assert.equal(text.stdout, "");
    assert.match(text.stderr, /payload\.confidence must be a number between 0\.0 and 1\.0/);
    // A batch holding one invalid edge is refused whole.
    const batch = [
      JSON.stringify({ event_type: "note.added", actor: "agent", payload: { text: "fine" } }),
      JSON.stringify({ event_type: "causal.edge.generated", actor: "agent", payload: { ...valid, relation_type: "correlated", graph_relation_type: undefined } }),
    ].join("\n") + "\n";
    const ingest = ws.zaxy(["memory", "ingest", "-", "--json"], batch);
    assert.equal(ingest.code, 2, ingest.stdout + ingest.stderr);
    assert.match(JSON.parse(ingest.stdout).error.message, /line 2: causal\.edge\.generated payload\.relation_type must be one of/);
    assert.deepEqual(fs.readFileSync(logPath), before, "nothing of the batch was written");
    // The producer's own edge, appended as it writes it, is accepted.
    const accepted = ws.zaxy(["memory", "append", "causal.edge.generated", "--actor", "zaxy-causal", "--payload-json", JSON.stringify(valid), "--json"]);
    assert.equal(accepted.code, 0, accepted.stdout + accepted.stderr);
  });

  test("an invalid causal.edge.generated already sealed in a log is read, and reported by memory status and compact --audit", slow, () => {
    const ws = workspace("zaxy-seed-causal-reported");
    const cited = ws.append("outcome.observed", { summary: "deploy took 40 minutes" });
    ws.append("causal.edge.generated", causalEdgePayload(cited));
    const logPath = path.join(ws.root, "default.jsonl");
    const bad = sealRaw(logPath, "causal.edge.generated", { ...causalEdgePayload(cited), relation_type: "correlated", graph_relation_type: undefined, confidence: 1.5 });
    assert.equal(ws.zaxy(["verify", logPath]).code, 0, "the chain itself is intact");
    const reason = 'relation_type must be one of: blocked, caused, enabled, explained, fixed, prevented, regressed; got "correlated"; confidence must be a number between 0.0 and 1.0';
    const expected = [{ seq: bad.seq, hash: bad.hash, type: "causal.edge.generated", reason }];

    const status = ws.zaxy(["memory", "status", "--json"]);
    assert.equal(status.code, 0, status.stderr);
    assert.deepEqual(JSON.parse(status.stdout).invalid_derived_events, expected);
    assert.match(status.stderr, /warning: session default holds 1 invalid derived event\(s\) \(seq 3\); they are not projected/);
    const statusText = ws.zaxy(["memory", "status"]);
    assert.match(statusText.stdout, new RegExp(`^  - seq 3 causal\\.edge\\.generated ${bad.hash.slice(0, 12)}: relation_type must be one of`, "m"));

    const audit = ws.zaxy(["compact", "--audit", logPath, "--json"]);
    assert.deepEqual(JSON.parse(audit.stdout).invalid_derived_events, expected);
    const auditText = ws.zaxy(["compact", "--audit", logPath]);
    assert.match(auditText.stdout, /^Invalid derived events: 1 \(their producer never writes them; they are not projected\)$/m);
    assert.match(auditText.stdout, new RegExp(`^  - seq 3 causal\\.edge\\.generated ${bad.hash.slice(0, 12)}: relation_type must be one of`, "m"));

    // Reading keeps working: the valid edge projects, the invalid one does not, and a clean log reports nothing.
    const checkout = ws.zaxy(["memory", "checkout", "slow deploy", "--json"]);
    assert.equal(checkout.code, 0, checkout.stderr);
    const clean = workspace("zaxy-seed-causal-clean");
    clean.append("note.added", { text: "nothing derived here" });
    assert.deepEqual(JSON.parse(clean.zaxy(["memory", "status", "--json"]).stdout).invalid_derived_events, []);
    assert.deepEqual(JSON.parse(clean.zaxy(["compact", "--audit", path.join(clean.root, "default.jsonl"), "--json"]).stdout).invalid_derived_events, []);
  });
});

describe("design 001: MCP memory_append refuses an invalid causal.edge.generated", { skip: skipWithoutBinary }, () => {
  test("the refusal names the field, writes nothing, and the server keeps serving", slow, async () => {
    const mcp = await startMcpServer(tempEventloomRoot("zaxy-seed-causal-mcp"), { clientName: "zaxy-seed-test" });
    try {
      const cited = await mcp.callOk("memory_append", { event_type: "outcome.observed", actor: "ops", payload: { summary: "deploy took 40 minutes" } });
      const logPath = path.join(mcp.root, "default.jsonl");
      const before = fs.readFileSync(logPath);
      const payload = { ...causalEdgePayload({ seq: cited.seq, hash: cited.hash }), confidence: 7 };
      const outcome = await mcp.call("memory_append", { event_type: "causal.edge.generated", actor: "ops", payload });
      assert.equal(outcome.isError, true, JSON.stringify(outcome.doc));
      assert.match(outcome.doc.error.message, /causal\.edge\.generated payload\.confidence must be a number between 0\.0 and 1\.0/);
      assert.deepEqual(fs.readFileSync(logPath), before);
      await mcp.callOk("memory_append", { event_type: "note.added", actor: "ops", payload: { text: "still serving" } });
    } finally {
      await mcp.close();
    }
  });
});

describe("design 002: a compaction artifact record is served as cited only when its event_ref resolves to the sealed event", () => {
  function artifactWorkspace(label: string) {
    const ws = workspace(label);
    ws.append("document.indexed", { path: "docs/cache.md", start_line: 2, end_line: 6, content: "Cache routing note records identity-code-0001." });
    ws.append("document.indexed", { path: "docs/auth.md", start_line: 4, end_line: 8, content: "Auth routing note records identity-code-0002." });
    fs.mkdirSync(path.join(ws.root, "artifacts"));
    return ws;
  }

  function writeArtifact(ws: Workspace, session: string, name: string): string {
    const artifact = path.join(".eventloom", "artifacts", name);
    const run = ws.zaxy(["compact", path.join(ws.root, `${session}.jsonl`), "--projection-output", artifact, "--strategy", "exemplar", "--max-records", "2"]);
    assert.equal(run.code, 0, run.stderr);
    return artifact;
  }

  function replaceRef(ws: Workspace, artifact: string, from: RegExp, to: string): string {
    const file = path.join(ws.dir, artifact);
    const text = fs.readFileSync(file, "utf8");
    const match = from.exec(text);
    assert.ok(match, `${from} in ${text}`);
    // Every occurrence: the record's event_ref, its identities and citations, and the audit's lists.
    fs.writeFileSync(file, text.split(match[0]).join(to));
    return match[0];
  }

  // deno-lint-ignore no-explicit-any
  const projectionItems = (doc: any) => doc.evidence.filter((item: { source: string }) => item.source === "projection");

  test("a record whose event_ref hash does not match the log is not served, and # Context Warnings names the artifact and the ref", slow, () => {
    const ws = artifactWorkspace("zaxy-seed-artifact-ref");
    const artifact = writeArtifact(ws, "default", "default.compaction.json");
    const good = checkoutJson(ws, ["auth identity-code-0002"]);
    assert.equal(projectionItems(good).length, 1, "the intact artifact's record is served, cited");
    assert.deepEqual(good.warnings, []);

    const original = replaceRef(ws, artifact, /eventloom:\/\/default\/events\/2#[0-9a-f]{12}/, "eventloom://default/events/2#000000000000");
    const run = ws.zaxy(["memory", "checkout", "auth identity-code-0002", "--json"]);
    assert.equal(run.code, 0, run.stderr);
    const doc = JSON.parse(run.stdout);
    const line = `compaction artifact ${artifact}: event_ref eventloom://default/events/2#000000000000 ` +
      `(seq 2 of "default" is #${original.slice(-12)}) does not resolve to a sealed event; record not served as a cited fact`;
    assert.deepEqual(projectionItems(doc), [], "the unresolved record is not served");
    assert.equal(run.stdout.includes("#000000000000\""), false, "no context cites the bad ref");
    assert.deepEqual(doc.warnings, [line]);
    assert.ok(doc.prompt.includes(`# Context Warnings\n- ${line}`), doc.prompt);
    assert.match(run.stderr, /warning: compaction artifact .*default\.compaction\.json: event_ref eventloom:\/\/default\/events\/2#000000000000/);
    // The log's own event is still there, cited by its real hash.
    assert.ok(doc.evidence.some((item: { citation: string }) => item.citation === original), JSON.stringify(doc.evidence));

    // A query the bad record does not match is not warned about; the artifact's good record is still served.
    const other = checkoutJson(ws, ["cache identity-code-0001"]);
    assert.deepEqual(other.warnings, []);
    assert.equal(projectionItems(other).length, 1);

    // memory query: not served either, and the warning is in diagnostics.
    const query = ws.zaxy(["memory", "query", "auth identity-code-0002", "--json"]);
    assert.equal(query.code, 0, query.stderr);
    const result = JSON.parse(query.stdout);
    assert.deepEqual(result.results.filter((item: { source: string }) => item.source === "projection"), []);
    assert.deepEqual(result.diagnostics.warnings, [line]);
  });

  test("a ref to another session resolves against that session's verified log; a wrong hash, a missing log or a broken chain does not", slow, () => {
    const ws = artifactWorkspace("zaxy-seed-artifact-other-log");
    ws.append("document.indexed", { path: "docs/deploy.md", start_line: 1, end_line: 3, content: "Deploy routing note records identity-code-0003." }, "ops");
    const artifact = writeArtifact(ws, "ops", "ops.compaction.json");
    const served = checkoutJson(ws, ["deploy identity-code-0003"]);
    assert.equal(projectionItems(served).length, 1, "a record of the ops log is served in the default session's checkout");
    assert.match(projectionItems(served)[0].citation, /^eventloom:\/\/ops\/events\/1#[0-9a-f]{12}$/);
    assert.deepEqual(served.warnings, []);

    const real = replaceRef(ws, artifact, /eventloom:\/\/ops\/events\/1#[0-9a-f]{12}/, "eventloom://ops/events/1#0123456789ab");
    const wrongHash = checkoutJson(ws, ["deploy identity-code-0003"]);
    assert.deepEqual(projectionItems(wrongHash), []);
    assert.deepEqual(wrongHash.warnings, [
      `compaction artifact ${artifact}: event_ref eventloom://ops/events/1#0123456789ab (seq 1 of "ops" is #${real.slice(-12)}) does not resolve to a sealed event; record not served as a cited fact`,
    ]);

    replaceRef(ws, artifact, /eventloom:\/\/ops\/events\/1#0123456789ab/, real.replace("//ops/", "//nosuch/"));
    const missing = checkoutJson(ws, ["deploy identity-code-0003"]);
    assert.deepEqual(projectionItems(missing), []);
    assert.match(missing.warnings[0], /event_ref eventloom:\/\/nosuch\/events\/1#[0-9a-f]{12} \(no log of thread "nosuch" under the root\) does not resolve/);

    replaceRef(ws, artifact, /eventloom:\/\/nosuch\/events\/1#[0-9a-f]{12}/, real);
    const opsLog = path.join(ws.root, "ops.jsonl");
    fs.writeFileSync(opsLog, fs.readFileSync(opsLog, "utf8").replace("identity-code-0003", "identity-code-9999"));
    const broken = checkoutJson(ws, ["deploy identity-code-0003"]);
    assert.deepEqual(projectionItems(broken), []);
    assert.match(broken.warnings[0], /\(the log of thread "ops" cannot be trusted: The log of session "ops" fails verification at seq 1 /);
  });
  test("a real Python log whose events carry another thread than its file name resolves its refs from any session", slow, () => {
    const ws = artifactWorkspace("zaxy-seed-artifact-python-log");
    // Python wrote this log with thread "coordination-case-1"; here it is the session "coord".
    fs.copyFileSync(path.join(interopDir, "legacy-coordination-case-1.jsonl"), path.join(ws.root, "coord.jsonl"));
    const artifact = writeArtifact(ws, "coord", "coord.compaction.json");
    const query = "worker-api coordination.worker.created";
    for (const session of ["coord", "default"]) {
      const doc = checkoutJson(ws, [query, "--session-id", session]);
      assert.deepEqual(doc.warnings, [], session);
      assert.ok(projectionItems(doc).some((item: { citation: string }) => item.citation.startsWith("eventloom://coordination-case-1/events/2#")), session);
    }
    const real = replaceRef(ws, artifact, /eventloom:\/\/coordination-case-1\/events\/2#[0-9a-f]{12}/, "eventloom://coordination-case-1/events/2#aaaaaaaaaaaa");
    const doc = checkoutJson(ws, [query]);
    assert.equal(projectionItems(doc).some((item: { citation: string }) => item.citation.includes("/events/2#")), false);
    assert.deepEqual(doc.warnings, [
      `compaction artifact ${artifact}: event_ref eventloom://coordination-case-1/events/2#aaaaaaaaaaaa (seq 2 of "coordination-case-1" is #${real.slice(-12)}) does not resolve to a sealed event; record not served as a cited fact`,
    ]);
  });
});
