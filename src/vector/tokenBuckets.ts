/**
 * Token-level entry into the hash embedding (DESIGN §5) for the audit: each distinct token's
 * signed bucket (`sha256(utf8(token))`: bucket = first 4 bytes big-endian mod dim, sign = +1
 * when byte 4 is odd) and its 32-bit sketch hash (tokenHash.ts), computed once and cached. A log
 * of 100 000 agent events has ~9.5 million tokens but only ~150 000 distinct ones, so hashing
 * each distinct token once replaces ~9.5 million SHA-256 runs.
 *
 * The SHA-256 is the vector kernel's own (`sha256Into` of wasm/vector.ts, in a private instance
 * of the same module), so buckets and signs are the kernel's bit for bit; rows are then summed
 * and normalised by AuditVectors exactly as the kernel does (see there).
 *
 * Lookups go through an open-addressing table keyed by the sketch hash and compare the token's
 * code units, so a scanner can find an ASCII token without building its string.
 *
 * The cache is bounded (`tokenCacheEntriesMax` tokens, `tokenCacheCharsMax` code units): when
 * full it is emptied and refilled, so a log of mostly unique tokens costs hashing time, never
 * unbounded memory.
 */
import { vectorWasmBase64 } from "../generated/vectorWasm.ts";
import { instantiateWasmKernel } from "../platform/mod.ts";
import { pythonCaseFold } from "./textAnalysis.ts";
import { fnvOffset, fnvPrime, tokenHash32, tokenHashFinal } from "./tokenHash.ts";

interface Sha256Exports {
  memory: WebAssembly.Memory;
  heapBase(): number;
  configure(scratch: number): void;
  sha256Into(p: number, len: number, out: number): void;
}

/** Distinct tokens cached at most (17 bytes each plus their characters and 8 table bytes). */
export const tokenCacheEntriesMax = 1 << 20;
/** UTF-16 code units of cached tokens at most (32 MiB); a longer single token still fits. */
export const tokenCacheCharsMax = 1 << 24;
const pageBytes = 65536;
const scratchBytes = 384;
const digestBytes = 32;

let sha: Sha256Exports | undefined;

function shaInstance(): Sha256Exports {
  sha ??= instantiateWasmKernel<Sha256Exports>("vector", vectorWasmBase64);
  return sha;
}

const encoder = new TextEncoder();

/**
 * Python's `str.isspace()` for a UTF-16 code unit: \t \n \v \f \r, U+001C..U+001F, space,
 * U+0085, U+00A0, U+1680, U+2000..U+200A, U+2028, U+2029, U+202F, U+205F, U+3000 (the set of
 * src/canonical/pythonText.ts; none is a surrogate, so code units suffice).
 */
export function isPythonSpace(c: number): boolean {
  if (c <= 0x20) return (c >= 0x09 && c <= 0x0d) || c >= 0x1c;
  if (c < 0x85) return false;
  return c === 0x85 || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000;
}


/**
 * @example
 * const buckets = new TokenBuckets(1536);
 * const slot = buckets.slotOf("cache");
 * buckets.bucket[slot]; buckets.positive[slot]; buckets.sketchHash[slot];
 */
export class TokenBuckets {
  readonly dim: number;
  /** Per slot: the token's bucket, whether it adds +1 (else −1), and its sketch hash. */
  readonly bucket: Uint32Array;
  readonly positive: Uint8Array;
  readonly sketchHash: Uint32Array;
  // The cached tokens' UTF-16 code units, back to back: slot s is chars[charStart[s], charStart[s + 1]).
  private chars = new Uint16Array(1 << 16);
  private readonly charStart: Uint32Array;
  private slotCount = 0;
  // Open addressing on the sketch hash: slot + 1, or 0 for empty; at most half full.
  private table = new Int32Array(1 << 12);
  // One private instance per process; its scratch region is set once, here.
  private readonly kernel = shaInstance();
  private readonly digestPtr: number;
  private readonly inputPtr: number;
  private bytes = new Uint8Array(0);

  /** `entriesMax` and `charsMax` bound the cache (tests make them small to exercise refills). */
  constructor(dim: number, private readonly entriesMax = tokenCacheEntriesMax, private readonly charsMax = tokenCacheCharsMax) {
    this.dim = dim;
    this.bucket = new Uint32Array(entriesMax);
    this.positive = new Uint8Array(entriesMax);
    this.sketchHash = new Uint32Array(entriesMax);
    this.charStart = new Uint32Array(entriesMax + 1);
    const scratch = Math.ceil(this.kernel.heapBase() / 8) * 8;
    this.kernel.configure(scratch);
    this.digestPtr = scratch + scratchBytes;
    this.inputPtr = this.digestPtr + digestBytes;
  }

  /** The cache slot holding `token`'s bucket, sign and sketch hash (valid until the next call). */
  slotOf(token: string): number {
    const hash = tokenHash32(token);
    const table = this.table;
    const mask = table.length - 1;
    const chars = this.chars;
    for (let i = hash & mask; ; i = (i + 1) & mask) {
      const entry = table[i];
      if (entry === 0) break;
      const slot = entry - 1;
      if (this.sketchHash[slot] !== hash) continue;
      const at = this.charStart[slot];
      if (this.charStart[slot + 1] - at !== token.length) continue;
      let k = 0;
      while (k < token.length && token.charCodeAt(k) === chars[at + k]) k++;
      if (k === token.length) return slot;
    }
    return this.insert(token, hash);
  }

  /**
   * The slot of the ASCII token `text[start, end)` lowercased, whose `tokenHash32` is `hash`
   * (the caller computed it while scanning), without building the token string when cached.
   */
  slotOfLoweredAscii(text: string, start: number, end: number, hash: number): number {
    const length = end - start;
    const table = this.table;
    const mask = table.length - 1;
    const chars = this.chars;
    for (let i = hash & mask; ; i = (i + 1) & mask) {
      const entry = table[i];
      if (entry === 0) break;
      const slot = entry - 1;
      if (this.sketchHash[slot] !== hash) continue;
      const at = this.charStart[slot];
      if (this.charStart[slot + 1] - at !== length) continue;
      let k = 0;
      for (; k < length; k++) {
        let c = text.charCodeAt(start + k);
        if (c >= 0x41 && c <= 0x5a) c += 32;
        if (c !== chars[at + k]) break;
      }
      if (k === length) return slot;
    }
    return this.insert(text.slice(start, end).toLowerCase(), hash);
  }

  /**
   * Calls `visit(slot)` for each token of Python's `text.casefold().split()` in order (one empty
   * token when there are none, as the embedding hashes `[""]`), each slot valid during its call
   * only. Splitting before folding gives the same tokens: casefold maps each code point on its
   * own, whitespace folds to itself and nothing folds to whitespace (checked over all of Unicode
   * with python3). An ASCII token is lowercased and hashed as it is read and found without
   * building its string; a token with non-ASCII characters is folded with `pythonCaseFold`.
   *
   * @example
   * let tokens = 0;
   * buckets.eachTokenSlot("Cache  cache", () => tokens++); // tokens === 2, the same slot twice
   */
  eachTokenSlot(text: string, visit: (slot: number) => void): void {
    if (this.scanTokenSlots(text, visit) === 0) visit(this.slotOf(""));
  }

  /**
   * `eachTokenSlot` without the empty token for a text that has none: calls `visit(slot)` for
   * each token of `text.casefold().split()` and returns how many there were. For a text whose
   * tokens are counted together with others' (a row built from several texts).
   */
  scanTokenSlots(text: string, visit: (slot: number) => void): number {
    const length = text.length;
    let tokenCount = 0;
    let i = 0;
    while (i < length) {
      let c = text.charCodeAt(i);
      if (isPythonSpace(c)) {
        i++;
        continue;
      }
      const start = i;
      let h = fnvOffset;
      let ascii = true;
      do {
        if (c >= 0x41 && c <= 0x5a) c += 32;
        else if (c >= 0x80) ascii = false;
        h = Math.imul(h ^ c, fnvPrime);
        if (++i === length) break;
        c = text.charCodeAt(i);
      } while (!isPythonSpace(c));
      visit(ascii ? this.slotOfLoweredAscii(text, start, i, tokenHashFinal(h)) : this.slotOf(pythonCaseFold(text.slice(start, i))));
      tokenCount++;
    }
    return tokenCount;
  }

  private insert(token: string, hash: number): number {
    // Full: start over (earlier slots are dead; the caller uses a slot before the next call).
    if (this.slotCount === this.entriesMax || (this.slotCount > 0 && this.charStart[this.slotCount] + token.length > this.charsMax)) {
      this.slotCount = 0;
      this.table.fill(0);
    }
    const slot = this.slotCount;
    if (slot * 2 === this.table.length) this.growTable();
    this.sha256(token);
    const digest = this.bytes;
    const d = this.digestPtr;
    this.bucket[slot] = (((digest[d] << 24) | (digest[d + 1] << 16) | (digest[d + 2] << 8) | digest[d + 3]) >>> 0) % this.dim;
    this.positive[slot] = digest[d + 4] & 1;
    this.sketchHash[slot] = hash;
    const at = this.charStart[slot];
    if (at + token.length > this.chars.length) {
      let size = this.chars.length * 2;
      while (size < at + token.length) size *= 2;
      const bigger = new Uint16Array(size);
      bigger.set(this.chars.subarray(0, at));
      this.chars = bigger;
    }
    for (let k = 0; k < token.length; k++) this.chars[at + k] = token.charCodeAt(k);
    this.charStart[slot + 1] = at + token.length;
    this.slotCount++;
    this.place(slot, hash);
    return slot;
  }

  private place(slot: number, hash: number): void {
    const mask = this.table.length - 1;
    let i = hash & mask;
    while (this.table[i] !== 0) i = (i + 1) & mask;
    this.table[i] = slot + 1;
  }

  // The table starts small (it stays in cache) and doubles at half full.
  private growTable(): void {
    this.table = new Int32Array(this.table.length * 2);
    for (let slot = 0; slot < this.slotCount; slot++) this.place(slot, this.sketchHash[slot]);
  }

  /**
   * Writes SHA-256(utf8(token)) at `digestPtr` of the kernel's memory (`bytes`, valid until the
   * next call): read in place, no view per token.
   */
  private sha256(token: string): void {
    const memory = this.kernel.memory;
    // UTF-8 takes at most 3 bytes per UTF-16 code unit.
    const need = this.inputPtr + token.length * 3;
    if (need > memory.buffer.byteLength) memory.grow(Math.ceil((need - memory.buffer.byteLength) / pageBytes));
    if (this.bytes.buffer !== memory.buffer) this.bytes = new Uint8Array(memory.buffer);
    const { written } = encoder.encodeInto(token, this.bytes.subarray(this.inputPtr, this.inputPtr + token.length * 3));
    this.kernel.sha256Into(this.inputPtr, written, this.digestPtr);
  }
}
