// test-lane: full (bench command, slow)
/**
 * Seed fidelity, LongMemEval gates (issue 13, "Done when"): the `benchmark-compare` and
 * `benchmark-guardrail` commands of the alpha documents `../shared/seeds/000_ef7d275d63403772.txt`
 * (Task 8: benchmark-compare with bounds) and `001_4a55e6b48d144195.txt` (Task 12:
 * benchmark-guardrail, "PASS or a clear message that the cached artifact path is unavailable"),
 * built as offline runners over a local file in the public LongMemEval JSON format
 * (`zaxy bench longmemeval`, fixture `fixtures/longmemeval/mini.json`).
 *
 * Binary tests run `dist/zaxy` (rebuild after changing src).
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { buildMiniDataset } from "../../fixtures/longmemeval/generate.ts";
import { answerScore, answerTerms } from "../../src/bench/longmemevalBench.ts";
import { repoRoot, runZaxy } from "../cli/zaxy.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";

after(removeTempDirs);

const slow = { timeout: 120_000 };
const fixture = path.join(repoRoot, "fixtures", "longmemeval", "mini.json");

/** A checkout summary meeting every default bound of benchmark-compare. */
const passingSummary = {
  questions: 500,
  mean_score: 0.97,
  answer_recall_at_5: 0.96,
  recall_at_1: 0.99,
  recall_at_5: 1.0,
  recall_at_10: 1.0,
  citation_coverage: 1.0,
  p50_ms: 100,
  p95_ms: 400,
  p99_ms: 700,
};

/** Writes a crafted report; `checkout` overrides fields of the zaxy-checkout summary. */
function writeReport(dir: string, name: string, checkout: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  const file = path.join(dir, name);
  const report = {
    schema: "zaxy.bench.longmemeval.v1",
    dataset: { path: "crafted.json", sha256: "sha256:00", questions: 500 },
    backends: { "zaxy-checkout": { ...passingSummary, ...checkout }, bm25: { ...passingSummary, mean_score: 0.5 } },
    per_question: [],
    ...extra,
  };
  fs.writeFileSync(file, JSON.stringify(report));
  return file;
}

// deno-lint-ignore no-explicit-any
function json(stdout: string): any {
  return JSON.parse(stdout);
}

describe("zaxy bench longmemeval: offline runner over a local LongMemEval file", () => {
  test("design 000/001: the runner scores zaxy-checkout and bm25 on the fixture and writes a report the gates read", slow, () => {
    const dir = makeTempDir("zaxy-lme");
    const output = path.join(dir, "report.json");
    const run = runZaxy(["bench", "longmemeval", "--dataset", fixture, "--output", output, "--json"], { cwd: dir });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.equal(run.stderr, "");
    const report = json(fs.readFileSync(output, "utf8"));
    assert.deepEqual(json(run.stdout), report);
    assert.equal(report.schema, "zaxy.bench.longmemeval.v1");
    const sha = "sha256:" + createHash("sha256").update(fs.readFileSync(fixture)).digest("hex");
    assert.deepEqual(report.dataset, { path: fixture, sha256: sha, questions: 13, questions_scored: 12, questions_skipped_abstention: 1 });
    assert.equal(report.reader, null);
    assert.deepEqual(Object.keys(report.backends).sort(), ["bm25", "zaxy-checkout"]);
    const checkout = report.backends["zaxy-checkout"];
    assert.equal(checkout.questions, 12);
    assert.ok(checkout.recall_at_5 >= 0.9, `recall_at_5 ${checkout.recall_at_5}`);
    assert.ok(checkout.recall_at_10 >= checkout.recall_at_5 && checkout.recall_at_5 >= checkout.recall_at_1);
    assert.ok(checkout.answer_recall_at_5 >= 0.9, `answer_recall_at_5 ${checkout.answer_recall_at_5}`);
    assert.equal(checkout.citation_coverage, 1);
    assert.ok(checkout.p50_ms > 0 && checkout.p50_ms <= checkout.p95_ms && checkout.p95_ms <= checkout.p99_ms);
    for (const key of ["mean_score", "answer_recall_at_5", "recall_at_1", "recall_at_5", "recall_at_10", "citation_coverage", "p50_ms", "p95_ms", "p99_ms"]) {
      assert.equal(typeof report.backends.bm25[key], "number", `bm25.${key}`);
    }
    assert.equal(report.per_question.length, 12);
    assert.ok(!report.per_question.some((q: { question_id: string }) => q.question_id.endsWith("_abs")));
    const first = report.per_question[0];
    assert.deepEqual(first.answer_session_ids, ["answer_mini_00"]);
    assert.equal(first.turns, 8);
    // Every retrieved context names a haystack session of its question.
    for (const q of report.per_question) {
      for (const backend of ["zaxy-checkout", "bm25"]) {
        for (const s of q.backends[backend].retrieved_session_ids) assert.match(s, /^(answer|filler)_mini_/);
      }
    }
    // The runner's own report passes the 1.x guardrail and the gate reads it.
    const guard = runZaxy(["benchmark-guardrail", output, "--json"], { cwd: dir });
    assert.equal(guard.code, 0, guard.stdout + guard.stderr);
    assert.equal(json(guard.stdout).verdict, "PASS");
  });

  test("--limit scores only the first N questions", slow, () => {
    const dir = makeTempDir("zaxy-lme");
    const run = runZaxy(["bench", "longmemeval", "--dataset", fixture, "--limit", "2", "--json"], { cwd: dir });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const report = json(run.stdout);
    assert.deepEqual(report.per_question.map((q: { question_id: string }) => q.question_id), ["mini_00", "mini_01"]);
    assert.equal(report.backends["zaxy-checkout"].questions, 2);
  });

  test("a dataset not in the LongMemEval format is refused with exit 2 naming the field; no report is written", () => {
    const dir = makeTempDir("zaxy-lme");
    const dataset = path.join(dir, "bad.json");
    const good = json(fs.readFileSync(fixture, "utf8"))[0];
    delete good.answer_session_ids;
    fs.writeFileSync(dataset, JSON.stringify([good]));
    const output = path.join(dir, "report.json");
    const run = runZaxy(["bench", "longmemeval", "--dataset", dataset, "--output", output, "--json"], { cwd: dir });
    assert.equal(run.code, 2);
    const error = json(run.stdout).error;
    assert.equal(error.code, "invalid_dataset");
    assert.match(error.message, /\[0\]\.answer_session_ids must be an array of strings/);
    assert.equal(fs.existsSync(output), false);
    const missing = runZaxy(["bench", "longmemeval", "--dataset", path.join(dir, "absent.json")], { cwd: dir });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /Cannot read --dataset/);
    const usage = runZaxy(["bench", "longmemeval"], { cwd: dir });
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /--dataset is required/);
  });

  test("the committed fixture is what its generator writes, in the public LongMemEval format", () => {
    assert.equal(fs.readFileSync(fixture, "utf8"), JSON.stringify(buildMiniDataset(), null, 1) + "\n");
    const keys = ["question_id", "question_type", "question", "answer", "question_date", "haystack_session_ids", "haystack_dates", "haystack_sessions", "answer_session_ids"];
    for (const q of json(fs.readFileSync(fixture, "utf8"))) {
      assert.deepEqual(Object.keys(q), keys);
      assert.equal(q.haystack_sessions.length, q.haystack_session_ids.length);
      for (const gold of q.answer_session_ids) assert.ok(q.haystack_session_ids.includes(gold));
    }
  });

  test("score is score_retrieval with the answer's terms as expected terms and no forbidden terms", () => {
    assert.deepEqual(answerTerms("The Gilded Wyvern"), ["gilded", "wyvern"]);
    assert.equal(answerScore("The Gilded Wyvern", "how about the gilded cage"), 0.5);
    assert.equal(answerScore("Border Collie", "user: she is a border collie named pixel"), 1);
    assert.equal(answerScore("twelve", "eleven plants"), 0);
  });
});

describe("zaxy benchmark-compare: the alpha.2 gate over a report", () => {
  test("design 000: a report meeting Python's default bounds passes with exit 0", () => {
    const dir = makeTempDir("zaxy-lme");
    const report = writeReport(dir, "r.json", {});
    const run = runZaxy(["benchmark-compare", report], { cwd: dir });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /^PASS .*6\/6 checks passed/);
    assert.equal(run.stderr, "");
    const doc = json(runZaxy(["benchmark-compare", report, "--json"], { cwd: dir }).stdout);
    assert.equal(doc.schema, "zaxy.benchmark_compare.v1");
    assert.equal(doc.verdict, "PASS");
    assert.deepEqual(doc.checks.map((c: { metric: string; op: string; bound: number }) => `${c.metric} ${c.op} ${c.bound}`), [
      "mean_score >= 0.95",
      "answer_recall_at_5 >= 0.95",
      "recall_at_5 >= 0.99",
      "citation_coverage >= 0.95",
      "p95_ms <= 500",
      "p99_ms <= 750",
    ]);
  });

  test("design 000: a report failing one bound fails with exit 1 naming that metric, its value and bound", () => {
    const dir = makeTempDir("zaxy-lme");
    const report = writeReport(dir, "r.json", { answer_recall_at_5: 0.91 });
    const run = runZaxy(["benchmark-compare", report, "--json"], { cwd: dir });
    assert.equal(run.code, 1, run.stdout + run.stderr);
    const doc = json(run.stdout);
    assert.equal(doc.verdict, "FAIL");
    assert.deepEqual(doc.failures, [{ metric: "answer_recall_at_5", value: 0.91, op: ">=", bound: 0.95, passed: false }]);
    const text = runZaxy(["benchmark-compare", report], { cwd: dir });
    assert.equal(text.code, 1);
    assert.match(text.stdout, /^FAIL /);
    assert.match(text.stdout, /failed: answer_recall_at_5 = 0.91, required >= 0.95/);
    // The seed's own invocation (Answer@5 >= 0.90, citation 1.0, p95 <= 2500, p99 <= 3000) passes it.
    const seedBounds = runZaxy([
      "benchmark-compare", report, "--backend", "zaxy-checkout", "--min-mean-score", "0.95", "--min-answer-recall-at-5", "0.90",
      "--min-recall-at-5", "0.99", "--min-citation-coverage", "1.0", "--max-p95-ms", "2500", "--max-p99-ms", "3000",
    ], { cwd: dir });
    assert.equal(seedBounds.code, 0, seedBounds.stdout + seedBounds.stderr);
  });

  test("with --baseline, a p95 latency regression beyond the ratio fails", () => {
    const dir = makeTempDir("zaxy-lme");
    const baseline = writeReport(dir, "base.json", { p95_ms: 200, p99_ms: 700 });
    const candidate = writeReport(dir, "cand.json", { p95_ms: 300, p99_ms: 700 });
    const run = runZaxy(["benchmark-compare", candidate, "--baseline", baseline, "--json"], { cwd: dir });
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.deepEqual(json(run.stdout).failures, [{ metric: "p95_latency_regression_ratio", value: 0.5, op: "<=", bound: 0.25, passed: false }]);
    const loose = runZaxy(["benchmark-compare", candidate, "--baseline", baseline, "--max-latency-regression-ratio", "0.5"], { cwd: dir });
    assert.equal(loose.code, 0, loose.stdout + loose.stderr);
  });

  test("design 001: a missing artifact is exit 2 with a clear message that the path is unavailable, not a FAIL", () => {
    const dir = makeTempDir("zaxy-lme");
    const absent = path.join(dir, "reports", "live-benchmark.json");
    for (const command of ["benchmark-compare", "benchmark-guardrail"]) {
      const run = runZaxy([command, absent], { cwd: dir });
      assert.equal(run.code, 2, command);
      assert.equal(run.stdout, "");
      assert.match(run.stderr, /The benchmark artifact REPORT ".*live-benchmark\.json" is unavailable: no such file/);
      const asJson = json(runZaxy([command, absent, "--json"], { cwd: dir }).stdout);
      assert.equal(asJson.error.code, "report_unavailable");
    }
    const baselineAbsent = runZaxy(["benchmark-compare", writeReport(dir, "r.json", {}), "--baseline", absent, "--json"], { cwd: dir });
    assert.equal(baselineAbsent.code, 2);
    assert.equal(json(baselineAbsent.stdout).error.field, "--baseline");
  });

  test("a report of another schema, not JSON, or without the backend is exit 2 invalid_report", () => {
    const dir = makeTempDir("zaxy-lme");
    const wrongSchema = writeReport(dir, "other.json", {}, { schema: "zaxy.bench.retrieval.v1" });
    const notJson = path.join(dir, "garbage.json");
    fs.writeFileSync(notJson, "{not json");
    const cases: [string[], RegExp][] = [
      [[wrongSchema], /has schema "zaxy\.bench\.retrieval\.v1", expected "zaxy\.bench\.longmemeval\.v1"/],
      [[notJson], /is not JSON/],
      [[writeReport(dir, "r.json", {}), "--backend", "graph"], /has no backend "graph" \(backends: zaxy-checkout, bm25\)/],
      [[writeReport(dir, "partial.json", { p99_ms: "fast" })], /lacks numeric p99_ms/],
    ];
    for (const [args, message] of cases) {
      const run = runZaxy(["benchmark-compare", ...args, "--json"], { cwd: dir });
      assert.equal(run.code, 2, args.join(" "));
      const error = json(run.stdout).error;
      assert.equal(error.code, "invalid_report");
      assert.match(error.message, message);
    }
    const badBound = runZaxy(["benchmark-compare", writeReport(dir, "r2.json", {}), "--max-p95-ms", "fast"], { cwd: dir });
    assert.equal(badBound.code, 2);
    assert.match(badBound.stderr, /--max-p95-ms must be a number >= 0, got "fast"/);
  });
});

describe("zaxy benchmark-guardrail: the alpha.1 regression guard at the published 1.x floors", () => {
  const atFloors = { mean_score: 0.626, answer_recall_at_5: 0.608, recall_at_5: 0.956, citation_coverage: 1.0, p95_ms: 15000, p99_ms: 23000 };

  test("design 001: a report exactly at the 1.x floors passes", () => {
    const dir = makeTempDir("zaxy-lme");
    const run = runZaxy(["benchmark-guardrail", writeReport(dir, "r.json", atFloors), "--json"], { cwd: dir });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const doc = json(run.stdout);
    assert.equal(doc.schema, "zaxy.benchmark_guardrail.v1");
    assert.deepEqual(doc.checks.map((c: { metric: string; op: string; bound: number }) => `${c.metric} ${c.op} ${c.bound}`), [
      "mean_score >= 0.626",
      "answer_recall_at_5 >= 0.608",
      "recall_at_5 >= 0.956",
      "citation_coverage >= 1",
      "p95_ms <= 15000",
      "p99_ms <= 23000",
    ]);
  });

  test("design 001: a Recall@5 or citation regression below the 1.x floor fails naming each metric", () => {
    const dir = makeTempDir("zaxy-lme");
    const report = writeReport(dir, "r.json", { ...atFloors, recall_at_5: 0.95, citation_coverage: 0.99, p99_ms: 23001 });
    const run = runZaxy(["benchmark-guardrail", report], { cwd: dir });
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /^FAIL .*3\/6 checks passed/);
    assert.match(run.stdout, /failed: recall_at_5 = 0.95, required >= 0.956/);
    assert.match(run.stdout, /failed: citation_coverage = 0.99, required >= 1/);
    assert.match(run.stdout, /failed: p99_ms = 23001, required <= 23000/);
  });

  test("help marks both gates as offline and names the guardrail floors", () => {
    const dir = makeTempDir("zaxy-lme");
    const top = runZaxy(["--help"], { cwd: dir });
    assert.match(top.stdout, /benchmark-compare\s+Offline gate/);
    assert.match(top.stdout, /benchmark-guardrail\s+Offline gate/);
    const help = runZaxy(["benchmark-guardrail", "--help"], { cwd: dir });
    assert.equal(help.code, 0);
    assert.match(help.stdout, /mean_score >= 0\.626, answer_recall_at_5 >= 0\.608, recall_at_5 >= 0\.956/);
    assert.match(help.stdout, /citation_coverage >= 1\.0, p95_ms <= 15000, p99_ms <= 23000/);
  });
});
