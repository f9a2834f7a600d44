// test-lane: full (slow)
/**
 * `zaxy memory consolidation trigger --embedding hash|model` through the CLI
 * (docs/trigger-consolidation.md): the model aligns a reworded memory with the goal it serves
 * where the hash embedding (shared words only) does not, so the semantic strategy finds the pair
 * only with the model; the output names the embedding used (model id and weights SHA-256); the
 * default is the hash embedding with seed 004's document unchanged; a bad value exits 2 naming
 * --embedding and the allowed values, with nothing written.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { runZaxy, stackTraceLines } from "../cli/zaxy.ts";

after(removeTempDirs);

// Each model run loads the model (about a second of CPU).
const slow = { timeout: 120_000 };
const weightsSha256 = "702934a3f8bded5c925ce1ec2c61a645fb897949f3c809feca6e0db0f266e6b0";
let dir = "";
let logPath = "";

function append(type: string, payload: unknown): void {
  const run = runZaxy(["memory", "append", type, "--actor", "agent", "--payload-json", JSON.stringify(payload), "--json"], { cwd: dir });
  assert.equal(run.code, 0, run.stderr);
}

function trigger(args: string[]): { stdout: string; doc: Record<string, any> } {
  const run = runZaxy(["memory", "consolidation", "trigger", ...args, "--json"], { cwd: dir });
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.equal(run.stderr, "");
  return { stdout: run.stdout, doc: JSON.parse(run.stdout) };
}

before(() => {
  dir = makeTempDir("trigger-embedding");
  append("goal.created", { title: "Speed up the test suite" });
  append("decision.made", { decision: "Run unit tests in parallel to shorten CI time" });
  append("decision.made", { decision: "Run the unit tests in parallel to shorten CI time" });
  append("decision.made", { decision: "Rotate staging credentials monthly" });
  logPath = path.join(dir, ".eventloom", "default.jsonl");
});

describe("zaxy memory consolidation trigger --embedding", () => {
  test("semantic strategy: the model aligns the reworded decisions with the goal and finds the pair; the hash embedding does not", slow, () => {
    const before = fs.readFileSync(logPath);
    const hash = trigger(["--strategy", "semantic"]).doc;
    assert.equal(hash.consolidation_result.status, "no_candidates");
    assert.equal(hash.statistics.pairs_compared, 0, "no memory aligns >= 0.5 with the goal by shared words");
    // With no similarity pre-filter every pair reaches the strategy's rule: none has both memories aligned.
    const unfiltered = trigger(["--strategy", "semantic", "--min-similarity", "0"]).doc;
    assert.equal(unfiltered.statistics.pairs_compared, 0);

    const model = trigger(["--strategy", "semantic", "--embedding", "model"]).doc;
    assert.deepEqual(model.consolidation_result, { status: "candidates_found", candidate_count: 1, action_required: true });
    assert.equal(model.statistics.similarity_threshold, 0.8, "the model's default threshold");
    const [pair] = model.candidates_sample;
    assert.deepEqual(pair.memories.map((m: { name: string }) => m.name), ["Run unit tests in parallel to shorten CI time", "Run the unit tests in parallel to shorten CI time"]);
    for (const alignment of pair.alignments) assert.ok(alignment >= 0.5, `model alignment ${alignment}`);
    assert.ok(pair.similarity >= 0.8, String(pair.similarity));
    assert.deepEqual(fs.readFileSync(logPath), before, "the trigger writes nothing");
  });

  test("--embedding model: the JSON and text outputs name the model and the SHA-256 of its weights; two runs give the same bytes", slow, () => {
    const first = trigger(["--strategy", "semantic", "--embedding", "model"]);
    assert.deepEqual(Object.keys(first.doc), ["schema", "consolidation_result", "statistics", "embedding", "candidates_sample"]);
    assert.deepEqual(first.doc.embedding, { kind: "model", id: "use-lite-512-uint8-v1", weights_sha256: weightsSha256, dim: 512, alignment_min: 0.5 });
    assert.equal(trigger(["--strategy", "semantic", "--embedding", "model"]).stdout, first.stdout);
    const text = runZaxy(["memory", "consolidation", "trigger", "--strategy", "semantic", "--embedding", "model"], { cwd: dir });
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, new RegExp(`^embedding: model use-lite-512-uint8-v1 \\(512-d, weights sha256 ${weightsSha256}\\), semantic alignment >= 0\\.5$`, "m"));
  });

  test("the default is the hash embedding: the same document as --embedding hash, without the receipt, as seed 004 has it", slow, () => {
    for (const strategy of ["similarity", "temporal", "semantic"]) {
      const byDefault = trigger(["--strategy", strategy]);
      assert.deepEqual(Object.keys(byDefault.doc), ["schema", "consolidation_result", "statistics", "candidates_sample"], strategy);
      const hash = trigger(["--strategy", strategy, "--embedding", "hash"]);
      assert.deepEqual(hash.doc.embedding, { kind: "hash", dim: 1536, alignment_min: 0.5 });
      const { embedding: _receipt, ...rest } = hash.doc;
      assert.equal(JSON.stringify(rest), JSON.stringify(byDefault.doc), strategy);
    }
    const text = runZaxy(["memory", "consolidation", "trigger", "--embedding", "hash"], { cwd: dir });
    assert.match(text.stdout, /^embedding: hash \(1536-d\), semantic alignment >= 0\.5$/m);
    assert.doesNotMatch(runZaxy(["memory", "consolidation", "trigger"], { cwd: dir }).stdout, /embedding/);
  });

  for (const value of ["bogus", "Model", ""]) {
    test(`--embedding ${JSON.stringify(value)} exits 2 naming --embedding and the allowed values; nothing is written`, slow, () => {
      const fresh = makeTempDir("trigger-embedding-bad");
      fs.mkdirSync(path.join(fresh, ".eventloom"));
      fs.copyFileSync(logPath, path.join(fresh, ".eventloom", "default.jsonl"));
      const before = fs.readFileSync(path.join(fresh, ".eventloom", "default.jsonl"));
      const message = `--embedding must be one of: hash, model (got ${JSON.stringify(value)})`;
      const run = runZaxy(["memory", "consolidation", "trigger", "--embedding", value, "--json"], { cwd: fresh });
      assert.equal(run.code, 2, run.stdout + run.stderr);
      assert.deepEqual(stackTraceLines(run.stderr), []);
      const error = JSON.parse(run.stdout).error;
      assert.equal(error.field, "--embedding");
      assert.equal(error.message, message);
      assert.deepEqual(fs.readdirSync(path.join(fresh, ".eventloom")), ["default.jsonl"], "no projection was made");
      assert.deepEqual(fs.readFileSync(path.join(fresh, ".eventloom", "default.jsonl")), before);
      const text = runZaxy(["memory", "consolidation", "trigger", "--embedding", value], { cwd: fresh });
      assert.equal(text.code, 2);
      assert.equal(text.stdout, "");
      assert.equal(text.stderr, `zaxy: ${message}\n`);
    });
  }
});
