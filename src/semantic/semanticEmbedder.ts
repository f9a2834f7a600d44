/**
 * Sentence embeddings from the bundled model (semanticModel.ts), offline: TF.js's WASM backend
 * runs the Universal Sentence Encoder lite graph single-threaded, so the same text gives the same
 * Float32Array on every run, in Bun, Deno and the compiled binary.
 *
 * Loading costs about a second of CPU and 100 MB of memory, so this module is imported
 * dynamically, only by the commands that rank (`memory query`, `memory checkout`, MCP reads, the
 * paraphrase benchmark), and one process loads the model once (`sharedSemanticEmbedder`).
 *
 * Input is canonicalised (NFKC, runs of white space to one space, trimmed; an empty text embeds as
 * one space) and each output is L2-normalised, so a dot product is the cosine.
 *
 * @example
 * const embedder = await sharedSemanticEmbedder();
 * const [a, b] = await embedder.embed(["Migrated the database to PostgreSQL 16", "how are we upgrading the db?"]);
 * semanticSimilarity(a, b) // ≈ 0.4
 */
import * as tf from "@energetic-ai/core";
import { EmbeddingsModel } from "@energetic-ai/embeddings";
import { semanticEmbedCollectCharsMin } from "../limits.ts";
import { collectGarbageNow } from "../platform/mod.ts";
import { loadSemanticAssets, type SemanticAssets, semanticEmbeddingDim, semanticModelId } from "./semanticModel.ts";
import { canonicalSemanticText, l2Normalised } from "./semanticText.ts";
import { registerWasmSplitKernel, type TfKernelRegistry } from "./wasmSplitKernel.ts";

export { canonicalSemanticText } from "./semanticText.ts";

/** Texts per model call: larger batches cost more memory for little more speed. */
const embedBatchSize = 32;

/**
 * What a receipt names: the model and the SHA-256 of its weights. A model served over HTTP
 * (externalEmbedder.ts) has no weights zaxy can hash: `weights_sha256` is null and `endpoint`
 * names the URL it was asked at (never with credentials).
 */
export interface SemanticModelReceipt {
  id: string;
  weights_sha256: string | null;
  /** Vector length; 0 while a model server has not answered yet and no dimension was configured. */
  dim: number;
  endpoint?: string;
}

export interface SemanticEmbedder {
  readonly receipt: SemanticModelReceipt;
  /** L2-normalised vectors, one per text, in order. */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}

/** The dot product of two normalised vectors: their cosine. */
export function semanticSimilarity(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i] * b[i];
  return dot;
}

/** The parts of TF.js this module calls (its bundled declarations re-export packages npm does not install). */
interface TfRuntime extends TfKernelRegistry {
  env(): { set(flag: string, value: boolean): void };
  setWasmPaths(paths: Record<string, string>): void;
  setBackend(name: string): Promise<boolean>;
  ready(): Promise<void>;
  loadGraphModel(handler: unknown): Promise<unknown>;
  io: { fromMemory(artifacts: Record<string, unknown>): unknown };
}

const runtime: TfRuntime = tf;

let backendReady: Promise<void> | undefined;

function startBackend(assets: SemanticAssets): Promise<void> {
  backendReady ??= (async () => {
    // Single-threaded: deterministic, no workers, no SharedArrayBuffer. Must precede setBackend.
    runtime.env().set("WASM_HAS_MULTITHREAD_SUPPORT", false);
    // setWasmPaths wants every binary; the threaded one is never chosen (flag above).
    runtime.setWasmPaths({
      "tfjs-backend-wasm-simd.wasm": assets.wasmSimdPath,
      "tfjs-backend-wasm.wasm": assets.wasmPlainPath,
      "tfjs-backend-wasm-threaded-simd.wasm": assets.wasmSimdPath,
    });
    await runtime.setBackend("wasm");
    await runtime.ready();
    registerWasmSplitKernel(runtime);
  })();
  return backendReady;
}

/** Loads the model from `assets` (semanticModel.ts `loadSemanticAssets`). */
export async function loadSemanticEmbedder(assets: SemanticAssets): Promise<SemanticEmbedder> {
  await startBackend(assets);
  const model = JSON.parse(assets.modelJson) as Record<string, unknown>;
  const weights = assets.weights;
  const graph = await runtime.loadGraphModel(runtime.io.fromMemory({
    modelTopology: model.modelTopology,
    weightSpecs: model.weightSpecs,
    weightData: weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength),
    format: model.format,
    generatedBy: model.generatedBy,
    convertedBy: model.convertedBy,
  }));
  const encoder = new EmbeddingsModel({ model: graph, vocabulary: JSON.parse(assets.vocabJson) } as ConstructorParameters<typeof EmbeddingsModel>[0]);
  const receipt: SemanticModelReceipt = { id: semanticModelId, weights_sha256: assets.weightsSha256, dim: semanticEmbeddingDim };
  // One model call at a time: TF.js's backend is process-wide.
  let queue: Promise<unknown> = Promise.resolve();
  let charsSinceCollection = 0;
  return {
    receipt,
    embed(texts) {
      const run = queue.then(async () => {
        const out: Float32Array[] = [];
        for (let i = 0; i < texts.length; i += embedBatchSize) {
          const batch = texts.slice(i, i + embedBatchSize).map(canonicalSemanticText);
          const rows = await encoder.embed(batch);
          for (const row of rows) out.push(l2Normalised(row));
          charsSinceCollection += batch.reduce((sum, text) => sum + text.length, 0);
          if (charsSinceCollection >= semanticEmbedCollectCharsMin) {
            // The collector, tuned to the session's heap, would let the batch's garbage (and the
            // model's load, the first time) pile onto the read's peak (docs/benchmarks.md, cold checkout).
            collectGarbageNow();
            charsSinceCollection = 0;
          }
        }
        return out;
      });
      queue = run.catch(() => undefined);
      return run;
    },
  };
}

let shared: Promise<SemanticEmbedder> | undefined;

/** The process's one embedder, loaded on first use from the embedded (or node_modules) model. */
export function sharedSemanticEmbedder(): Promise<SemanticEmbedder> {
  shared ??= loadSemanticEmbedder(loadSemanticAssets());
  return shared;
}
