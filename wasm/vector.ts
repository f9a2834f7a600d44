// Vector kernels (AssemblyScript): the deterministic hash embedding of many texts in one call.
//
// The host tokenises (Python's casefold + split, which need Unicode tables) and lays the
// tokens out as UTF-8; this module hashes every token with SHA-256, adds ±1 into its bucket and
// L2-normalises, bit-exactly as Python's HashEmbeddingProvider does:
//   d = sha256(token); bucket = uint32_be(d[0..4]) % dim; sign = +1 if d[4] & 1 else -1
//   vector /= sqrt(sum(v * v)) unless the sum is 0
// Every value is a small integer until the division, so sums are exact and the f64 results
// equal Python's float results bit for bit. If this changes, stored vectors no longer match.
//
// Memory layout is owned by src/vector/hashEmbedding.ts; nothing here allocates.

// SHA-256 round constants (static data, below the heap base).
const K: StaticArray<u32> = [
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];

let scratch: usize = 0; // 64 words of message schedule + a 128-byte final block buffer
let h0: u32 = 0;
let h1: u32 = 0;
let h2: u32 = 0;
let h3: u32 = 0;
let h4: u32 = 0;
let h5: u32 = 0;
let h6: u32 = 0;
let h7: u32 = 0;

/** First byte of linear memory not used by static data. */
export function heapBase(): usize {
  return __heap_base;
}

/** Tells the kernel where its 384-byte scratch region is. */
export function configure(scratchPtr: usize): void {
  scratch = scratchPtr;
}

@inline function loadBE(p: usize): u32 {
  return bswap<u32>(load<u32>(p));
}

function compress(block: usize): void {
  const w = scratch;
  for (let i: usize = 0; i < 16; i++) store<u32>(w + (i << 2), loadBE(block + (i << 2)));
  for (let i: usize = 16; i < 64; i++) {
    const w15 = load<u32>(w + ((i - 15) << 2));
    const w2 = load<u32>(w + ((i - 2) << 2));
    const s0 = rotr<u32>(w15, 7) ^ rotr<u32>(w15, 18) ^ (w15 >> 3);
    const s1 = rotr<u32>(w2, 17) ^ rotr<u32>(w2, 19) ^ (w2 >> 10);
    store<u32>(w + (i << 2), load<u32>(w + ((i - 16) << 2)) + s0 + load<u32>(w + ((i - 7) << 2)) + s1);
  }
  let a = h0, b = h1, c = h2, d = h3, e = h4, f = h5, g = h6, h = h7;
  for (let i = 0; i < 64; i++) {
    const s1 = rotr<u32>(e, 6) ^ rotr<u32>(e, 11) ^ rotr<u32>(e, 25);
    const ch = (e & f) ^ (~e & g);
    const t1 = h + s1 + ch + unchecked(K[i]) + load<u32>(w + (<usize>i << 2));
    const s0 = rotr<u32>(a, 2) ^ rotr<u32>(a, 13) ^ rotr<u32>(a, 22);
    const maj = (a & b) ^ (a & c) ^ (b & c);
    const t2 = s0 + maj;
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  h0 += a;
  h1 += b;
  h2 += c;
  h3 += d;
  h4 += e;
  h5 += f;
  h6 += g;
  h7 += h;
}

// SHA-256 of [p, p + len); leaves the digest in h0..h7.
function sha256(p: usize, len: usize): void {
  h0 = 0x6a09e667;
  h1 = 0xbb67ae85;
  h2 = 0x3c6ef372;
  h3 = 0xa54ff53a;
  h4 = 0x510e527f;
  h5 = 0x9b05688c;
  h6 = 0x1f83d9ab;
  h7 = 0x5be0cd19;
  let done: usize = 0;
  while (len - done >= 64) {
    compress(p + done);
    done += 64;
  }
  // Final block(s): the rest, 0x80, zeros, the bit length (big-endian u64).
  const tail = scratch + 256;
  const rest = len - done;
  memory.fill(tail, 0, 128);
  memory.copy(tail, p + done, rest);
  store<u8>(tail + rest, 0x80);
  const blocks: usize = rest + 9 > 64 ? 2 : 1;
  store<u64>(tail + blocks * 64 - 8, bswap<u64>(<u64>len << 3));
  compress(tail);
  if (blocks == 2) compress(tail + 64);
}

/**
 * Embeds `textCount` texts. Token bytes are at `bytes`; `tokenEnds` holds, for every token in
 * order, the end offset of its bytes (u32); `tokenCounts` holds each text's token count (u32).
 * Writes `textCount * dim` f64 values at `out`.
 */
export function embedMany(bytes: usize, tokenEnds: usize, tokenCounts: usize, textCount: i32, dim: i32, out: usize): void {
  let token: usize = 0;
  let start: usize = 0;
  const dimU = <u32>dim;
  for (let t = 0; t < textCount; t++) {
    const vector = out + (<usize>t * <usize>dim << 3);
    memory.fill(vector, 0, <usize>dim << 3);
    const count = load<u32>(tokenCounts + (<usize>t << 2));
    for (let k: u32 = 0; k < count; k++) {
      const end = <usize>load<u32>(tokenEnds + (token << 2));
      sha256(bytes + start, end - start);
      const bucket = h0 % dimU;
      // d[4] is the first byte of the second digest word.
      const sign: f64 = (h1 >>> 24) & 1 ? 1.0 : -1.0;
      const slot = vector + (<usize>bucket << 3);
      store<f64>(slot, load<f64>(slot) + sign);
      start = end;
      token++;
    }
    let sumSquares: f64 = 0;
    for (let i = 0; i < dim; i++) {
      const v = load<f64>(vector + (<usize>i << 3));
      sumSquares += v * v;
    }
    if (sumSquares != 0) {
      const norm = Math.sqrt(sumSquares);
      for (let i = 0; i < dim; i++) {
        const slot = vector + (<usize>i << 3);
        store<f64>(slot, load<f64>(slot) / norm);
      }
    }
  }
}

/** SHA-256 of [p, p + len) written as 32 bytes at `out` (for tests of the kernel itself). */
export function sha256Into(p: usize, len: usize, out: usize): void {
  sha256(p, len);
  store<u32>(out, bswap<u32>(h0));
  store<u32>(out + 4, bswap<u32>(h1));
  store<u32>(out + 8, bswap<u32>(h2));
  store<u32>(out + 12, bswap<u32>(h3));
  store<u32>(out + 16, bswap<u32>(h4));
  store<u32>(out + 20, bswap<u32>(h5));
  store<u32>(out + 24, bswap<u32>(h6));
  store<u32>(out + 28, bswap<u32>(h7));
}

/**
 * `embedMany` without the dense output: each text's non-zeros, bucket and value, with exactly
 * the values `embedMany` writes there (the counts are the same small integers, their squares
 * sum exactly in any order, and each is divided by the same norm). Writes, for text t, its
 * non-zero count at `outCounts + 4t` (u32), and its buckets (u32, in order of first occurrence)
 * and values (f64) consecutively from `outBuckets` and `outValues`: a text has at most as many
 * non-zeros as tokens, so the host sizes them by the token count. `counters` is `dim` f64 of
 * zeros and `marks` `dim` bytes of zeros, both left zeroed.
 */
export function embedSparseMany(
  bytes: usize, tokenEnds: usize, tokenCounts: usize, textCount: i32, dim: i32,
  counters: usize, marks: usize, outCounts: usize, outBuckets: usize, outValues: usize,
): void {
  let token: usize = 0;
  let start: usize = 0;
  let written: usize = 0;
  const dimU = <u32>dim;
  for (let t = 0; t < textCount; t++) {
    const count = load<u32>(tokenCounts + (<usize>t << 2));
    // Distinct buckets of this text, in order of first occurrence, listed where its output goes.
    const touched = outBuckets + (written << 2);
    let distinct: usize = 0;
    for (let k: u32 = 0; k < count; k++) {
      const end = <usize>load<u32>(tokenEnds + (token << 2));
      sha256(bytes + start, end - start);
      const bucket = h0 % dimU;
      const sign: f64 = (h1 >>> 24) & 1 ? 1.0 : -1.0;
      if (load<u8>(marks + <usize>bucket) == 0) {
        store<u8>(marks + <usize>bucket, 1);
        store<u32>(touched + (distinct << 2), bucket);
        distinct++;
      }
      const slot = counters + (<usize>bucket << 3);
      store<f64>(slot, load<f64>(slot) + sign);
      start = end;
      token++;
    }
    let sumSquares: f64 = 0;
    for (let i: usize = 0; i < distinct; i++) {
      const v = load<f64>(counters + (<usize>load<u32>(touched + (i << 2)) << 3));
      sumSquares += v * v;
    }
    const norm = Math.sqrt(sumSquares);
    let kept: usize = 0;
    for (let i: usize = 0; i < distinct; i++) {
      const bucket = load<u32>(touched + (i << 2));
      const slot = counters + (<usize>bucket << 3);
      const v = load<f64>(slot);
      store<f64>(slot, 0);
      store<u8>(marks + <usize>bucket, 0);
      // A bucket whose tokens cancelled out is a zero of the dense vector: not a non-zero.
      if (v == 0) continue;
      store<u32>(touched + (kept << 2), bucket);
      store<f64>(outValues + ((written + kept) << 3), v / norm);
      kept++;
    }
    store<u32>(outCounts + (<usize>t << 2), <u32>kept);
    written += kept;
  }
}
