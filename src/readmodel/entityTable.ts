/**
 * Entity versions on disk, in fold order (position = vector key): a table of byte offsets and a
 * heap of one compact JSON array per version. Reading a version is two small reads and one
 * small parse.
 *
 *   header "ZXENTS01" | count u32 | 0 u32 | offsets f64[count + 1] (into the heap) | heap
 */
import type { EntityRow } from "../projection/types.ts";
import { BinaryFile, f64Bytes, f64Section, type FileSection, fileHeader, headerBytes } from "../platform/binaryFile.ts";

export const entityTableMagic = "ZXENTS01";

type EntityTuple = [string, string, string, string | null, string, string, string | null, number, string, number];

export function entityTableChunks(entities: readonly EntityRow[]): Buffer[] {
  const rows = entities.map((e) =>
    Buffer.from(JSON.stringify([e.nodeKey, e.name, e.entityType, e.summary, e.propertiesJson, e.validFrom, e.validTo, e.sourceEventSeq, e.sourceEventHash, e.vectorKey] satisfies EntityTuple), "utf8")
  );
  const offsets = new Float64Array(rows.length + 1);
  for (let i = 0; i < rows.length; i++) offsets[i + 1] = offsets[i] + rows[i].length;
  const counts = Buffer.alloc(8);
  counts.writeUInt32LE(rows.length, 0);
  return [fileHeader(entityTableMagic), counts, f64Bytes(offsets), ...rows];
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
