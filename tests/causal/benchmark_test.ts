/**
 * The causal benchmark (reference §3.6): exact scorer values (1.0, 0.25, 0.75 for stale
 * variants, entity type checked), best-row selection, the summary, the case citation contract,
 * and the committed fixture: at least 20 cases over both directions, whose citations are real
 * `causal.edge.generated` events of the committed log, which regenerates byte for byte.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { evaluateCausalResults, summarizeCausalBenchmark, validateCausalBenchmarkCase } from "../../src/bench/causalBenchmarkScore.ts";
import { ZaxyError } from "../../src/errors.ts";
import { makeTempDir, removeTempDirs, sha256Hex } from "../eventloom/testkit.ts";
import { bunPath, repoRoot } from "../cli/zaxy.ts";

after(removeTempDirs);

const citation = "eventloom://default/events/12#0123456789ab";
const predecessorCase = validateCausalBenchmarkCase({
  case_id: "p1",
  query: "payment timeouts",
  query_type: "predecessor",
  source: { name: "latency spike", entity_type: "symptom" },
  target: { name: "payment timeouts", entity_type: "outcome" },
  relation_type: "caused",
  citation,
});
const successorCase = { ...predecessorCase, case_id: "s1", query: "latency spike", query_type: "successor" as const };

const good = {
  source: { name: "latency spike", entity_type: "symptom" },
  target: { name: "payment timeouts", entity_type: "outcome" },
  relation_type: "caused",
  citation,
  authority_status: "non_authoritative",
};

describe("evaluateCausalResults", () => {
  test("a production-shaped result scores 1.0 in both directions", () => {
    const row = evaluateCausalResults(predecessorCase, [good]);
    assert.deepEqual(row, {
      case_id: "p1", query_type: "predecessor", hit: true, relation_match: true, citation: true, authority_boundary: true, score: 1, matched_result: good,
    });
    assert.equal(evaluateCausalResults(successorCase, [good]).score, 1);
  });

  test("wrong relation, bad citation and a promoted edge: 0.25 (the hit only)", () => {
    const row = evaluateCausalResults(predecessorCase, [{ ...good, relation_type: "enabled", citation: "eventloom://default/events/12#ffffffffffff", authority_status: "authoritative" }]);
    assert.deepEqual([row.hit, row.relation_match, row.citation, row.authority_boundary, row.score], [true, false, false, false, 0.25]);
  });

  test("a stale match loses only the authority boundary: 0.75", () => {
    for (const stale of [{ stale: true }, { valid_to: "2025-01-02T00:00:00Z" }, { superseded_by: "eventloom://default/events/20#aaaaaaaaaaaa" }]) {
      const row = evaluateCausalResults(predecessorCase, [{ ...good, ...stale }]);
      assert.equal(row.score, 0.75, JSON.stringify(stale));
      assert.equal(row.authority_boundary, false);
    }
    assert.equal(evaluateCausalResults(predecessorCase, [{ ...good, valid_to: "  " }]).score, 1);
  });

  test("the endpoint under test follows the direction and must match name and entity type", () => {
    // For a successor query the target is tested: a result whose source matches is a miss.
    assert.equal(evaluateCausalResults(successorCase, [{ ...good, target: { name: "revenue dip", entity_type: "outcome" } }]).hit, false);
    assert.equal(evaluateCausalResults(predecessorCase, [{ ...good, source: { name: "latency spike", entity_type: "task" } }]).score, 0);
  });

  test("flattened and properties-nested result shapes; citations lists", () => {
    const flat = { source_name: "latency spike", source_type: "symptom", relation_type: "caused", citations: [citation], authority_status: "non_authoritative" };
    assert.equal(evaluateCausalResults(predecessorCase, [flat]).score, 1);
    const nested = { properties: { causal_source_name: "latency spike", causal_source_type: "symptom", relation_type: "caused", citation, authority_status: "non_authoritative" } };
    assert.equal(evaluateCausalResults(predecessorCase, [nested]).score, 1);
  });

  test("the best row wins over distractors; no results score zeros", () => {
    const stale = { ...good, stale: true };
    const row = evaluateCausalResults(predecessorCase, [{ ...good, source: { name: "x", entity_type: "symptom" } }, stale, good, stale]);
    assert.equal(row.score, 1);
    assert.equal(row.matched_result, good);
    assert.deepEqual(evaluateCausalResults(predecessorCase, []), {
      case_id: "p1", query_type: "predecessor", hit: false, relation_match: false, citation: false, authority_boundary: false, score: 0, matched_result: null,
    });
  });

  test("the summary averages to 4 decimals; empty is zeros", () => {
    // Scores 1, 0.5 (hit and authority only) and 0.75 (stale).
    const rows = [
      evaluateCausalResults(predecessorCase, [good]),
      evaluateCausalResults(predecessorCase, [{ ...good, relation_type: "fixed", citation: "eventloom://default/events/1#aaaaaaaaaaaa" }]),
      evaluateCausalResults(predecessorCase, [{ ...good, stale: true }]),
    ];
    assert.deepEqual(summarizeCausalBenchmark(rows), { case_count: 3, mean: 0.75, hit_rate: 1, citation_coverage: 0.6667, authority_boundary: 0.6667 });
    assert.deepEqual(summarizeCausalBenchmark([]), { case_count: 0, mean: 0, hit_rate: 0, citation_coverage: 0, authority_boundary: 0 });
  });
});

describe("validateCausalBenchmarkCase", () => {
  test("refuses unknown sessions, seq 0 or a leading zero, anything but 12 hex, and non-taxonomy relations", () => {
    const raw = { ...predecessorCase };
    const refused: Array<[Record<string, unknown>, string]> = [
      [{ citation: "eventloom://unknown/events/12#0123456789ab" }, "case.citation"],
      [{ citation: "eventloom://default/events/0#0123456789ab" }, "case.citation"],
      [{ citation: "eventloom://default/events/012#0123456789ab" }, "case.citation"],
      [{ citation: "eventloom://default/events/12#0123456789a" }, "case.citation"],
      [{ citation: "eventloom://default/events/12#0123456789abc" }, "case.citation"],
      [{ relation_type: "causal_caused" }, "case.relation_type"],
      [{ query_type: "both" }, "case.query_type"],
      [{ source: { name: "", entity_type: "symptom" } }, "case.source.name"],
      [{ case_id: " " }, "case.case_id"],
    ];
    for (const [override, field] of refused) {
      assert.throws(() => validateCausalBenchmarkCase({ ...raw, ...override }), (error: unknown) => error instanceof ZaxyError && error.details.field === field, field);
    }
  });
});

describe("fixtures/causal", () => {
  const dir = path.join(repoRoot, "fixtures", "causal");
  const doc = JSON.parse(fs.readFileSync(path.join(dir, "cases.json"), "utf8"));
  const logBytes = fs.readFileSync(path.join(dir, `${doc.session_id}.jsonl`));

  test("at least 20 valid cases over both directions, citing causal.edge.generated events of the committed log", () => {
    assert.ok(doc.cases.length >= 20, `${doc.cases.length} cases`);
    assert.ok(doc.cases.some((c: { query_type: string }) => c.query_type === "successor"));
    assert.ok(doc.cases.some((c: { query_type: string }) => c.query_type === "predecessor"));
    assert.equal(sha256Hex(logBytes), doc.log_sha256);
    const events = logBytes.toString("utf8").trim().split("\n").map((line) => JSON.parse(line));
    for (const raw of doc.cases) {
      const testCase = validateCausalBenchmarkCase(raw);
      const match = /\/events\/(\d+)#([0-9a-f]{12})$/.exec(testCase.citation)!;
      const event = events[Number(match[1]) - 1];
      assert.equal(event.type, "causal.edge.generated", testCase.case_id);
      assert.equal(event.actorId, "zaxy-causal");
      assert.ok(event.integrity.hash.startsWith(`sha256:${match[2]}`), testCase.case_id);
      assert.equal(event.payload.authority_status, "non_authoritative");
      assert.deepEqual(event.payload.source, testCase.source);
      assert.deepEqual(event.payload.target, testCase.target);
    }
  });

  test("generate.ts rewrites the same bytes", { timeout: 60_000 }, () => {
    const out = makeTempDir("causal-fixture");
    const run = spawnSync(bunPath, [path.join(dir, "generate.ts"), out], { cwd: repoRoot, encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(fs.readFileSync(path.join(out, `${doc.session_id}.jsonl`)), logBytes);
    assert.equal(fs.readFileSync(path.join(out, "cases.json"), "utf8"), fs.readFileSync(path.join(dir, "cases.json"), "utf8"));
  });
});
