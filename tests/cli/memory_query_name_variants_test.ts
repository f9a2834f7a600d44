/**
 * `zaxy memory query` and `memory checkout` match other names of what a query names
 * (src/vector/textAnalysis.ts): a memory that says "Migrated the database to PostgreSQL 16" is
 * found for "postgres", "pg16" and "db", in the keyword lane, and checkout counts the word as
 * matched and answers from memory.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { runZaxy } from "./zaxy.ts";

after(removeTempDirs);

const slow = { timeout: 120_000 };
const migration = "Migrated the database to PostgreSQL 16";
let dir = "";

// deno-lint-ignore no-explicit-any
function jsonOk(args: string[]): any {
  const run = runZaxy([...args, "--json"], { cwd: dir });
  assert.equal(run.code, 0, `${args.join(" ")}: ${run.stdout}${run.stderr}`);
  assert.equal(run.stderr, "", args.join(" "));
  return JSON.parse(run.stdout);
}

before(() => {
  dir = makeTempDir("cli-name-variants");
  for (const payload of [
    { decision: migration },
    { decision: "Frontend tests run in Playwright" },
    { decision: "Redis caches session tokens" },
  ]) {
    const run = runZaxy(["memory", "append", "decision.made", "--actor", "architect", "--payload-json", JSON.stringify(payload)], { cwd: dir });
    assert.equal(run.code, 0, run.stderr);
  }
});

describe("other names of what a query names", () => {
  for (const query of ["postgres", "pg16", "db", "postgres 16"]) {
    test(`memory query: "${query}" finds the PostgreSQL 16 migration first, through the keyword lane`, slow, () => {
      const doc = jsonOk(["memory", "query", query, "--limit", "3"]);
      const top = doc.results[0];
      assert.ok(top.content.includes(migration), JSON.stringify(doc.results.map((r: { content: string }) => r.content)));
      assert.ok(top.score_explanation.lanes.keyword > 0, JSON.stringify(top.score_explanation));
      assert.ok(!doc.results.slice(1).some((r: { score: number }) => r.score >= top.score), "the migration ranks strictly first");
    });
  }

  test("memory checkout: \"which db do we use?\" counts \"db\" as matched and answers from memory", slow, () => {
    const doc = jsonOk(["memory", "checkout", "which db do we use?"]);
    assert.deepEqual(doc.diagnostics.query_match.matched_terms, ["db"]);
    assert.equal(doc.quality.answerability, "answer_from_memory");
    assert.ok(doc.current_facts.some((fact: { content: string }) => fact.content.includes(migration)), JSON.stringify(doc.current_facts));
  });

  test("memory checkout: \"pg16\" counts as matched by \"PostgreSQL 16\"", slow, () => {
    const doc = jsonOk(["memory", "checkout", "are we on pg16?"]);
    assert.deepEqual(doc.diagnostics.query_match.matched_terms, ["pg16"]);
    assert.ok(doc.current_facts.some((fact: { content: string }) => fact.content.includes(migration)), JSON.stringify(doc.current_facts));
  });

  test("memory checkout: a name outside the lexicon is not matched by a different one", slow, () => {
    const doc = jsonOk(["memory", "checkout", "mysql"]);
    assert.deepEqual(doc.diagnostics.query_match.matched_terms, []);
    assert.notEqual(doc.quality.answerability, "answer_from_memory");
  });
});
