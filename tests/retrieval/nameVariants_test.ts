/** Other names of the same thing for the keyword lanes and checkout (src/vector/textAnalysis.ts). */
import { test } from "node:test";
import assert from "node:assert/strict";
import { keywordTerms, nameGroups, nameVariantTerms, stemTerm, textStems } from "../../src/vector/textAnalysis.ts";

test("nameVariantTerms gives the other names of a one-word name, in lexicon order", () => {
  assert.deepEqual(nameVariantTerms(["postgres"]), ["postgresql", "pg", "psql"]);
  assert.deepEqual(nameVariantTerms(["db"]), ["database"]);
  assert.deepEqual(nameVariantTerms(["k8s"]), ["kubernetes", "kube"]);
  assert.deepEqual(nameVariantTerms(["auth"]), ["authentication", "authn", "authorization", "authz"], "a word in two groups names both");
});

test("nameVariantTerms reads plurals of one-word names and multi-word names in a row", () => {
  assert.deepEqual(nameVariantTerms(["repos"]), ["repository", "repo"]);
  assert.deepEqual(nameVariantTerms(["databases"]), ["database", "db"]);
  assert.deepEqual(nameVariantTerms(["dependencies"]), ["dependency", "dep", "deps"]);
  assert.deepEqual(nameVariantTerms(["ci"]), ["continuous", "integration"]);
  assert.deepEqual(nameVariantTerms(["continuous", "integration", "runs"]), ["ci"]);
  assert.deepEqual(nameVariantTerms(["integration", "continuous"]), [], "the words of a long form must come in order");
});

test("nameVariantTerms expands versioned names, fused or as two words", () => {
  assert.deepEqual(nameVariantTerms(["pg16"]), ["postgresql", "postgres", "pg", "psql", "16", "postgresql16", "postgres16", "psql16"]);
  assert.deepEqual(nameVariantTerms(["postgres", "16"]), ["postgresql", "pg", "psql", "postgresql16", "postgres16", "pg16", "psql16"]);
  assert.deepEqual(nameVariantTerms(["pg12345"]), [], "a version has at most four digits");
  assert.deepEqual(nameVariantTerms(["sha256"]), [], "a prefix outside the lexicon is no name");
});

test("nameVariantTerms has nothing for words outside the lexicon", () => {
  assert.deepEqual(nameVariantTerms(["mysql", "weather", "paris"]), []);
  assert.deepEqual(nameVariantTerms([]), []);
});

test("every lexicon name is made of keyword terms and every group has two names or more", () => {
  for (const group of nameGroups) {
    assert.ok(group.length >= 2, JSON.stringify(group));
    for (const name of group) assert.ok(keywordTerms(name).length >= 1, name);
  }
});

test("textStems holds the stems of the other names a text gives, so checkout meets them", () => {
  const stems = textStems("Migrated the database to PostgreSQL 16");
  for (const word of ["postgres", "pg", "pg16", "db", "postgresql", "16"]) assert.ok(stems.has(stemTerm(word)), word);
  assert.ok(!textStems("Frontend tests run in Playwright").has(stemTerm("postgres")));
});
