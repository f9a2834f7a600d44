/**
 * Owner of the vector WebAssembly kernel (wasm/vector.ts): lays out its memory (token bytes,
 * token end offsets, per-text token counts, output vectors, 384 bytes of SHA-256 scratch) and is
 * its only caller.
 */
import { vectorWasmBase64 } from "../generated/vectorWasm.ts";

interface VectorKernelExports {
  memory: WebAssembly.Memory;
  heapBase(): number;
  configure(scratch: number): void;
  embedMany(bytes: number, tokenEnds: number, tokenCounts: number, textCount: number, dim: number, out: number): void;
}

const pageBytes = 65536;
const scratchBytes = 384;
let kernel: VectorKernelExports | undefined;

function instance(): VectorKernelExports {
  if (kernel === undefined) {
    const module = new WebAssembly.Module(new Uint8Array(Buffer.from(vectorWasmBase64, "base64")) as BufferSource);
    kernel = new WebAssembly.Instance(module, { env: { abort: () => { throw new Error("vector kernel aborted"); } } })
      .exports as unknown as VectorKernelExports;
  }
  return kernel;
}

function align8(n: number): number {
  return Math.ceil(n / 8) * 8;
}

const encoder = new TextEncoder();

/** Embeds texts given as token lists; returns one Float64Array of `dim` values per text. */
export function embedTokensInKernel(tokenLists: readonly string[][], dim: number): Float64Array[] {
  const out = runKernel(tokenLists, dim);
  return tokenLists.map((_, i) => out.slice(i * dim, (i + 1) * dim));
}

/**
 * Embeds texts given as token lists into `target` (text i at `i * dim`), converted to f32 as
 * `Float32Array.set` converts: what a vector index receives, without one array per text.
 */
export function embedTokensInKernelInto(tokenLists: readonly string[][], dim: number, target: Float32Array): void {
  if (target.length < tokenLists.length * dim) throw new RangeError(`target holds ${target.length} values, ${tokenLists.length * dim} are needed`);
  target.set(runKernel(tokenLists, dim));
}

/** Runs the kernel; the result is a view of its memory, valid until the next call. */
function runKernel(tokenLists: readonly string[][], dim: number): Float64Array {
  const k = instance();
  const encoded = tokenLists.map((tokens) => tokens.map((token) => encoder.encode(token)));
  const tokenCount = encoded.reduce((n, tokens) => n + tokens.length, 0);
  const byteCount = encoded.reduce((n, tokens) => n + tokens.reduce((m, t) => m + t.length, 0), 0);
  const scratch = align8(k.heapBase());
  const bytesPtr = scratch + scratchBytes;
  const endsPtr = align8(bytesPtr + byteCount);
  const countsPtr = endsPtr + tokenCount * 4;
  const outPtr = align8(countsPtr + tokenLists.length * 4);
  const end = outPtr + tokenLists.length * dim * 8;
  const havePages = k.memory.buffer.byteLength / pageBytes;
  if (end > k.memory.buffer.byteLength) k.memory.grow(Math.ceil(end / pageBytes) - havePages);
  const memory = new Uint8Array(k.memory.buffer);
  const ends = new Uint32Array(k.memory.buffer, endsPtr, tokenCount);
  const counts = new Uint32Array(k.memory.buffer, countsPtr, tokenLists.length);
  let offset = 0;
  let token = 0;
  encoded.forEach((tokens, i) => {
    counts[i] = tokens.length;
    for (const bytes of tokens) {
      memory.set(bytes, bytesPtr + offset);
      offset += bytes.length;
      ends[token++] = offset;
    }
  });
  k.configure(scratch);
  k.embedMany(bytesPtr, endsPtr, countsPtr, tokenLists.length, dim, outPtr);
  return new Float64Array(k.memory.buffer, outPtr, tokenLists.length * dim);
}
