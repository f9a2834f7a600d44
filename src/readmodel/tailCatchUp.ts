/**
 * A read model caught up to the log head in memory: the events after the model's head are folded
 * on top of it (GraphFold on the model as a lazy base), the whole-session folds are continued from
 * the manifest, and the answers come from the model plus that tail (TailOverlayIndex). Nothing is
 * written: the log is the delta, and the projection's full catch-up (which rewrites the model)
 * runs only once the tail outgrows `readModelTailEventsMax`. A fresh process after an append
 * therefore pays for the events it has not seen, not for the session.
 *
 * @example
 * const opening = await openReadModel(root, "s", logPath, openVectors, tailBounds);
 * if (opening.status === "opened") index = await overlayTail(opening.index, opening.manifest, opening.foldBase, opening.tail);
 */
import type { EventRecord } from "../eventloom/envelope.ts";
import { extractEvent } from "../projection/extract/mod.ts";
import { GraphFold } from "../projection/graphFold.ts";
import { extendVectorIndex, type SessionVectorIndex } from "../projection/vectorIndex.ts";
import type { SessionIndex } from "../retrieval/sessionIndex.ts";
import type { ReadModelManifest } from "./manifest.ts";
import type { ReadModelFoldBase } from "./readModelFoldBase.ts";
import { ReadModelCorruptError } from "../platform/readModelError.ts";
import { continueSessionFolds } from "./tailFolds.ts";
import { type BaseRelation, TailOverlayIndex, type TailOverlayLookups } from "./tailOverlayIndex.ts";

/** The base's current relations at a position with both ends stored, as the overlay reads them. */
function baseCurrentRelationsAt(foldBase: ReadModelFoldBase, position: number): BaseRelation[] {
  const out: BaseRelation[] = [];
  for (const id of foldBase.currentRelationIdsAt(position)) {
    const { row, sourcePosition, targetPosition } = foldBase.relationAt(id);
    if (sourcePosition < 0 || targetPosition < 0) continue;
    out.push({ relKey: row.relKey, sourcePosition, targetPosition, relationType: row.relationType });
  }
  return out;
}

/**
 * The session index at the head of `tail` (the verified events after `manifest.head`, in order),
 * built on `base` (the read model at its head); `base` itself when the tail is empty. The
 * returned index owns `base` (closing it closes the read model).
 */
export async function overlayTail(base: SessionIndex, manifest: ReadModelManifest, foldBase: ReadModelFoldBase, tail: readonly EventRecord[]): Promise<SessionIndex> {
  if (tail.length === 0) return base;
  const fold = GraphFold.onLazyBase(base.sessionId, foldBase);
  for (const event of tail) fold.apply(event, extractEvent(event));
  // Every event yields a diff (its event row at least); a null one would mean no event applied.
  const diff = fold.diff()!;
  const baseEventCount = base.eventCount;
  const folds = continueSessionFolds(manifest.folds, {
    sessionId: base.sessionId,
    events: tail,
    changes: diff,
    lookups: {
      baseEntity: (nodeKey) => {
        const position = foldBase.positionOf(nodeKey);
        return position === undefined ? undefined : base.entity(position);
      },
      event: (seq) => (seq < 1 ? undefined : seq <= baseEventCount ? base.event(seq - 1) : tail[seq - baseEventCount - 1]),
    },
  });
  const lookups: TailOverlayLookups = {
    basePositionOf: (nodeKey) => foldBase.positionOf(nodeKey),
    baseCurrentRelationsAt: (position) => baseCurrentRelationsAt(foldBase, position),
  };
  let vectors: SessionVectorIndex | null = null;
  if (base.vectors !== null) {
    try {
      vectors = await extendVectorIndex(base.vectors, diff.newEntities);
    } catch (error) {
      // The view of the same file opened; a load that fails means the file changed under us.
      throw new ReadModelCorruptError(base.vectors.path, `cannot be extended by the tail's versions: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return new TailOverlayIndex(base, diff, tail, folds, lookups, vectors);
}
