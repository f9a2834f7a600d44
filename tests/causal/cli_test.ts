// test-lane: full (bench command)
/**
 * Causal memory through the binary (docs/causal.md): `zaxy memory append outcome.explained`
 * writes a `causal.edge.generated` only for cited evidence (checked on the log bytes);
 * `zaxy memory causal predecessors|successors` JSON and text; `zaxy memory reasoning
 * explain-outcome` with and without the checkout fallback; bad input exits 2 naming the field
 * and writes nothing; `zaxy bench causal --json` prints the summary.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { repoRoot, runZaxy, stackTraceLines } from "../cli/zaxy.ts";

after(removeTempDirs);

const slow = { timeout: 120_000 };
let dir = "";
let log = "";

function zaxy(args: string[], cwd = dir) {
  return runZaxy(args, { cwd });
}

// deno-lint-ignore no-explicit-any
function jsonOk(args: string[], cwd = dir): any {
  const run = zaxy([...args, "--json"], cwd);
  assert.equal(run.code, 0, `${args.join(" ")}: ${run.stdout}${run.stderr}`);
  assert.equal(run.stderr, "");
  return JSON.parse(run.stdout);
}

// deno-lint-ignore no-explicit-any
function append(type: string, payload: unknown): any {
  return jsonOk(["memory", "append", type, "--actor", "agent-ops", "--payload-json", JSON.stringify(payload)]);
}

const ref = (name: string, entityType: string) => ({ name, entity_type: entityType });
// deno-lint-ignore no-explicit-any
const cited: Record<string, any> = {};

/** Appends a cited explanation and returns its generated causal edge's append record. */
// deno-lint-ignore no-explicit-any
function explain(cause: { name: string; entity_type: string }, effect: { name: string; entity_type: string }, relation: string, confidence: number): any {
  const observed = append("observation.recorded", { summary: `${cause.name} ${relation} ${effect.name}` });
  const doc = append("outcome.explained", {
    cause, effect, relation_type: relation, confidence, evidence: { source_event_seq: observed.seq, source_event_hash: observed.hash },
  });
  assert.equal(doc.generated_events.length, 1, JSON.stringify(doc));
  return { ...doc.generated_events[0], evidence: observed };
}

/** Exit 2, one error document naming `field`, no stack trace, the log and the root unchanged. */
function refused(args: string[], code: string, field: string, message: string): void {
  const before = fs.readFileSync(log);
  const files = fs.readdirSync(path.join(dir, ".eventloom")).sort();
  const run = zaxy([...args, "--json"]);
  assert.equal(run.code, 2, `${args.join(" ")}: ${run.stdout}${run.stderr}`);
  assert.deepEqual(stackTraceLines(run.stderr), []);
  const doc = JSON.parse(run.stdout);
  assert.deepEqual(doc, { error: { code, message, field } });
  assert.deepEqual(fs.readFileSync(log), before);
  assert.deepEqual(fs.readdirSync(path.join(dir, ".eventloom")).sort(), files);
}

before(() => {
  dir = makeTempDir("causal-cli");
  log = path.join(dir, ".eventloom", "default.jsonl");
  cited.driftPool = explain(ref("config drift", "cause"), ref("stale pool", "symptom"), "caused", 0.9);
  cited.poolLatency = explain(ref("stale pool", "symptom"), ref("latency spike", "symptom"), "caused", 0.8);
  cited.latencyTimeouts = explain(ref("latency spike", "symptom"), ref("payment timeouts", "outcome"), "caused", 0.75);
  cited.hotfix = explain(ref("hotfix", "change"), ref("payment timeouts", "outcome"), "fixed", 0.95);
});

describe("zaxy memory append outcome.explained", () => {
  test("without a valid citation nothing but the explanation is written", slow, () => {
    const uncitedPayloads = [
      { cause: ref("gremlins", "cause"), effect: ref("payment timeouts", "outcome"), relation_type: "caused", confidence: 0.5 },
      {
        cause: ref("gremlins", "cause"), effect: ref("payment timeouts", "outcome"), relation_type: "caused", confidence: 0.5,
        evidence: { source_event_seq: 1, source_event_hash: "ABC" },
      },
      {
        cause: ref("gremlins", "cause"), effect: ref("payment timeouts", "outcome"), relation_type: "causal_caused", confidence: 0.5,
        evidence: { source_event_seq: cited.hotfix.evidence.seq, source_event_hash: cited.hotfix.evidence.hash },
      },
    ];
    const reasons = [/evidence must be \{source_event_seq, source_event_hash\}/, /evidence\.source_event_hash must be the cited event's 64-hex hash/, /relation_type "causal_caused" is not one of the taxonomy/];
    for (const [i, payload] of uncitedPayloads.entries()) {
      const before = fs.readFileSync(log);
      const run = zaxy(["memory", "append", "outcome.explained", "--actor", "agent-ops", "--payload-json", JSON.stringify(payload), "--json"], dir);
      assert.equal(run.code, 0, run.stdout + run.stderr);
      const doc = JSON.parse(run.stdout);
      assert.equal(doc.generated_events, undefined, JSON.stringify(doc));
      // Issue 18: the ignored request says why, on stderr and in `warnings`.
      assert.equal(doc.warnings.length, 1, JSON.stringify(doc.warnings));
      assert.match(doc.warnings[0], /^outcome\.explained at seq \d+ produced no causal edge: /);
      assert.match(doc.warnings[0], reasons[i]);
      assert.match(run.stderr, /^zaxy: warning: outcome\.explained at seq \d+ produced no causal edge: /);
      const added = fs.readFileSync(log).subarray(before.length).toString("utf8");
      assert.equal(added.split("\n").filter((line) => line !== "").length, 1);
      assert.equal(JSON.parse(added).type, "outcome.explained");
      assert.ok(!added.includes("causal.edge.generated"));
    }
    assert.ok(!fs.readFileSync(log, "utf8").includes("gremlins\",\"entity_type\":\"cause\"},\"target\""), "no causal edge names gremlins");
  });

  test("a cited explanation is followed by its non-authoritative causal edge citing the same evidence", () => {
    const lines = fs.readFileSync(log, "utf8").trim().split("\n").map((line) => JSON.parse(line));
    const edges = lines.filter((line) => line.type === "causal.edge.generated");
    assert.equal(edges.length, 4);
    for (const edge of edges) {
      assert.equal(edge.actorId, "zaxy-causal");
      assert.equal(edge.payload.authority_status, "non_authoritative");
      assert.equal(edge.payload.review_status, "proposed");
      assert.equal(edge.payload.causal_method, "explicit_outcome_explanation_v1");
    }
    const edge = lines[cited.hotfix.seq - 1];
    assert.deepEqual(Object.keys(edge.payload).filter((key) => key !== "__zaxy_security"), [
      "source", "target", "relation_type", "graph_relation_type", "confidence", "causal_method", "review_status", "authority_status", "evidence",
    ]);
    assert.deepEqual(edge.payload.evidence, {
      source_event_seq: cited.hotfix.evidence.seq,
      source_event_hash: cited.hotfix.evidence.hash,
      reason: "outcome.explained explicitly cited Eventloom evidence",
    });
    assert.equal(lines[cited.hotfix.seq - 2].type, "outcome.explained");
  });
});

describe("zaxy memory causal", () => {
  test("predecessors: the causes through the chain, as JSON and as text lines", slow, () => {
    const doc = jsonOk(["memory", "causal", "predecessors", "payment timeouts", "--depth", "3"]);
    assert.deepEqual(Object.keys(doc), ["schema", "direction", "entity", "results"]);
    assert.equal(doc.schema, "zaxy.memory.causal.v1");
    assert.equal(doc.direction, "predecessors");
    assert.deepEqual(doc.entity, { name: "payment timeouts", entity_type: null });
    assert.deepEqual(doc.results.map((r: { source: { name: string } }) => r.source.name), ["latency spike", "hotfix", "stale pool", "config drift"]);
    const deepest = doc.results[3];
    assert.equal(deepest.citation, cited.driftPool.citation);
    assert.equal(deepest.path_length, 3);
    assert.deepEqual(deepest.evidence.path_citations, [cited.latencyTimeouts.citation, cited.poolLatency.citation, cited.driftPool.citation]);
    assert.equal(deepest.method, "explicit_outcome_explanation_v1");
    assert.equal("causal_method" in deepest, false);

    const text = zaxy(["memory", "causal", "predecessors", "payment timeouts", "--depth", "2", "--relation-type", "caused"]);
    assert.equal(text.code, 0, text.stderr);
    assert.equal(text.stderr, "");
    assert.equal(
      text.stdout,
      `latency spike -> payment timeouts [caused, confidence=0.750, path_length=1, citation=${cited.latencyTimeouts.citation}]\n` +
        `stale pool -> latency spike [caused, confidence=0.800, path_length=2, citation=${cited.poolLatency.citation}]\n`,
    );
  });

  test("successors walk forward; an effect has no successors; entity type narrows the start", slow, () => {
    const doc = jsonOk(["memory", "causal", "successors", "config drift", "--depth", "5", "--entity-type", "cause"]);
    assert.deepEqual(doc.entity, { name: "config drift", entity_type: "cause" });
    assert.deepEqual(doc.results.map((r: { target: { name: string } }) => r.target.name), ["stale pool", "latency spike", "payment timeouts"]);
    assert.deepEqual(jsonOk(["memory", "causal", "successors", "config drift", "--entity-type", "symptom"]).results, []);
    const none = zaxy(["memory", "causal", "successors", "payment timeouts"]);
    assert.equal(none.code, 0);
    assert.equal(none.stdout, "No causal successors found for payment timeouts.\n");
    assert.deepEqual(jsonOk(["memory", "causal", "predecessors", "nobody"]).results, []);
  });

  test("bad depth, relation type, entity and session: exit 2 naming the field, nothing written", slow, () => {
    for (const depth of ["0", "6", "two", "-1"]) {
      refused(["memory", "causal", "predecessors", "x", `--depth=${depth}`], "invalid_depth", "--depth", `--depth must be between 1 and 5, got ${JSON.stringify(depth)}`);
    }
    for (const relation of ["causal_caused", "CAUSES", ""]) {
      refused(
        ["memory", "causal", "successors", "x", "--relation-type", relation],
        "invalid_causal_relation",
        "--relation-type",
        `--relation-type must be one of: blocked, caused, enabled, explained, fixed, prevented, regressed; got ${JSON.stringify(relation)}`,
      );
    }
    refused(["memory", "causal", "predecessors", " "], "invalid_entity_name", "ENTITY", "ENTITY must be a non-empty string");
    refused(["memory", "causal", "predecessors", "x", "--entity-type", ""], "invalid_entity_type", "--entity-type", "--entity-type must be a non-empty string");
    const unknown = zaxy(["memory", "causal", "predecessors", "x", "--session-id", "nosuch", "--json"]);
    assert.equal(unknown.code, 2);
    assert.equal(JSON.parse(unknown.stdout).error.code, "unknown_session");
    assert.equal(fs.existsSync(path.join(dir, ".eventloom", "nosuch.jsonl")), false);
  });
});

describe("zaxy memory reasoning explain-outcome", () => {
  test("an outcome with causes is explained by its predecessors", slow, () => {
    const before = fs.readFileSync(log);
    const doc = jsonOk(["memory", "reasoning", "explain-outcome", "payment timeouts", "--phase", "review"]);
    assert.deepEqual(Object.keys(doc), ["schema", "primitive", "phase", "session_id", "outcome", "depth", "fallback_used", "result_count", "results", "evidence"]);
    assert.deepEqual([doc.primitive, doc.phase, doc.session_id, doc.outcome, doc.depth, doc.fallback_used], ["explain_outcome", "review", "default", "payment timeouts", 2, false]);
    assert.equal(doc.result_count, 3);
    assert.deepEqual(doc.evidence[0], {
      citation: cited.latencyTimeouts.citation,
      content: "latency spike caused payment timeouts",
      source: "causal_predecessor",
      confidence: 0.75,
      review_status: "proposed",
      authority_status: "non_authoritative",
    });
    assert.deepEqual(fs.readFileSync(log), before, "explain-outcome reads only");
  });

  test("an outcome without causes falls back to cited checkout evidence", slow, () => {
    const doc = jsonOk(["memory", "reasoning", "explain-outcome", "stale pool alerts observed", "--depth", "1"]);
    assert.equal(doc.fallback_used, true);
    assert.ok(doc.result_count >= 1 && doc.result_count <= 2, JSON.stringify(doc));
    assert.equal(doc.results.length, doc.evidence.length);
    for (const [i, result] of doc.results.entries()) {
      assert.deepEqual(Object.keys(result), ["source", "content", "citation"]);
      assert.equal(result.source, "checkout");
      assert.match(result.citation, /^eventloom:\/\/default\/events\/[1-9][0-9]*#[0-9a-f]{12}$/);
      assert.equal(doc.evidence[i].citation, result.citation);
    }
    const text = zaxy(["memory", "reasoning", "explain-outcome", "payment timeouts"]);
    assert.equal(text.code, 0);
    assert.ok(text.stdout.startsWith("explain_outcome for default: result_count=3\n"), text.stdout);
  });

  test("a bad phase exits 2 listing the phases", slow, () => {
    refused(
      ["memory", "reasoning", "explain-outcome", "payment timeouts", "--phase", "retro"],
      "invalid_phase",
      "--phase",
      '--phase must be one of: execution, planning, reflection, review; got "retro"',
    );
    refused(["memory", "reasoning", "explain-outcome", "x", "--depth", "9"], "invalid_depth", "--depth", '--depth must be between 1 and 5, got "9"');
  });
});

describe("zaxy bench causal", () => {
  test("--json: every case scores 1, the wrong-direction control 0, the machine is described", slow, () => {
    const doc = jsonOk(["bench", "causal"], repoRoot);
    assert.equal(doc.schema, "zaxy.bench.causal.v1");
    assert.deepEqual(Object.keys(doc.summary), ["case_count", "mean", "hit_rate", "citation_coverage", "authority_boundary"]);
    assert.ok(doc.summary.case_count >= 20);
    assert.deepEqual(doc.summary, { case_count: doc.summary.case_count, mean: 1, hit_rate: 1, citation_coverage: 1, authority_boundary: 1 });
    assert.equal(doc.wrong_direction_control.mean, 0);
    assert.equal(doc.rows.length, doc.summary.case_count);
    assert.equal(typeof doc.machine.cpu, "string");
  });
});
