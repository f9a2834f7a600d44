/**
 * `zaxy memory query|checkout --semantic` (src/retrieval/semanticLane.ts) through the CLI: a
 * paraphrase finds its fact through the semantic lane, the receipt names the model and the SHA-256
 * of its weights, a checkout serves a semantic match only from the evidence threshold (so an
 * unrelated question stays `ask_user`), and two runs give the same bytes.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { runZaxy } from "./zaxy.ts";

after(removeTempDirs);

const slow = { timeout: 120_000 };
const weightsSha256 = "702934a3f8bded5c925ce1ec2c61a645fb897949f3c809feca6e0db0f266e6b0";
let dir = "";

function run(args: string[]): string {
  // Each call loads the model (about a second of CPU).
  const result = runZaxy([...args, "--json"], { cwd: dir });
  assert.equal(result.code, 0, `${args.join(" ")}: ${result.stdout}${result.stderr}`);
  assert.equal(result.stderr, "", args.join(" "));
  return result.stdout;
}

before(() => {
  dir = makeTempDir("cli-semantic");
  for (const decision of ["Migrated the database to PostgreSQL 16", "Adopt Kuzu for the graph projection", "Carol leads the weekend on-call rotation"]) {
    const result = runZaxy(["memory", "append", "decision.made", "--actor", "architect", "--payload-json", JSON.stringify({ decision, rationale: "agreed in the weekly review" })], { cwd: dir });
    assert.equal(result.code, 0, result.stderr);
  }
});

describe("the semantic lane through the CLI", () => {
  test("memory query --semantic: a paraphrase finds its fact first, with the semantic lane and a receipt", slow, () => {
    const stdout = run(["memory", "query", "how are we upgrading the db?", "--semantic", "--limit", "3"]);
    const doc = JSON.parse(stdout);
    assert.match(doc.results[0].content, /Migrated the database to PostgreSQL 16/);
    assert.ok(doc.results[0].score_explanation.lanes.semantic > 0, JSON.stringify(doc.results[0].score_explanation));
    // Frozen: the same from source under Bun or Deno and from any build of the binary.
    assert.equal(doc.results[0].score_explanation.semantic_similarity, 0.481717);
    assert.deepEqual(doc.diagnostics.semantic, { ran: true, model_id: "use-lite-512-uint8-v1", weights_sha256: weightsSha256, facts_compared: 3, facts_not_embedded: 0, embedded_now: 3, hits: doc.diagnostics.source_lanes.semantic });
    // The first read builds the read model (projection.source "rebuilt"), later ones read it.
    const again = JSON.parse(run(["memory", "query", "how are we upgrading the db?", "--semantic", "--limit", "3"]));
    assert.equal(JSON.stringify(again.results), JSON.stringify(doc.results), "the same log and model give the same bytes");
    // The vectors were stored by the first read: the second embeds none.
    assert.deepEqual(again.diagnostics.semantic, { ...doc.diagnostics.semantic, embedded_now: 0 });
  });

  test("memory query --no-semantic has no semantic lane and does not run it", slow, () => {
    const doc = JSON.parse(run(["memory", "query", "how are we upgrading the db?", "--no-semantic", "--limit", "3"]));
    assert.ok(doc.diagnostics.semantic === undefined || doc.diagnostics.semantic.ran === false, JSON.stringify(doc.diagnostics.semantic));
    assert.equal(doc.diagnostics.source_lanes.semantic, undefined);
  });

  test("memory checkout --semantic: a paraphrase below the evidence threshold is listed first as evidence, not served; an unrelated question stays ask_user", slow, () => {
    // No word of it, nor another name of one ("db" names the database), is in the fact.
    const related = JSON.parse(run(["memory", "checkout", "how are we upgrading the relational store?", "--semantic"]));
    assert.match(related.evidence[0].content, /PostgreSQL 16/);
    assert.deepEqual(related.current_facts, []);
    assert.equal(related.quality.answerability, "ask_user");
    assert.equal(related.diagnostics.semantic.weights_sha256, weightsSha256);
    const unrelated = JSON.parse(run(["memory", "checkout", "what is the capital of Australia?", "--semantic"]));
    assert.equal(unrelated.quality.answerability, "ask_user");
    assert.equal(unrelated.diagnostics.query_match.coverage, 0);
    assert.equal(unrelated.diagnostics.semantic.model_id, "use-lite-512-uint8-v1");
  });
});
