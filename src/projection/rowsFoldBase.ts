/**
 * A `LazyFoldBase` answered from a session's rows in memory: the reference a lazy base on disk
 * (the read model) is tested against, and the base of `GraphFold.onLazyBase` when the rows are
 * at hand anyway. Indexes are built once, O(rows); each answer is then a lookup.
 *
 * @example
 * const fold = GraphFold.onLazyBase("s", rowsFoldBase(foldLogRows("s", events.slice(0, k))));
 */
import type { LazyFoldBase } from "./lazyFoldBase.ts";
import { type EntityRow, keySeparator, type RelationRow, type SessionGraphRows } from "./types.ts";

export function rowsFoldBase(rows: SessionGraphRows): LazyFoldBase {
  const head = rows.head;
  if (head === null) throw new Error("projection fold: a lazy base needs a projection head (these rows were never folded from an event)");
  const current = new Map<string, EntityRow>();
  const positions = new Map<string, number>();
  for (const row of rows.entities) {
    positions.set(row.nodeKey, row.vectorKey);
    if (row.validTo === null) current.set(row.entityType + keySeparator + row.name, row);
  }
  // The latest closed version of each entity without a current one: it was retired.
  const retired = new Map<string, EntityRow>();
  for (const row of rows.entities) {
    const identity = row.entityType + keySeparator + row.name;
    if (current.has(identity)) continue;
    const latest = retired.get(identity);
    if (latest === undefined || row.sourceEventSeq > latest.sourceEventSeq) retired.set(identity, row);
  }
  const relationsByNode = new Map<string, RelationRow[]>();
  for (const row of rows.relations) {
    if (row.validTo !== null) continue;
    for (const nodeKey of row.sourceKey === row.targetKey ? [row.sourceKey] : [row.sourceKey, row.targetKey]) {
      const list = relationsByNode.get(nodeKey);
      if (list === undefined) relationsByNode.set(nodeKey, [row]);
      else list.push(row);
    }
  }
  return {
    head,
    latestVersion(entityType: string, name: string): EntityRow | null {
      const identity = entityType + keySeparator + name;
      return current.get(identity) ?? retired.get(identity) ?? null;
    },
    currentRelationsOf: (nodeKey: string) => relationsByNode.get(nodeKey) ?? [],
    currentRelationCountOf: (nodeKey: string) => relationsByNode.get(nodeKey)?.length ?? 0,
    positionOf: (nodeKey: string) => positions.get(nodeKey),
  };
}
