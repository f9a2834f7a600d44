/**
 * Vectors: the deterministic hash embedding (bit-exact with Python's HashEmbeddingProvider,
 * computed in a WebAssembly kernel) and usearch HNSW indexes (cosine; f32, f16 or i8) over the
 * native addon, which the compiled binary carries inside itself.
 *
 * @example
 * ```ts
 * import { loadUsearch } from "./src/vector/mod.ts";
 * const { Index } = await loadUsearch();
 * const index = new Index({ dimensions: 1536, metric: "cos", quantization: "f16" });
 * index.add(7n, embedding);
 * index.search(query, 10); // { keys, distances }
 * ```
 */
export { loadUsearch, type Usearch } from "./usearchNative.ts";
export {
  BatchMatches,
  type IndexConfig,
  type Matches,
  type MetricKind,
  type ScalarKind,
  UsearchIndex,
  type VectorData,
  type VectorKeys,
} from "./usearchIndex.ts";
export { pythonCaseFold } from "./textAnalysis.ts";
export {
  defaultEmbeddingDim,
  embeddingDimMax,
  embeddingTokens,
  entityEmbeddingText,
  hashEmbeddingReference,
  hashEmbedEach,
  hashEmbedSparseEach,
  tokenBucketCodes,
  hashEmbedMany,
  hashEmbedManyInto,
} from "./hashEmbedding.ts";
export {
  centroidOf,
  cosineDistancesTo,
  farthestPointExemplars,
  geometryTieTolerance,
  meanDistanceToCentroid,
  meanPairwiseCosineDistance,
  medoidIndex,
} from "./geometry.ts";
