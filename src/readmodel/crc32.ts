/**
 * CRC-32 (IEEE 802.3, the zlib/PNG polynomial 0xEDB88320), used by the read-model files to
 * check each piece they read (a header, a dictionary entry, a posting list, a block of lengths)
 * without hashing the whole file. Chained like zlib: `crc32(b, crc32(a)) === crc32(a ‖ b)`.
 */

const table = new Int32Array(256);
for (let n = 0; n < 256; n++) {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  table[n] = c;
}

/**
 * @example
 * crc32(new TextEncoder().encode("123456789")) // 0xcbf43926
 */
export function crc32(bytes: Uint8Array, previous = 0, start = 0, end = bytes.length): number {
  let c = ~previous;
  for (let i = start; i < end; i++) c = table[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}
