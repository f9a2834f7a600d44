/** Inflections for the keyword lanes and checkout's query match (src/vector/textAnalysis.ts). */
import { test } from "node:test";
import assert from "node:assert/strict";
import { inflectionVariants, stemTerm } from "../../src/vector/textAnalysis.ts";
import { stemTerm as checkoutStemTerm } from "../../src/checkout/checkout.ts";

test("stemTerm folds plurals and common inflections to one key", () => {
  assert.equal(stemTerm("specs"), stemTerm("spec"));
  assert.equal(stemTerm("migrations"), stemTerm("migrate"));
  assert.equal(stemTerm("policies"), stemTerm("policy"));
  assert.equal(stemTerm("stopped"), stemTerm("stop"));
  assert.equal(stemTerm("decision"), stemTerm("decided"));
  assert.equal(stemTerm("class"), "class", "a double s is not a plural");
  assert.equal(stemTerm("dbs"), "dbs", "three letters or fewer are kept as written");
  assert.equal(stemTerm("v2s"), "v2s", "a word with a digit is kept as written");
  assert.equal(checkoutStemTerm, stemTerm, "checkout's query match uses the same stemmer");
});

test("inflectionVariants lists the other forms with the same stem, in code-point order", () => {
  const specs = inflectionVariants("specs");
  assert.ok(specs.includes("spec"));
  assert.ok(!specs.includes("specs"), "the word itself is not a variant");
  assert.deepEqual(specs, [...specs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  assert.ok(inflectionVariants("spec").includes("specs"));
  for (const form of ["migrate", "migrated", "migrating", "migration"]) assert.ok(inflectionVariants("migrations").includes(form), form);
  for (const form of ["policy"]) assert.ok(inflectionVariants("policies").includes(form), form);
  for (const form of ["stop", "stopping", "stops"]) assert.ok(inflectionVariants("stopped").includes(form), form);
  for (const form of inflectionVariants("deployments")) assert.equal(stemTerm(form), stemTerm("deployments"), form);
});

test("inflectionVariants has none for short words, words with digits and non-ASCII words", () => {
  assert.deepEqual(inflectionVariants("box"), []);
  assert.deepEqual(inflectionVariants("pg16"), []);
  assert.deepEqual(inflectionVariants("café"), []);
  assert.deepEqual(inflectionVariants(""), []);
});
