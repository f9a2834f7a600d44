/**
 * Query, checkout and context assembly over a session: project (or catch up), index, retrieve,
 * assemble. One instance per process; `zaxy serve` keeps it, so a session whose log has not
 * changed (same size, mtime and inode) is answered from memory without re-verifying or
 * re-projecting. A changed log is verified and caught up again before the next answer.
 */
import * as fs from "node:fs";
import * as timers from "node:timers";
import { openVault } from "../eventloom/forgetting.ts";
import { defineRootSlot, Root } from "../eventloom/rootHandle.ts";
import { assembleContext, type AssembleInput, buildCheckout, type ContextAssembly, type MemoryCheckout } from "../checkout/mod.ts";
import type { CheckoutLane } from "../checkout/lane.ts";
import { buildLongHorizonPlan, longHorizonLane } from "../consolidation/longHorizonLane.ts";
import { mergeLane } from "../checkout/mergeLanes.ts";
import { projectionLane, checkProjectionRefs, loadRootProjectionFiles, unresolvedRefWarnings } from "../compaction/projectionLane.ts";
import { inputError, ioError, isZaxyError } from "../errors.ts";
import { ReadModelCorruptError } from "../platform/readModelError.ts";
import { readFleetEnabled, readLongHorizonConfig, sessionLogPath } from "../eventloom/root.ts";
import {
  cachedSessionLogBytesMax,
  readModelTailBytesMax,
  readModelTailEventsMax,
  semanticIdleEmbedBatchMax,
  semanticIdleEmbedDelayMs,
} from "../limits.ts";
import type { ProjectedSession } from "../projection/projector.ts";
import { foldLogRows } from "../projection/foldLog.ts";
import type { PlainJson, SessionGraphRows } from "../projection/types.ts";
import type { SessionVectorIndex } from "../projection/vectorIndex.ts";
import { laneHitsMax, markDegraded, retrieve, vectorLaneAnswer } from "../retrieval/engine.ts";
import type { SemanticLaneResult, SemanticVectorCache } from "../retrieval/semanticLane.ts";
import type { SemanticEmbedder } from "../semantic/semanticEmbedder.ts";
import { bestFactQueryCover } from "../checkout/checkout.ts";
import { embeddingModelId, readEmbeddingSettings } from "../semantic/embeddingSettings.ts";
import type { CachedSession, ProjectionDiagnostics, ReadSession, SessionReader } from "../retrieval/readSession.ts";
import { buildSessionIndex, EmptySessionIndex, type SessionIndex } from "../retrieval/sessionIndex.ts";
import type { RetrievalResult, RetrievedContext, SemanticReceipt } from "../retrieval/types.ts";
import { defaultEmbeddingDim } from "../vector/mod.ts";
import { checkoutFeatureContributions, checkoutFeatures } from "../checkout/checkoutFeatures.ts";
import { maxRecentEventsMax, type MemoryRequest } from "./request.ts";

/**
 * How long a read waits for another process that holds the graph store (a reproject, another
 * catch-up) before answering from the log folded without it instead (degraded, marked in
 * diagnostics and warned).
 */
export const readLockWaitMs = 5000;

// The read-session types live below the features (retrieval/readSession.ts); named here too for
// the front doors that read them from the service.
export type { CachedSession, ProjectionDiagnostics, ReadSession } from "../retrieval/readSession.ts";

/** `session`'s read-model reason when there was no read model at all. */
const missingReadModel = "missing";

/** Sessions whose indexes a long-running server keeps warm (least recently used evicted). */
export const cachedSessionsMax = 16;

export interface ServiceOptions {
  warn?: (message: string) => void;
  /** Where a read builds a read model it cannot write under the root; the system temp directory by default. */
  scratchDir?: string;
  embeddingDim?: number;
  /** Bound on the summed log size of the warm sessions; defaults to `cachedSessionLogBytesMax`. */
  cachedLogBytesMax?: number;
}

function projectionDiagnostics(projected: ProjectedSession, vectorIndex: string | null): ProjectionDiagnostics {
  const head = projected.rows?.head ?? null;
  return {
    source: projected.source,
    events_applied: projected.eventsApplied,
    head_seq: head?.seq ?? 0,
    head_hash: head?.hash ?? null,
    entity_versions: projected.rows?.entities.length ?? 0,
    vector_index: vectorIndex,
    degraded: projected.degraded,
    degraded_reason: projected.degradedReason,
    warnings: projected.warnings,
  };
}

function fingerprint(file: string): string {
  const stat = fs.statSync(file);
  return `${stat.size}:${stat.mtimeMs}:${stat.ino}`;
}

/** A retrieved context as a document item: `results[]` of `memory query`, in this key order. */
export type ContextJson = {
  content: string;
  source: RetrievedContext["source"];
  source_lane: string;
  score: number;
  valid_from: string | null;
  valid_to: string | null;
  citation: string | null;
  event_seq: number | null;
  event_hash: string | null;
  entity_name?: string;
  entity_type?: string;
  score_explanation: { [key: string]: PlainJson };
  metadata: { [key: string]: PlainJson };
};

/** What `query` answers: the ranked contexts and how they were found. */
export type MemoryQueryDocument = {
  session_id: string;
  query: string;
  results: ContextJson[];
  diagnostics: { [key: string]: PlainJson };
};

export function contextJson(context: RetrievedContext): ContextJson {
  return {
    content: context.content,
    source: context.source,
    source_lane: context.sourceLane,
    score: Math.round(context.score * 1e6) / 1e6,
    valid_from: context.validFrom,
    valid_to: context.validTo,
    citation: context.citation,
    event_seq: context.eventSeq,
    event_hash: context.eventHash,
    ...(context.entityName === undefined ? {} : { entity_name: context.entityName }),
    ...(context.entityType === undefined ? {} : { entity_type: context.entityType }),
    score_explanation: context.scoreExplanation,
    metadata: context.metadata,
  };
}

/** What a read reports of its semantic lane (`diagnostics.semantic`): the model and what it compared. */
function semanticReceipt(lane: SemanticLaneResult): SemanticReceipt {
  const receipt: SemanticReceipt = {
    ran: true,
    model_id: lane.model.id,
    weights_sha256: lane.model.weights_sha256,
    facts_compared: lane.poolSize - lane.notEmbedded,
    facts_not_embedded: lane.notEmbedded,
    embedded_now: lane.embedded,
    hits: lane.hits.length,
  };
  if (lane.model.endpoint !== undefined) receipt.endpoint = lane.model.endpoint;
  if (lane.fallbackReason !== undefined) receipt.fallback_reason = lane.fallbackReason;
  return receipt;
}

/**
 * The share of a question's content terms one current fact must hold for the read to skip the
 * semantic lane: more than two thirds. A question that names its subject in the memory's words,
 * with a framing word memory does not hold ("what did we discuss about the gateway schema
 * migration", 3 of 4), is found by the word lanes; one with two words of three in common or fewer
 * may be a paraphrase, or a question memory cannot answer. On the checkout benchmark's seeded
 * queries the lane never runs; on the paraphrase sets it runs for 69 of 72 and 80 of 82.
 */
const semanticGateCoverMax = 0.7;

/**
 * The receipt of a read whose words already answered it: the lane did not run and no model was
 * loaded; it names the model the lane would have used.
 */
function semanticSkippedReceipt(root: string): SemanticReceipt {
  return { ran: false, reason: "a current fact holds 70 % of the query's content words or more", model_id: embeddingModelId(readEmbeddingSettings(root)) };
}

export class MemoryService implements SessionReader {
  private readonly cache = new Map<string, ReadSession>();
  private readonly pendingRepairs = new Map<string, string[]>();
  /** Sentence vectors of the facts this service compared (semantic lane), per model, kept across reads. */
  private semanticVectors = new Map<string, SemanticVectorCache>();
  /** Whether reads leave idle embedding behind them (`embedFactsWhileIdle`). */
  private idleEmbeddingOn = false;
  /** When the last read started (`performance.now()`): idle embedding waits for a quiet spell. */
  private lastReadStartMs = 0;
  /** Sessions with idle embedding scheduled, by session id. */
  private readonly idleEmbedding = new Map<string, ReturnType<typeof timers.setTimeout>>();

  constructor(
    readonly root: string,
    private readonly options: ServiceOptions = {},
  ) {
    // A forgetting root's cells are opened with its vault (docs/forgetting.md).
    openVault(root);
  }

  /**
   * The session's index at its log head for a read: kept warm, else the on-disk read model when
   * it is at the log head or a short tail behind it (readmodel/: a fresh process reads only what
   * the query touches), else the projection caught up, which writes the read model it answers
   * from (`catchUp`).
   */
  async readSession(sessionId: string): Promise<ReadSession> {
    this.lastReadStartMs = performance.now();
    const file = sessionLogPath(this.root, sessionId, "read");
    const cached = this.cache.get(sessionId);
    if (cached !== undefined && this.logUnchanged(sessionId, cached.fingerprint)) return this.touch(sessionId, cached);
    const { openReadModel } = await import("../readmodel/diskSessionIndex.ts");
    let before: string;
    try {
      before = fingerprint(file);
    } catch {
      // No log: the projection path reports the unknown session.
      return await this.session(sessionId);
    }
    const dim = this.options.embeddingDim ?? defaultEmbeddingDim;
    const opening = await openReadModel(this.root, sessionId, file, async (manifest) => {
      const { viewVectorIndexAt } = await import("../projection/vectorIndex.ts");
      return await viewVectorIndexAt(this.root, sessionId, manifest.head, manifest.head.entityCount, dim);
    }, { eventsMax: readModelTailEventsMax, bytesMax: readModelTailBytesMax });
    if (opening.status === "invalid") return await this.catchUp(sessionId, `read model of session ${JSON.stringify(sessionId)} is rebuilt from the log: ${opening.reason}`);
    if (opening.status === "missing") return await this.catchUp(sessionId, missingReadModel);
    if (opening.status !== "opened") return await this.catchUp(sessionId, null);
    let index = opening.index;
    try {
      if (opening.tail.length > 0) {
        const { overlayTail } = await import("../readmodel/tailCatchUp.ts");
        index = await overlayTail(opening.index, opening.manifest, opening.foldBase, opening.tail);
      }
    } catch (error) {
      opening.index.close();
      if (!(error instanceof ReadModelCorruptError)) throw error;
      return await this.catchUp(sessionId, `read model of session ${JSON.stringify(sessionId)} is rebuilt from the log: ${error.message}`);
    }
    const tail = opening.tail;
    const head = tail.length === 0 ? opening.manifest.head : { seq: tail[tail.length - 1].seq, hash: tail[tail.length - 1].hash };
    const entry: ReadSession = {
      fingerprint: before,
      // Read from disk on demand (and a tail of at most readModelTailEventsMax events): what this
      // entry holds in memory does not grow with the log.
      logBytes: 0,
      index,
      projection: {
        source: tail.length === 0 ? "read_model" : "read_model_tail",
        events_applied: tail.length,
        head_seq: head.seq,
        head_hash: head.hash,
        entity_versions: index.entityCount,
        vector_index: index.vectors?.path ?? null,
        degraded: false,
        degraded_reason: null,
        warnings: [],
      },
      repairs: [],
    };
    this.remember(sessionId, entry);
    return entry;
  }

  /**
   * The session's projection at its log head with every event and row in memory, projecting or
   * catching up first when the log changed; its index is the read model written at that head (for
   * the next fresh process too). `readModelRepair` is the reason the read model is being rebuilt,
   * when it was unusable.
   */
  async session(sessionId: string, readModelRepair: string | null = null): Promise<CachedSession> {
    const cached = this.cache.get(sessionId);
    if (cached !== undefined && "projected" in cached && this.logUnchanged(sessionId, cached.fingerprint)) {
      return this.touch(sessionId, cached) as CachedSession;
    }
    const { projected, rows, vectors, index } = await this.projectAndOpen(sessionId, readModelRepair);
    const entry: CachedSession = {
      fingerprint: fingerprint(projected.logPath),
      // The rows and events are held with the entry: its memory grows with the log.
      logBytes: fs.statSync(projected.logPath).size,
      index,
      projected,
      rows,
      repairs: projected.repairs,
      projection: projectionDiagnostics(projected, vectors?.path ?? null),
    };
    this.remember(sessionId, entry);
    return entry;
  }

  /**
   * A read whose read model is missing, unusable or too far behind (more than a tail): catches
   * the projection up, writes the read model from the rows the way `zaxy reproject` does (each
   * BM25 index built, written and dropped in turn) and answers from the model, so the whole
   * session is never indexed in memory at once (100k events: ~1.85 GB peak when it was).
   */
  private async catchUp(sessionId: string, readModelRepair: string | null): Promise<ReadSession> {
    const { projected, vectors, index } = await this.projectAndOpen(sessionId, readModelRepair);
    // Answered from the model: the rows and events are garbage from here on.
    const entry: ReadSession = {
      fingerprint: fingerprint(projected.logPath),
      logBytes: 0,
      index,
      projection: projectionDiagnostics(projected, vectors?.path ?? null),
      repairs: projected.repairs,
    };
    this.remember(sessionId, entry);
    return entry;
  }

  /**
   * Brings the projection up to the log head and opens the read model at that head: the root's,
   * written now, or, when it cannot be written or opened (a read-only root, the store held by
   * another process, a full disk, an interrupted last append), one built for this read in a
   * scratch directory outside the root (readmodel/scratchReadModel.ts). A degraded read (no
   * store, and no vector index either) folds the log the way the store would hold it.
   */
  private async projectAndOpen(sessionId: string, readModelRepair: string | null): Promise<{
    projected: ProjectedSession;
    rows: SessionGraphRows;
    vectors: SessionVectorIndex | null;
    index: SessionIndex;
  }> {
    const { projected, vectors, rowsForReadModel } = await this.projectWithVectors(sessionId, readModelRepair);
    const rows = projected.rows ?? foldLogRows(sessionId, projected.events);
    if (rowsForReadModel !== null) {
      const written = performance.now();
      let manifest = null;
      try {
        const { writeReadModel } = await import("../readmodel/writeReadModel.ts");
        const { RowsReadModelSource } = await import("../readmodel/readModelSource.ts");
        const source = new RowsReadModelSource(sessionId, rowsForReadModel, projected.events);
        manifest = writeReadModel(this.root, projected.logPath, source, rowsForReadModel, projected.events, this.options.warn);
      } catch (error) {
        this.noteReadModelNotWritten(projected, error);
      }
      projected.timingsMs.read_model_write = Math.round((performance.now() - written) * 100) / 100;
      if (manifest !== null) {
        const { openReadModel } = await import("../readmodel/diskSessionIndex.ts");
        const dim = this.options.embeddingDim ?? defaultEmbeddingDim;
        // The model views the vector file: the vectors synced above need not stay in memory.
        const opening = await openReadModel(this.root, sessionId, projected.logPath, async (opened) => {
          const { viewVectorIndexAt } = await import("../projection/vectorIndex.ts");
          return await viewVectorIndexAt(this.root, sessionId, opened.head, opened.head.entityCount, dim);
        });
        if (opening.status === "opened") return { projected, rows, vectors, index: opening.index };
      }
    }
    const { openScratchReadModel } = await import("../readmodel/scratchReadModel.ts");
    try {
      return { projected, rows, vectors, index: await openScratchReadModel(this.root, sessionId, projected.logPath, rows, projected.events, vectors, this.options.scratchDir) };
    } catch (error) {
      if (!isZaxyError(error) || error.code !== "unwritable_scratch") throw error;
      // A read must answer on a full disk or a read-only file system too: the same index, kept in
      // this process's memory for this read only.
      this.options.warn?.(`${error.message}; answered from an index held in memory`);
      return { projected, rows, vectors, index: buildSessionIndex(sessionId, rows, projected.events, vectors) };
    }
  }

  /**
   * Brings the projection and the vector index up to the log head. `rowsForReadModel` is set when
   * a read model can be written at that head (it needs both); the repair that rewriting it makes
   * is then recorded.
   */
  private async projectWithVectors(sessionId: string, readModelRepair: string | null): Promise<{
    projected: ProjectedSession;
    vectors: SessionVectorIndex | null;
    rowsForReadModel: SessionGraphRows | null;
  }> {
    const { projectSession } = await import("../projection/projector.ts");
    const { readModelBaseRows } = await import("../readmodel/readModelRows.ts");
    const projected = await projectSession(this.root, sessionId, { warn: this.options.warn, lockWaitMs: readLockWaitMs, baseRows: readModelBaseRows });
    const repair = (message: string) => {
      projected.warnings.push(message);
      projected.repairs.push(message);
      this.options.warn?.(message);
    };
    const mark = performance.now();
    let vectors: SessionVectorIndex | null = null;
    if (projected.rows !== null) {
      const { syncVectorIndex } = await import("../projection/vectorIndex.ts");
      try {
        const dim = this.options.embeddingDim ?? defaultEmbeddingDim;
        vectors = await syncVectorIndex(this.root, sessionId, projected.rows, projected.events, dim, undefined, repair);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        const message = `vector index unavailable, vector lane skipped: ${reason}`;
        projected.warnings.push(message);
        this.options.warn?.(message);
        // An answer without the vector lane may miss what only it finds: it says so (degraded).
        projected.degraded = true;
        projected.degradedReason = `the vector index is unavailable: ${reason}`;
      }
    }
    projected.timingsMs.vector_index = Math.round((performance.now() - mark) * 100) / 100;
    if (projected.rows === null || vectors === null) return { projected, vectors, rowsForReadModel: null };
    // A missing read model is news only when the vector index was already at the log head (a
    // read model is written with it): else this is the session's first read, a catch-up, or the
    // first read since the vector index could not be loaded, which write a read model as a
    // matter of course.
    if (readModelRepair === missingReadModel) {
      if (vectors.action === "loaded") repair(`read model of session ${JSON.stringify(sessionId)} was missing; rebuilt from the log`);
    } else if (readModelRepair !== null) repair(readModelRepair);
    return { projected, vectors, rowsForReadModel: projected.rows };
  }

  private noteReadModelNotWritten(projected: ProjectedSession, error: unknown): void {
    const message = `read model of session ${JSON.stringify(projected.sessionId)} not written: ${error instanceof Error ? error.message : String(error)}`;
    projected.warnings.push(message);
    this.options.warn?.(message);
  }

  private touch(sessionId: string, cached: ReadSession): ReadSession {
    // Most recently used last, so eviction takes the least recently used.
    this.cache.delete(sessionId);
    this.cache.set(sessionId, cached);
    const repairs = this.pendingRepairs.get(sessionId) ?? [];
    this.pendingRepairs.delete(sessionId);
    return { ...cached, repairs };
  }

  /**
   * Drops every warm session, so the next read is rebuilt from the log: after a forget, no index
   * this process holds may keep content whose key was destroyed.
   */
  dropAll(): void {
    this.cache.clear();
    this.pendingRepairs.clear();
    // The semantic lane's vectors are keyed by fact text: a forgotten fact's text goes with them,
    // and an embedding under way must not store one after the forget deleted the files.
    for (const vectors of this.semanticVectors.values()) vectors.close();
    this.semanticVectors.clear();
    for (const timer of this.idleEmbedding.values()) timers.clearTimeout(timer);
    this.idleEmbedding.clear();
  }

  private remember(sessionId: string, entry: ReadSession): void {
    this.cache.delete(sessionId);
    this.cache.set(sessionId, entry);
    this.evictColdSessions();
  }

  /**
   * Drops least recently used sessions while more than `cachedSessionsMax` are warm or their
   * logs sum to more than the byte bound; the session just used always stays.
   */
  private evictColdSessions(): void {
    const logBytesMax = this.options.cachedLogBytesMax ?? cachedSessionLogBytesMax;
    let logBytes = 0;
    for (const entry of this.cache.values()) logBytes += entry.logBytes;
    for (const [sessionId, entry] of this.cache) {
      if (this.cache.size <= 1 || (this.cache.size <= cachedSessionsMax && logBytes <= logBytesMax)) break;
      this.cache.delete(sessionId);
      logBytes -= entry.logBytes;
    }
  }

  /**
   * Runs a read; when a read-model file turns out corrupt mid-read (its pieces are checked as
   * they are read), the session is dropped, read again through the projection (which rebuilds the
   * read model, with a warning) and the read runs again: an answer never comes from a bad file.
   */
  private async withReadModelFallback<T>(sessionId: string, read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (error) {
      if (!(error instanceof ReadModelCorruptError)) throw error;
      this.cache.delete(sessionId);
      const rebuilt = await this.session(sessionId, `read model of session ${JSON.stringify(sessionId)} is rebuilt from the log: ${error.message}`);
      // The retried read finds the session warm; it must still report what was repaired for it.
      this.pendingRepairs.set(sessionId, rebuilt.repairs);
      return await read();
    }
  }

  async withReadSession<T>(sessionId: string, read: (session: ReadSession) => T | Promise<T>): Promise<T> {
    return await this.withReadModelFallback(sessionId, async () => await read(await this.readSession(sessionId)));
  }

  /**
   * The semantic lane for the request, with the configured model (semantic/embedderChoice.ts)
   * loaded on first use: only reads that run the lane pay for it. A model server that fails is
   * replaced by the bundled model for the whole read, with the reason in the receipt and a warning:
   * a read never fails because an endpoint is down.
   */
  private async semanticLane(sessionId: string, index: SessionIndex, query: string, logFingerprint: string): Promise<{ lane: SemanticLaneResult; warning?: string }> {
    const { configuredSemanticEmbedders } = await import("../semantic/embedderChoice.ts");
    const { semanticLane, SemanticVectorCache, unlimitedEmbedBudget } = await import("../retrieval/semanticLane.ts");
    const { primary, fallback } = await configuredSemanticEmbedders(this.root);
    const run = async (embedder: SemanticEmbedder) => {
      let cache = this.semanticVectors.get(embedder.receipt.id);
      if (cache === undefined) {
        cache = new SemanticVectorCache(embedder.receipt.id, this.root);
        this.semanticVectors.set(embedder.receipt.id, cache);
      }
      const lane = await semanticLane(sessionId, index, query, embedder, cache, { limit: laneHitsMax, storeWhile: () => this.logUnchanged(sessionId, logFingerprint) });
      if (lane.notEmbedded > 0) this.embedWhileIdle(sessionId, embedder, cache);
      return lane;
    };
    try {
      return { lane: await run(primary) };
    } catch (error) {
      if (fallback === null || !(error instanceof Error && error.name === "EmbeddingEndpointError")) throw error;
      const lane = await run(fallback);
      lane.fallbackReason = error.message;
      return { lane, warning: `semantic lane: ${error.message}; ranked with the bundled model ${lane.model.id} instead` };
    }
  }

  /** Whether the session's log is as it was when a read saw it at `logFingerprint` (a session without a log: ""). */
  private logUnchanged(sessionId: string, logFingerprint: string): boolean {
    const file = sessionLogPath(this.root, sessionId, "read");
    if (!fs.existsSync(file)) return logFingerprint === "";
    return fingerprint(file) === logFingerprint;
  }

  /**
   * From now on, a read that leaves facts without a vector has them embedded a few at a time while
   * no call runs (`zaxy serve`: a long-lived process whose later reads gain from it; a one-shot
   * command leaves them to later reads or `zaxy memory embed`).
   */
  embedFactsWhileIdle(): void {
    this.idleEmbeddingOn = true;
  }

  /**
   * Once `embedFactsWhileIdle` was called, embeds `semanticIdleEmbedBatchMax` more of the session's
   * facts that have no vector yet per step, until none is left. A step runs only when no read has
   * started for `semanticIdleEmbedDelayMs`; steps follow each other with a pause that lets a call
   * in, so a call waits for at most one step. It works on the session as the last read saw it and
   * only while that is still the log's state: after an append or a forget it stops, and the next
   * read starts it again on the new state (so it never embeds a forgotten text). The timer never
   * keeps the process alive.
   */
  private embedWhileIdle(sessionId: string, embedder: SemanticEmbedder, cache: SemanticVectorCache, delayMs = semanticIdleEmbedDelayMs): void {
    if (!this.idleEmbeddingOn || this.idleEmbedding.has(sessionId)) return;
    const step = async () => {
      this.idleEmbedding.delete(sessionId);
      const quietMs = performance.now() - this.lastReadStartMs;
      if (quietMs < semanticIdleEmbedDelayMs) return this.embedWhileIdle(sessionId, embedder, cache, semanticIdleEmbedDelayMs - quietMs);
      const session = this.cache.get(sessionId);
      if (session === undefined || !this.logUnchanged(sessionId, session.fingerprint) || embedder.receipt.dim === 0) return;
      try {
        const storeWhile = () => this.logUnchanged(sessionId, session.fingerprint);
        const pending = await cache.embedPending(sessionId, session.index, embedder, embedder.receipt.dim, { facts: semanticIdleEmbedBatchMax, chars: Number.POSITIVE_INFINITY }, storeWhile);
        if (pending > 0) this.embedWhileIdle(sessionId, embedder, cache, 1);
      } catch (error) {
        this.options.warn?.(`semantic lane: embedding the facts of session ${JSON.stringify(sessionId)} while idle stopped: ${error instanceof Error ? error.message : String(error)}`);
      }
    };
    const timer = timers.setTimeout(() => void step(), delayMs);
    timer.unref();
    this.idleEmbedding.set(sessionId, timer);
  }

  /**
   * Embeds every current fact of the session the semantic lane compares that has no stored vector
   * yet (`zaxy memory embed`), with the configured model: no fallback, a failing model server is
   * the command's error.
   */
  async embedSession(sessionId: string): Promise<{ receipt: SemanticReceipt; file: string }> {
    const { configuredSemanticEmbedders } = await import("../semantic/embedderChoice.ts");
    const { semanticLane, SemanticVectorCache, unlimitedEmbedBudget } = await import("../retrieval/semanticLane.ts");
    const { primary } = await configuredSemanticEmbedders(this.root);
    return await this.withReadSession(sessionId, async (session) => {
      const cache = new SemanticVectorCache(primary.receipt.id, this.root);
      // As for a read: a fact forgotten while the model ran must not get its vector stored.
      const storeWhile = () => this.logUnchanged(sessionId, session.fingerprint);
      const lane = await semanticLane(sessionId, session.index, "", primary, cache, { limit: 0, embedBudget: unlimitedEmbedBudget, storeWhile });
      // The warm pools of this service were built before these vectors existed.
      this.semanticVectors.delete(primary.receipt.id);
      if (!storeWhile()) {
        throw ioError("log_changed", `Cannot store the vectors of session ${JSON.stringify(sessionId)}: its log changed while its facts were embedded (an append or a forget); none of this run's vectors was stored`, {
          field: "session_id",
          hint: "run `zaxy memory embed` again",
        });
      }
      return { receipt: semanticReceipt(lane), file: cache.storeFile(sessionId, lane.model.dim) };
    });
  }

  /**
   * Whether the read runs the semantic lane: always when asked (`semantic: true`), never when
   * refused, and otherwise only when the query's words leave it open: it has content words and
   * no current fact the other lanes found holds `semanticGateCoverMax` of them or more
   * (checkout/checkout.ts). A question asked in the memory's own words, a framing word aside
   * ("what did we discuss about …"), is answered without loading a model.
   */
  private static wantsSemantic(request: MemoryRequest, lexical: RetrievalResult): boolean {
    if (request.semantic !== undefined) return request.semantic;
    const cover = bestFactQueryCover(lexical.contexts, request.query);
    return cover !== null && cover < semanticGateCoverMax;
  }

  private async retrieval(request: MemoryRequest): Promise<{ session: ReadSession; retrieval: RetrievalResult }> {
    // Agents check out at the start of every turn, before their first append: a session without a
    // log is read as empty (docs/checkout.md "A session with no events yet"), not refused.
    const hasLog = fs.existsSync(sessionLogPath(this.root, request.sessionId, "read"));
    const session = hasLog ? await this.readSession(request.sessionId) : noEventsSession(request.sessionId);
    // Artifact records are served only when their event ref resolves to the sealed event.
    const refs = await checkProjectionRefs(this.root, request.sessionId, session.index, loadRootProjectionFiles(this.root, this.options.warn));
    // A read that runs the semantic lane ranks twice (first without it, to decide whether to load
    // the model); both rankings take the one vector-lane scan, so the second, made while the
    // model is loaded, scans nothing (a 1,000,000-event scan allocates ~30 MB).
    const vectorLane = vectorLaneAnswer(session.index, request.query);
    let retrieved = retrieve(session.index, request.query, { limit: request.limit, depth: request.depth, vectorLane });
    const semanticWarnings: string[] = [];
    if (MemoryService.wantsSemantic(request, retrieved)) {
      const { lane, warning } = await this.semanticLane(request.sessionId, session.index, request.query, session.fingerprint);
      if (warning !== undefined) semanticWarnings.push(warning);
      if (lane.notEmbedded > 0) {
        semanticWarnings.push(
          `semantic lane compared ${lane.poolSize - lane.notEmbedded} of ${lane.poolSize} current facts; the rest have no vector yet (later reads embed them, or run \`zaxy memory embed --session-id ${request.sessionId}\`)`,
        );
      }
      retrieved = { ...retrieve(session.index, request.query, { limit: request.limit, depth: request.depth, semantic: lane, vectorLane }), semantic: semanticReceipt(lane) };
    } else if (request.semantic === undefined) {
      retrieved = { ...retrieved, semantic: semanticSkippedReceipt(this.root) };
    }
    const projections = projectionLane(refs.servable, request.query, request.limit);
    if (projections !== null) retrieved = mergeLane(retrieved, projections);
    // Marked after the merge, so a degraded answer marks the projection lane's contexts too.
    if (session.projection.degraded) retrieved = markDegraded(retrieved, session.projection.degraded_reason ?? "graph unavailable");
    const warnings = [...semanticWarnings, ...unresolvedRefWarnings(refs, request.query, request.limit)];
    if (!hasLog) warnings.unshift(noEventsWarning(request.sessionId));
    for (const warning of warnings) this.options.warn?.(warning);
    const retrieval = warnings.length === 0 ? retrieved : { ...retrieved, warnings: [...(retrieved.warnings ?? []), ...warnings] };
    return { session, retrieval };
  }

  /** Ranked, cited contexts (current and superseded) with per-lane counts. */
  async query(request: MemoryRequest): Promise<MemoryQueryDocument> {
    return await this.withReadModelFallback(request.sessionId, () => this.queryOnce(request));
  }

  private async queryOnce(request: MemoryRequest): Promise<MemoryQueryDocument> {
    const { session, retrieval } = await this.retrieval(request);
    return {
      session_id: request.sessionId,
      query: request.query,
      results: retrieval.contexts.map(contextJson),
      diagnostics: {
        source_lanes: retrieval.laneCounts,
        result_count: retrieval.contexts.length,
        degraded: retrieval.degraded,
        ...(retrieval.degraded ? { degraded_reason: retrieval.degradedReason ?? null } : {}),
        ...(retrieval.warnings === undefined ? {} : { warnings: retrieval.warnings }),
        ...(retrieval.semantic === undefined ? {} : { semantic: retrieval.semantic }),
        projection: { ...session.projection },
      },
    };
  }

  /**
   * Retrieval plus the recent-events window: from `replay_from_seq`, the last `recentEventsMax`
   * events (`max_recent_events`, or what a long-horizon checkout's recent window allows).
   */
  private async assemblyInput(request: MemoryRequest, recentEventsMax = request.maxRecentEvents): Promise<{ input: AssembleInput; session: ReadSession }> {
    const { session, retrieval } = await this.retrieval(request);
    const { eventCount } = session.index;
    const replayedCount = Math.max(0, eventCount - (request.replayFromSeq - 1));
    const recentCount = Math.min(replayedCount, recentEventsMax);
    const recent = session.index.eventRange(eventCount - recentCount, eventCount);
    const input = {
      sessionId: request.sessionId,
      query: request.query,
      retrieval,
      recentEvents: recent,
      withheldRuleSeqs: session.index.folds.withheldRuleSeqs(),
      replayEventCount: recent.length,
      compacted: recent.length < replayedCount,
      limit: request.limit,
      maxTokens: request.maxTokens,
      projectionRepairs: session.repairs,
    };
    return { input, session };
  }

  /**
   * The effective long-horizon switch and window of a checkout: the per-call value, else the
   * root's config.json. Null when long-horizon checkout is off.
   */
  private longHorizonWindow(request: MemoryRequest): number | null {
    const needsConfig = request.longHorizon === undefined || (request.longHorizon && request.longHorizonRecentWindow === undefined);
    const config = needsConfig ? readLongHorizonConfig(this.root) : null;
    const enabled = request.longHorizon ?? config?.enabled ?? false;
    if (!enabled) {
      if (request.longHorizonRecentWindow !== undefined) {
        throw inputError(
          "invalid_option",
          "long_horizon_recent_window (--recent-window) applies only to a long-horizon checkout: pass long_horizon true " +
            "(--long-horizon) or set long_horizon_enabled in config.json",
          { field: "long_horizon_recent_window", expected: "long-horizon checkout on" },
        );
      }
      return null;
    }
    return request.longHorizonRecentWindow ?? config?.recentWindow ?? readLongHorizonConfig(this.root).recentWindow;
  }

  /**
   * How many recent events a checkout shows. With long-horizon on, the recent window is the
   * episodic tier and Recent Events shows it (seed 002: the last `long_horizon_recent_window`
   * events at full detail), at most `max_recent_events` when the caller set it and never more than
   * `maxRecentEventsMax`; the rest of the tier is reached through the retrieval lanes. Never more
   * than the window, so the remote tier (events before it) never covers a shown event.
   */
  private recentEventsShown(request: MemoryRequest, recentWindow: number | null): number {
    if (recentWindow === null) return request.maxRecentEvents;
    return Math.min(recentWindow, request.maxRecentEventsGiven ? request.maxRecentEvents : maxRecentEventsMax);
  }

  async checkout(request: MemoryRequest): Promise<MemoryCheckout> {
    return await this.withReadModelFallback(request.sessionId, () => this.checkoutOnce(request));
  }

  private async checkoutOnce(request: MemoryRequest): Promise<MemoryCheckout> {
    const recentWindow = this.longHorizonWindow(request);
    const { input, session } = await this.assemblyInput(request, this.recentEventsShown(request, recentWindow));
    const semantic = input.retrieval.semantic;
    const lanes: CheckoutLane[] = [];
    if (recentWindow !== null) {
      lanes.push(longHorizonLane(buildLongHorizonPlan({
        sessionId: request.sessionId,
        events: session.index.eventRange(0, session.index.eventCount),
        recentWindow,
        budget: request.limit,
        query: request.query,
      })));
    }
    // The fleet lane runs only when the root enables it and the call names fleets (docs/fleet.md).
    const fleet = request.fleetIds === undefined ? null : await this.fleetLane(request, request.fleetIds);
    if (fleet !== null) lanes.push(fleet.lane);
    for (const lane of lanes) {
      input.retrieval = mergeLane(input.retrieval, lane);
      if (lane.raisesContextLimit) input.limit += lane.contexts.length;
    }
    const features = checkoutFeatureContributions({ sessionId: request.sessionId, folds: session.index.folds, retrieval: input.retrieval }, checkoutFeatures);
    // The receipt of the semantic lane: which model (and weights) ranked this checkout.
    if (semantic !== undefined) features.extraDiagnostics.semantic = semantic;
    // Lane sections follow the features' sections, in lane order.
    for (const { report } of lanes) {
      if (report === null) continue;
      features.extraDiagnostics[report.key] = report.diagnostics;
      features.extraDiagnosticLines.push(report.promptLine);
      if (report.mandatoryGuidance.length > 0) features.extraGuidance.mandatory = [...(features.extraGuidance.mandatory ?? []), ...report.mandatoryGuidance];
    }
    // A fleet ignored or left out is said in the answer too, warnings and prompt, not only on
    // stderr: an MCP client sees no stderr.
    const ignored = request.fleetIds === undefined ? [] : fleet === null ? [fleetLaneOffWarning] : fleet.warnings;
    return buildCheckout({ ...input, ...features, laneWarnings: ignored });
  }

  /**
   * The checkout fleet lane and what it left out (fleets the agent may not read, fleets that
   * failed verification), or null when config.json does not set fleet_enabled (a warning says so).
   */
  private async fleetLane(request: MemoryRequest, fleetIds: readonly string[]): Promise<{ lane: CheckoutLane; warnings: string[] } | null> {
    if (!readFleetEnabled(this.root)) {
      this.options.warn?.(fleetLaneOffWarning);
      return null;
    }
    const { buildFleetLane, fleetCheckoutLane } = await import("../fleet/checkoutLane.ts");
    const built = await buildFleetLane({ root: this.root, fleetIds, agentId: request.agentId ?? request.sessionId, sessionId: request.sessionId, warn: this.options.warn });
    return { lane: fleetCheckoutLane(built), warnings: built.warnings };
  }

  async assemble(request: MemoryRequest): Promise<ContextAssembly> {
    return await this.withReadModelFallback(request.sessionId, async () => assembleContext((await this.assemblyInput(request)).input));
  }
}

/** The warning of a read of a session without a log: why the answer is empty. */
function noEventsWarning(sessionId: string): string {
  return `session ${JSON.stringify(sessionId)} has no events yet, so nothing in it can be recalled or cited; its first append creates it`;
}

/**
 * A session without a log as a read sees it: no events, no entities, no vector index. Built in
 * memory, never cached (the first append must be seen by the next read) and nothing is written
 * for it: no log, no projection, no read model.
 */
function noEventsSession(sessionId: string): ReadSession {
  return {
    fingerprint: "",
    logBytes: 0,
    index: new EmptySessionIndex(sessionId, foldLogRows(sessionId, [])),
    projection: {
      source: "no_log",
      events_applied: 0,
      head_seq: 0,
      head_hash: null,
      entity_versions: 0,
      vector_index: null,
      degraded: false,
      degraded_reason: null,
      warnings: [],
    },
    repairs: [],
  };
}

const fleetLaneOffWarning = "fleet lane is off: fleet ids ignored; turn it on with `zaxy config set fleet_enabled true` (zaxy help --topic fleet; docs/fleet.md)";

/** The root's memory service once made (by the first call, with that call's options). */
const memoryServiceSlot = defineRootSlot("memory service", (): { service?: MemoryService } => ({}));

/**
 * One service per Eventloom root handle for the life of the process: `zaxy serve` answers every
 * call from it, so indexes stay warm between calls. A root path means the process's handle.
 */
export function sharedMemoryService(root: string | Root, options: ServiceOptions = {}): MemoryService {
  const held = Root.of(root).slot(memoryServiceSlot);
  held.service ??= new MemoryService(typeof root === "string" ? root : root.path, options);
  return held.service;
}
