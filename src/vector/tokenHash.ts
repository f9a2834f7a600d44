/**
 * The audit's 32-bit token hash: FNV-1a over UTF-16 code units, then a murmur3 finaliser. It
 * feeds the MinHash sketch (auditVectors.ts) and keys the token cache (tokenBuckets.ts); the
 * sketch's band keys depend on it, so it must never change without re-measuring the clustering.
 * Split into steps so a scanner can hash a token while it reads it, without building a string.
 */
export const fnvOffset = 0x811c9dc5;
export const fnvPrime = 0x01000193;

/** The murmur3 finaliser applied to an FNV-1a state. */
export function tokenHashFinal(state: number): number {
  let h = state;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * @example
 * tokenHash32("cache") // the same value tokenHashFinal gives after FNV-1a over "cache"
 */
export function tokenHash32(token: string): number {
  let h = fnvOffset;
  for (let i = 0; i < token.length; i++) {
    h ^= token.charCodeAt(i);
    h = Math.imul(h, fnvPrime);
  }
  return tokenHashFinal(h);
}
