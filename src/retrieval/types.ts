/**
 * What retrieval hands to context assembly and Memory Checkout (DESIGN §6). A context is one
 * ranked, cited piece of memory; superseded versions come back too (closed `validTo`) so that
 * checkout can count what it excluded.
 */
import type { PlainJson } from "../projection/types.ts";

/**
 * Retrieval lanes; `projection` searches compaction projection artifacts under the root
 * (compaction/projectionLane.ts); `semantic` runs only when the caller embedded the query (semanticLane.ts).
 * A degraded read (graph store unavailable) runs the same lanes over the log
 * folded in memory, without `vector`, and marks the result `degraded`.
 */
export type LaneName = "exact" | "vector" | "keyword" | "traversal" | "verbatim" | "semantic" | "projection";

export const graphLanes: readonly LaneName[] = ["exact", "vector", "keyword", "traversal"];

export interface RetrievedContext {
  /** Prompt-ready text, e.g. `"<name> (<type>): <summary>"` or a raw event's text. */
  content: string;
  /**
   * How a prompt shows this context, when that reads better than `content` (engine.ts `entityDisplay`):
   * the same words, punctuated for a reader. Never in a JSON document, which carries `content`.
   */
  display?: string;
  /**
   * `graph` for projected entities (folded in memory on a degraded read), `verbatim` for raw
   * events, `projection` for a compaction projection record (a real source event).
   */
  source: "graph" | "verbatim" | "projection";
  /** The lane that contributed the highest weighted score. */
  sourceLane: LaneName;
  /** Fused score after MMR, 0..~1. */
  score: number;
  validFrom: string | null;
  /** Null while current; set for superseded versions. */
  validTo: string | null;
  /** `eventloom://<thread>/events/<seq>#<12 hex>` of the source event. */
  citation: string | null;
  eventSeq: number | null;
  /** Full 64-hex hash of the source event. */
  eventHash: string | null;
  entityName?: string;
  entityType?: string;
  /** Per-lane weighted scores and the fusion inputs, for humans and debugging. */
  scoreExplanation: { [key: string]: PlainJson };
  metadata: { [key: string]: PlainJson };
}

export interface RetrievalResult {
  /** Ranked best first. */
  contexts: RetrievedContext[];
  /** Hits per lane before fusion and de-duplication. */
  laneCounts: { [lane: string]: number };
  degraded: boolean;
  degradedReason?: string;
  /** The semantic lane's receipt, when it ran. */
  semantic?: SemanticReceipt;
  /**
   * What the result could not serve and the prompt must say (`# Context Warnings`), e.g. a
   * compaction artifact record whose event ref does not resolve (compaction/projectionLane.ts).
   */
  warnings?: string[];
}

/**
 * What a read says of its semantic lane (`diagnostics.semantic`). When it ran: the model's id and
 * the SHA-256 of its weights (null for a model server, whose weights zaxy cannot hash; then
 * `endpoint`), so an answer can be traced to the exact model that ranked it, and how many current
 * facts it compared (`facts_compared`), could not compare yet (`facts_not_embedded`) and embedded
 * for this read (`embedded_now`); `fallback_reason` when a model server failed (docs/retrieval.md).
 */
export interface SemanticReceipt {
  [key: string]: PlainJson;
  /** False when the query's own words matched current facts and no model was loaded (`reason`). */
  ran: boolean;
}
