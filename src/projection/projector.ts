/**
 * Brings a session's projection up to its log before a read, or rebuilds it (DESIGN §4).
 *
 * Order of trust: the log is verified first, and a log that fails verification is never
 * projected (the caller gets `integrity_failure`, exit 1). The Kuzu head must be an event of the
 * verified log (same seq, same hash); if it is not, the log was rewritten or tampered and the
 * session is rebuilt from scratch. The row cache (`snapshot.ts`) is used only when its head is
 * the log's last event, which lets a read skip loading Kuzu entirely; any other state goes
 * through the store. When the store cannot be opened (another process holds it past the wait,
 * or opening fails twice), reads degrade: the caller falls back to the log itself.
 */
import * as path from "node:path";
import { inputError } from "../errors.ts";
import type { EventRecord } from "../eventloom/envelope.ts";
import { readVerifiedEvents } from "../eventloom/replay.ts";
import { sessionLogPath } from "../eventloom/session.ts";
import type { IntegrityReport } from "../eventloom/verify.ts";
import { extractEvent } from "./extract/mod.ts";
import { GraphFold } from "./graphFold.ts";
import { deleteDatabaseFiles, KuzuStore } from "./kuzuStore.ts";
import { loadKuzu } from "./kuzuRuntime.ts";
import { ProjectionCorruptError } from "./projectionErrors.ts";
import { projectionsDir, readSnapshot, removeSnapshot, writeSnapshot } from "./snapshot.ts";
import type { GraphDiff, ProjectionHead, SessionGraphRows } from "./types.ts";

export interface ProjectOptions {
  /** Warnings (rebuilds, degraded reads) for stderr or diagnostics. */
  warn?: (message: string) => void;
  /** Rebuild the session from scratch even when the head matches (`zaxy reproject`). */
  rebuild?: boolean;
  /** How long to wait for another process holding the store (default the store's). */
  lockWaitMs?: number;
  /** Progress of a rebuild's rows written. */
  onProgress?: (phase: string, done: number, total: number) => void;
  /** When the store cannot be opened: degrade (reads) or throw (reproject). */
  onStoreFailure?: "degrade" | "throw";
}

export interface ProjectedSession {
  sessionId: string;
  logPath: string;
  integrity: IntegrityReport;
  /** Every verified event, in order. */
  events: EventRecord[];
  /** The projected rows at the log head; null when degraded. */
  rows: SessionGraphRows | null;
  degraded: boolean;
  degradedReason: string | null;
  /** `cache` (row cache at head), `store` (Kuzu already at head), `caught_up`, `rebuilt`. */
  source: "cache" | "store" | "caught_up" | "rebuilt" | "degraded";
  /** Events folded by this call. */
  eventsApplied: number;
  warnings: string[];
  timingsMs: { [phase: string]: number };
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
  return a !== null && b !== null && a.seq === b.seq && a.hash === b.hash && a.entityCount === b.entityCount;
}

/** Verifies and reads a session's log; throws `unknown_session` (2) or `integrity_failure` (1). */
export async function readVerifiedLog(root: string, sessionId: string): Promise<{ logPath: string; integrity: IntegrityReport; events: EventRecord[] }> {
  const logPath = sessionLogPath(root, sessionId, "read");
  const { integrity, events } = await readVerifiedEvents(logPath, {
    sessionId,
    missing: () =>
      inputError("unknown_session", `Unknown session ${JSON.stringify(sessionId)}: no log at ${logPath}`, {
        field: "session_id",
        hint: "list sessions with `ls <eventloom root>/*.jsonl`, or append an event first",
      }),
    failureMessage: (failure) => `The log of session ${JSON.stringify(sessionId)} ${failure}; it will not be projected`,
  });
  return { logPath, integrity, events };
}

function foldEvents(sessionId: string, base: SessionGraphRows | undefined, events: readonly EventRecord[], fromSeq: number): { fold: GraphFold; diff: GraphDiff | null } {
  const fold = new GraphFold(sessionId, base);
  for (let i = fromSeq - 1; i < events.length; i++) fold.apply(events[i], extractEvent(events[i]));
  return { fold, diff: fold.diff() };
}

/**
 * The session's projection at the head of its verified log.
 *
 * @example
 * const projected = await projectSession(".eventloom", "default", { warn: console.error });
 * projected.rows?.entities.filter((e) => e.validTo === null);
 */
export async function projectSession(root: string, sessionId: string, options: ProjectOptions = {}): Promise<ProjectedSession> {
  const timingsMs: { [phase: string]: number } = {};
  const warnings: string[] = [];
  const warn = (message: string) => {
    warnings.push(message);
    options.warn?.(message);
  };
  let mark = performance.now();
  const lap = (phase: string) => {
    const now = performance.now();
    timingsMs[phase] = Math.round((now - mark) * 100) / 100;
    mark = now;
  };
  // A rebuild will need Kuzu: start loading it (~0.5-1.5 s, mostly wasm compilation off the
  // main thread) while the log is verified and read.
  const kuzuLoading = options.rebuild ? loadKuzu().catch(() => undefined) : undefined;
  const { logPath, integrity, events } = await readVerifiedLog(root, sessionId);
  lap("verify_and_read");
  await kuzuLoading;
  const result: ProjectedSession = {
    sessionId, logPath, integrity, events, rows: null, degraded: false, degradedReason: null, source: "cache", eventsApplied: 0, warnings, timingsMs,
  };
  const logHead = events.at(-1);
  let cached = options.rebuild ? null : readSnapshot(root, sessionId);
  if (cached?.head && logHead !== undefined && cached.head.seq === logHead.seq && cached.head.hash === logHead.hash) {
    lap("read_cache");
    result.rows = cached;
    return result;
  }
  const dbPath = projectionDbPath(root);
  let recreated = false;
  for (let attempt = 1; ; attempt++) {
    let store: KuzuStore;
    try {
      store = await KuzuStore.openOrRebuild(dbPath, warn, { lockWaitMs: options.lockWaitMs });
    } catch (error) {
      if (options.onStoreFailure === "throw") throw error;
      const reason = error instanceof Error ? error.message : String(error);
      warn(`graph projection unavailable, answering from the log: ${reason}`);
      result.degraded = true;
      result.degradedReason = reason;
      result.source = "degraded";
      return result;
    }
    lap("open_store");
    try {
      if (syncStore(store, root, sessionId, events, cached, options, result, warn, lap, !recreated) === "recreate") {
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
      // Damage that opening did not notice surfaces on the first read of a page: the store is
      // derived, so it is deleted and rebuilt once.
      if (!(error instanceof ProjectionCorruptError) || attempt > 1) throw error;
      warn(`projection database is damaged (${error.message}); deleting and rebuilding it`);
      store.close();
      deleteDatabaseFiles(dbPath);
      removeSnapshot(root, sessionId);
      cached = null;
    } finally {
      store.close();
    }
  }
}

/** Brings the store's copy of the session up to the log and fills `result.rows`. */
function syncStore(
  store: KuzuStore,
  root: string,
  sessionId: string,
  events: readonly EventRecord[],
  cached: SessionGraphRows | null,
  options: ProjectOptions,
  result: ProjectedSession,
  warn: (message: string) => void,
  lap: (phase: string) => void,
  mayRecreate: boolean,
): "done" | "recreate" {
  let storeHead = store.head(sessionId);
  if (storeHead !== null && !headInLog(storeHead, events)) {
    warn(`projection head (seq ${storeHead.seq}) is not an event of the verified log (rewritten or tampered); rebuilding session ${sessionId}`);
    storeHead = null;
  } else if (options.rebuild) {
    storeHead = null;
  }
  let base: SessionGraphRows | undefined;
  if (storeHead !== null) {
    base = cached !== null && sameHead(cached.head, storeHead) ? cached : store.readSession(sessionId);
    lap("read_store");
  } else {
    // Rebuilding over rows of this session (an older projection, or a rebuild that never wrote
    // its head): start a fresh database. Other sessions lose their rows in the store too; their
    // row caches stay valid, and the next read that needs the store rebuilds each from its log,
    // into the fresh database, without another recreate.
    if (store.hasSessionRows(sessionId)) {
      if (!mayRecreate) throw new ProjectionCorruptError(`session ${sessionId} still has rows in a freshly created projection database`);
      const others = store.sessions().filter((other) => other !== sessionId);
      if (others.length > 0) {
        warn(`rebuilding session ${sessionId} starts a fresh projection database; sessions ${others.join(", ")} are re-projected from their logs on their next catch-up`);
      }
      return "recreate";
    }
    removeSnapshot(root, sessionId);
    lap("clear_session");
  }
  const { fold, diff } = foldEvents(sessionId, base, events, (storeHead?.seq ?? 0) + 1);
  lap("fold");
  if (diff !== null) {
    const totalRows = diff.newEntities.length + diff.newRelations.length + diff.newEvents.length;
    store.applyDiff(diff, { onProgress: (done) => options.onProgress?.("write", done, totalRows) });
    lap("write_store");
  }
  result.eventsApplied = diff?.newEvents.length ?? 0;
  result.rows = fold.rows();
  result.source = storeHead === null ? "rebuilt" : diff === null ? "store" : "caught_up";
  writeSnapshot(root, sessionId, result.rows);
  lap("write_cache");
  return "done";
}
