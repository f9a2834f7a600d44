/**
 * Entity versions on disk, in fold order (position = vector key): a table of byte offsets and a
 * heap of one compact JSON array per version. Reading a version is two small reads and one
 * small parse.
 *
 *   header "ZXENTS01" | count u32 | 0 u32 | offsets f64[count + 1] (into the heap) | heap
 */
import type { EntityRow } from "../projection/types.ts";
import { BinaryFile, f64Bytes, f64Section, type FileSection, fileHeader, headerBytes } from "../platform/binaryFile.ts";
import { PositionalWriter, tableRowsPerCollection, writeChunks } from "./tableFileWriter.ts";

export const entityTableMagic = "ZXENTS01";

type EntityTuple = [string, string, string, string | null, string, string, string | null, number, string, number];

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

/** Versions read on demand; the most recently read are kept, up to a bound. */
export class EntityTable {
  readonly count: number;
  private readonly heapStart: number;
  private readonly cache = new Map<number, EntityRow>();
  /** Rows kept after reading (a few hundred bytes each): a server's repeated queries touch the same ones. */
  private static readonly cachedRowsMax = 32_768;
  /** The offsets table (8 bytes per version), read pair by pair, and whole once many were (binaryFile.ts). */
  private readonly offsets: FileSection<Float64Array>;

  constructor(private readonly file: BinaryFile, private readonly sessionId: string) {
    this.count = file.u32(headerBytes);
    this.heapStart = headerBytes + 8 + 8 * (this.count + 1);
    file.check(this.heapStart <= file.size, `holds ${this.count} versions but is only ${file.size} bytes`);
    const heapBytes = file.f64Array(headerBytes + 8 + 8 * this.count, 1)[0];
    file.check(this.heapStart + heapBytes === file.size, "has a heap that does not end at the end of the file");
    this.offsets = f64Section(file, headerBytes + 8, this.count + 1);
  }

  row(position: number): EntityRow {
    const cached = this.cache.get(position);
    if (cached !== undefined) return cached;
    this.file.check(Number.isInteger(position) && position >= 0 && position < this.count, `has no version at position ${position}`);
    const [start, end] = this.offsets.range(position, position + 2);
    this.file.check(end >= start, `has a negative-length version at position ${position}`);
    let tuple: EntityTuple;
    try {
      tuple = JSON.parse(this.file.bytes(this.heapStart + start, end - start).toString("utf8")) as EntityTuple;
    } catch {
      return this.file.check(false, `has an unreadable version at position ${position}`) as never;
    }
    const [nodeKey, name, entityType, summary, propertiesJson, validFrom, validTo, sourceEventSeq, sourceEventHash, vectorKey] = tuple;
    const row: EntityRow = { nodeKey, sessionId: this.sessionId, name, entityType, summary, propertiesJson, validFrom, validTo, sourceEventSeq, sourceEventHash, vectorKey };
    if (this.cache.size >= EntityTable.cachedRowsMax) this.cache.clear();
    this.cache.set(position, row);
    return row;
  }
}
