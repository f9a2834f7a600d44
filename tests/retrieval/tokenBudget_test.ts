/**
 * Token estimate and section packing (src/retrieval/tokenBudget.ts): examples, the boundaries
 * (zero budget, exact fit, mandatory overflow), properties on seeded random sections
 * (monotone in the budget, mandatory always kept, never over budget unless mandatory sections
 * overflow it) and a cross-check against Python's `token_budget.pack_sections` logic run in
 * python3. Seed fixed and printed; `ZAXY_PROPERTY_SEED=<n>` overrides it.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { type BudgetSection, estimateTokens, packSections } from "../../src/retrieval/tokenBudget.ts";
import { python, skipWithoutPython } from "../eventloom/testkit.ts";
import { propertySeed, Rng } from "../testkit/rng.ts";

test("estimateTokens is ceil(code points / 4)", () => {
  assert.equal(estimateTokens(""), 0);
  assert.equal(estimateTokens("a"), 1);
  assert.equal(estimateTokens("abcd"), 1);
  assert.equal(estimateTokens("abcde"), 2);
  assert.equal(estimateTokens("x".repeat(400)), 100);
  // Four emoji are four code points (eight UTF-16 units): one token, as Python's len() says.
  assert.equal(estimateTokens("😀😀😀😀"), 1);
  assert.equal(estimateTokens("😀😀😀😀😀"), 2);
  // A lone surrogate is one code point in both languages.
  assert.equal(estimateTokens("\ud800abc"), 1);
  assert.equal(estimateTokens("é日本"), 1);
});

const section = (id: string, chars: number, weight: number, mandatory = false): BudgetSection => ({
  id,
  text: "x".repeat(chars),
  mandatory,
  weight,
});

test("packSections keeps mandatory sections at a zero budget and elides the rest", () => {
  const sections = [section("header", 17, 1, true), section("fact", 40, 0.9), section("query", 9, 1, true)];
  assert.deepEqual(packSections(sections, 0), {
    kept: ["header", "query"],
    elided: [{ id: "fact", tokens: 10 }],
    usedTokens: 5 + 3,
    requestedTokens: 0,
  });
});

test("packSections takes optional sections by weight per token and keeps the caller's order", () => {
  const sections = [
    section("header", 4, 1, true), // 1 token
    section("long", 400, 0.9), // 100 tokens, density 0.009
    section("dense", 8, 0.5), // 2 tokens, density 0.25
    section("medium", 40, 0.6), // 10 tokens, density 0.06
  ];
  assert.deepEqual(packSections(sections, 13), {
    kept: ["header", "dense", "medium"],
    elided: [{ id: "long", tokens: 100 }],
    usedTokens: 13,
    requestedTokens: 13,
  });
  // One token short: "medium" no longer fits, and packing stops there rather than skipping it.
  assert.deepEqual(packSections(sections, 12).kept, ["header", "dense"]);
});

test("packSections stops at the first optional section that does not fit (a smaller later one stays out)", () => {
  const sections = [section("big", 40, 1), section("small", 4, 0.01)];
  // big: density 0.1, 10 tokens; small: density 0.01, 1 token. Budget 5: big does not fit, so small is not tried.
  assert.deepEqual(packSections(sections, 5).kept, []);
  assert.deepEqual(packSections(sections, 11).kept, ["big", "small"]);
});

test("packSections ranks empty sections first and breaks density ties by position", () => {
  const sections = [section("b", 8, 1), section("a", 8, 1), section("empty", 0, 0)];
  assert.deepEqual(packSections(sections, 2).kept, ["b", "empty"]);
});

test("packSections reports mandatory overflow past the budget", () => {
  const result = packSections([section("m", 40, 1, true), section("o", 4, 1)], 3);
  assert.deepEqual(result, { kept: ["m"], elided: [{ id: "o", tokens: 1 }], usedTokens: 10, requestedTokens: 3 });
});

test("packSections rejects a negative or NaN budget", () => {
  assert.throws(() => packSections([], -1), RangeError);
  assert.throws(() => packSections([], Number.NaN), RangeError);
});

function randomSections(rng: Rng): BudgetSection[] {
  return Array.from({ length: rng.range(0, 14) }, (_, i) => ({
    id: `s${i}`,
    text: "y".repeat(rng.chance(0.1) ? 0 : rng.range(1, 300)),
    mandatory: rng.chance(0.25),
    weight: rng.chance(0.2) ? rng.pick([0, 0.5, 1]) : rng.int(1000) / 1000,
  }));
}

const seed = propertySeed(0x70c3);

test(`packSections is monotone in the budget and keeps every mandatory section (seed ${seed})`, () => {
  const rng = new Rng(seed);
  for (let round = 0; round < 300; round++) {
    const sections = randomSections(rng);
    const mandatoryIds = sections.filter((s) => s.mandatory).map((s) => s.id);
    const mandatoryTokens = sections.filter((s) => s.mandatory).reduce((sum, s) => sum + estimateTokens(s.text), 0);
    let previous = new Set<string>();
    for (let budget = 0; budget <= 500; budget += rng.range(1, 25)) {
      const result = packSections(sections, budget);
      const kept = new Set(result.kept);
      for (const id of previous) assert.ok(kept.has(id), `round ${round}: budget ${budget} dropped ${id}`);
      for (const id of mandatoryIds) assert.ok(kept.has(id), `round ${round}: mandatory ${id} dropped`);
      assert.ok(result.usedTokens <= Math.max(budget, mandatoryTokens), `round ${round}: over budget`);
      assert.equal(result.kept.length + result.elided.length, sections.length);
      assert.deepEqual(
        [...result.kept, ...result.elided.map((e) => e.id)].sort(),
        sections.map((s) => s.id).sort(),
      );
      previous = kept;
    }
  }
});

test(`packSections equals Python's pack_sections on random sections (seed ${seed})`, { skip: skipWithoutPython }, () => {
  const rng = new Rng(seed ^ 0x5a5a);
  const cases = Array.from({ length: 400 }, () => ({ sections: randomSections(rng), budget: rng.range(0, 400) }));
  // Astral characters exercise Python's code-point len() against the estimate.
  for (const c of cases.slice(0, 50)) for (const s of c.sections) s.text = s.text.replace(/yy/g, "😀");
  const program = `
import json, sys
def est(t): return (len(t) + 3) // 4
def density(w, c): return float("inf") if c <= 0 else w / c
out = []
for case in json.load(sys.stdin):
    secs, budget = case["sections"], case["budget"]
    costs = [est(s["text"]) for s in secs]
    inc = {i for i, s in enumerate(secs) if s["mandatory"]}
    rem = budget - sum(costs[i] for i in inc)
    for i in sorted((i for i, s in enumerate(secs) if not s["mandatory"]), key=lambda i: (-density(secs[i]["weight"], costs[i]), i)):
        if costs[i] > rem: break
        inc.add(i); rem -= costs[i]
    out.append({"kept": [s["id"] for i, s in enumerate(secs) if i in inc],
                "elided": [{"id": s["id"], "tokens": costs[i]} for i, s in enumerate(secs) if i not in inc],
                "usedTokens": sum(costs[i] for i in inc), "requestedTokens": budget})
print(json.dumps(out))
`;
  const expected = JSON.parse(python(program, JSON.stringify(cases)));
  cases.forEach((c, i) => assert.deepEqual(packSections(c.sections, c.budget), expected[i], `case ${i}`));
});
