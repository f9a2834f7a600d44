/**
 * Current relations as adjacency on disk, both directions, in relation order (what traversal
 * walks): per entity position a range of neighbour positions and relation-type ids.
 *
 *   header "ZXADJS01" | entities u32 | neighbours u32 | start u32[entities + 1]
 *   | neighbour i32[neighbours] | type id i32[neighbours]
 * Relation type names are listed in the manifest (`relation_types`), indexed by type id.
 */
import type { RelationRows } from "../projection/relationStore.ts";
import { fileHeader, u32Bytes } from "../platform/binaryFile.ts";

export const adjacencyMagic = "ZXADJS01";

/**
 * The table's chunks and its relation type names, from the relations and their endpoints' entity
 * positions (-1: no stored version): each current relation with both endpoints stored links
 * source to target and, unless it is a self-loop, target to source, in relation order. Type ids
 * are numbered in the order the table first lists them.
 */
export function adjacencyChunks(entityCount: number, relations: RelationRows, sources: Int32Array, targets: Int32Array): { chunks: Buffer[]; relationTypes: string[] } {
  const linked = (id: number) => relations.validTo(id) === null && sources[id] >= 0 && targets[id] >= 0;
  const start = new Uint32Array(entityCount + 1);
  for (let id = 0; id < relations.length; id++) {
    if (!linked(id)) continue;
    start[sources[id] + 1]++;
    if (targets[id] !== sources[id]) start[targets[id] + 1]++;
  }
  for (let position = 0; position < entityCount; position++) start[position + 1] += start[position];
  const neighbours = new Uint32Array(start[entityCount]);
  // Types by first use in relation order first, renumbered below in the table's order.
  const typesInRelationOrder = new Map<string, number>();
  const rawTypes = new Uint32Array(neighbours.length);
  const next = start.slice(0, entityCount);
  for (let id = 0; id < relations.length; id++) {
    if (!linked(id)) continue;
    const relationType = relations.relationType(id);
    let raw = typesInRelationOrder.get(relationType);
    if (raw === undefined) {
      raw = typesInRelationOrder.size;
      typesInRelationOrder.set(relationType, raw);
    }
    const source = sources[id];
    const target = targets[id];
    neighbours[next[source]] = target;
    rawTypes[next[source]++] = raw;
    if (target !== source) {
      neighbours[next[target]] = source;
      rawTypes[next[target]++] = raw;
    }
  }
  const rawNames = [...typesInRelationOrder.keys()];
  const idOfRaw = new Int32Array(rawNames.length).fill(-1);
  const relationTypes: string[] = [];
  const types = new Uint32Array(neighbours.length);
  for (let at = 0; at < rawTypes.length; at++) {
    const raw = rawTypes[at];
    if (idOfRaw[raw] < 0) {
      idOfRaw[raw] = relationTypes.length;
      relationTypes.push(rawNames[raw]);
    }
    types[at] = idOfRaw[raw];
  }
  const counts = Buffer.alloc(8);
  counts.writeUInt32LE(entityCount, 0);
  counts.writeUInt32LE(neighbours.length, 4);
  return { chunks: [fileHeader(adjacencyMagic), counts, u32Bytes(start), u32Bytes(neighbours), u32Bytes(types)], relationTypes };
}
