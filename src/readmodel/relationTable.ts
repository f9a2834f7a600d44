/**
 * Relation versions on disk, in relation order (id = ordinal), with what a tail catch-up needs to
 * fold from them (projection/lazyFoldBase.ts): each relation's endpoint positions, and per entity
 * position the ids of its current relations.
 *
 *   header "ZXRELS01" | relations u32 | entities u32 | current ids u32 | 0 u32
 *   | source position i32[relations] | target position i32[relations]
 *   | current start u32[entities + 2] | current ids u32[current ids]
 *   | offsets f64[relations + 1] (into the heap) | heap (one compact JSON array per relation)
 *
 * An endpoint position is the entity version whose node key the relation names (the later one if
 * two shared a key, as `currentAdjacency` resolves them), -1 if no stored version has it. Bucket
 * `p < entities` of the current table lists the current relations with an endpoint at `p`,
 * ascending, each once (a self-loop too); bucket `entities` lists the current relations with an
 * endpoint that resolved to no version (a fold never writes one; the bucket keeps such rows
 * answerable by node key all the same).
 */
import type { RelationRows } from "../projection/relationStore.ts";
import type { RelationRow } from "../projection/types.ts";
import { BinaryFile, f64Bytes, fileHeader, headerBytes, u32Bytes } from "../platform/binaryFile.ts";
import { PositionalWriter, tableRowsPerCollection, writeChunks } from "./tableFileWriter.ts";

export const relationTableMagic = "ZXRELS01";

/** A relation version and its endpoints' entity positions (-1: no stored version). */
export interface StoredRelation {
  row: RelationRow;
  sourcePosition: number;
  targetPosition: number;
}

type RelationTuple = [string, string, string, string, string, string | null, boolean, number, string | null, number, string, string];

const countsBytes = 16;

function i32Bytes(values: Int32Array): Buffer {
  // The signed positions as their two's-complement u32 (-1 is 0xFFFFFFFF).
  return u32Bytes(new Uint32Array(values.buffer, values.byteOffset, values.length));
}

/**
 * Writes the table of `relations` into `fd`, given their endpoints' entity positions (-1: no
 * stored version; resolved once by the caller over the same rows the entity table holds): the
 * heap first, at its final offset, one row at a time, then the sections before it. `collect` is
 * called between runs of `tableRowsPerCollection` rows.
 */
export function writeRelationTable(fd: number, entityCount: number, relations: RelationRows, sources: Int32Array, targets: Int32Array, collect: () => void = () => {}): void {
  // Bucket p < entityCount: the current relations with an endpoint at p; bucket entityCount: those with an unstored endpoint.
  const buckets = (id: number, each: (bucket: number) => void) => {
    if (relations.validTo(id) !== null) return;
    const source = sources[id];
    const target = targets[id];
    if (source >= 0) each(source);
    if (target >= 0 && target !== source) each(target);
    if (source < 0 || target < 0) each(entityCount);
  };
  const start = new Uint32Array(entityCount + 2);
  for (let id = 0; id < relations.length; id++) buckets(id, (bucket) => start[bucket + 1]++);
  for (let bucket = 0; bucket <= entityCount; bucket++) start[bucket + 1] += start[bucket];
  const ids = new Uint32Array(start[entityCount + 1]);
  const next = start.slice(0, entityCount + 1);
  for (let id = 0; id < relations.length; id++) buckets(id, (bucket) => ids[next[bucket]++] = id);
  const offsets = new Float64Array(relations.length + 1);
  const heapAt = headerBytes + countsBytes + 8 * relations.length + start.byteLength + ids.byteLength + offsets.byteLength;
  const heap = new PositionalWriter(fd, heapAt);
  for (let id = 0; id < relations.length; id++) {
    const r = relations.row(id);
    const tuple: RelationTuple = [
      r.relKey, r.sourceKey, r.targetKey, r.relationType, r.validFrom, r.validTo, r.inferred, r.confidence, r.inferenceMethod, r.sourceEventSeq, r.sourceEventHash, r.evidenceJson,
    ];
    offsets[id + 1] = offsets[id] + heap.writeText(JSON.stringify(tuple));
    if ((id + 1) % tableRowsPerCollection === 0) collect();
  }
  heap.flush();
  const counts = Buffer.alloc(countsBytes);
  counts.writeUInt32LE(relations.length, 0);
  counts.writeUInt32LE(entityCount, 4);
  counts.writeUInt32LE(ids.length, 8);
  writeChunks(fd, [fileHeader(relationTableMagic), counts, i32Bytes(sources), i32Bytes(targets), u32Bytes(start), u32Bytes(ids), f64Bytes(offsets)]);
}

/**
 * Relations read on demand. The endpoint positions and the current table (16 bytes per relation
 * and 4 per entity) are read whole on first use, the offsets table on the first row read; rows
 * are parsed per read and never cached, so a caller may change what it is given.
 */
export class RelationTable {
  readonly count: number;
  readonly entityCount: number;
  private readonly currentIdCount: number;
  private readonly startAt: number;
  private readonly idsAt: number;
  private readonly offsetsAt: number;
  private readonly heapAt: number;
  private loaded?: { sources: Int32Array; targets: Int32Array; start: Uint32Array; ids: Uint32Array };
  private offsets?: Float64Array;

  constructor(private readonly file: BinaryFile, private readonly sessionId: string) {
    this.count = file.u32(headerBytes);
    this.entityCount = file.u32(headerBytes + 4);
    this.currentIdCount = file.u32(headerBytes + 8);
    const positionsAt = headerBytes + countsBytes;
    this.startAt = positionsAt + 8 * this.count;
    this.idsAt = this.startAt + 4 * (this.entityCount + 2);
    this.offsetsAt = this.idsAt + 4 * this.currentIdCount;
    this.heapAt = this.offsetsAt + 8 * (this.count + 1);
    file.check(this.heapAt <= file.size, `holds ${this.count} relations and ${this.entityCount} entities but is only ${file.size} bytes`);
    const heapBytes = file.f64Array(this.offsetsAt + 8 * this.count, 1)[0];
    file.check(this.heapAt + heapBytes === file.size, "has a heap that does not end at the end of the file");
  }

  private tables() {
    if (this.loaded !== undefined) return this.loaded;
    const positionsAt = headerBytes + countsBytes;
    const positions = this.file.u32Array(positionsAt, 2 * this.count);
    const start = this.file.u32Array(this.startAt, this.entityCount + 2);
    this.file.check(start[0] === 0 && start[this.entityCount + 1] === this.currentIdCount, "has a current-relation table that does not cover its ids");
    return this.loaded = {
      sources: new Int32Array(positions.buffer, positions.byteOffset, this.count),
      targets: new Int32Array(positions.buffer, positions.byteOffset + 4 * this.count, this.count),
      start,
      ids: this.file.u32Array(this.idsAt, this.currentIdCount),
    };
  }

  /** Relation `id` (its ordinal in relation order) with its endpoints' positions. */
  relation(id: number): StoredRelation {
    this.file.check(Number.isInteger(id) && id >= 0 && id < this.count, `has no relation ${id}`);
    const { sources, targets } = this.tables();
    this.offsets ??= this.file.f64Array(this.offsetsAt, this.count + 1);
    const from = this.offsets[id];
    const to = this.offsets[id + 1];
    this.file.check(to >= from, `has a negative-length relation ${id}`);
    let tuple: RelationTuple;
    try {
      tuple = JSON.parse(this.file.bytes(this.heapAt + from, to - from).toString("utf8")) as RelationTuple;
    } catch {
      return this.file.check(false, `has an unreadable relation ${id}`) as never;
    }
    this.file.check(Array.isArray(tuple) && tuple.length === 12, `has a relation ${id} that is not a 12-field row`);
    const [relKey, sourceKey, targetKey, relationType, validFrom, validTo, inferred, confidence, inferenceMethod, sourceEventSeq, sourceEventHash, evidenceJson] = tuple;
    const sourcePosition = sources[id];
    const targetPosition = targets[id];
    this.file.check(sourcePosition >= -1 && sourcePosition < this.entityCount && targetPosition >= -1 && targetPosition < this.entityCount, `has a bad endpoint position for relation ${id}`);
    const row: RelationRow = { relKey, sessionId: this.sessionId, sourceKey, targetKey, relationType, validFrom, validTo, inferred, confidence, inferenceMethod, sourceEventSeq, sourceEventHash, evidenceJson };
    return { row, sourcePosition, targetPosition };
  }

  /**
   * Ids of the current relations with an endpoint at `position`, in relation order;
   * `position === entityCount` names those with an endpoint that is no stored version.
   */
  currentIdsAt(position: number): Uint32Array {
    if (!(Number.isInteger(position) && position >= 0 && position <= this.entityCount)) return new Uint32Array(0);
    const { start, ids } = this.tables();
    const from = start[position];
    const to = start[position + 1];
    this.file.check(from <= to && to <= this.currentIdCount, `has a bad current-relation range at position ${position}`);
    // A copy: the caller may keep or change it without touching the table.
    const out = ids.slice(from, to);
    for (let i = 0; i < out.length; i++) {
      this.file.check(out[i] < this.count && (i === 0 || out[i] > out[i - 1]), `has a bad current relation id at position ${position}`);
    }
    return out;
  }

  /** `check` of the underlying file: a row that contradicts the table is corruption. */
  check(condition: boolean, reason: string): void {
    this.file.check(condition, reason);
  }
}
