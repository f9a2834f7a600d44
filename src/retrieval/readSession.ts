/**
 * How a session is read at its log head, for every module above retrieval: the session index
 * ready to answer reads (`ReadSession`) or the projection with every event and row in memory
 * (`CachedSession`), and the `SessionReader` that hands them out (memory/service.ts's
 * `MemoryService`, which keeps them warm and verifies the log first).
 *
 * The types live here, below checkout and the features, so causal queries and consolidation
 * read sessions through this interface instead of importing the checkout orchestrator in
 * memory/: layers only point down.
 *
 * @example
 * async function edgesOf(reader: SessionReader, sessionId: string) {
 *   const { rows, projected } = await reader.session(sessionId);
 *   return causalEdges(sessionId, rows, projected.events);
 * }
 */
import type { ProjectedSession } from "../projection/projector.ts";
import type { SessionGraphRows } from "../projection/types.ts";
import type { SessionIndex } from "./sessionIndex.ts";

/** A session index ready to answer reads, with how the projection stood when it was opened. */
export interface ReadSession {
  fingerprint: string;
  /** Size of the log when it was indexed: what a warm in-memory entry's memory grows with. */
  logBytes: number;
  index: SessionIndex;
  projection: ProjectionDiagnostics;
  /**
   * Rebuilds and repairs of derived state done to answer this call; empty when the answer comes
   * from an index kept warm by an earlier call, which reported them then.
   */
  repairs: string[];
}

/** A session read through the projection, with every event and row in memory. */
export interface CachedSession extends ReadSession {
  projected: ProjectedSession;
  /**
   * The rows answers come from: the projection's, or, when the projection is degraded, the log
   * folded in memory (projection/foldLog.ts), so a degraded answer keeps temporal validity.
   */
  rows: SessionGraphRows;
}

export interface ProjectionDiagnostics {
  /**
   * How the index was opened: the projection's source; `read_model` (the on-disk read model at
   * the log head); or `read_model_tail` (the read model plus the `events_applied` events after
   * its head, folded in memory); or `no_log` (the session has no events yet: it was read as
   * empty, and nothing was written for it).
   */
  source: ProjectedSession["source"] | "read_model" | "read_model_tail" | "no_log";
  events_applied: number;
  head_seq: number;
  head_hash: string | null;
  entity_versions: number;
  vector_index: string | null;
  degraded: boolean;
  degraded_reason: string | null;
  warnings: string[];
}

/** What reads sessions: the Eventloom root and the session at its log head, verified first. */
export interface SessionReader {
  readonly root: string;
  /** The session's projection at its log head with every event and row in memory. */
  session(sessionId: string): Promise<CachedSession>;
  /**
   * Runs `read` on the session's index at its log head as a fresh read finds it (warm, the
   * on-disk read model, or the projection), reading again through the projection when a
   * read-model file turns out corrupt: what a read that needs only the index and its folds uses.
   */
  withReadSession<T>(sessionId: string, read: (session: ReadSession) => T | Promise<T>): Promise<T>;
}
