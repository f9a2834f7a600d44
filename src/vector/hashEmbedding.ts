/**
 * The default embedding provider: a deterministic hash embedding, bit-exact with Python's
 * HashEmbeddingProvider (DESIGN §5). Tokens are `text.casefold().split()` (`[""]` when there are
 * none); each token's SHA-256 picks a bucket (first 4 bytes, big-endian, mod dim) and a sign
 * (+1 when byte 4 is odd); the sum is L2-normalised (a zero vector stays zero).
 *
 * `hashEmbedMany` runs the hashing and summing in the WebAssembly kernel (wasm/vector.ts), many
 * texts per call; this module owns that kernel (below) and is its only caller.
 * `hashEmbeddingReference` is the straightforward TypeScript version the tests compare it with.
 *
 * @example
 * hashEmbedMany(["Straße repaired", "strasse REPAIRED"]) // two identical 1536-d vectors
 */
import { createHash } from "node:crypto";
import { pythonCaseFold } from "./textAnalysis.ts";
import { pythonSplit } from "../canonical/pythonText.ts";
import { vectorWasmBase64 } from "../generated/vectorWasm.ts";
import { instantiateWasmKernel } from "../platform/mod.ts";

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

// ---------------------------------------------------------------------------
/*
 * The vector WebAssembly kernel (wasm/vector.ts): lays out its memory (token bytes,
 * token end offsets, per-text token counts, output vectors, 384 bytes of SHA-256 scratch) and is
 * its only caller.
 */
interface VectorKernelExports {
  memory: WebAssembly.Memory;
  heapBase(): number;
  configure(scratch: number): void;
  embedMany(bytes: number, tokenEnds: number, tokenCounts: number, textCount: number, dim: number, out: number): void;
  embedSparseMany(
    bytes: number, tokenEnds: number, tokenCounts: number, textCount: number, dim: number,
    counters: number, marks: number, outCounts: number, outBuckets: number, outValues: number,
  ): void;
}

const pageBytes = 65536;
const scratchBytes = 384;
let kernel: VectorKernelExports | undefined;

function instance(): VectorKernelExports {
  kernel ??= instantiateWasmKernel<VectorKernelExports>("vector", vectorWasmBase64);
  return kernel;
}

function align8(n: number): number {
  return Math.ceil(n / 8) * 8;
}

const encoder = new TextEncoder();

/** Where one call's inputs are laid out: token bytes, token end offsets, per-text token counts. */
interface TokenLayout {
  k: VectorKernelExports;
  scratch: number;
  bytesPtr: number;
  endsPtr: number;
  countsPtr: number;
  /** First free byte after the counts, 8-aligned. */
  free: number;
  tokenCount: number;
}

/** Makes room for `extraBytes` after the inputs, then writes the tokens into the kernel's memory. */
function layOutTokens(tokenLists: readonly string[][], extraBytes: (free: number, tokenCount: number) => number): TokenLayout {
  const k = instance();
  let tokenCount = 0;
  // UTF-8 takes at most 3 bytes per UTF-16 code unit: room for every token, encoded in place.
  let byteCountMax = 0;
  for (const tokens of tokenLists) {
    tokenCount += tokens.length;
    for (const token of tokens) byteCountMax += token.length * 3;
  }
  const scratch = align8(k.heapBase());
  const bytesPtr = scratch + scratchBytes;
  const endsPtr = align8(bytesPtr + byteCountMax);
  const countsPtr = endsPtr + tokenCount * 4;
  const free = align8(countsPtr + tokenLists.length * 4);
  const end = free + extraBytes(free, tokenCount);
  const havePages = k.memory.buffer.byteLength / pageBytes;
  if (end > k.memory.buffer.byteLength) k.memory.grow(Math.ceil(end / pageBytes) - havePages);
  const memory = new Uint8Array(k.memory.buffer);
  const ends = new Uint32Array(k.memory.buffer, endsPtr, tokenCount);
  const counts = new Uint32Array(k.memory.buffer, countsPtr, tokenLists.length);
  let offset = 0;
  let token = 0;
  tokenLists.forEach((tokens, i) => {
    counts[i] = tokens.length;
    for (const text of tokens) {
      offset += encoder.encodeInto(text, memory.subarray(bytesPtr + offset, endsPtr)).written;
      ends[token++] = offset;
    }
  });
  k.configure(scratch);
  return { k, scratch, bytesPtr, endsPtr, countsPtr, free, tokenCount };
}

/**
 * Embeds texts given as token lists and calls `visit(i, vector)` for each, in order; `vector` is
 * a view of the kernel's memory, valid only during the call (copy what is kept). No array is
 * allocated per text or per token: a caller that keeps the vectors sparse allocates nothing that
 * grows with the dimension.
 */
export function embedTokensEach(tokenLists: readonly string[][], dim: number, visit: (index: number, vector: Float64Array) => void): void {
  const { k, bytesPtr, endsPtr, countsPtr, free: outPtr } = layOutTokens(tokenLists, () => tokenLists.length * dim * 8);
  k.embedMany(bytesPtr, endsPtr, countsPtr, tokenLists.length, dim, outPtr);
  for (let i = 0; i < tokenLists.length; i++) visit(i, new Float64Array(k.memory.buffer, outPtr + i * dim * 8, dim));
}

/**
 * The non-zeros of each text's embedding: `visit(i, buckets, values)` with views of the kernel's
 * memory (valid only during the call), the buckets in no particular order and each value exactly
 * the dense embedding's value in that bucket. Nothing of size `dim` per text is written, so this
 * costs what the tokens cost: the dense kernel writes and normalises `dim` values per text.
 */
export function embedTokensSparseEach(
  tokenLists: readonly string[][],
  dim: number,
  visit: (index: number, buckets: Uint32Array, values: Float64Array) => void,
): void {
  let countersPtr = 0, marksPtr = 0, outCountsPtr = 0, outBucketsPtr = 0, outValuesPtr = 0;
  const { k, bytesPtr, endsPtr, countsPtr } = layOutTokens(tokenLists, (free, tokenCount) => {
    countersPtr = free;
    marksPtr = countersPtr + dim * 8;
    outCountsPtr = align8(marksPtr + dim);
    outBucketsPtr = align8(outCountsPtr + tokenLists.length * 4);
    outValuesPtr = align8(outBucketsPtr + tokenCount * 4);
    return outValuesPtr + tokenCount * 8 - free;
  });
  // The kernel leaves its counters and marks zeroed, but the region may hold an earlier call's output.
  new Uint8Array(k.memory.buffer, countersPtr, dim * 9).fill(0);
  k.embedSparseMany(bytesPtr, endsPtr, countsPtr, tokenLists.length, dim, countersPtr, marksPtr, outCountsPtr, outBucketsPtr, outValuesPtr);
  const counts = new Uint32Array(k.memory.buffer, outCountsPtr, tokenLists.length);
  let at = 0;
  for (let i = 0; i < tokenLists.length; i++) {
    const n = counts[i];
    visit(i, new Uint32Array(k.memory.buffer, outBucketsPtr + at * 4, n), new Float64Array(k.memory.buffer, outValuesPtr + at * 8, n));
    at += n;
  }
}

/** Embeds texts given as token lists; returns one Float64Array of `dim` values per text. */
export function embedTokensInKernel(tokenLists: readonly string[][], dim: number): Float64Array[] {
  const out: Float64Array[] = [];
  embedTokensEach(tokenLists, dim, (_, vector) => out.push(vector.slice()));
  return out;
}

/**
 * Embeds texts given as token lists into `target` (text i at `i * dim`), converted to f32 as
 * `Float32Array.set` converts: what a vector index receives, without one array per text.
 */
export function embedTokensInKernelInto(tokenLists: readonly string[][], dim: number, target: Float32Array): void {
  if (target.length < tokenLists.length * dim) throw new RangeError(`target holds ${target.length} values, ${tokenLists.length * dim} are needed`);
  embedTokensEach(tokenLists, dim, (i, vector) => target.set(vector, i * dim));
}
