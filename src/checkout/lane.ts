/**
 * The checkout lane interface. A lane adds scored contexts to what retrieval found for a
 * checkout (or a query): compaction projection artifacts (`projection`), the long-horizon remote
 * tier (`consolidated`), fleet promotions (`fleet`). Each lane's module builds a `CheckoutLane`;
 * memory/service.ts runs retrieval's result and every lane through one merge
 * (checkout/mergeLanes.ts) and lists each lane's report under "Checkout Diagnostics".
 *
 * The types live in checkout/ so a feature (fleet/, consolidation/) can build a lane without
 * importing the checkout orchestrator in memory/: layers only point down.
 *
 * What must never change: a lane with nothing to add leaves the checkout byte-identical to one
 * from a build without it (no contexts moved, no lane count, no section) unless the lane says
 * otherwise (`countedWhenEmpty`).
 */
import type { PlainJson } from "../projection/types.ts";
import type { RetrievedContext } from "../retrieval/types.ts";

/**
 * A context a lane adds: a retrieved context under the lane's own `source` and `sourceLane`
 * (`consolidated`, `fleet`), which retrieval's own lane names do not include.
 */
export type LaneContext<Name extends string = string> = Omit<RetrievedContext, "source" | "sourceLane"> & {
  source: Name;
  sourceLane: Name;
  /** Goes after every retrieved context whatever its score (a non-authoritative projection record). */
  ranksAfterRetrieved?: boolean;
};

/**
 * How a lane's contexts join the list; the one place the three lanes differ in merging
 * (see `mergeByScore`).
 */
export interface LaneMergeRule {
  /**
   * Cut the merged list to this many contexts, or null to keep them all. The projection lane
   * runs inside retrieval's own limit (a query answers at most `limit` contexts); the checkout
   * lanes leave the cut to assembly (consolidated) or come on top of it (fleet).
   */
  contextsMax: number | null;
  /**
   * Put a lane context before the retrieved context with the same entity name, whatever the
   * scores. Only the long-horizon lane: a remote item and the graph projection of the same
   * candidate are one memory, and de-duplication by citation must keep the replayed, fully cited
   * remote item. Fleet and projection items are other memories than the session's graph.
   */
  sameEntityFirst: boolean;
}

/** What a lane lists under "Checkout Diagnostics". */
export interface LaneReport {
  /** The `diagnostics` key the lane owns, e.g. `long_horizon`, `fleet`. */
  key: string;
  diagnostics: PlainJson;
  /** The line listed under "Checkout Diagnostics" (without "- "). */
  promptLine: string;
  /** Lines for `guidance.mandatory` (fleet keystones), in lane order; usually none. */
  mandatoryGuidance: readonly string[];
}

export interface CheckoutLane {
  /** The lane's name: its contexts' source lane and its key in `source_lanes`. */
  name: string;
  /** The lane's contexts; the merge orders them by score, ties in this order. */
  contexts: readonly LaneContext[];
  merge: LaneMergeRule;
  /**
   * Whether `source_lanes` shows the lane's count even when it found nothing: the projection lane
   * says it searched artifacts (count 0); the checkout lanes add nothing when they have nothing.
   */
  countedWhenEmpty: boolean;
  /**
   * Whether the lane's contexts come on top of the checkout's context limit: asking a fleet must
   * never push the session's own memory out of the checkout.
   */
  raisesContextLimit: boolean;
  /** The diagnostics section and prompt line, or null when the lane has nothing to report. */
  report: LaneReport | null;
}
