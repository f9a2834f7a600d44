/**
 * Rewrite mode of `zaxy compact LOG` (DESIGN §0 invariant 1, §9; reference §1.4): the only
 * operation that replaces a log file. It is lossless and atomic:
 *
 * 1. Take the log's exclusive append lock (the flock appenders and the Python implementation
 *    use), so no event is appended while the file is copied.
 * 2. Verify the chain. A broken chain or torn tail is refused (`integrity_failure`, exit 1) and
 *    nothing is written. An empty log is reported and left alone.
 * 3. Copy every event line into `<output>.compact.tmp` beside the destination, fsync it, and
 *    verify the copy (same event count, chain intact) before trusting it.
 * 4. When the log holds at least `snapshotEvery` events, write `<output>.snapshot-<total>.json`
 *    (the last `snapshotEvery` event lines, JSONL) the same way (temp file, fsync, rename).
 * 5. Rename the temp file over the destination (the log itself, or `--output`) and fsync the
 *    directory. Any failure up to and including the rename removes the temp file (and a
 *    snapshot written by this run) and leaves the original byte-identical.
 * 6. Append `compaction.completed` (actor `zaxy`, payload `{session_id, mode: "rewrite",
 *    status: "succeeded", log_path, event_count[, output_path][, snapshot_path]}`) to the
 *    destination through the normal appender (so the chain stays valid), then release the lock.
 *
 * What the rewrite normalises, and all it normalises: the framing of lines. Each event line is
 * copied byte for byte except for JSON whitespace (space, tab, CR) at its start and end; blank
 * lines are dropped; every line ends with exactly one `\n` (a complete last line without one
 * gets it). Lines are never re-serialised, so seqs (line positions among non-blank lines),
 * hashes, types, payloads, key order and unhashed fields never change, whichever envelope wrote
 * them. A torn tail is not silently dropped: that is `zaxy repair --truncate-torn-tail`'s job.
 *
 * @example
 * const result = await rewriteLog(".eventloom/default.jsonl");
 * result.event_count;      // events kept (all of them)
 * result.completed_event;  // {seq, hash, citation} of the appended compaction.completed
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { fromJs } from "../canonical/mod.ts";
import { checkError, inputError, ioError, isZaxyError } from "../errors.ts";
import { appendEvents } from "../events/append.ts";
import { readLogLines } from "../eventloom/lines.ts";
import { sessionIdOfPath, validateSessionId } from "../eventloom/root.ts";
import type { MicrosClock } from "../eventloom/timestamp.ts";
import { type IntegrityReport, verifyLog } from "../eventloom/verify.ts";
import { invariant } from "../invariant.ts";
import { lockWaitMs } from "../limits.ts";
import { lockFile } from "../platform/mod.ts";

/** Default `--snapshot-every`: a snapshot is written once a log holds this many events. */
export const defaultSnapshotEvery = 10_000;

/** Bytes gathered before one write to the temp file. */
const writeChunkBytes = 1 << 20;

export const compactionCompletedType = "compaction.completed";
export const compactionActor = "zaxy";

/**
 * The file operations the rewrite performs, injectable so a test can make one fail (for example
 * the rename) and check that the original stays byte-identical and no temp file is left.
 */
export interface RewriteFileOps {
  openSync(file: string, flags: string): number;
  writeSync(fd: number, bytes: Uint8Array, offset: number, length: number): number;
  fsyncSync(fd: number): void;
  closeSync(fd: number): void;
  renameSync(from: string, to: string): void;
  unlinkSync(file: string): void;
}

export const nodeFileOps: RewriteFileOps = {
  openSync: (file, flags) => fs.openSync(file, flags),
  writeSync: (fd, bytes, offset, length) => fs.writeSync(fd, bytes, offset, length),
  fsyncSync: (fd) => fs.fsyncSync(fd),
  closeSync: (fd) => fs.closeSync(fd),
  renameSync: (from, to) => fs.renameSync(from, to),
  unlinkSync: (file) => fs.unlinkSync(file),
};

export interface RewriteOptions {
  /** Where the rewritten log goes; default the log itself (in place). Must not exist yet. */
  outputPath?: string;
  /** Write a snapshot when the log holds at least this many events (>= 1). */
  snapshotEvery?: number;
  fileOps?: RewriteFileOps;
  lockWaitMs?: number;
  /** Clock for the `compaction.completed` timestamp. */
  clock?: MicrosClock;
}

export interface CompletedEventRef {
  seq: number;
  hash: string;
  citation: string;
}

export interface RewriteResult {
  mode: "rewrite";
  /** `succeeded`, or `empty` when the log held no events (nothing was written). */
  status: "succeeded" | "empty";
  log_path: string;
  output_path: string;
  /** Events rewritten (the `compaction.completed` event is not counted). */
  event_count: number;
  snapshot_path: string | null;
  bytes_before: number;
  /** Size of the rewritten file before `compaction.completed` was appended. */
  bytes_after: number;
  blank_lines_removed: number;
  trimmed_lines: number;
  final_newline_added: boolean;
  completed_event: CompletedEventRef | null;
  message: string;
}

interface CopyStats {
  eventCount: number;
  bytesWritten: number;
  trimmedLines: number;
  finalNewlineAdded: boolean;
}

function isJsonSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0d;
}

/** Writes chunks to `fd` through the seam, gathering small lines into one write. */
class ChunkWriter {
  private buffer = new Uint8Array(writeChunkBytes);
  private filled = 0;
  written = 0;

  constructor(private readonly ops: RewriteFileOps, private readonly fd: number) {}

  push(bytes: Uint8Array): void {
    if (this.filled + bytes.length > this.buffer.length) this.flush();
    if (bytes.length > this.buffer.length) {
      this.writeAll(bytes);
      return;
    }
    this.buffer.set(bytes, this.filled);
    this.filled += bytes.length;
  }

  flush(): void {
    if (this.filled === 0) return;
    this.writeAll(this.buffer.subarray(0, this.filled));
    this.filled = 0;
  }

  private writeAll(bytes: Uint8Array): void {
    let offset = 0;
    while (offset < bytes.length) offset += this.ops.writeSync(this.fd, bytes, offset, bytes.length - offset);
    this.written += bytes.length;
  }
}

const newline = new Uint8Array([0x0a]);

/**
 * Copies event lines `[firstPosition, ∞)` of `source` into a new file at `target`, fsynced, with
 * the permission bits `mode` (a log kept private stays private after the rename).
 */
function copyEventLines(source: string, target: string, ops: RewriteFileOps, mode: number, firstPosition = 1): CopyStats {
  const stats: CopyStats = { eventCount: 0, bytesWritten: 0, trimmedLines: 0, finalNewlineAdded: false };
  const fd = ops.openSync(target, "wx");
  try {
    fs.fchmodSync(fd, mode);
    const writer = new ChunkWriter(ops, fd);
    for (const { bytes, position, terminated } of readLogLines(source)) {
      stats.eventCount = position;
      if (position < firstPosition) continue;
      let start = 0;
      let end = bytes.length;
      while (start < end && isJsonSpace(bytes[start])) start++;
      while (end > start && isJsonSpace(bytes[end - 1])) end--;
      if (start !== 0 || end !== bytes.length) stats.trimmedLines++;
      if (!terminated) stats.finalNewlineAdded = true;
      writer.push(bytes.subarray(start, end));
      writer.push(newline);
    }
    writer.flush();
    stats.bytesWritten = writer.written;
    ops.fsyncSync(fd);
  } finally {
    ops.closeSync(fd);
  }
  return stats;
}

/** Physical lines of a file: its newlines, plus one for an unterminated last line. */
function physicalLineCount(file: string): number {
  let newlines = 0;
  let last = 0x0a;
  const fd = fs.openSync(file, "r");
  try {
    const buffer = new Uint8Array(1 << 20);
    let read: number;
    while ((read = fs.readSync(fd, buffer, 0, buffer.length, null)) > 0) {
      for (let i = 0; i < read; i++) if (buffer[i] === 0x0a) newlines++;
      last = buffer[read - 1];
    }
  } finally {
    fs.closeSync(fd);
  }
  return newlines + (last === 0x0a ? 0 : 1);
}

function removeQuietly(ops: RewriteFileOps, file: string): void {
  try {
    ops.unlinkSync(file);
  } catch {
    // Already gone (or never created): nothing to clean up.
  }
}

/** fsync of the directory, so the rename itself survives a crash; best effort where unsupported. */
function fsyncDirectory(ops: RewriteFileOps, dir: string): void {
  let fd: number | undefined;
  try {
    fd = ops.openSync(dir, "r");
    ops.fsyncSync(fd);
  } catch {
    // Some platforms cannot open or fsync a directory; the rename is still atomic.
  } finally {
    if (fd !== undefined) ops.closeSync(fd);
  }
}

/** The session a log file belongs to, for the appender: its name must be `<session id>.jsonl`. */
function sessionOf(file: string, field: string): string {
  const base = path.basename(file);
  const sessionId = sessionIdOfPath(file);
  if (!base.endsWith(".jsonl") || sessionId === base) {
    throw inputError("invalid_log_name", `Cannot compact into ${JSON.stringify(file)}: ${field === "LOG" ? field : `\`${field}\``} must name a <session id>.jsonl file`, {
      field,
      expected: "<session id>.jsonl",
    });
  }
  try {
    validateSessionId(sessionId, "compact");
  } catch (error) {
    if (isZaxyError(error)) throw inputError(error.code, error.message, { field });
    throw error;
  }
  return sessionId;
}

/** What a rewrite will do, settled before the lock is taken (every input checked). */
interface RewritePlan {
  logPath: string;
  ops: RewriteFileOps;
  snapshotEvery: number;
  /** Permission bits of the log, which the rewritten file and the snapshot keep. */
  mode: number;
  /** The log is rewritten where it is (no `--output`, or `--output` names the log itself). */
  inPlace: boolean;
  outputPath: string;
  /** The session `compaction.completed` is appended to (from the output's file name). */
  outputSession: string;
  tempPath: string;
}

/** Stage 1: checks the options and paths; bad input (exit 2) before anything is touched. */
function planRewrite(logPath: string, options: RewriteOptions): RewritePlan {
  const ops = options.fileOps ?? nodeFileOps;
  const snapshotEvery = options.snapshotEvery ?? defaultSnapshotEvery;
  if (!Number.isSafeInteger(snapshotEvery) || snapshotEvery < 1) {
    throw inputError("invalid_option", `\`snapshot_every\` must be an integer >= 1, got ${snapshotEvery}`, { field: "snapshot_every" });
  }
  let stat: fs.Stats;
  try {
    stat = fs.statSync(logPath);
  } catch {
    throw inputError("unreadable_log", `Cannot compact ${logPath}: no such file`, { field: "LOG" });
  }
  if (!stat.isFile()) throw inputError("unreadable_log", `Cannot compact ${logPath}: it is not a regular file`, { field: "LOG" });
  const inPlace = options.outputPath === undefined || path.resolve(options.outputPath) === path.resolve(logPath);
  // In place, a symlinked log is rewritten where it really lives; the link stays a link.
  const outputPath = inPlace ? (fs.lstatSync(logPath).isSymbolicLink() ? fs.realpathSync(logPath) : logPath) : options.outputPath!;
  const outputSession = sessionOf(outputPath, inPlace ? "LOG" : "output");
  if (!inPlace) {
    if (fs.existsSync(outputPath)) {
      throw inputError("output_exists", `Cannot compact into ${outputPath}: it already exists; compaction never overwrites another log`, {
        field: "output",
      });
    }
    if (!fs.existsSync(path.dirname(path.resolve(outputPath)))) {
      throw inputError("invalid_output", `Cannot compact into ${outputPath}: its directory does not exist`, { field: "output" });
    }
  }
  return { logPath, ops, snapshotEvery, mode: stat.mode & 0o777, inPlace, outputPath, outputSession, tempPath: `${outputPath}.compact.tmp` };
}

/** Stage 2 (under the lock): the log's integrity; a log that does not verify is refused (exit 1). */
async function verifyBeforeRewrite(logPath: string): Promise<IntegrityReport> {
  // We hold the exclusive lock; a shared one from the verifier would wait on ourselves.
  const integrity = await verifyLog(logPath, { lock: false });
  // An append a crash interrupted must be rolled back (or kept) before the log is rewritten.
  if (integrity.interrupted_append !== undefined) {
    throw checkError("interrupted_append", `Refusing to compact ${logPath}: ${integrity.interrupted_append.message}. Nothing was written.`, {
      field: "LOG",
      hint: "zaxy repair --truncate-torn-tail finishes the interrupted append first (with a backup)",
    });
  }
  if (!integrity.ok) {
    const reason = integrity.broken_reason ?? "the chain does not verify";
    throw checkError("integrity_failure", `Refusing to compact ${logPath}: ${reason}. Nothing was written.`, {
      field: "LOG",
      hint: integrity.torn_tail ? "zaxy repair --truncate-torn-tail removes a torn last line (with a backup)" : "zaxy verify shows where the chain breaks",
    });
  }
  return integrity;
}

function emptyLogResult(plan: RewritePlan, bytesBefore: number): RewriteResult {
  return {
    mode: "rewrite",
    status: "empty",
    log_path: plan.logPath,
    output_path: plan.outputPath,
    event_count: 0,
    snapshot_path: null,
    bytes_before: bytesBefore,
    bytes_after: bytesBefore,
    blank_lines_removed: 0,
    trimmed_lines: 0,
    final_newline_added: false,
    completed_event: null,
    message: "Log is empty. Nothing to compact.",
  };
}

/**
 * Writes the snapshot of the last `snapshotEvery` events of the (fsynced, verified) temp copy:
 * temp file, fsync, rename. Returns whether this run created `snapshotPath` (so a later failure
 * removes it, and never a snapshot an earlier run left).
 */
function writeSnapshot(plan: RewritePlan, snapshotPath: string, eventCount: number): boolean {
  const { ops } = plan;
  const snapshotTemp = `${snapshotPath}.tmp`;
  removeQuietly(ops, snapshotTemp);
  const existed = fs.existsSync(snapshotPath);
  try {
    copyEventLines(plan.tempPath, snapshotTemp, ops, plan.mode, eventCount - plan.snapshotEvery + 1);
    ops.renameSync(snapshotTemp, snapshotPath);
  } finally {
    removeQuietly(ops, snapshotTemp);
  }
  return !existed;
}

/**
 * Stage 3: the fsynced, verified copy (and snapshot) renamed over the destination. Any failure
 * up to and including the rename removes the temp file and a snapshot this run created, and
 * leaves the original byte-identical.
 */
async function replaceWithCopy(plan: RewritePlan, eventCount: number): Promise<{ stats: CopyStats; snapshotPath: string | null }> {
  const { ops, logPath, tempPath } = plan;
  // A temp file left by a crashed run is ours to replace: we hold the log's lock.
  removeQuietly(ops, tempPath);
  let snapshotPath: string | null = null;
  let snapshotCreated = false;
  try {
    const stats = copyEventLines(logPath, tempPath, ops, plan.mode);
    const copied = await verifyLog(tempPath, { lock: false });
    if (!copied.ok || copied.total_events !== eventCount) {
      throw ioError("rewrite_mismatch", `Cannot compact ${logPath}: the rewritten copy does not verify (${copied.broken_reason ?? `${copied.total_events} events`})`);
    }
    if (eventCount >= plan.snapshotEvery) {
      snapshotPath = `${plan.outputPath}.snapshot-${eventCount}.json`;
      snapshotCreated = writeSnapshot(plan, snapshotPath, eventCount);
    }
    ops.renameSync(tempPath, plan.outputPath);
    return { stats, snapshotPath };
  } catch (error) {
    removeQuietly(ops, tempPath);
    if (snapshotCreated && snapshotPath !== null) removeQuietly(ops, snapshotPath);
    if (isZaxyError(error)) throw error;
    throw ioError("rewrite_failed", `Cannot compact ${logPath}: ${(error as Error).message}. The original log is unchanged.`);
  }
}

/**
 * Stage 4: appends `compaction.completed` to the destination. Called while the old file's lock is
 * still held: an appender that was waiting on that lock then sees compaction.completed in the
 * new file's tail instead of racing with it.
 */
async function recordCompletion(plan: RewritePlan, result: RewriteResult, options: RewriteOptions): Promise<CompletedEventRef> {
  const payload: Record<string, unknown> = {
    session_id: plan.outputSession,
    mode: "rewrite",
    status: "succeeded",
    log_path: plan.logPath,
    event_count: result.event_count,
  };
  if (!plan.inPlace) payload.output_path = plan.outputPath;
  if (result.snapshot_path !== null) payload.snapshot_path = result.snapshot_path;
  try {
    const appended = await appendEvents(
      path.dirname(path.resolve(plan.outputPath)),
      plan.outputSession,
      [{ type: compactionCompletedType, actor: compactionActor, payload: fromJs(payload) }],
      { clock: options.clock, lockWaitMs: options.lockWaitMs },
    );
    const event = appended.events[0];
    return { seq: event.seq, hash: event.hash, citation: event.citation };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw ioError("completion_not_recorded", `Compacted ${plan.logPath} into ${plan.outputPath}, but could not append compaction.completed: ${reason}`, {
      hint: "the rewritten log verifies; append the event again or re-run zaxy compact",
    });
  }
}

/** Verify, copy, snapshot, rename, fsync the directory, record: all under the log's lock. */
async function rewriteLocked(plan: RewritePlan, options: RewriteOptions): Promise<RewriteResult> {
  const { logPath, outputPath } = plan;
  const integrity = await verifyBeforeRewrite(logPath);
  const bytesBefore = fs.statSync(logPath).size;
  const linesBefore = physicalLineCount(logPath);
  if (integrity.total_events === 0) return emptyLogResult(plan, bytesBefore);
  const { stats, snapshotPath } = await replaceWithCopy(plan, integrity.total_events);
  // The copy was verified to hold every event; the report's counts rely on it.
  invariant(stats.eventCount === integrity.total_events, `copied ${stats.eventCount} events of ${integrity.total_events}`);
  fsyncDirectory(plan.ops, path.dirname(path.resolve(outputPath)));
  const result: RewriteResult = {
    mode: "rewrite",
    status: "succeeded",
    log_path: logPath,
    output_path: outputPath,
    event_count: integrity.total_events,
    snapshot_path: snapshotPath,
    bytes_before: bytesBefore,
    bytes_after: stats.bytesWritten,
    blank_lines_removed: linesBefore - integrity.total_events,
    trimmed_lines: stats.trimmedLines,
    final_newline_added: stats.finalNewlineAdded,
    completed_event: null,
    message: "",
  };
  result.completed_event = await recordCompletion(plan, result, options);
  return result;
}

function completionMessage(plan: RewritePlan, result: RewriteResult): string {
  const completedSeq = result.completed_event === null ? "unknown" : String(result.completed_event.seq);
  return `Compacted ${plan.logPath}: ${result.event_count} events rewritten atomically` +
    (plan.inPlace ? "" : ` into ${plan.outputPath}`) +
    (result.snapshot_path === null ? "" : `; snapshot ${result.snapshot_path}`) +
    `; compaction.completed is seq ${completedSeq}.`;
}

/**
 * Rewrites a log atomically (see the module comment) and appends `compaction.completed`.
 * Throws `ZaxyError`: bad input (exit 2) before anything is touched, `integrity_failure` (exit 1)
 * for a log that does not verify, I/O errors (exit 3) with the original left as it was.
 */
export async function rewriteLog(logPath: string, options: RewriteOptions = {}): Promise<RewriteResult> {
  const plan = planRewrite(logPath, options);
  let lock: { release(): void };
  try {
    lock = await lockFile(logPath, "exclusive", options.lockWaitMs ?? lockWaitMs);
  } catch (error) {
    throw ioError("lock_failed", `Cannot compact ${logPath}: ${(error as Error).message}`);
  }
  let result: RewriteResult;
  try {
    result = await rewriteLocked(plan, options);
  } finally {
    lock.release();
  }
  if (result.status === "empty") return result;
  result.message = completionMessage(plan, result);
  return result;
}
