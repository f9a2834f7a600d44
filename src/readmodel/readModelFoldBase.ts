/**
 * The rows a tail catch-up folds from (`LazyFoldBase`, projection/lazyFoldBase.ts), answered from
 * an opened read model's files instead of the session's whole rows: a latest version costs a
 * names lookup and the versions under that name; a node's current relations, a node-key lookup
 * and one read per relation. Every answer is a fresh object (the entity table caches its rows for
 * queries, and a fold changes the rows it is given).
 *
 * Example:
 *   const opening = await openReadModel(root, "s", logPath, openVectors);
 *   if (opening.status === "opened") {
 *     const base = opening.foldBase;
 *     base.latestVersion("preference", "editor");   // EntityRow | null
 *     base.currentRelationsOf(nodeKey);             // RelationRow[] in relation order
 *   }
 */
import type { LazyFoldBase } from "../projection/lazyFoldBase.ts";
import type { EntityRow, ProjectionHead, RelationRow } from "../projection/types.ts";
import type { EntityTable, RelationTable, SortedTable } from "./diskSessionIndex.ts";
import type { StoredRelation } from "./relationTable.ts";

export type { StoredRelation } from "./relationTable.ts";

/** A `LazyFoldBase` over a read model, with the positional access an overlay index needs. */
export interface ReadModelFoldBase extends LazyFoldBase {
  /** Relation versions stored (current and closed); ids are `0 .. relationCount - 1` in relation order. */
  readonly relationCount: number;
  /** Ids of the current relations with an endpoint at entity `position`, in relation order, each once; empty for a position out of range. */
  currentRelationIdsAt(position: number): Uint32Array;
  /** Relation `id` with its endpoints' entity positions (-1 where no stored version has the key). */
  relationAt(id: number): StoredRelation;
}

/** The opened tables of one read model generation (diskSessionIndex.ts opens and checks them). */
export interface ReadModelFoldTables {
  head: ProjectionHead;
  entities: EntityTable;
  /** Lowercased entity name → positions ascending (`names-<gen>.bin`). */
  names: SortedTable;
  /** Node key → positions (`nodekeys-<gen>.bin`). */
  nodeKeys: SortedTable;
  relations: RelationTable;
  /** Whatever closes these tables when it is collected (the disk index): held as long as the fold base is. */
  owner?: object;
}

export function readModelFoldBase(tables: ReadModelFoldTables): ReadModelFoldBase {
  const { entities, names, nodeKeys, relations } = tables;

  const positionOf = (nodeKey: string): number | undefined => {
    const positions = nodeKeys.get(nodeKey);
    if (positions.length === 0) return undefined;
    // Two versions never share a key (the fold refuses a collision); if they did, the later wins, as in traversal.
    const position = positions[positions.length - 1];
    relations.check(position < entities.count, `maps node key ${JSON.stringify(nodeKey)} to position ${position} of ${entities.count}`);
    return position;
  };

  const base: ReadModelFoldBase = {
    head: { ...tables.head },
    relationCount: relations.count,

    latestVersion(entityType: string, name: string): EntityRow | null {
      let current: EntityRow | null = null;
      let retired: EntityRow | null = null;
      for (const position of names.get(name.toLowerCase())) {
        const row = entities.row(position);
        if (row.name !== name || row.entityType !== entityType) continue;
        if (row.validTo === null) current = row;
        else if (retired === null || row.sourceEventSeq > retired.sourceEventSeq) retired = row;
      }
      const latest = current ?? retired;
      return latest === null ? null : { ...latest };
    },

    currentRelationsOf(nodeKey: string): RelationRow[] {
      const position = positionOf(nodeKey);
      const ids = relations.currentIdsAt(position ?? relations.entityCount);
      const out: RelationRow[] = [];
      for (const id of ids) {
        const { row, sourcePosition, targetPosition } = relations.relation(id);
        if (position === undefined) {
          relations.check(row.validTo === null && (sourcePosition < 0 || targetPosition < 0), `lists relation ${id} as current without a stored endpoint but it is not`);
          // The bucket of endpoints without a stored version: only those naming this key.
          if (row.sourceKey === nodeKey || row.targetKey === nodeKey) out.push(row);
          continue;
        }
        relations.check(
          row.validTo === null && (sourcePosition === position || targetPosition === position) && (row.sourceKey === nodeKey || row.targetKey === nodeKey),
          `lists relation ${id} as current at position ${position} but it is not`,
        );
        out.push(row);
      }
      return out;
    },

    positionOf,

    currentRelationCountOf(nodeKey: string): number {
      const position = positionOf(nodeKey);
      // Endpoints without a stored version share one bucket: count only those naming this key.
      return position === undefined ? this.currentRelationsOf(nodeKey).length : relations.currentIdsAt(position).length;
    },

    currentRelationIdsAt(position: number): Uint32Array {
      return Number.isInteger(position) && position >= 0 && position < relations.entityCount ? relations.currentIdsAt(position) : new Uint32Array(0);
    },

    relationAt(id: number): StoredRelation {
      return relations.relation(id);
    },
  };
  Object.defineProperty(base, "owner", { value: tables.owner, enumerable: false });
  return base;
}
