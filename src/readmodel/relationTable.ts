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
import { f64Bytes, fileHeader, headerBytes, u32Bytes } from "../platform/binaryFile.ts";
import { PositionalWriter, tableRowsPerCollection, writeChunks } from "./tableFileWriter.ts";

export const relationTableMagic = "ZXRELS01";

/** A relation version and its endpoints' entity positions (-1: no stored version). */
export interface StoredRelation {
  row: RelationRow;
  sourcePosition: number;
  targetPosition: number;
}

export type RelationTuple = [string, string, string, string, string, string | null, boolean, number, string | null, number, string, string];

export const countsBytes = 16;

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
