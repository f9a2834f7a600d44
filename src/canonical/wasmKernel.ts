/**
 * Owner of the canonical-JSON WebAssembly kernel (wasm/canonical.ts): instantiates it once,
 * lays out its linear memory (the kernel never allocates) and is its only caller.
 *
 * Memory layout, from the kernel's heap base:
 *   scratch (1 KiB: previous hash, stored hash, key names) | depth stack | input (+64 padding)
 *   | output | records | tape (16 B per JSON token) | sort slots and key prefixes (16 B per token)
 * Regions grow on demand; a grow re-lays the regions out and keeps pending input bytes.
 */
import { canonicalWasmBase64 } from "../generated/canonicalWasm.ts";
import { jsonDepthMax } from "../limits.ts";
import { instantiateWasmKernel } from "../platform/mod.ts";
import { JsonSyntaxError, pythonFloatRepr } from "./json.ts";

interface KernelExports {
  memory: WebAssembly.Memory;
  heapBase(): number;
  configure(tape: number, tapeCap: number, sort: number, stack: number, scratch: number): void;
  init(): void;
  lastErrorOffset(): number;
  canonicalize(p: number, end: number, out: number): number;
  resetChain(): void;
  consumed(): number;
  verifyChunk(inPtr: number, inLen: number, isFinal: number, outPtr: number, outCap: number, recPtr: number, recCap: number): number;
  setChain(eventBase: number, lineBase: number, prevValid: number): void;
  countEvents(p: number, len: number, carryNonBlank: number): number;
  newlineCount(): number;
  lines(): number;
  openLineNonBlank(): number;
}

export const kernelErrors = {
  syntax: -1,
  depth: -2,
  utf8: -3,
  tapeFull: -4,
  outFull: -5,
  notObject: -6,
} as const;

/** Bytes per verification record; must equal REC_BYTES in wasm/canonical.ts. */
export const recordBytes = 96;
const scratchBytes = 1024;
// Three per-depth i32 arrays: open container, canonical-as-is flag, previous key.
const stackBytes = 3 * (jsonDepthMax + 2) * 4;
const inputPaddingBytes = 64;
const pageBytes = 65536;

// Number lexemes are ASCII; one native decode is about twice as fast as building the string.
const latin1 = new TextDecoder("latin1");

export interface KernelLayout {
  inputPtr: number;
  inputCap: number;
  outPtr: number;
  outCap: number;
  recPtr: number;
  recCap: number;
  tapeCap: number;
}

/**
 * One kernel instance with its own memory. Not shared between concurrent users: a verifier or
 * a canonicaliser creates its own.
 */
export class CanonicalKernel {
  readonly exports: KernelExports;
  private bytes: Uint8Array;
  layout: KernelLayout = { inputPtr: 0, inputCap: 0, outPtr: 0, outCap: 0, recPtr: 0, recCap: 0, tapeCap: 0 };
  private readonly base: number;

  /** Scratch bytes 0..63 hold the previous event's hash (hex) during verification. */
  get scratchPtr(): number {
    return this.base;
  }

  constructor(inputCap = 64 * 1024, outCap = 256 * 1024, recCap = 1024, tapeCap = 64 * 1024) {
    let memoryRef: WebAssembly.Memory | undefined;
    this.exports = instantiateWasmKernel<KernelExports>("canonical", canonicalWasmBase64, {
      formatFloat: (ptr: number, len: number, out: number): number => {
        // A float lexeme the kernel cannot prove canonical by itself (16-17 digits, exponent).
        const view = new Uint8Array((memoryRef as WebAssembly.Memory).buffer);
        const lexeme = latin1.decode(view.subarray(ptr, ptr + len));
        // Common case, e.g. 0.30000000000000004: fixed notation in [1e-4, 1e16) with a fraction.
        // There JS's shortest round-trip String(x) is Python's repr, so equality proves it.
        const x = Number(lexeme);
        const repr = !Number.isInteger(x) && Math.abs(x) >= 1e-4 && Math.abs(x) < 1e16 && String(x) === lexeme
          ? lexeme
          : pythonFloatRepr(lexeme);
        for (let i = 0; i < repr.length; i++) view[out + i] = repr.charCodeAt(i);
        return repr.length;
      },
    });
    memoryRef = this.exports.memory;
    this.base = align(this.exports.heapBase(), 16);
    this.bytes = new Uint8Array(this.exports.memory.buffer);
    this.relayout({ inputCap, outCap, recCap, tapeCap }, 0);
    this.exports.init();
    this.exports.resetChain();
  }

  /** A fresh view of linear memory (views detach when memory grows). */
  get memory(): Uint8Array {
    if (this.bytes.buffer !== this.exports.memory.buffer) this.bytes = new Uint8Array(this.exports.memory.buffer);
    return this.bytes;
  }

  /**
   * Re-lays the regions out with new capacities, keeping `keepInputBytes` bytes of pending input.
   */
  relayout(caps: { inputCap: number; outCap: number; recCap: number; tapeCap: number }, keepInputBytes: number): void {
    const pending = keepInputBytes > 0 ? this.memory.slice(this.layout.inputPtr, this.layout.inputPtr + keepInputBytes) : undefined;
    const scratch = this.base;
    const stack = scratch + scratchBytes;
    const inputPtr = align(stack + stackBytes, 16);
    const outPtr = align(inputPtr + caps.inputCap + inputPaddingBytes, 16);
    const recPtr = align(outPtr + caps.outCap, 16);
    const tapePtr = align(recPtr + caps.recCap * recordBytes, 16);
    const sortPtr = tapePtr + caps.tapeCap * 16;
    // Sort slots (4 B), merge scratch (4 B) and key prefixes (8 B) per token.
    const end = sortPtr + caps.tapeCap * 16;
    const havePages = this.exports.memory.buffer.byteLength / pageBytes;
    const needPages = Math.ceil(end / pageBytes);
    if (needPages > havePages) this.exports.memory.grow(needPages - havePages);
    this.layout = { inputPtr, inputCap: caps.inputCap, outPtr, outCap: caps.outCap, recPtr, recCap: caps.recCap, tapeCap: caps.tapeCap };
    this.exports.configure(tapePtr, caps.tapeCap, sortPtr, stack, scratch);
    if (pending) this.memory.set(pending, inputPtr);
    // Padding after the input lets the SIMD scanner read 16 bytes past any position.
    this.memory.fill(0, inputPtr + caps.inputCap, inputPtr + caps.inputCap + inputPaddingBytes);
  }

  /** Grows whichever region a kernel error code says is too small. */
  grow(error: number, keepInputBytes: number): void {
    const caps = { ...this.layout };
    if (error === kernelErrors.tapeFull) caps.tapeCap *= 2;
    else if (error === kernelErrors.outFull) caps.outCap *= 2;
    else throw new Error(`cannot grow for kernel result ${error}`);
    this.relayout(caps, keepInputBytes);
  }

  /** Makes sure the input region holds at least `bytes` (keeping pending input). */
  ensureInput(bytes: number, keepInputBytes: number): void {
    if (bytes <= this.layout.inputCap) return;
    let cap = this.layout.inputCap;
    while (cap < bytes) cap *= 2;
    this.relayout({ ...this.layout, inputCap: cap }, keepInputBytes);
  }
}

function align(n: number, to: number): number {
  return Math.ceil(n / to) * to;
}

let sharedKernel: CanonicalKernel | undefined;

function kernelErrorToSyntax(code: number, offset: number): JsonSyntaxError {
  if (code === kernelErrors.depth) {
    return new JsonSyntaxError(`JSON nests deeper than ${jsonDepthMax} levels at byte ${offset}`, offset, "depth_limit");
  }
  if (code === kernelErrors.utf8) return new JsonSyntaxError(`invalid UTF-8 at byte ${offset}`, offset);
  return new JsonSyntaxError(`invalid JSON at byte ${offset}`, offset);
}

/**
 * Canonical JSON bytes of one UTF-8 JSON document, computed by the WebAssembly kernel.
 *
 * @example
 * new TextDecoder().decode(wasmCanonicalize(new TextEncoder().encode('{"b":1,"a":2.50}')))
 * // '{"a":2.5,"b":1}'
 */
export function wasmCanonicalize(document: Uint8Array): Uint8Array {
  sharedKernel ??= new CanonicalKernel();
  const kernel = sharedKernel;
  kernel.ensureInput(document.length, 0);
  if (kernel.layout.outCap < document.length * 6 + 64) {
    kernel.relayout({ ...kernel.layout, outCap: align(document.length * 6 + 64, 16) }, 0);
  }
  for (;;) {
    const { inputPtr, outPtr } = kernel.layout;
    kernel.memory.set(document, inputPtr);
    kernel.memory.fill(0, inputPtr + document.length, inputPtr + document.length + inputPaddingBytes);
    const result = kernel.exports.canonicalize(inputPtr, inputPtr + document.length, outPtr);
    if (result === kernelErrors.tapeFull) {
      kernel.grow(result, 0);
      continue;
    }
    if (result < 0) {
      const raw = kernel.exports.lastErrorOffset();
      const offset = (raw < 0 ? -1 - raw : raw) - inputPtr;
      throw kernelErrorToSyntax(result, offset);
    }
    return kernel.memory.slice(outPtr, outPtr + result);
  }
}
