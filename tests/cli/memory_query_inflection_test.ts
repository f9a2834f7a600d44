/**
 * `zaxy memory query` and `memory checkout` match the inflections of a query's words
 * (src/vector/textAnalysis.ts): "specs" finds a memory that says "spec", in the keyword lane, and the
 * checkout counts the word as matched.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { runZaxy } from "./zaxy.ts";

after(removeTempDirs);

const slow = { timeout: 120_000 };
let dir = "";

// deno-lint-ignore no-explicit-any
function jsonOk(args: string[]): any {
  const run = runZaxy([...args, "--json"], { cwd: dir });
  assert.equal(run.code, 0, `${args.join(" ")}: ${run.stdout}${run.stderr}`);
  assert.equal(run.stderr, "", args.join(" "));
  return JSON.parse(run.stdout);
}

before(() => {
  dir = makeTempDir("cli-inflection");
  for (const [type, payload] of [
    ["decision.made", { decision: "Write the spec before the code", rationale: "reviewers read it first" }],
    ["decision.made", { decision: "Adopt Kuzu", rationale: "embedded graph store" }],
  ] as const) {
    const run = runZaxy(["memory", "append", type, "--actor", "architect", "--payload-json", JSON.stringify(payload)], { cwd: dir });
    assert.equal(run.code, 0, run.stderr);
  }
});

describe("inflected query words", () => {
  test("memory query: \"specs\" finds the memory that says \"spec\" through the keyword lane", slow, () => {
    const doc = jsonOk(["memory", "query", "specs", "--limit", "3"]);
    const top = doc.results[0];
    assert.match(top.content, /Write the spec before the code/);
    assert.ok(top.score_explanation.lanes.keyword > 0, JSON.stringify(top.score_explanation));
    assert.ok(doc.diagnostics.source_lanes.keyword >= 1);
  });

  test("memory checkout: \"specs\" counts as a matched query term", slow, () => {
    const doc = jsonOk(["memory", "checkout", "what are our specs?"]);
    assert.ok(doc.current_facts.some((fact: { content: string }) => /the spec before/.test(fact.content)), JSON.stringify(doc.current_facts));
  });
});
