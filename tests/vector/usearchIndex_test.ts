import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";
import { loadUsearch } from "../../src/vector/mod.ts";
import { bunPath, repoRoot } from "../cli/zaxy.ts";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "zaxy-usearch-test-"));
after(() => fs.rmSync(root, { recursive: true, force: true }));

/** Three orthogonal unit vectors of dimension 4, keys 1, 2, 3. */
const basis = new Float32Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0]);

test("loadUsearch from source loads the package's prebuilt addon", async () => {
  const usearch = await loadUsearch();
  assert.equal(usearch.source, "package");
  assert.match(usearch.addonPath, /node_modules\/usearch\/(prebuilds\/[a-z0-9+-]+|build\/Release)\/[^/]+\.node$/);
  assert.equal(typeof usearch.hardwareAcceleration.available, "string");
  assert.equal(await loadUsearch(), usearch);
});

test("Index.search finds the nearest stored vectors by cosine distance, closest first", async () => {
  const { Index } = await loadUsearch();
  const index = new Index({ dimensions: 4, metric: "cos" });
  index.add([1, 2, 3], basis, 1);
  assert.equal(index.size(), 3);
  assert.equal(index.dimensions(), 4);
  const matches = index.search(new Float32Array([0, 0.2, 1, 0]), 2, 1);
  assert.deepEqual([...matches.keys], [3n, 2n]);
  assert.ok(matches.distances[0] < matches.distances[1]);
  const batch = index.searchBatch(basis, 1, 1);
  assert.deepEqual([...batch.counts], [1n, 1n, 1n]);
  assert.deepEqual([0, 1, 2].map((i) => [...batch.get(i).keys]), [[1n], [2n], [3n]]);
});

test("Index.contains, count and remove work per key", async () => {
  const { Index } = await loadUsearch();
  const index = new Index({ dimensions: 4 });
  index.add(BigUint64Array.of(1n, 2n, 3n), basis, 1);
  assert.deepEqual(index.contains([1, 9]), [true, false]);
  assert.deepEqual(index.count(2n), [1]);
  assert.deepEqual(index.remove(1), [1]);
  assert.deepEqual(index.contains(1), [false]);
  assert.equal(index.size(), 2);
});

test("Index.save then load restores the same vectors and neighbours", async () => {
  const { Index } = await loadUsearch();
  const file = path.join(root, "basis.usearch");
  const saved = new Index({ dimensions: 4, quantization: "f16" });
  saved.add([1, 2, 3], basis, 1);
  saved.save(file);
  const loaded = new Index({ dimensions: 4, quantization: "f16" });
  loaded.load(file);
  assert.equal(loaded.size(), 3);
  assert.deepEqual([...loaded.search(new Float32Array([0, 1, 0, 0]), 1).keys], [2n]);
});

test("Index rejects bad configuration and arguments before reaching the addon", async () => {
  const { Index } = await loadUsearch();
  assert.throws(() => new Index({ dimensions: 0 }), /`dimensions` being positive/);
  assert.throws(() => new Index({ dimensions: 4, metric: "manhattan" as never }), /Invalid metric: manhattan/);
  assert.throws(() => new Index({ dimensions: 4, quantization: "f8" as never }), /Invalid quantization: f8/);
  const index = new Index({ dimensions: 4 });
  assert.throws(() => index.add([1, 2], basis), /length of keys \(2\) must match the number of vectors \(3\)/);
  assert.throws(() => index.add([1], new Float32Array(5)), /multiple of the dimension/);
  assert.throws(() => index.add([-1], new Float32Array(4)), /positive integers or bigints/);
  assert.throws(() => index.search(basis, 1), /one vector of 4 values/);
  assert.throws(() => index.searchBatch(basis, 0), /`k` must be a positive integer/);
  assert.equal(index.size(), 0);
});

test("an addon that cannot be loaded (old glibc, musl) is a usearch_unavailable error naming the requirement, exit 3, not a crash", () => {
  // A fresh process: the addon is loaded once per process, and this one has it already.
  const script = `
    import { registerEmbeddedAssets, usearchAddonAssetName } from "./src/platform/assets.ts";
    import { loadUsearch } from "./src/vector/mod.ts";
    registerEmbeddedAssets({ [usearchAddonAssetName()]: "/nonexistent/usearch.node" });
    try { await loadUsearch(); console.log("loaded"); }
    catch (error) { console.log(JSON.stringify({ code: error.code, exitCode: error.exitCode, message: error.message, hint: error.hint })); }
  `;
  const run = spawnSync(bunPath, ["-e", script], { cwd: repoRoot, encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr);
  const answer = JSON.parse(run.stdout.trim());
  assert.equal(answer.code, "usearch_unavailable");
  assert.equal(answer.exitCode, 3);
  assert.match(answer.message, /^The usearch native addon cannot be loaded on this system \(.*\/nonexistent\/usearch\.node.*\)\. It needs glibc 2\.34 or later/);
  assert.match(answer.message, /reads, appends and checkouts do not use it/);
  assert.match(answer.hint, /glibc 2\.34\+/);
});
