/**
 * A string-keyed table of integer lists on disk (the exact lane's names → entity positions):
 * keys sorted by their UTF-8 bytes, found by binary search.
 *
 *   header "ZXKEYS01" | keys u32 | values u32 | heap bytes u32 | 0 u32
 *   | key offsets u32[keys + 1] | value offsets u32[keys + 1] | values i32[values] | key heap
 */
import { fileHeader, u32Bytes } from "../platform/binaryFile.ts";
import type { KeyGroups } from "./keyGroups.ts";
import { PositionalWriter } from "./tableFileWriter.ts";

export const sortedTableMagic = "ZXKEYS01";

const surrogate = /[\uD800-\uDFFF]/;

/**
 * The groups' ids in the order of their keys' UTF-8 bytes. Without surrogates, UTF-16 code unit
 * order is code point order, which is UTF-8 byte order: the strings are compared as they are.
 * A surrogate (a pair, or a lone one, which UTF-8 spells as U+FFFD) is compared by its bytes.
 */
function idsInKeyOrder(keys: readonly string[]): Uint32Array {
  const ids = new Uint32Array(keys.length);
  for (let id = 0; id < ids.length; id++) ids[id] = id;
  if (!keys.some((key) => surrogate.test(key))) return ids.sort((a, b) => (keys[a] < keys[b] ? -1 : keys[a] > keys[b] ? 1 : 0));
  const bytes = keys.map((key) => Buffer.from(key, "utf8"));
  // Array sort is stable: keys with the same bytes stay in group order.
  return Uint32Array.from(Array.from(ids).sort((a, b) => Buffer.compare(bytes[a], bytes[b])));
}

/** Writes the table of `groups` (each key with its positions) into `fd`. */
export function writeSortedTable(fd: number, groups: KeyGroups): void {
  const { keys, start, positions } = groups;
  const order = idsInKeyOrder(keys);
  const keyOffsets = new Uint32Array(keys.length + 1);
  const valueOffsets = new Uint32Array(keys.length + 1);
  const values = new Uint32Array(positions.length);
  order.forEach((id, i) => {
    keyOffsets[i + 1] = keyOffsets[i] + Buffer.byteLength(keys[id], "utf8");
    values.set(positions.subarray(start[id], start[id + 1]), valueOffsets[i]);
    valueOffsets[i + 1] = valueOffsets[i] + start[id + 1] - start[id];
  });
  const counts = Buffer.alloc(16);
  counts.writeUInt32LE(keys.length, 0);
  counts.writeUInt32LE(values.length, 4);
  counts.writeUInt32LE(keyOffsets[keys.length], 8);
  const out = new PositionalWriter(fd, 0);
  for (const chunk of [fileHeader(sortedTableMagic), counts, u32Bytes(keyOffsets), u32Bytes(valueOffsets), u32Bytes(values)]) out.write(chunk);
  for (const id of order) out.writeText(keys[id]);
  out.flush();
}
