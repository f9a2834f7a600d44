/**
 * The trigger's similarity search where usearch's addon cannot load (glibc < 2.34, no libstdc++):
 * `ExactNeighbourIndex` answers usearch's calls by comparing every vector, and the pairs it finds
 * are the ones usearch finds (scripts/check-container.sh runs the binary without libstdc++).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ExactNeighbourIndex } from "../../src/consolidation/exactNeighbourIndex.ts";
import { SparseEmbeddings } from "../../src/consolidation/similarityEmbeddings.ts";
import { similarPairs } from "../../src/consolidation/similarityPairs.ts";
import { Rng } from "../testkit/rng.ts";

test("the exact index returns each query's k nearest by cosine distance, ties by key, as a full sort would", () => {
  const rng = new Rng(20261127);
  const dim = 8;
  const count = 300;
  // Few distinct values, so exact ties happen.
  const vectors = Float32Array.from({ length: count * dim }, () => rng.int(3) - 1);
  const keys = BigUint64Array.from({ length: count }, (_, i) => BigInt(1000 + ((i * 7919) % count)));
  const index = new ExactNeighbourIndex(dim);
  index.add(keys.subarray(0, 100), vectors.subarray(0, 100 * dim));
  index.add(keys.subarray(100), vectors.subarray(100 * dim));
  const k = 12;
  const queries = vectors.subarray(0, 40 * dim);
  const matches = index.searchBatch(queries, k);
  const unit = (at: number, from: Float32Array) => {
    const row = Array.from(from.subarray(at * dim, (at + 1) * dim));
    const norm = Math.sqrt(row.reduce((sum, x) => sum + x * x, 0));
    return row.map((x) => (norm > 0 ? x / norm : 0));
  };
  for (let q = 0; q < 40; q++) {
    const query = unit(q, queries);
    const expected = Array.from({ length: count }, (_, row) => {
      const v = unit(row, vectors);
      return { key: keys[row], distance: Math.fround(1 - query.reduce((sum, x, d) => sum + x * v[d], 0)) };
    }).sort((a, b) => a.distance - b.distance || Number(a.key - b.key)).slice(0, k);
    const got = matches.get(q);
    assert.deepEqual(Array.from(got.keys), expected.map((e) => e.key), `query ${q}`);
    got.distances.forEach((distance, i) => assert.ok(Math.abs(distance - expected[i].distance) < 1e-6, `query ${q} rank ${i}`));
  }
});

test("fewer vectors than k: every vector, once", () => {
  const index = new ExactNeighbourIndex(2);
  index.add(BigUint64Array.of(5n, 6n), Float32Array.of(1, 0, 0, 1));
  const got = index.searchBatch(Float32Array.of(1, 0.1), 10).get(0);
  assert.deepEqual(Array.from(got.keys), [5n, 6n]);
});

test("on 2,000 memories with planted near-duplicates the exact search finds the same pairs, with the same cosines, as usearch", async () => {
  const rng = new Rng(7);
  const vocabulary = Array.from({ length: 400 }, (_, i) => `term${i}`);
  const texts: string[] = [];
  for (let i = 0; i < 2000; i++) {
    const words = Array.from({ length: 10 }, () => rng.pick(vocabulary));
    texts.push(words.join(" "));
    if (i % 10 === 0) texts.push([...words.slice(0, 9), rng.pick(vocabulary)].join(" "));
  }
  const embeddings = SparseEmbeddings.embed(texts, 1536);
  const render = (found: Awaited<ReturnType<typeof similarPairs>>) =>
    Array.from({ length: found.pairs.length }, (_, i) => `${found.pairs.a(i)}-${found.pairs.b(i)}:${found.pairs.cosine(i)}`);
  const viaUsearch = render(await similarPairs(embeddings, 0.8));
  const exact = render(await similarPairs(embeddings, 0.8, undefined, undefined, "exact"));
  assert.ok(exact.length >= 200, `expected the planted pairs, got ${exact.length}`);
  assert.deepEqual(exact, viaUsearch);
});
