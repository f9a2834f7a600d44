/**
 * The rows a fold starts from, read lazily instead of held whole: a read model on disk answers
 * these for a tail catch-up (readmodel/), so folding a few new events costs what they touch, not
 * the session's history. `rowsFoldBase` answers them from rows in memory (the reference the
 * lazy answers are tested against).
 *
 * Contract (what GraphFold's whole-rows constructor derives from the rows, per identity):
 * - `latestVersion(type, name)`: the current version (`validTo` null; the last in position order
 *   if there were several), else the closed version with the highest `sourceEventSeq` (the entity
 *   is retired), else null.
 * - `currentRelationsOf(nodeKey)`: the current relations (`validTo` null) with `nodeKey` as source
 *   or target, in relation order, each once (a self-loop too).
 * - `positionOf(nodeKey)`: a stored version's position (its vector key), or undefined.
 * - `currentRelationCountOf(nodeKey)`: how many relations `currentRelationsOf` would return,
 *   without reading them (a fold reads the smaller side when it only needs to know whether two
 *   stored versions are related: the common actor of a session can have tens of thousands).
 */
import type { EntityRow, ProjectionHead, RelationRow } from "./types.ts";

export interface LazyFoldBase {
  /** The head the base rows were folded to, with its row counts. */
  readonly head: ProjectionHead;
  latestVersion(entityType: string, name: string): EntityRow | null;
  currentRelationsOf(nodeKey: string): readonly RelationRow[];
  positionOf(nodeKey: string): number | undefined;
  currentRelationCountOf(nodeKey: string): number;
}
