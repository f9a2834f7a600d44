/**
 * MMR re-ranking and its similarities (src/retrieval/engine.ts), by example and against a direct
 * transcription of Python's `query._mmr_rank` run in python3 on seeded random candidates (token
 * sets, scores, traversal bonuses, several λ). Seed fixed and printed; `ZAXY_PROPERTY_SEED=<n>`
 * overrides it.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { cosineSimilarity, mmrRank, mmrSelect, tokenJaccard } from "../../src/retrieval/engine.ts";
import { python, skipWithoutPython } from "../eventloom/testkit.ts";
import { propertySeed, Rng } from "../testkit/rng.ts";

interface Hit {
  id: string;
  score: number;
  tokens: Set<string>;
  lane?: string;
}

const hit = (id: string, score: number, text: string, lane?: string): Hit => ({
  id,
  score,
  tokens: new Set(text.split(" ")),
  lane,
});
const jaccard = (a: Hit, b: Hit) => tokenJaccard(a.tokens, b.tokens);
const ids = (hits: Hit[]) => hits.map((h) => h.id);

test("mmrSelect picks the most relevant item first and then penalises a near-duplicate", () => {
  const hits = [
    hit("dup", 0.9, "use postgres for audit logs"),
    hit("top", 0.95, "use postgres for audit logs"),
    hit("other", 0.8, "rollback marker owner dashboard"),
  ];
  assert.deepEqual(ids(mmrSelect(hits, (h) => h.score, jaccard, 0.7, 3)), ["top", "other", "dup"]);
  // With λ = 1 MMR is plain relevance order.
  assert.deepEqual(ids(mmrSelect(hits, (h) => h.score, jaccard, 1, 3)), ["top", "dup", "other"]);
});

test("mmrRank reports the relevance of the first pick and the MMR score of later picks", () => {
  const hits = [hit("a", 0.9, "x y"), hit("b", 0.5, "x z")];
  const picks = mmrRank(hits, (h) => h.score, jaccard, 0.7, 5);
  assert.deepEqual(picks.map((p) => [p.item.id, p.rankingScore]), [
    ["a", 0.9],
    ["b", 0.7 * 0.5 - (1 - 0.7) * (1 / 3)],
  ]);
});

test("mmrSelect breaks ties by input order and honours limit and empty input", () => {
  const hits = [hit("first", 0.5, "a"), hit("second", 0.5, "b"), hit("third", 0.5, "c")];
  assert.deepEqual(ids(mmrSelect(hits, (h) => h.score, jaccard, 0.7, 3)), ["first", "second", "third"]);
  assert.deepEqual(ids(mmrSelect(hits, (h) => h.score, jaccard, 0.7, 2)), ["first", "second"]);
  assert.deepEqual(mmrSelect([], (h: Hit) => h.score, jaccard, 0.7, 3), []);
  assert.deepEqual(mmrSelect(hits, (h) => h.score, jaccard, 0.7, 0), []);
});

test("mmrSelect adds the traversal bonus after the first pick, not to it", () => {
  const hits = [hit("keyword", 0.8, "a b"), hit("walk", 0.7, "c d", "traversal"), hit("keyword2", 0.75, "e f")];
  const bonus = (h: Hit) => (h.lane === "traversal" ? 0.1 : 0);
  assert.deepEqual(ids(mmrSelect(hits, (h) => h.score, jaccard, 0.7, 3, bonus)), ["keyword", "walk", "keyword2"]);
  const walkFirst = [hit("walk", 0.79, "c d", "traversal"), hit("keyword", 0.8, "a b")];
  assert.equal(mmrSelect(walkFirst, (h) => h.score, jaccard, 0.7, 1, bonus)[0].id, "keyword");
});

test("tokenJaccard is |A∩B| / |A∪B| and 0 for an empty side", () => {
  assert.equal(tokenJaccard(new Set(["use", "postgres"]), new Set(["postgres", "audit"])), 1 / 3);
  assert.equal(tokenJaccard(new Set(["a"]), new Set(["a"])), 1);
  assert.equal(tokenJaccard(new Set(), new Set(["a"])), 0);
  assert.equal(tokenJaccard(new Set(["a", "b", "c"]), new Set(["d"])), 0);
});

test("cosineSimilarity of parallel, orthogonal, opposite and zero vectors", () => {
  const close = (actual: number, expected: number) => assert.ok(Math.abs(actual - expected) < 1e-15, `${actual} != ${expected}`);
  close(cosineSimilarity(new Float64Array([1, 2, 3]), new Float64Array([2, 4, 6])), 1);
  close(cosineSimilarity(new Float64Array([1, 1]), new Float64Array([-1, -1])), -1);
  close(cosineSimilarity(new Float32Array([1, 0]), new Float32Array([1, 1])), Math.SQRT1_2);
  assert.equal(cosineSimilarity(new Float32Array([1, 0]), new Float32Array([0, 5])), 0);
  assert.equal(cosineSimilarity(new Float64Array([0, 0]), new Float64Array([1, 1])), 0);
  assert.equal(cosineSimilarity(new Float32Array([3, 4]), new Float64Array([3, 4])), 1);
  assert.throws(() => cosineSimilarity(new Float64Array(2), new Float64Array(3)), RangeError);
});

const seed = propertySeed(0x33a);

test(`mmrRank equals Python's _mmr_rank on generated candidates (seed ${seed})`, { skip: skipWithoutPython }, () => {
  const rng = new Rng(seed);
  const words = Array.from({ length: 12 }, (_, i) => `t${i}`);
  const cases = Array.from({ length: 150 }, () => {
    const count = rng.range(0, 25);
    return {
      lambda: rng.pick([0.58, 0.68, 0.7, 0.82, 1, 0]),
      bonus: rng.pick([0, 0.04, 0.1, 0.14]),
      limit: rng.range(0, 30),
      candidates: Array.from({ length: count }, () => ({
        // Few distinct scores, so equal relevance and equal MMR scores both occur.
        score: rng.chance(0.3) ? rng.pick([0.5, 0.8, 0.95]) : rng.int(1000) / 1000,
        traversal: rng.chance(0.3),
        tokens: [...new Set(Array.from({ length: rng.range(0, 5) }, () => rng.pick(words)))],
      })),
    };
  });
  const program = `
import json, sys
def sim(a, b):
    a, b = set(a["tokens"]), set(b["tokens"])
    if not a or not b: return 0.0
    return len(a & b) / len(a | b)
def mmr(results, limit, lam, bonus):
    candidates = sorted(results, key=lambda x: x["score"], reverse=True)
    selected = []
    while candidates and len(selected) < limit:
        if not selected:
            first = candidates.pop(0)
            selected.append((first["i"], first["score"]))
            continue
        best_index, best_score = 0, float("-inf")
        for index, c in enumerate(candidates):
            s = max(sim(c, results[h]) for h, _ in selected)
            r = lam * c["score"] - (1.0 - lam) * s + (bonus if c["traversal"] else 0.0)
            if r > best_score:
                best_index, best_score = index, r
        selected.append((candidates.pop(best_index)["i"], best_score))
    return selected
out = []
for case in json.load(sys.stdin):
    results = [dict(c, i=i) for i, c in enumerate(case["candidates"])]
    out.append(mmr(results, case["limit"], case["lambda"], case["bonus"]))
print(json.dumps(out))
`;
  const expected = JSON.parse(python(program, JSON.stringify(cases))) as [number, number][][];
  cases.forEach((c, ci) => {
    const indexed = c.candidates.map((candidate, i) => ({ ...candidate, i, set: new Set(candidate.tokens) }));
    const picks = mmrRank(
      indexed,
      (x) => x.score,
      (a, b) => tokenJaccard(a.set, b.set),
      c.lambda,
      c.limit,
      (x) => (x.traversal ? c.bonus : 0),
    );
    assert.deepEqual(picks.map((p) => [p.item.i, p.rankingScore]), expected[ci], `case ${ci}`);
  });
});
