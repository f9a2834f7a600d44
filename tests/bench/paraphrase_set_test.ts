/** The committed paraphrase set of `zaxy bench retrieval --paraphrase` (src/bench/paraphraseSet.ts). */
import { test } from "node:test";
import assert from "node:assert/strict";
import { paraphraseDistractorCount, paraphraseDistractors, paraphraseFacts, unrelatedQuestions } from "../../src/bench/paraphraseSet.ts";

test("the paraphrase set: 36 facts with two questions each, 20 unrelated questions, unique texts", () => {
  assert.equal(paraphraseFacts.length, 36);
  assert.ok(paraphraseFacts.every((fact) => fact.questions.length === 2));
  assert.equal(new Set(paraphraseFacts.map((fact) => fact.id)).size, 36);
  assert.equal(new Set(paraphraseFacts.map((fact) => fact.text)).size, 36);
  assert.equal(unrelatedQuestions.length, 20);
});

test("the distractors are the same every run, distinct, and never a fact", () => {
  const distractors = paraphraseDistractors();
  assert.equal(distractors.length, paraphraseDistractorCount);
  assert.equal(new Set(distractors).size, distractors.length);
  assert.deepEqual(paraphraseDistractors(), distractors);
  const facts = new Set(paraphraseFacts.map((fact) => fact.text));
  assert.ok(distractors.every((text) => !facts.has(text)));
  assert.equal(distractors[0], paraphraseDistractors()[0]);
});
