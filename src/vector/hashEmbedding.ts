/**
 * The default embedding provider: a deterministic hash embedding, bit-exact with Python's
 * HashEmbeddingProvider (DESIGN §5). Tokens are `text.casefold().split()` (`[""]` when there are
 * none); each token's SHA-256 picks a bucket (first 4 bytes, big-endian, mod dim) and a sign
 * (+1 when byte 4 is odd); the sum is L2-normalised (a zero vector stays zero).
 *
 * `hashEmbedMany` runs the hashing and summing in the WebAssembly kernel, many texts per call;
 * `hashEmbeddingReference` is the straightforward TypeScript version the tests compare it with.
 *
 * @example
 * hashEmbedMany(["Straße repaired", "strasse REPAIRED"]) // two identical 1536-d vectors
 */
import { createHash } from "node:crypto";
import { pythonCaseFold } from "./textAnalysis.ts";
import { embedTokensEach, embedTokensInKernel, embedTokensInKernelInto, embedTokensSparseEach } from "./hashEmbeddingKernel.ts";
import { pythonSplit } from "../canonical/pythonText.ts";

export const defaultEmbeddingDim = 1536;

/** Embedding dimensions accepted (usearch and the kernel work with any in this range). */
export const embeddingDimMax = 16384;

/** Python's `text.casefold().split()`, or `[""]` when that is empty. */
export function embeddingTokens(text: string): string[] {
  const tokens = pythonSplit(pythonCaseFold(text));
  return tokens.length > 0 ? tokens : [""];
}

/** The text an entity is embedded as: `"<name> (<entity_type>)"` plus `" <summary>"`. */
export function entityEmbeddingText(name: string, entityType: string, summary?: string | null): string {
  const head = `${name} (${entityType})`;
  return summary ? `${head} ${summary}` : head;
}

function checkDim(dim: number): void {
  if (!Number.isInteger(dim) || dim < 1 || dim > embeddingDimMax) {
    throw new RangeError(`embedding dimension must be an integer 1..${embeddingDimMax}, got ${dim}`);
  }
}

/** The hash embedding of one text, in plain TypeScript (reference for the kernel). */
export function hashEmbeddingReference(text: string, dim: number = defaultEmbeddingDim): Float64Array {
  checkDim(dim);
  const vector = new Float64Array(dim);
  for (const token of embeddingTokens(text)) {
    const digest = createHash("sha256").update(token, "utf8").digest();
    const bucket = digest.readUInt32BE(0) % dim;
    vector[bucket] += digest[4] & 1 ? 1 : -1;
  }
  let sumSquares = 0;
  for (let i = 0; i < dim; i++) sumSquares += vector[i] * vector[i];
  if (sumSquares !== 0) {
    const norm = Math.sqrt(sumSquares);
    for (let i = 0; i < dim; i++) vector[i] /= norm;
  }
  return vector;
}

/** Hash embeddings of many texts, computed in one call of the WebAssembly kernel. */
export function hashEmbedMany(texts: readonly string[], dim: number = defaultEmbeddingDim): Float64Array[] {
  checkDim(dim);
  return embedTokensInKernel(texts.map(embeddingTokens), dim);
}

/**
 * `hashEmbedMany(texts, dim)` without the arrays: `visit(i, vector)` gets each text's embedding
 * as a view that is valid only during the call. For callers that keep a sparse copy (a dense
 * 1536-d row is 12 KB; a session's worth of them is garbage the collector is slow to see).
 *
 * @example
 * hashEmbedEach(["alpha beta"], 1536, (i, vector) => { vector.filter((v) => v !== 0).length; }); // 2 non-zeros
 */
export function hashEmbedEach(texts: readonly string[], dim: number, visit: (index: number, vector: Float64Array) => void): void {
  checkDim(dim);
  embedTokensEach(texts.map(embeddingTokens), dim, visit);
}

/**
 * The non-zeros of `hashEmbedMany(texts, dim)`: `visit(i, buckets, values)` gets text i's
 * buckets (in no particular order) and exactly the values the dense embedding has there, as views
 * valid only during the call. Costs what hashing the tokens costs, not `dim` per text.
 *
 * @example
 * hashEmbedSparseEach(["alpha beta"], 1536, (i, buckets, values) => {}); // 2 buckets, values +-1/sqrt(2)
 */
export function hashEmbedSparseEach(texts: readonly string[], dim: number, visit: (index: number, buckets: Uint32Array, values: Float64Array) => void): void {
  checkDim(dim);
  embedTokensSparseEach(texts.map(embeddingTokens), dim, visit);
}

/**
 * Each token's bucket and sign, as the embedding uses them: `bucket * 2 + 1` for +1, `bucket * 2`
 * for -1. Tokens are taken as they are (already casefolded and split, as `embeddingTokens`
 * returns them), so a caller can hash each distinct token of many texts once.
 *
 * @example
 * tokenBucketCodes(["alpha"], 1536) // Int32Array [2 * bucket("alpha") + (sign > 0 ? 1 : 0)]
 */
export function tokenBucketCodes(tokens: readonly string[], dim: number): Int32Array {
  checkDim(dim);
  const codes = new Int32Array(tokens.length);
  // A one-token text is its token's bucket with value +1 or -1 (1 / sqrt(1)).
  embedTokensSparseEach(tokens.map((token) => [token]), dim, (i, buckets, values) => {
    codes[i] = buckets[0] * 2 + (values[0] > 0 ? 1 : 0);
  });
  return codes;
}

/**
 * `hashEmbedMany` written into `target` as f32 (text i at `i * dim`), the layout a vector index
 * takes: a caller embedding batch after batch reuses one buffer instead of leaving two arrays per
 * text behind (~75 MB per 4096 texts at dimension 1536, which the collector reclaims late).
 *
 * @example
 * const flat = new Float32Array(2 * 1536);
 * hashEmbedManyInto(["alpha", "beta"], 1536, flat); // flat[0..1536) is hashEmbedMany(["alpha"])[0] as f32
 */
export function hashEmbedManyInto(texts: readonly string[], dim: number, target: Float32Array): void {
  checkDim(dim);
  embedTokensInKernelInto(texts.map(embeddingTokens), dim, target);
}
