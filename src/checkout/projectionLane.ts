/**
 * The projection lane as a checkout lane (DESIGN §6, §9; Python `_merge_projection_contexts`):
 * records of the compaction projection artifacts under the root that match the query
 * (retrieval/projectionLane.ts) join retrieval's result by their overlap score, existing
 * contexts keep their relative order, and the list is cut back to the query's limit. It runs for
 * `memory query` and checkout alike. With no artifacts under the root nothing changes, not even
 * the lane counts, so output is byte-identical to a build without this lane; with artifacts,
 * `source_lanes.projection` counts the matching records, 0 included.
 *
 * @example
 * mergeProjectionContexts(retrieve(index, "cache identity-code-0001", { limit: 10 }), "cache identity-code-0001", 10, loadRootProjections(root))
 */
import { authoritativeScope, type CompactionProjection } from "../retrieval/projectionArtifact.ts";
import { projectionContexts } from "../retrieval/projectionLane.ts";
import type { RetrievalResult } from "../retrieval/types.ts";
import type { CheckoutLane } from "./lane.ts";
import { mergeLane } from "./mergeLanes.ts";

/** The lane's name: its contexts' source and its key in `source_lanes`. */
export const projectionLaneName = "projection";

/** The projection lane of a query, or null when there is nothing to search (no artifacts, no room). */
export function projectionLane(projections: readonly CompactionProjection[], query: string, limit: number): CheckoutLane | null {
  if (projections.length === 0 || limit <= 0) return null;
  return {
    name: projectionLaneName,
    // Design 002: a record that is not authoritative (its audit reported unsafe) only routes to its source.
    contexts: projectionContexts(projections, query, limit).map((context) =>
      context.metadata.authority_scope === authoritativeScope ? context : { ...context, ranksAfterRetrieved: true }
    ),
    merge: { contextsMax: limit, sameEntityFirst: false },
    countedWhenEmpty: true,
    raisesContextLimit: false,
    report: null,
  };
}

/**
 * `result` with the projection lane merged in: each hit goes before the first context with a
 * lower score, the others keep their order, and the list is cut to `limit`. Adds the lane count
 * `projection` only when there are projections to search.
 */
export function mergeProjectionContexts(result: RetrievalResult, query: string, limit: number, projections: readonly CompactionProjection[]): RetrievalResult {
  const lane = projectionLane(projections, query, limit);
  return lane === null ? result : mergeLane(result, lane);
}
