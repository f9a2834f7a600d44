/** What reproject.ts's command does: imported when the command runs, so start-up loads only the command tree. */
import * as fs from "node:fs";
import * as path from "node:path";
import { sessionIdOfPath, sessionLogPath, sessionLogsUnderRoot } from "../../eventloom/root.ts";
import { ExitCode, isZaxyError } from "../../errors.ts";
import { booleanOption, type CommandContext } from "../command.ts";
import { emit } from "../output.ts";
import { commandProgress, phaseCallback, type ProgressUnit } from "../progress.ts";
import { collectGarbageNow, requestGarbageCollection } from "../../platform/mod.ts";
import type { PendingVectorSync } from "../../projection/vectorIndexBuild.ts";

/** Sessions from this many events collect the fold's garbage before the read model is written. */
const foldCollectionEventsMin = 250_000;

interface SessionReport {
  session_id: string;
  ok: boolean;
  events?: number;
  entity_versions?: number;
  relations?: number;
  seconds?: number;
  vector_seconds?: number;
  phases_ms?: Record<string, number>;
  error?: { code: string; message: string };
}

/** What one session's reproject measured, whichever path it took. */
interface ReprojectedRun {
  /** `performance.now()` when the session's reproject began. */
  startedMs: number;
  eventCount: number;
  entityVersionCount: number;
  relationCount: number;
  vectorSeconds: number;
  readModelMs: number;
  /** The fold's phase timings; `read_model` is added to them. */
  timingsMs: Record<string, number>;
}

/**
 * The report of a session that was reprojected. `seconds` is the fold and the graph store: the
 * wall time since the start less the read model's and the vectors' own times, which are
 * reported apart (`phases_ms.read_model`, `vector_seconds`; vectors built on a worker during
 * the read model count only the wait for them after it, and installing the file).
 */
function sessionReport(sessionId: string, run: ReprojectedRun): SessionReport {
  const { startedMs, eventCount, entityVersionCount, relationCount, vectorSeconds, readModelMs, timingsMs } = run;
  const graphSeconds = (performance.now() - startedMs) / 1000 - vectorSeconds - readModelMs / 1000;
  timingsMs.read_model = Math.round(readModelMs * 100) / 100;
  return {
    session_id: sessionId,
    ok: true,
    events: eventCount,
    entity_versions: entityVersionCount,
    relations: relationCount,
    seconds: Math.round(graphSeconds * 1000) / 1000,
    vector_seconds: vectorSeconds,
    phases_ms: timingsMs,
  };
}

/**
 * The report of a session that could not be reprojected (a bad or tampered log): the other
 * sessions still run. I/O and internal errors are not the session's and are rethrown.
 */
function failedSessionReport(sessionId: string, error: unknown): SessionReport {
  if (!isZaxyError(error) || error.exitCode === ExitCode.ioError) throw error;
  return { session_id: sessionId, ok: false, error: { code: error.code, message: error.message } };
}

/** The text form of one session's report: one line. */
function sessionReportLine(r: SessionReport): string {
  return r.ok
    ? `${r.session_id}: ${r.events} events -> ${r.entity_versions} entity versions, ${r.relations} relations in ${r.seconds} s (vectors ${r.vector_seconds} s)`
    : `${r.session_id}: NOT projected: ${r.error?.message}`;
}

const phaseLabels: Record<string, string> = { write: "graph store", vectors: "vector postings" };
const phaseUnits: Record<string, ProgressUnit> = { write: "rows", vectors: "vectors" };

/**
 * Without the graph store: the log is verified and folded in one pass that keeps no parsed event
 * (projection/projector.ts `rebuildSessionStreamed`); what the read model and the vector index
 * need of the events is collected as they pass. Same files as a fold over the held events.
 */
async function reprojectStreamed(ctx: CommandContext, sessionId: string, options: ReprojectOptions): Promise<SessionReport> {
  const { rebuildSessionStreamed } = await import("../../projection/projector.ts");
  const { ScratchTexts } = await import("../../projection/scratchTexts.ts");
  const { readModelDir } = await import("../../readmodel/manifest.ts");
  const { refuseLinkUnderRoot } = await import("../../eventloom/root.ts");
  const { savedVectorHeadSeq } = await import("../../projection/vectorIndex.ts");
  const { startVectorSync } = await import("../../projection/vectorIndexBuild.ts");
  const { defaultEmbeddingDim } = await import("../../vector/hashEmbedding.ts");
  const { StreamedEventCollector, StreamedReadModelSource } = await import("../../readmodel/streamedReadModelSource.ts");
  const { writeReadModel } = await import("../../readmodel/writeReadModel.ts");
  const root = ctx.global.eventloomPath;
  const started = performance.now();
  const display = commandProgress(ctx, `reproject ${sessionId}`);
  const progress = phaseCallback(display, phaseLabels, phaseUnits);
  display.phase("verifying and folding the log");
  const warn = (m: string) => ctx.io.stderr(`zaxy: warning: ${m}\n`);
  // The entity versions' summaries and properties wait in a scratch file next to the read model
  // until its tables and the vectors have read them (1M events with long payloads: ~1 GB of
  // strings otherwise held from the fold to the vectors); a vectors' worker opens it through this
  // process's descriptor (src/projection/vectorIndexBuild.ts), so it is unlinked at once.
  const scratchDir = readModelDir(root, sessionId);
  const scratchTexts = new ScratchTexts(scratchDir, () => refuseLinkUnderRoot(root, scratchDir, `write the read model of session ${JSON.stringify(sessionId)}`));
  // Set from the read model writer's callback: a holder, so that the checker sees it change.
  const vectors: { sync: PendingVectorSync | null } = { sync: null };
  try {
    // The vector index checks its saved head against the log: the one event it reads.
    const vectorHeadSeq = savedVectorHeadSeq(root, sessionId);
    let vectorHeadHash: string | undefined;
    let collector: InstanceType<typeof StreamedEventCollector> | null = new StreamedEventCollector();
    const collect = collector;
    const rebuilt = await rebuildSessionStreamed(root, sessionId, {
      warn,
      scratchTexts,
      onEvent: (event) => {
        collect.add(event);
        if (event.seq === vectorHeadSeq) vectorHeadHash = event.hash;
      },
    });
    const { rows, eventCount } = rebuilt;
    if (eventCount >= foldCollectionEventsMin) collectGarbageNow();
    else requestGarbageCollection();
    // The vectors read four fields of each entity version, the summary from the scratch file as
    // the table writers do. A large session's are built on a worker while the read model is
    // written here (the rows are not changed after the fold); a small one's after it.
    const entityVersionCount = rows.entities.length;
    const vectorRows = { entities: rows.entities, head: rows.head };
    const vectorEvents: { hash: string }[] = [];
    if (vectorHeadSeq !== null && vectorHeadHash !== undefined) vectorEvents[vectorHeadSeq - 1] = { hash: vectorHeadHash };
    const startVectors = () => {
      vectors.sync = startVectorSync(root, sessionId, vectorRows, vectorEvents, defaultEmbeddingDim, {
        scratchTexts,
        onProgress: (done, total) => progress("vectors", done, total),
        warn,
        logBytes: rebuilt.integrity.bytes,
        workerLogBytesMin: options.vectorWorkerLogBytesMin,
      });
    };
    const readModelStarted = performance.now();
    display.phase("read model");
    const source = new StreamedReadModelSource(sessionId, rows, collector, rebuilt.logPath, rebuilt.integrity.bytes);
    const headEvents = collector.headEvents();
    collector = null;
    const relationCount = rows.relations.length;
    // The vectors start once the verbatim index and the folds are written, the read model's
    // peak (1M long-payload events: ~1.7 GB), which the worker's heap would have added to; the
    // writer collects the garbage of what was sent to the worker before its tables.
    writeReadModel(root, sessionLogPath(root, sessionId, "read"), source, rows, headEvents, warn, {
      releaseEvents: () => {
        source.release();
        startVectors();
      },
      releaseRelations: () => rows.relations.clear(),
    });
    const readModelMs = performance.now() - readModelStarted;
    // A read model that was not written (rows it refuses, with a warning) released nothing.
    if (vectors.sync === null) startVectors();
    const pending = vectors.sync!;
    vectors.sync = null;
    if (!pending.onWorker) collectGarbageNow();
    const vectorsStarted = performance.now();
    // The index itself is not kept: readers open the saved file.
    const index = await pending.finish();
    index.index.close();
    const vectorSeconds = Math.round(performance.now() - vectorsStarted) / 1000;
    const report = sessionReport(sessionId, {
      startedMs: started,
      eventCount,
      entityVersionCount,
      relationCount,
      vectorSeconds,
      readModelMs,
      timingsMs: rebuilt.timingsMs,
    });
    display.done();
    return report;
  } catch (error) {
    display.done();
    return failedSessionReport(sessionId, error);
  } finally {
    vectors.sync?.cancel();
    scratchTexts.close();
  }
}

async function reprojectOne(ctx: CommandContext, sessionId: string, options: ReprojectOptions): Promise<SessionReport> {
  if (!booleanOption(ctx, "graph-store")) return await reprojectStreamed(ctx, sessionId, options);
  const { projectSession } = await import("../../projection/projector.ts");
  const { syncVectorIndex, vectorHeadEvents } = await import("../../projection/vectorIndex.ts");
  const { defaultEmbeddingDim } = await import("../../vector/hashEmbedding.ts");
  const { RowsReadModelSource } = await import("../../readmodel/readModelSource.ts");
  const { writeReadModel } = await import("../../readmodel/writeReadModel.ts");
  const started = performance.now();
  const display = commandProgress(ctx, `reproject ${sessionId}`);
  const progress = phaseCallback(display, phaseLabels, phaseUnits);
  display.phase("verifying and folding the log");
  const warn = (m: string) => ctx.io.stderr(`zaxy: warning: ${m}\n`);
  let vectorSeconds = 0;
  let readModelMs = 0;
  let eventCount = 0;
  try {
    const projected = await projectSession(ctx.global.eventloomPath, sessionId, {
      rebuild: true,
      graphStore: booleanOption(ctx, "graph-store") ? "sync" : "lazy",
      onStoreFailure: "throw",
      warn,
      onProgress: progress,
      // The read model and the vector index are built from the folded rows before the graph
      // store is written (`--graph-store`): Kuzu's heap grows during its bulk load and is never
      // given back, so building them after it stacked their transient memory on top of it
      // (100k events: ~2.2 GB peak RSS after, ~1.5 GB before). Neither reads the graph store.
      // The read model comes first (it collects between its tables). The fold's garbage is
      // collected before it only in a very large session: at 100k events that cost ~0.4 s and
      // lowered no peak (the peak is after the read model, which the collection below frees),
      // at 1M events leaving it to the collector raised the peak from 9.3 to 10.3 GB.
      beforeStoreWrite: async (rows, events) => {
        eventCount = events.length;
        if (events.length >= foldCollectionEventsMin) collectGarbageNow();
        else requestGarbageCollection();
        // The read model that fresh processes answer from (readmodel/), at the rebuilt head.
        const readModelStarted = performance.now();
        display.phase("read model");
        // The vectors need the rows and, of the log, only the event at a saved index's head: the
        // parsed events (~3 KB each) are emptied in place as soon as the read model is done with
        // them, so nothing that still names the array keeps them while its row tables are built
        // (the projector drops them after this hook anyway; 100k events: 1.2 GB peak before).
        const headEvents = vectorHeadEvents(ctx.global.eventloomPath, sessionId, events);
        const source = new RowsReadModelSource(sessionId, rows, events);
        writeReadModel(ctx.global.eventloomPath, sessionLogPath(ctx.global.eventloomPath, sessionId, "read"), source, rows, events, warn, {
          releaseEvents: () => {
            events.length = 0;
          },
        });
        readModelMs = performance.now() - readModelStarted;
        events.length = 0;
        collectGarbageNow();
        const vectorsStarted = performance.now();
        // The index itself is not kept: readers open the saved file.
        const vectors = await syncVectorIndex(
          ctx.global.eventloomPath,
          sessionId,
          rows,
          headEvents,
          defaultEmbeddingDim,
          (done, total) => progress("vectors", done, total),
          warn,
        );
        vectors.index.close();
        vectorSeconds = Math.round(performance.now() - vectorsStarted) / 1000;
      },
    });
    const report = sessionReport(sessionId, {
      startedMs: started,
      eventCount,
      entityVersionCount: projected.rows!.entities.length,
      relationCount: projected.rows!.relations.length,
      vectorSeconds,
      readModelMs,
      timingsMs: projected.timingsMs,
    });
    display.done();
    return report;
  } catch (error) {
    display.done();
    return failedSessionReport(sessionId, error);
  }
}

/** How a reproject runs, apart from its command line (tests force the vectors' worker on small sessions). */
export interface ReprojectOptions {
  /** Bytes of log from which the vectors are built on a worker (default `vectorWorkerLogBytesMin`). */
  vectorWorkerLogBytesMin?: number;
}

export async function runReproject(ctx: CommandContext, options: ReprojectOptions = {}): Promise<number> {
  const root = ctx.global.eventloomPath;
  const all = booleanOption(ctx, "all");
  const sessions = all
    ? sessionLogsUnderRoot(root).map(sessionIdOfPath)
    : [ctx.global.sessionId];
  if (!all) {
    // Fails with unknown_session (exit 2) before anything is deleted.
    const { assertSessionLogExists } = await import("../../projection/projector.ts");
    assertSessionLogExists(root, ctx.global.sessionId);
  }
  if (booleanOption(ctx, "reset-projection")) {
    const { projectionsDir } = await import("../../eventloom/root.ts");
    fs.rmSync(projectionsDir(root), { recursive: true, force: true });
  }
  const reports: SessionReport[] = [];
  for (const sessionId of sessions) reports.push(await reprojectOne(ctx, sessionId, options));
  const ok = reports.every((r) => r.ok);
  emit(ctx, "zaxy.reproject.v1", { ok, root: path.resolve(root), sessions: reports }, () =>
    reports.length === 0
      ? "No sessions to reproject."
      : reports.map(sessionReportLine).join("\n"),
  );
  return ok ? 0 : 1;
}
