/**
 * Brings a session's projection up to its log before a read, or rebuilds it (DESIGN §4).
 *
 * Order of trust: the log is verified first, and a log that fails verification is never
 * projected (the caller gets `integrity_failure`, exit 1). The projection's durable state is the
 * read model's entity and relation tables, which the caller hands in (`baseRows`,
 * readmodel/readModelRows.ts) after their own checks (authenticated manifest, SHA-256, counts).
 * They are used only when their head is an event of the verified log (same seq, same hash): the
 * events after it are folded on top of them, and any other state is rebuilt from the log; the
 * caller writes the read model at the new head. The Kuzu graph store is a
 * copy that no read answers from: it is brought up to date only when asked (`graphStore:
 * "sync"`), where its head must be an event of the verified log and the session's stored rows
 * must add up to the counts the head records; if not, the log was rewritten or tampered, or a
 * write was interrupted, and the session is rebuilt from scratch. Every rebuild or repair is
 * reported through `warn` and listed in `repairs`. When the store cannot be opened (another
 * process holds it past the wait, or opening fails twice), a sync degrades: the caller falls back
 * to the log itself.
 *
 * SIGINT/SIGTERM during a store write stop it at a safe point (`platform/interrupt.ts`): a
 * catch-up is rolled back to the previous head, a rebuild leaves rows without a head (rebuilt on
 * the next read), then the process dies of the signal.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { EventRecord } from "../eventloom/envelope.ts";
import { fileSystemErrorCode, fileSystemReason, projectionsDir, sessionLogPath, unknownSessionError } from "../eventloom/root.ts";
import { readVerifiedEvents } from "../eventloom/replay.ts";
import { verifiedCheckpointPath } from "../eventloom/verifiedCheckpoint.ts";
import type { IntegrityReport } from "../eventloom/verify.ts";
import { runInterruptible } from "../platform/interrupt.ts";
import { collectGarbageNow, requestGarbageCollection } from "../platform/mod.ts";
import { extractEvent } from "./extract/mod.ts";
import { GraphFold } from "./graphFold.ts";
import { deleteDatabaseFiles, headCountMismatch, KuzuStore } from "./kuzuStore.ts";
import { loadKuzu } from "./kuzuRuntime.ts";
import { removeOrphanTempFiles } from "../platform/orphanTempFiles.ts";
import { ProjectionCorruptError, ProjectionInterruptedError, ProjectionWriteError } from "./projectionErrors.ts";
import type { GraphDiff, ProjectionHead, SessionGraphRows } from "./types.ts";
import type { PackedGraphRows } from "./relationStore.ts";
import type { ScratchTexts } from "./scratchTexts.ts";

export interface ProjectOptions {
  /** Warnings (rebuilds, degraded reads) for stderr or diagnostics. */
  warn?: (message: string) => void;
  /** Rebuild the session from scratch even when the head matches (`zaxy reproject`). */
  rebuild?: boolean;
  /**
   * The rows a catch-up may continue from: the session's read model's, when it passes its checks
   * (`readModelBaseRows`, readmodel/readModelRows.ts), else null. The read model lives above the
   * projection, so its callers pass it in. Without it, a catch-up folds the whole log (or, with
   * the graph store, reads the store's rows back).
   */
  baseRows?: (root: string, sessionId: string) => SessionGraphRows | null;
  /**
   * Whether the Kuzu graph store is brought up to the log head too (`sync`: `zaxy graph sync`,
   * `zaxy reproject --graph-store`), or left where it is (`lazy`, the default). No
   * read answers from Kuzu (retrieval reads the read model and the vector index),
   * so reads and catch-ups leave it to the commands that use it: loading kuzu-wasm and bulk
   * loading its tables was most of a catch-up's time and of a reproject's (100k events: ~17 s of
   * ~30 s), and its heap is never given back.
   */
  graphStore?: "sync" | "lazy";
  /** How long to wait for another process holding the store (default the store's). */
  lockWaitMs?: number;
  /** Progress of a rebuild's rows written. */
  onProgress?: (phase: string, done: number, total: number) => void;
  /** When the store cannot be opened: degrade (reads) or throw (reproject). */
  onStoreFailure?: "degrade" | "throw";
  /**
   * Called with the rows at the log head once they are folded, before the store is written
   * (`zaxy reproject` builds the vector index and the read model here). Kuzu's wasm heap grows
   * during the write and never shrinks, so work done before it does not add its own peak on top.
   * Its time is not counted in `timingsMs`. The events are released after it (`result.events` is
   * then empty): the store write needs only the folded rows, and 100k parsed events hold ~300 MB.
   * The hook may empty `events` in place (`length = 0`) once it is done with them, to release
   * them before work of its own that needs only the rows.
   */
  beforeStoreWrite?: (rows: SessionGraphRows, events: EventRecord[]) => Promise<void>;
}

export interface ProjectedSession {
  sessionId: string;
  logPath: string;
  integrity: IntegrityReport;
  /** Every verified event, in order; empty when `beforeStoreWrite` was given (released after it). */
  events: EventRecord[];
  /** The projected rows at the log head; null when degraded. */
  rows: SessionGraphRows | null;
  degraded: boolean;
  degradedReason: string | null;
  /** `cache` (read model at head), `store` (Kuzu already at head), `caught_up`, `rebuilt`. */
  source: "cache" | "store" | "caught_up" | "rebuilt" | "degraded";
  /** Events folded by this call. */
  eventsApplied: number;
  /** Every warning of this call (also passed to `warn`). */
  warnings: string[];
  /** The warnings that report a rebuild or repair of derived state (a subset of `warnings`). */
  repairs: string[];
  timingsMs: { [phase: string]: number };
}

/** Why the store could not be opened, readable: a file-system fault names its reason and path. */
function storeFailureReason(error: unknown): string {
  if (fileSystemErrorCode(error) === undefined) return error instanceof Error ? error.message : String(error);
  const where = (error as { path?: unknown }).path;
  return typeof where === "string" ? `${fileSystemReason(error)} (${where})` : fileSystemReason(error);
}

export function projectionDbPath(root: string): string {
  return path.join(projectionsDir(root), "embedded.kuzu");
}

/** Whether `head` names an event of the log: same seq, same hash. */
export function headInLog(head: ProjectionHead, events: readonly EventRecord[]): boolean {
  const event = events[head.seq - 1];
  return event !== undefined && event.seq === head.seq && event.hash === head.hash;
}

function sameHead(a: ProjectionHead | null, b: ProjectionHead | null): boolean {
  return a !== null && b !== null && a.seq === b.seq && a.hash === b.hash && a.eventCount === b.eventCount &&
    a.entityCount === b.entityCount && a.currentEntityCount === b.currentEntityCount && a.relationCount === b.relationCount &&
    a.currentRelationCount === b.currentRelationCount;
}


/**
 * Throws what `readVerifiedLog` throws for a session without a log (`unknown_session`, or
 * `invalid_session_id`), without reading the log: a caller that must refuse before changing
 * anything need not parse 100k events twice.
 */
export function assertSessionLogExists(root: string, sessionId: string): void {
  const logPath = sessionLogPath(root, sessionId, "read");
  if (!fs.existsSync(logPath)) throw unknownSessionError(sessionId, logPath);
}

/** Verifies and reads a session's log; throws `unknown_session` (2) or `integrity_failure` (1). */
export async function readVerifiedLog(root: string, sessionId: string): Promise<{ logPath: string; integrity: IntegrityReport; events: EventRecord[]; checkpointRefused?: string }> {
  const logPath = sessionLogPath(root, sessionId, "read");
  const { integrity, events, checkpointRefused } = await readVerifiedEvents(logPath, {
    sessionId,
    checkpointPath: verifiedCheckpointPath(root, sessionId),
    missing: () => unknownSessionError(sessionId, logPath),
    failureMessage: (failure) => `The log of session ${JSON.stringify(sessionId)} ${failure}; it will not be projected`,
  });
  return { logPath, integrity, events, checkpointRefused };
}

/**
 * Events folded between two garbage-collection requests, at least. Extraction makes several
 * short-lived objects per event, which Bun's collector let pile up: folding 100k events peaked at
 * ~1 GB RSS for ~370 MB of live heap, and at ~650 MB with a request every 10k events.
 */
const foldEventsPerCollectionMin = 10_000;

/**
 * Events folded between two requests, at most: past it the garbage of the gap, not the rows, made
 * the fold's peak. 1M events in one pass, four runs each: 3.4-3.6 GB peak RSS with gaps of at
 * most 100k, 2.9-3.5 GB (three of four under 3 GB) with 50k for ~3 s more, 2.8 GB with 25k for
 * ~12 s more; the last gaps of a quarter of the events folded (150-230k) peaked higher still.
 * With the relations in columns (fewer cells to mark) and collections made now in the streamed
 * fold: 1.97 GB with 50k, 1.85 GB with 40k, in the same time.
 */
const foldEventsPerCollectionMax = 40_000;

/**
 * Summary characters folded between two collections, at most: an event's garbage grows with its
 * text. Long payloads (1M events, 927 MB of log, ~440 summary characters an event, the entity
 * texts in a scratch file) peaked at the fold's end: 1.91 GB with gaps of 40k events, 1.76 GB
 * with 30k; this bound gives them ~27k and leaves the bench generator's (~110 an event) at 40k.
 */
const foldSummaryCharsPerCollectionMax = 12_000_000;

/**
 * Past the minimum, the gap between two requests grows with the events already folded (a
 * quarter of them), up to the maximum. A collection marks the whole live heap (the events and
 * the rows so far), so requests at a fixed small gap cost the square of the session's length: at
 * 1M events the fold spent most of its ~250 s in them (~80x the 100k fold's time for 10x the
 * events). With the gap growing in proportion, their total work is a constant multiple of the
 * final heap until the gap reaches its maximum, where a few more collections bound the garbage.
 */
function foldEventsBeforeCollection(eventsFolded: number): number {
  return Math.min(foldEventsPerCollectionMax, Math.max(foldEventsPerCollectionMin, Math.floor(eventsFolded / 4)));
}

/** The rows at the head and the diff to write; the fold's lookup maps are garbage once it returns. */
function foldEvents(sessionId: string, base: SessionGraphRows | undefined, events: readonly EventRecord[], fromSeq: number): { rows: SessionGraphRows; diff: GraphDiff | null } {
  const fold = new GraphFold(sessionId, base);
  let nextCollectionAt = fromSeq - 1 + foldEventsPerCollectionMin;
  for (let i = fromSeq - 1; i < events.length; i++) {
    fold.apply(events[i], extractEvent(events[i]));
    if (i + 1 === nextCollectionAt) {
      requestGarbageCollection();
      nextCollectionAt += foldEventsBeforeCollection(i + 1 - (fromSeq - 1));
    }
  }
  const diff = fold.diff();
  return { rows: fold.rows(), diff };
}

export interface StreamedRebuild {
  logPath: string;
  integrity: IntegrityReport;
  /** The rows at the log head, folded from scratch, the relations as the fold's store. */
  rows: PackedGraphRows;
  eventCount: number;
  warnings: string[];
  repairs: string[];
  /** `verify_and_read` (verification and parsing) and `fold`, though they interleave. */
  timingsMs: { [phase: string]: number };
}

/**
 * A session's rows rebuilt from its log without the graph store, verifying and folding in one
 * pass (`zaxy reproject`): once the log passed verification each event is parsed, folded, handed
 * to `onEvent` and dropped, so no more than one parsed event is held at a time (holding them
 * all was most of a 1M-event reproject's ~9 GB peak). The rows are those `projectSession` gives
 * with `rebuild: true`; a log that fails verification throws the same errors before any event
 * is folded. With `scratchTexts` the entity versions keep their summaries and properties there
 * (the caller closes it once done with the rows).
 */
export async function rebuildSessionStreamed(
  root: string,
  sessionId: string,
  options: { warn?: (message: string) => void; onEvent?: (event: EventRecord) => void; scratchTexts?: ScratchTexts } = {},
): Promise<StreamedRebuild> {
  const report = projectionReport(options);
  const started = performance.now();
  const logPath = sessionLogPath(root, sessionId, "read");
  const fold = new GraphFold(sessionId, undefined, { keepEventRows: false, scratchTexts: options.scratchTexts });
  let eventCount = 0;
  let foldMs = 0;
  let nextCollectionAt = foldEventsPerCollectionMin;
  let summaryChars = 0;
  const { integrity, checkpointRefused } = await readVerifiedEvents(logPath, {
    sessionId,
    checkpointPath: verifiedCheckpointPath(root, sessionId),
    missing: () => unknownSessionError(sessionId, logPath),
    failureMessage: (failure) => `The log of session ${JSON.stringify(sessionId)} ${failure}; it will not be projected`,
    eachEvent: (event) => {
      const foldStarted = performance.now();
      const extraction = extractEvent(event);
      fold.apply(event, extraction);
      options.onEvent?.(event);
      eventCount++;
      for (const entity of extraction.entities) summaryChars += entity.summary?.length ?? 0;
      if (eventCount === nextCollectionAt || summaryChars >= foldSummaryCharsPerCollectionMax) {
        // Collected now, not requested: on a busy machine the concurrent collector fell behind
        // the fold (1M events, two cores shared: 3.0-3.7 GB peak RSS with requests, ~2.2 GB at
        // the fold's end collecting now, and no slower).
        collectGarbageNow();
        nextCollectionAt = eventCount + foldEventsBeforeCollection(eventCount);
        summaryChars = 0;
      }
      foldMs += performance.now() - foldStarted;
    },
  });
  if (checkpointRefused !== undefined) {
    report.repair(`verified checkpoint "${verifiedCheckpointPath(root, sessionId)}" is not used: ${checkpointRefused.replace(/^the checkpoint /, "it ")}; the log was verified in full and the checkpoint written again`);
  }
  // The caller writes the vector index: temp files of writers that died doing the same go first.
  const orphanTemps = removeOrphanTempFiles([path.join(projectionsDir(root), "vectors")]);
  if (orphanTemps.length > 0) {
    report.repair(`Removed ${orphanTemps.length} temp file(s) left by an interrupted projection write: ${orphanTemps.map((file) => path.basename(file)).join(", ")}`);
  }
  const rows = fold.packedRows();
  const totalMs = performance.now() - started;
  report.timingsMs.verify_and_read = Math.round((totalMs - foldMs) * 100) / 100;
  report.timingsMs.fold = Math.round(foldMs * 100) / 100;
  return { logPath, integrity, rows, eventCount, warnings: report.warnings, repairs: report.repairs, timingsMs: report.timingsMs };
}

/**
 * The session's projection at the head of its verified log.
 *
 * @example
 * const projected = await projectSession(".eventloom", "default", { warn: console.error });
 * projected.rows?.entities.filter((e) => e.validTo === null);
 */
export async function projectSession(root: string, sessionId: string, options: ProjectOptions = {}): Promise<ProjectedSession> {
  const report = projectionReport(options);
  const syncGraphStore = options.graphStore === "sync";
  const result = await verifiedSession(root, sessionId, options, report);
  const logHead = result.events.at(-1);
  const cached = options.rebuild ? null : options.baseRows?.(root, sessionId) ?? null;
  if (!syncGraphStore && cached?.head && logHead !== undefined && cached.head.seq === logHead.seq && cached.head.hash === logHead.hash) {
    report.lap("read_cache");
    result.rows = cached;
    return result;
  }
  // This call's caller writes the vector index: temp files of writers that died doing the same
  // are removed first.
  const orphanTemps = removeOrphanTempFiles([path.join(projectionsDir(root), "vectors")]);
  if (orphanTemps.length > 0) {
    report.repair(`Removed ${orphanTemps.length} temp file(s) left by an interrupted projection write: ${orphanTemps.map((file) => path.basename(file)).join(", ")}`);
  }
  if (!syncGraphStore) {
    const { warn, repair, lap, skipLap } = report;
    await projectFromReadModel({ root, sessionId, events: result.events, cached, options, result, warn, repair, lap, skipLap, mayRecreate: false });
    return result;
  }
  return await projectThroughStore(root, sessionId, options, result, cached, report);
}

/** How one `projectSession` call reports: its warnings, the repairs among them, its phase times. */
interface ProjectionReport {
  timingsMs: { [phase: string]: number };
  warnings: string[];
  repairs: string[];
  warn: (message: string) => void;
  repair: (message: string) => void;
  /** Records the time since the last lap as `phase`. */
  lap: (phase: string) => void;
  /** Restarts the clock without recording a phase. */
  skipLap: () => void;
}

function projectionReport(options: ProjectOptions): ProjectionReport {
  const timingsMs: { [phase: string]: number } = {};
  const warnings: string[] = [];
  const repairs: string[] = [];
  const warn = (message: string) => {
    warnings.push(message);
    options.warn?.(message);
  };
  const repair = (message: string) => {
    repairs.push(message);
    warn(message);
  };
  let mark = performance.now();
  const lap = (phase: string) => {
    const now = performance.now();
    timingsMs[phase] = Math.round((now - mark) * 100) / 100;
    mark = now;
  };
  const skipLap = () => {
    mark = performance.now();
  };
  return { timingsMs, warnings, repairs, warn, repair, lap, skipLap };
}

/**
 * Stage 1: the verified log, as the call's result (rows still null). From here on the events are
 * reached through the result only, so that `beforeStoreWrite` can release them.
 */
async function verifiedSession(root: string, sessionId: string, options: ProjectOptions, report: ProjectionReport): Promise<ProjectedSession> {
  // A rebuild will need Kuzu: start loading it (~0.5-1.5 s, mostly wasm compilation off the
  // main thread) while the log is verified and read.
  const kuzuLoading = options.rebuild && options.graphStore === "sync" ? loadKuzu().catch(() => undefined) : undefined;
  const verified = await readVerifiedLog(root, sessionId);
  report.lap("verify_and_read");
  if (verified.checkpointRefused !== undefined) {
    report.repair(`verified checkpoint "${verifiedCheckpointPath(root, sessionId)}" is not used: ${verified.checkpointRefused.replace(/^the checkpoint /, "it ")}; the log was verified in full and the checkpoint written again`);
  }
  await kuzuLoading;
  const { logPath, integrity } = verified;
  const result: ProjectedSession = {
    sessionId, logPath, integrity, events: verified.events, rows: null, degraded: false, degradedReason: null, source: "cache", eventsApplied: 0,
    warnings: report.warnings, repairs: report.repairs, timingsMs: report.timingsMs,
  };
  verified.events = [];
  return result;
}

/**
 * Stage 3 with the graph store: opens it and brings it up to the log, recreating the database
 * once when the session's old rows must go and rebuilding it once when it turns out damaged.
 * A store that cannot be opened or written degrades the call (unless `onStoreFailure: "throw"`).
 */
async function projectThroughStore(root: string, sessionId: string, options: ProjectOptions, result: ProjectedSession, cachedRows: SessionGraphRows | null, report: ProjectionReport): Promise<ProjectedSession> {
  const { warn, repair, lap, skipLap } = report;
  let cached = cachedRows;
  const dbPath = projectionDbPath(root);
  let recreated = false;
  for (let attempt = 1; ; attempt++) {
    let store: KuzuStore;
    try {
      store = await KuzuStore.openOrRebuild(dbPath, repair, { lockWaitMs: options.lockWaitMs });
    } catch (error) {
      if (options.onStoreFailure === "throw") throw error;
      const reason = storeFailureReason(error);
      warn(`graph projection unavailable, answering from the log: ${reason}`);
      result.degraded = true;
      result.degradedReason = reason;
      result.source = "degraded";
      return result;
    }
    lap("open_store");
    try {
      // A retry after the events were released reads them again.
      if (attempt > 1 && options.beforeStoreWrite !== undefined && result.events.length === 0) result.events = (await readVerifiedLog(root, sessionId)).events;
      const context = { root, sessionId, events: result.events, cached, options, result, warn, repair, lap, skipLap, mayRecreate: !recreated };
      if (await syncStore(store, context) === "recreate") {
        // The store never deletes rows (see kuzuStore.ts): the session's old rows go with the
        // whole database file.
        store.close();
        deleteDatabaseFiles(dbPath);
        recreated = true;
        attempt--;
        continue;
      }
      return result;
    } catch (error) {
      // A full disk is not damage: rebuilding would hit the same wall (and Kuzu's wasm runtime
      // aborts when a rebuild runs out of space). A read answers from the log folded in memory.
      if (error instanceof ProjectionWriteError && options.onStoreFailure !== "throw") {
        warn(`graph projection not updated, answering from the log: ${error.message}`);
        result.rows = null;
        result.degraded = true;
        result.degradedReason = `the graph projection could not be written: ${error.message}`;
        result.source = "degraded";
        return result;
      }
      // Damage that opening did not notice surfaces on the first read of a page: the store is
      // derived, so it is deleted and rebuilt once.
      if (!(error instanceof ProjectionCorruptError) || attempt > 1) throw error;
      repair(`projection database is damaged (${error.message}); deleting and rebuilding it`);
      store.close();
      deleteDatabaseFiles(dbPath);
      cached = null;
    } finally {
      store.close();
    }
  }
}

interface SyncContext {
  root: string;
  sessionId: string;
  events: EventRecord[];
  /** The read model's verified rows, when there are any (maybe at an older head). */
  cached: SessionGraphRows | null;
  options: ProjectOptions;
  result: ProjectedSession;
  warn: (message: string) => void;
  repair: (message: string) => void;
  lap: (phase: string) => void;
  /** Restarts the clock without recording a phase (time spent in `beforeStoreWrite`). */
  skipLap: () => void;
  mayRecreate: boolean;
}

/**
 * The store's head for the session if it can be built on: an event of the verified log whose
 * recorded counts match the rows stored. Null (with a repair warning where it is news) otherwise.
 */
function trustedStoreHead(store: KuzuStore, storeHead: ProjectionHead | null, context: SyncContext): ProjectionHead | null {
  const { sessionId, events, options, repair } = context;
  if (options.rebuild || storeHead === null) return null;
  if (!headInLog(storeHead, events)) {
    repair(`projection head (seq ${storeHead.seq}) is not an event of the verified log (rewritten or tampered); rebuilding session ${sessionId}`);
    return null;
  }
  const mismatch = headCountMismatch(storeHead, store.counts(sessionId));
  if (mismatch !== null) {
    repair(
      `the graph projection of session ${sessionId} claims head seq ${storeHead.seq} but ${mismatch} ` +
        `(an interrupted or damaged write); rebuilding the session from its log`,
    );
    return null;
  }
  return storeHead;
}

/** Brings the store's copy of the session up to the log and fills `result.rows`. */
async function syncStore(store: KuzuStore, context: SyncContext): Promise<"done" | "recreate"> {
  const { root, sessionId, cached, options, result, warn, repair, lap, skipLap } = context;
  const storedHead = store.head(sessionId);
  const storeHead = trustedStoreHead(store, storedHead, context);
  let base: SessionGraphRows | undefined;
  if (storeHead !== null) {
    base = cached !== null && sameHead(cached.head, storeHead) ? cached : store.readSession(sessionId);
    lap("read_store");
  } else {
    // Rebuilding over rows of this session (an older projection, or a rebuild that never wrote
    // its head): start a fresh database. Other sessions lose their rows in the store too; their
    // read models stay valid, and their next sync rebuilds each from its log, into the fresh
    // database, without another recreate.
    if (store.hasSessionRows(sessionId)) {
      if (!context.mayRecreate) throw new ProjectionCorruptError(`session ${sessionId} still has rows in a freshly created projection database`);
      if (storedHead === null && !options.rebuild) {
        repair(`the graph projection holds rows of session ${sessionId} but no head (an interrupted rebuild); rebuilding the session from its log`);
      }
      const others = store.sessions().filter((other) => other !== sessionId);
      if (others.length > 0) {
        warn(`rebuilding session ${sessionId} starts a fresh projection database; sessions ${others.join(", ")} are re-projected from their logs on their next graph sync`);
      }
      return "recreate";
    }
    // A store without the session's rows is not news: reads never write it, so a session the
    // store has not seen since it was deleted or recreated is simply not synced yet.
    lap("clear_session");
  }
  const { rows, diff } = foldEvents(sessionId, base, context.events, (storeHead?.seq ?? 0) + 1);
  lap("fold");
  await runBeforeStoreWrite(rows, context);
  if (diff !== null) {
    const totalRows = diff.newEntities.length + diff.newRelations.length + diff.newEvents.length;
    await runInterruptible(async (section) => {
      try {
        await store.applyDiff(diff, {
          onProgress: (done) => options.onProgress?.("write", done, totalRows),
          shouldStop: () => section.stopRequested(),
        });
      } catch (error) {
        // Said before the section ends: the process dies of the signal right after.
        if (error instanceof ProjectionInterruptedError) {
          const left = storeHead === null ? "without a head (rebuilt on the next read)" : `at its previous head (seq ${storeHead.seq})`;
          warn(`${section.signal ?? "a stop request"}: ${error.message}; the graph projection of session ${sessionId} is left ${left}`);
        }
        throw error;
      }
    });
    lap("write_store");
  }
  result.eventsApplied = diff?.newEvents.length ?? 0;
  result.rows = rows;
  result.source = storeHead === null ? "rebuilt" : diff === null ? "store" : "caught_up";
  return "done";
}

/** Hands the folded rows to `beforeStoreWrite`, then releases the events (see its doc). */
async function runBeforeStoreWrite(rows: SessionGraphRows, context: SyncContext): Promise<void> {
  if (context.options.beforeStoreWrite === undefined) return;
  await context.options.beforeStoreWrite(rows, context.events);
  // The events and what the hook built are garbage now: collected before the store's heap
  // grows (kuzu-wasm's is never given back); without a store write, the collector decides.
  context.events = [];
  context.result.events = [];
  if (context.options.graphStore === "sync") collectGarbageNow();
  else requestGarbageCollection();
  context.skipLap();
}

/**
 * Brings the session's rows up to the log without the graph store: from the read model's rows
 * when their head is an event of the verified log (they passed their checksum and count checks
 * when they were read), else from scratch. The read model is the projection's durable state
 * here, as the store is in `syncStore`.
 */
async function projectFromReadModel(context: SyncContext): Promise<void> {
  const { sessionId, cached, options, result, repair } = context;
  let base: SessionGraphRows | undefined;
  if (cached !== null && !options.rebuild) {
    if (cached.head === null || headInLog(cached.head, context.events)) base = cached;
    else {
      repair(`read model head (seq ${cached.head.seq}) is not an event of the verified log (rewritten or tampered); rebuilding session ${sessionId} from its log`);
    }
  }
  const { rows, diff } = foldEvents(sessionId, base, context.events, (base?.head?.seq ?? 0) + 1);
  context.lap("fold");
  await runBeforeStoreWrite(rows, context);
  result.eventsApplied = diff?.newEvents.length ?? 0;
  result.rows = rows;
  result.source = base === undefined ? "rebuilt" : "caught_up";
}
