/**
 * The one score-ordered merge of a lane into retrieval's result (DESIGN §6; Python
 * `_merge_projection_contexts`): each lane context goes before the first retrieved context that
 * scores strictly lower, so retrieval's own order is kept and ties keep retrieval first; lane
 * contexts keep their score order (ties in lane order). The lanes differ only in their
 * `LaneMergeRule` (a cut to a limit, same-entity-first); see checkout/lane.ts for why.
 *
 * What must never change: the retrieved contexts keep their relative order, and a lane with
 * nothing to add leaves the result as it was.
 *
 * @example
 * mergeByScore([{ id: "r1", score: 0.9 }, { id: "r2", score: 0.3 }], [{ id: "l1", score: 0.6 }], { contextsMax: null, sameEntityFirst: false })
 * // r1, l1, r2
 */
import type { RetrievalResult, RetrievedContext } from "../retrieval/types.ts";
import type { CheckoutLane, LaneMergeRule } from "./lane.ts";

/** Merges `lane` into `retrieved` by score under `rule` (see the module comment). */
export function mergeByScore<T extends { score: number; entityName?: string; ranksAfterRetrieved?: boolean }>(
  retrieved: readonly T[],
  lane: readonly T[],
  rule: LaneMergeRule,
): T[] {
  // Stable: lanes hand their contexts best first already (projection, consolidated) or in lane
  // order (fleet); equal scores keep that order. Contexts that rank after retrieval come last.
  const ordered = lane.map((context, order) => ({ context, order }))
    .sort((a, b) => Number(a.context.ranksAfterRetrieved === true) - Number(b.context.ranksAfterRetrieved === true) || b.context.score - a.context.score || a.order - b.order)
    .map((entry) => entry.context);
  const indexByEntity = new Map<string, number>();
  if (rule.sameEntityFirst) {
    ordered.forEach((context, index) => {
      if (context.entityName !== undefined) indexByEntity.set(context.entityName, index);
    });
  }
  const merged: T[] = [];
  const emitted = new Set<number>();
  const emit = (index: number) => {
    if (emitted.has(index)) return;
    emitted.add(index);
    merged.push(ordered[index]);
  };
  let next = 0;
  for (const context of retrieved) {
    while (next < ordered.length && ordered[next].ranksAfterRetrieved !== true && ordered[next].score > context.score) emit(next++);
    const same = context.entityName === undefined ? undefined : indexByEntity.get(context.entityName);
    if (same !== undefined) emit(same);
    merged.push(context);
  }
  for (; next < ordered.length; next++) emit(next);
  return rule.contextsMax === null ? merged : merged.slice(0, rule.contextsMax);
}

/**
 * Retrieval's result with `lane` merged in and its count under `source_lanes`; the result itself
 * when the lane found nothing and is not counted when empty.
 */
export function mergeLane(result: RetrievalResult, lane: CheckoutLane): RetrievalResult {
  if (lane.contexts.length === 0 && !lane.countedWhenEmpty) return result;
  // Lane contexts carry their own source names, which retrieval's type does not list; assembly
  // and checkout read `source` as text, so the merged list is handed on as retrieval's.
  const contexts = mergeByScore<RetrievedContext | CheckoutLane["contexts"][number]>(result.contexts, lane.contexts, lane.merge) as RetrievedContext[];
  return { ...result, contexts, laneCounts: { ...result.laneCounts, [lane.name]: lane.contexts.length } };
}
