/**
 * The geometry functions (src/vector/geometry.ts, WebAssembly kernel) against the definitions
 * (src/vector/geometryReference.ts): medoid by all pairs, exemplars recomputed from scratch,
 * pairwise mean over every pair. Seeded random data (dims not divisible by 4, zero rows,
 * duplicate rows), hash embeddings of real texts, and the edge cases count 0/1/2 and k >= count.
 * The medoid and the exemplars of hash embeddings are also checked against python3 running the
 * Python implementation's selection rules (`min`/`max` over indexes with a mean-distance key).
 *
 * The seed is printed in the test names; `ZAXY_PROPERTY_SEED=<n>` overrides it.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  centroidOf,
  cosineDistancesTo,
  farthestPointExemplars,
  meanDistanceToCentroid,
  meanPairwiseCosineDistance,
  medoidIndex,
  medoidIndexAllPairs,
} from "../../src/vector/geometry.ts";
import {
  centroidOfReference,
  cosineDistancesToReference,
  farthestPointExemplarsReference,
  meanDistanceToCentroidReference,
  meanDistancesToOthersReference,
  meanPairwiseCosineDistanceReference,
  medoidIndexLinearTypeScript,
  medoidIndexReference,
} from "../../src/vector/geometryReference.ts";
import { hashEmbedMany } from "../../src/vector/hashEmbedding.ts";
import { python, skipWithoutPython } from "../eventloom/testkit.ts";
import { propertySeed, Rng } from "../testkit/rng.ts";

const seed = propertySeed(0x6e0_5eed);
const seedLabel = `seed ${seed} (0x${seed.toString(16)})`;

/** Sums of many terms in different orders agree to about 1e-15; this leaves room and nothing more. */
const closeTolerance = 1e-12;

/** Far above the all-pairs baseline's f32 noise in a mean of cosines. */
const allPairsNoiseMax = 1e-5;

function assertClose(actual: number, expected: number, what: string): void {
  assert.ok(Math.abs(actual - expected) <= closeTolerance, `${what}: ${actual} vs ${expected}`);
}

/** `count` rows of uniform values in [-1, 1), with a zero row and a duplicated row when there is room. */
function randomRows(rng: Rng, count: number, dim: number): Float32Array {
  const rows = new Float32Array(count * dim);
  for (let i = 0; i < rows.length; i++) rows[i] = rng.u32() / 2 ** 31 - 1;
  if (count >= 4) {
    const zeroRow = rng.int(count);
    rows.fill(0, zeroRow * dim, (zeroRow + 1) * dim);
    copyRow(rows, dim, rng.int(count), rng.int(count));
  }
  return rows;
}

function copyRow(rows: Float32Array, dim: number, from: number, to: number): void {
  rows.copyWithin(to * dim, from * dim, (from + 1) * dim);
}

function asFloat32(vectors: Float64Array[], dim: number): Float32Array {
  const rows = new Float32Array(vectors.length * dim);
  vectors.forEach((v, i) => rows.set(v, i * dim));
  return rows;
}

/** Every function against its reference on one set of rows. */
function checkAgainstReference(rows: Float32Array, count: number, dim: number, rng: Rng): void {
  const label = `count ${count} dim ${dim}`;
  const medoid = medoidIndex(rows, count, dim);
  assert.equal(medoid, medoidIndexReference(rows, count, dim), `medoid, ${label}`);
  // The all-pairs baseline accumulates in f32 (~1e-7 noise per cosine): it must agree whenever
  // the best mean distance leads the runner-up by more than that noise.
  const ranked = meanDistancesToOthersReference(rows, count, dim).sort((a, b) => a - b);
  if (count <= 1 || ranked[1] - ranked[0] > allPairsNoiseMax) {
    assert.equal(medoidIndexAllPairs(rows, count, dim), medoid, `all-pairs medoid, ${label}`);
  }
  assert.equal(medoidIndexLinearTypeScript(rows, count, dim), medoid, `TypeScript O(n·d) medoid, ${label}`);
  assert.deepEqual(centroidOf(rows, count, dim), centroidOfReference(rows, count, dim), `centroid, ${label}`);
  assertClose(meanPairwiseCosineDistance(rows, count, dim), meanPairwiseCosineDistanceReference(rows, count, dim), `pairwise, ${label}`);
  assertClose(meanDistanceToCentroid(rows, count, dim), meanDistanceToCentroidReference(rows, count, dim), `spread, ${label}`);
  const query = new Float32Array(dim).map(() => rng.u32() / 2 ** 31 - 1);
  const distances = cosineDistancesTo(rows, count, dim, query);
  const expected = cosineDistancesToReference(rows, count, dim, query);
  assert.equal(distances.length, count);
  distances.forEach((d, i) => assertClose(d, expected[i], `distance of row ${i}, ${label}`));
  const first = Math.max(medoid, 0);
  // k = count - 1 (the longest greedy run) only where the reference's O(k²·n·d) stays cheap.
  const ks = [0, 1, 2, 5, 12, count <= 40 ? count - 1 : 0, count, count + 3];
  for (const k of new Set(ks.filter((k) => k >= 0))) {
    assert.deepEqual(
      farthestPointExemplars(rows, count, dim, k, first),
      farthestPointExemplarsReference(rows, count, dim, k, first),
      `exemplars k ${k}, ${label}`,
    );
  }
}

describe(`geometry kernels against the definitions (${seedLabel})`, () => {
  test("random rows, dims 1 to 1536 (most not divisible by 4), counts 0 to 150, with zero rows", () => {
    const rng = new Rng(seed);
    const shapes: [number, number][] = [
      [0, 7], [1, 7], [2, 3], [2, 1536], [3, 1], [3, 5], [4, 4], [9, 13], [40, 2], [60, 31], [100, 66], [150, 1536],
    ];
    for (const [count, dim] of shapes) checkAgainstReference(randomRows(rng, count, dim), count, dim, rng);
  });

  test("medoid: a duplicated medoid resolves to the first copy, wherever the copy is placed", () => {
    const rng = new Rng(seed ^ 1);
    const count = 80;
    const dim = 45;
    const rows = randomRows(rng, count, dim);
    const medoid = medoidIndex(rows, count, dim);
    for (const copyAt of [0, medoid > 0 ? medoid - 1 : 1, count - 1].filter((i) => i !== medoid)) {
      const withCopy = rows.slice();
      copyRow(withCopy, dim, medoid, copyAt);
      const expected = Math.min(copyAt, medoid);
      assert.equal(medoidIndex(withCopy, count, dim), expected, `copy at ${copyAt}`);
      assert.equal(medoidIndexReference(withCopy, count, dim), expected, `reference, copy at ${copyAt}`);
      const distances = meanDistancesToOthersReference(withCopy, count, dim);
      assert.equal(distances[copyAt], distances[medoid], "the two copies score exactly the same");
    }
  });

  test("identical rows and all-zero rows: every score ties, so the medoid is 0 and exemplars go in index order", () => {
    const dim = 6;
    const same = new Float32Array(5 * dim);
    for (let i = 0; i < 5; i++) same.set([0.5, -0.25, 0, 1, 3, -2], i * dim);
    assert.equal(medoidIndex(same, 5, dim), 0);
    assert.deepEqual(farthestPointExemplars(same, 5, dim, 3, 2), [2, 0, 1]);
    assertClose(meanPairwiseCosineDistance(same, 5, dim), 0, "identical rows are at distance 0");
    const zeros = new Float32Array(4 * dim);
    assert.equal(medoidIndex(zeros, 4, dim), 0);
    assert.deepEqual(farthestPointExemplars(zeros, 4, dim, 2, 3), [3, 0]);
    assert.equal(meanPairwiseCosineDistance(zeros, 4, dim), 1, "cosine with a zero vector is 0");
    assert.equal(meanDistanceToCentroid(zeros, 4, dim), 1);
    assert.deepEqual([...cosineDistancesTo(same, 5, dim, new Float32Array(dim))], [1, 1, 1, 1, 1], "zero query");
  });

  test("zero rows are at distance 1 from everything and never the medoid of nonzero rows", () => {
    // Rows: zero, x, zero, a vector near x.
    const rows = new Float32Array([0, 0, 1, 0, 0, 0, 0.9, 0.1]);
    assert.equal(medoidIndex(rows, 4, 2), 1);
    assert.deepEqual([...cosineDistancesTo(rows, 4, 2, new Float32Array([1, 0]))].map((d, i) => (i % 2 === 0 ? d : 0)), [1, 0, 1, 0]);
    assert.deepEqual(farthestPointExemplars(rows, 4, 2, 3, 1), [1, 0, 2], "zero rows are the farthest, lowest index first");
  });

  test("a zero row is the medoid when every other row is on average opposed to the rest", () => {
    // Mean distances: x and -x 1.5 each (2 to each other, 1 to zero), the zero row 1.
    const rows = new Float32Array([1, 0, -1, 0, 0, 0]);
    assert.equal(medoidIndex(rows, 3, 2), 2);
    assert.equal(medoidIndexReference(rows, 3, 2), 2);
    assert.deepEqual(meanDistancesToOthersReference(rows, 3, 2), [1.5, 1.5, 1]);
    assert.equal(meanPairwiseCosineDistance(rows, 3, 2), 4 / 3);
  });

  test("count 0, 1 and 2 and k at and beyond count", () => {
    const dim = 3;
    const empty = new Float32Array(0);
    assert.equal(medoidIndex(empty, 0, dim), -1);
    assert.deepEqual(farthestPointExemplars(empty, 0, dim, 4, 0), []);
    assert.equal(meanPairwiseCosineDistance(empty, 0, dim), 0);
    assert.equal(meanDistanceToCentroid(empty, 0, dim), 0);
    assert.deepEqual(centroidOf(empty, 0, dim), new Float32Array(dim));
    assert.deepEqual(cosineDistancesTo(empty, 0, dim, new Float32Array(dim)), new Float64Array(0));
    const one = new Float32Array([3, 0, 4]);
    assert.equal(medoidIndex(one, 1, dim), 0);
    assert.deepEqual(farthestPointExemplars(one, 1, dim, 1, 0), [0]);
    assert.equal(meanPairwiseCosineDistance(one, 1, dim), 0);
    const two = new Float32Array([1, 0, 0, 0, 1, 0]);
    assert.equal(medoidIndex(two, 2, dim), 0, "two rows always tie");
    assert.equal(meanPairwiseCosineDistance(two, 2, dim), 1);
    assert.deepEqual(farthestPointExemplars(two, 2, dim, 1, 1), [1]);
    assert.deepEqual(farthestPointExemplars(two, 2, dim, 2, 1), [0, 1], "k >= count keeps all in index order");
    assert.deepEqual(farthestPointExemplars(two, 2, dim, 9, 1), [0, 1]);
    assert.deepEqual(farthestPointExemplars(two, 2, dim, 0, 1), []);
  });

  test("rows beyond count are ignored", () => {
    const rows = new Float32Array([1, 0, 0.8, 0.6, 0, 1, -1, 0]);
    assert.equal(medoidIndex(rows, 3, 2), 1);
    assert.deepEqual(centroidOf(rows, 2, 2), new Float32Array([0.9, 0.3]));
    assert.deepEqual(farthestPointExemplars(rows, 3, 2, 2, 1), [1, 2]);
  });

  test("bad arguments are RangeErrors naming the argument", () => {
    const rows = new Float32Array(6);
    assert.throws(() => medoidIndex(rows, 4, 2), /vectors holds 6 values, fewer than count 4 × dim 2/);
    assert.throws(() => medoidIndex(rows, -1, 2), /count must be an integer >= 0, got -1/);
    assert.throws(() => centroidOf(rows, 3, 0), /dim must be an integer >= 1, got 0/);
    assert.throws(() => farthestPointExemplars(rows, 3, 2, 1.5, 0), /k must be an integer >= 0, got 1.5/);
    assert.throws(() => farthestPointExemplars(rows, 3, 2, 2, 3), /firstIndex must be an integer in 0..2, got 3/);
    assert.throws(() => cosineDistancesTo(rows, 3, 2, new Float32Array(3)), /query has 3 values, expected dim 2/);
  });

  test("kernel memory grows for large inputs and later small calls still see their own rows", () => {
    const rng = new Rng(seed ^ 2);
    const dim = 1536;
    const big = 3000; // 18 MB of rows, beyond the kernel's initial memory
    const rows = randomRows(rng, big, dim);
    const medoid = medoidIndex(rows, big, dim);
    assert.equal(medoidIndexLinearTypeScript(rows, big, dim), medoid);
    assert.equal(medoidIndexAllPairs(rows, big, dim), medoid);
    const small = randomRows(rng, 12, 5);
    assert.equal(medoidIndex(small, 12, 5), medoidIndexReference(small, 12, 5));
    assert.equal(medoidIndex(rows, big, dim), medoid);
  });
});

/** Near-duplicate documents that differ by an identity code, paraphrases, reorderings and unrelated text. */
const texts: string[] = [
  ...Array.from({ length: 6 }, (_, i) => `Deploy runbook for the billing service: drain traffic, run migrations, identity-code-${1000 + i}`),
  "Deploy runbook for the billing service: run migrations, drain traffic, identity-code-1000", // same tokens as the first
  "Rollback procedure: restore the snapshot and replay the log from the last verified seq",
  "Rollback procedure restore snapshot replay log verified seq",
  "user-code-0042 asked for a summary of the open incident",
  "task-code-0007 fix flaky test in tests/vector/usearchIndex_test.ts:10-42",
  "The quick brown fox jumps over the lazy dog",
  "",
  "STRASSE straße Strasse",
  ...Array.from({ length: 5 }, (_, i) => `goal-code-${2000 + i} ship the compaction audit with medoid and exemplar recall`),
  "decision-code-0100 keep every event in log order when the cluster is small",
  "transcript turn 3: the agent edited src/compaction/audit.ts lines 1-80",
];

describe("geometry of hash embeddings of real texts", () => {
  const dim = 1536;
  const rows = asFloat32(hashEmbedMany(texts, dim), dim);
  const count = texts.length;

  test("every function agrees with its reference", () => {
    checkAgainstReference(rows, count, dim, new Rng(seed ^ 3));
    // The reordered copy of the first document is the same vector: it never wins a tie against it.
    assert.deepEqual(rows.subarray(0, dim), rows.subarray(6 * dim, 7 * dim));
  });

  test("medoid and exemplars equal python3 running Python's selection rules on the same vectors", { skip: skipWithoutPython }, () => {
    const medoid = medoidIndex(rows, count, dim);
    const exemplars = [1, 4, 8, 16].map((k) => farthestPointExemplars(rows, count, dim, k, medoid));
    const program = `
import json, math, sys
data = json.load(sys.stdin)
vectors = data["vectors"]
def cosine(a, b):
    na = math.sqrt(sum(x * x for x in a)); nb = math.sqrt(sum(x * x for x in b))
    if na == 0 or nb == 0: return 0.0
    return sum(x * y for x, y in zip(a, b)) / (na * nb)
n = len(vectors)
medoid = min(range(n), key=lambda i: sum(1 - cosine(vectors[i], vectors[j]) for j in range(n) if j != i) / (n - 1))
out = {"medoid": medoid, "exemplars": []}
for k in data["ks"]:
    selected = [medoid]
    while len(selected) < k:
        remaining = [i for i in range(n) if i not in selected]
        selected.append(max(remaining, key=lambda i: min(1 - cosine(vectors[i], vectors[s]) for s in selected)))
    out["exemplars"].append(selected)
out["pairwise"] = sum(1 - cosine(vectors[i], vectors[j]) for i in range(n) for j in range(i + 1, n)) / (n * (n - 1) / 2)
print(json.dumps(out))
`;
    const vectors = Array.from({ length: count }, (_, i) => Array.from(rows.subarray(i * dim, (i + 1) * dim)));
    const answer = JSON.parse(python(program, JSON.stringify({ vectors, ks: [1, 4, 8, 16] })));
    assert.equal(medoid, answer.medoid);
    assert.deepEqual(exemplars, answer.exemplars);
    assertClose(meanPairwiseCosineDistance(rows, count, dim), answer.pairwise, "pairwise mean vs Python");
  });
});
