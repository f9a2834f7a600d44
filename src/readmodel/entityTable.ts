/**
 * Entity versions on disk, in fold order (position = vector key): a table of byte offsets and a
 * heap of one compact JSON array per version. Reading a version is two small reads and one
 * small parse.
 *
 *   header "ZXENTS01" | count u32 | 0 u32 | offsets f64[count + 1] (into the heap) | heap
 */
import type { EntityRow } from "../projection/types.ts";
import { f64Bytes, fileHeader, headerBytes } from "../platform/binaryFile.ts";
import { PositionalWriter, tableRowsPerCollection, writeChunks } from "./tableFileWriter.ts";

export const entityTableMagic = "ZXENTS01";

export type EntityTuple = [string, string, string, string | null, string, string, string | null, number, string, number];

/**
 * Writes the table of `entities` into `fd`: the heap first, at its final offset, one row at a
 * time, then the offsets it produced and the header before it. `collect` is called between runs
 * of `tableRowsPerCollection` rows.
 */
export function writeEntityTable(fd: number, entities: readonly EntityRow[], collect: () => void = () => {}): void {
  const offsets = new Float64Array(entities.length + 1);
  const heap = new PositionalWriter(fd, headerBytes + 8 + offsets.byteLength);
  entities.forEach((e, i) => {
    const tuple: EntityTuple = [e.nodeKey, e.name, e.entityType, e.summary, e.propertiesJson, e.validFrom, e.validTo, e.sourceEventSeq, e.sourceEventHash, e.vectorKey];
    offsets[i + 1] = offsets[i] + heap.writeText(JSON.stringify(tuple));
    if ((i + 1) % tableRowsPerCollection === 0) collect();
  });
  heap.flush();
  const counts = Buffer.alloc(8);
  counts.writeUInt32LE(entities.length, 0);
  writeChunks(fd, [fileHeader(entityTableMagic), counts, f64Bytes(offsets)]);
}
