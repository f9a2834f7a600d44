/**
 * Verified checkpoints: a read re-verifies only what was appended since the last verified read.
 *
 * After a log verifies, its checkpoint records where the verified prefix ends, the chain state
 * there, and a native SHA-256 of the prefix's raw bytes. The next read hashes that prefix in one
 * streaming pass (no JSON parse, no canonicalisation; native SHA-256 runs at ~1.8 GB/s) and, when
 * the digest matches, runs the full verifier's own range check (`scanRange`) over the bytes after
 * it only, from the chain state the full pass reaches at that point: same verdict codes, same
 * messages, same absolute line numbers. Any change to any prefix byte changes the digest, and the
 * read falls back to the full `verifyLog`, whose verdict stands; so does a log shorter than the
 * prefix (truncated, or rewritten by `zaxy compact`/`zaxy repair`), a damaged checkpoint, and a
 * leftover append intent (`intent.ts`: an interrupted append needs the full verifier's handling).
 *
 * A read that finds the log exactly as it was when checkpointed skips even that hash: the
 * checkpoint also records the log's file identity (`file`: device, inode, size, modification and
 * change times in nanoseconds). Every write to a file sets its change time to the current time,
 * and no system call lets its owner set the change time back, so a log whose identity still
 * matches has not been written since. The identity is recorded only once the change time is more
 * than `settledChangeMs` old: an edit within the same timestamp tick as the last change (file
 * systems keep times in ticks of a few milliseconds to two seconds) would otherwise leave the
 * change time as it was. A log that has just been appended to is therefore hashed by the next
 * read, which records its identity once it has settled; at a million events that hash is most
 * of a cold read's cost. Someone who can set the system clock can defeat this, as they can
 * defeat any time-based check; they can also read the root's key.
 *
 * What is trusted: the checkpoint sits under `projections/`, which someone may be able to write
 * without being able to read the root's key (`root.ts`). Its `checksum` only catches damage:
 * anyone can recompute it, and `prefix_sha256`, after editing the log. So the checkpoint also
 * carries `mac`, an HMAC-SHA-256 under the root's key over the session id and every other field;
 * a checkpoint whose MAC does not match (forged, or written under another key) is refused and
 * reported in `checkpointRefused`, and the log is verified in full, whose verdict stands. A root
 * without a key (read-only, created before keys) never trusts a checkpoint. Like everything under
 * `projections/` it is derived and may be deleted (the next read verifies in full and writes it
 * again).
 *
 * Format (`zaxy.verified_checkpoint.v3`, one JSON line at `<root>/projections/verified/<session>.json`;
 * never change a key without a new schema; files of an older schema (v1 without `mac`, v2 without
 * `file`) are verified in full and rewritten):
 *   {"schema","seq","hash","bytes","lines","prefix_sha256","file","checksum","mac"}
 *   seq            events in the prefix (the position of its last event)
 *   hash           that event's stored hash, 64 hex (the next event must link to it)
 *   bytes          prefix length; the prefix ends right after the newline closing event `seq`
 *   lines          physical lines in the prefix (blank lines count), so tail verdicts name absolute lines
 *   prefix_sha256  SHA-256 hex of the prefix's raw bytes
 *   file           "<device>:<inode>:<size>:<mtime ns>:<ctime ns>" of the whole log when its change
 *                  time had settled, or null (not settled yet: the next read hashes the prefix)
 *   checksum       SHA-256 hex of JSON [schema, seq, hash, bytes, lines, prefix_sha256, file]: a
 *                  damaged file is ignored, never used to start the chain from a wrong place
 *   mac            HMAC-SHA-256 hex under the root's key of JSON [schema, session, seq, hash, bytes,
 *                  lines, prefix_sha256, file]
 * A checkpoint vouches for the rules the prefix was verified under: bump the schema whenever
 * `verify.ts` starts refusing something it accepted, so every prefix is verified again.
 */
import { createHash, type Hash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { isJsonObject, parseJsonBytes } from "../canonical/mod.ts";
import { inputError, ioError } from "../errors.ts";
import { derivedFileKey, derivedMac, derivedMacMatches, intentPath, refuseLinkUnderRoot, validateSessionId } from "./root.ts";
import { lockWaitMs, verifiedCheckpointBytesMax } from "../limits.ts";
import { writeFileAtomic } from "../platform/atomicFile.ts";
import { lockFile, sha256Hex, hashFdRange, openRegularFile } from "../platform/mod.ts";
import { type EventRecord, recordFromLine } from "./envelope.ts";
import { readRangeLines } from "./lines.ts";
import { storedHashBefore } from "./verifyParallel.ts";
import { type IntegrityReport, mergeRanges, scanRange, verifyLog } from "./verify.ts";

export const verifiedCheckpointSchema = "zaxy.verified_checkpoint.v3" as const;

/**
 * How old a log's change time must be before its identity is recorded. Two seconds covers the
 * coarsest timestamps in use (FAT's two-second ticks; network file systems round to one).
 */
export const settledChangeMs = 2000;

export interface VerifiedCheckpoint {
  schema: typeof verifiedCheckpointSchema;
  seq: number;
  hash: string;
  bytes: number;
  lines: number;
  prefix_sha256: string;
  /** The log's identity when the checkpoint was written (see the format above), or null. */
  file: string | null;
  checksum: string;
  mac: string;
}

/** The end of what a verification covered. */
export interface VerifiedHead {
  /** Events verified (the last one's position); 0 for an empty log. */
  seq: number;
  /** Stored hash (64 hex) of event `seq`; null for an empty log. */
  hash: string | null;
  /** Bytes verified (`integrity.bytes`). */
  bytes: number;
}

export interface CheckpointVerifyOptions {
  /**
   * Default true: take the log's shared flock while verifying, so a concurrent append is never
   * half-seen. False when the caller already holds the log's exclusive lock.
   */
  lock?: boolean;
  /**
   * Which events to parse and return in `tailEvents`: `"tail"` (default) the events after the
   * checkpoint (every event when verification was full), `"all"` every verified event, `"none"`
   * none, `{ afterBytes, afterSeq }` the events from byte `afterBytes` on, numbered after
   * `afterSeq` (a reader that already holds the first `afterSeq` events, e.g. a read model: it
   * checks the first one links to what it holds; none are parsed when more than `eventsMax`
   * events or `bytesMax` bytes follow), `{ each }` every verified event handed to `each` in seq
   * order and not kept (`tailEvents` stays empty: a caller that folds a large log one event at a
   * time never holds them all). Parsing happens after the lock is released, from the file the
   * verdict covers.
   */
  events?: "tail" | "all" | "none" | { afterBytes: number; afterSeq: number; eventsMax?: number; bytesMax?: number } | { each: (event: EventRecord) => void };
  /** Default true: write or refresh the checkpoint when the verified head moved (best effort). */
  writeCheckpoint?: boolean;
}

export interface CheckpointVerification {
  /** The verdict, as `verifyLog` would give it for this log. */
  integrity: IntegrityReport;
  /** The verified head; null when the verdict is a failure. */
  head: VerifiedHead | null;
  /**
   * Verified events after position `tailStartSeq` (the checkpoint's seq, or 0 when verification
   * was full or `events: "all"`), parsed exactly as `readEvents` parses them. Empty when the
   * verdict is a failure or `events: "none"`.
   */
  tailEvents: EventRecord[];
  tailStartSeq: number;
  /** True when the prefix was checked by its checkpoint digest and only the tail was verified. */
  fromCheckpoint: boolean;
  /** Why the checkpoint was not used (null when it was): none yet, unreadable, the prefix changed, ... */
  fallbackReason: string | null;
  /** Why the checkpoint could not be written (read-only root, full disk), or null. */
  checkpointWriteError: string | null;
  /**
   * Set when a checkpoint was there but is not authenticated by the root's key (forged, or written
   * under another key): the log was verified in full instead and the checkpoint written again.
   */
  checkpointRefused: string | null;
}

/**
 * `<root>/projections/verified/<session>.json`: where a session's verified checkpoint lives.
 *
 * @example
 * verifiedCheckpointPath(".eventloom", "default"); // ".eventloom/projections/verified/default.json"
 */
export function verifiedCheckpointPath(root: string, sessionId: string): string {
  validateSessionId(sessionId, "verify");
  return path.join(root, "projections", "verified", `${sessionId}.json`);
}

function checkpointChecksum(c: Omit<VerifiedCheckpoint, "checksum" | "mac">): string {
  return sha256Hex(JSON.stringify([c.schema, c.seq, c.hash, c.bytes, c.lines, c.prefix_sha256, c.file]));
}

/** What the MAC covers: every field but the checksum, and the session the file is named after. */
function macParts(file: string, c: Omit<VerifiedCheckpoint, "checksum" | "mac">): unknown[] {
  return [c.schema, path.basename(file, ".json"), c.seq, c.hash, c.bytes, c.lines, c.prefix_sha256, c.file];
}

const fileIdentityPattern = /^[0-9]+:[0-9]+:[0-9]+:[0-9]+:[0-9]+$/;

/**
 * The open log's stat, taken on first use and then kept: one verification compares the recorded
 * identity with it and records it again, and the log does not change under its lock.
 */
function logStatOnce(fd: number): () => fs.BigIntStats {
  let stat: fs.BigIntStats | undefined;
  return () => (stat ??= fs.fstatSync(fd, { bigint: true }));
}

/** The identity of the log with `stat`, settled or not: what a recorded identity is compared with. */
function fileIdentity(stat: fs.BigIntStats): string {
  return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
}

/**
 * The identity of the log with `stat` as a checkpoint records it, or null while its change time
 * is within `settledChangeMs` of now (or ahead of this machine's clock).
 */
function settledFileIdentity(stat: fs.BigIntStats): string | null {
  const settledBeforeNs = BigInt(Date.now() - settledChangeMs) * 1_000_000n;
  if (stat.ctimeNs >= settledBeforeNs) return null;
  return fileIdentity(stat);
}

/** The root a checkpoint file belongs to (`<root>/projections/verified/<session>.json`). */
function rootOfCheckpoint(file: string): string {
  return path.dirname(path.dirname(path.dirname(path.resolve(file))));
}

const hex64 = /^[0-9a-f]{64}$/;

/**
 * The checkpoint in `file`, or why it cannot be used; `forged` when it is well formed but its MAC
 * is not the root key's (`root.ts`). Reads at most a few KiB.
 */
export function readVerifiedCheckpoint(file: string): { checkpoint: VerifiedCheckpoint } | { problem: string; forged?: true } {
  let text: string;
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile()) return { problem: "the checkpoint is not a regular file" };
    if (stat.size > verifiedCheckpointBytesMax) return { problem: `the checkpoint is larger than ${verifiedCheckpointBytesMax} bytes` };
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    if ((error as { code?: unknown }).code === "ENOENT") return { problem: "there is no checkpoint yet" };
    return { problem: `the checkpoint cannot be read (${error instanceof Error ? error.message : String(error)})` };
  }
  let parsed: Partial<VerifiedCheckpoint>;
  try {
    // Written by JSON.stringify below: plain integers and strings, no lossless parse needed.
    parsed = JSON.parse(text);
  } catch {
    return { problem: "the checkpoint is not JSON" };
  }
  if (typeof parsed !== "object" || parsed === null || parsed.schema !== verifiedCheckpointSchema) {
    return { problem: `the checkpoint's schema is not ${verifiedCheckpointSchema}` };
  }
  const { seq, hash, bytes, lines, prefix_sha256: prefix, file: identity, checksum, mac } = parsed;
  const counts = [seq, bytes, lines].every((n) => Number.isSafeInteger(n) && (n as number) >= 1);
  if (!counts || (lines as number) < (seq as number) || (bytes as number) < (lines as number)) {
    return { problem: "the checkpoint's seq, bytes and lines are not consistent counts" };
  }
  if (typeof hash !== "string" || !hex64.test(hash) || typeof prefix !== "string" || !hex64.test(prefix)) {
    return { problem: "the checkpoint's hash or prefix_sha256 is not 64 lowercase hex" };
  }
  if (identity !== null && (typeof identity !== "string" || !fileIdentityPattern.test(identity))) {
    return { problem: "the checkpoint's file is neither null nor a file identity" };
  }
  const checkpoint = { schema: verifiedCheckpointSchema, seq, hash, bytes, lines, prefix_sha256: prefix, file: identity } as Omit<VerifiedCheckpoint, "checksum" | "mac">;
  if (checksum !== checkpointChecksum(checkpoint)) return { problem: "the checkpoint does not match its checksum (damaged)" };
  const key = derivedFileKey(rootOfCheckpoint(file));
  if (key === null) return { problem: "the root has no key to authenticate the checkpoint with (read-only root?)" };
  if (!derivedMacMatches(key, macParts(file, checkpoint), mac)) {
    return { problem: "the checkpoint is not authenticated by this root's key (forged, or written under another key)", forged: true };
  }
  return { checkpoint: { ...checkpoint, checksum, mac: mac as string } };
}

/**
 * Writes `checkpoint` atomically (temp file, fsync, rename), authenticated by the root's key;
 * throws the file system's error, or when the root has no key and none can be made.
 */
export function writeVerifiedCheckpoint(file: string, checkpoint: Omit<VerifiedCheckpoint, "schema" | "checksum" | "mac">): void {
  refuseLinkUnderRoot(rootOfCheckpoint(file), file, `write the verified checkpoint ${file}`);
  const key = derivedFileKey(rootOfCheckpoint(file));
  if (key === null) throw new Error(`the root has no key to authenticate it with (${rootOfCheckpoint(file)}/keys cannot be read or created)`);
  const body = {
    schema: verifiedCheckpointSchema as typeof verifiedCheckpointSchema, seq: checkpoint.seq, hash: checkpoint.hash, bytes: checkpoint.bytes,
    lines: checkpoint.lines, prefix_sha256: checkpoint.prefix_sha256, file: checkpoint.file,
  };
  const ordered: VerifiedCheckpoint = { ...body, checksum: checkpointChecksum(body), mac: derivedMac(key, macParts(file, body)) };
  writeFileAtomic(file, `${JSON.stringify(ordered)}\n`);
}

/** Feeds bytes [start, end) of `fd` to `hash`; counts their newlines when asked. */
function hashRange(fd: number, start: number, end: number, hash: Hash, countNewlines: boolean): number {
  let newlines = 0;
  const count = (chunk: Uint8Array) => {
    for (let at = chunk.indexOf(0x0a); at >= 0; at = chunk.indexOf(0x0a, at + 1)) newlines++;
  };
  hashFdRange(hash, fd, start, end, countNewlines ? count : undefined);
  return newlines;
}

function byteAt(fd: number, offset: number): number {
  const one = new Uint8Array(1);
  return fs.readSync(fd, one, 0, 1, offset) === 1 ? one[0] : -1;
}


/** Parses the events in [start, end) of `fd`, numbering them after `eventsBefore` (as `readEvents` does). */
function parseEvents(fd: number, start: number, end: number, eventsBefore: number, eventsMax: number, each?: (event: EventRecord) => void): EventRecord[] {
  const events: EventRecord[] = [];
  if (start >= end) return events;
  const take = each ?? ((event: EventRecord) => events.push(event));
  for (const { bytes, position } of readRangeLines(fd, start, end)) {
    if (eventsBefore + position > eventsMax) break;
    try {
      const parsed = parseJsonBytes(bytes);
      if (isJsonObject(parsed)) take(recordFromLine(parsed, eventsBefore + position));
    } catch {
      // Unreachable after an ok verdict; readEvents skips such a line too.
    }
  }
  return events;
}

/**
 * The verdict `mergeRanges` gives a log that is exactly its verified prefix of `bytes` bytes and
 * `events` events (an empty tail: nothing failed, nothing torn), without a scan.
 */
function atVerifiedHead(bytes: number, events: number): IntegrityReport {
  return { ok: true, total_events: events, broken_at_seq: null, broken_reason: null, code: null, line: null, torn_tail: false, errors: [], bytes };
}

interface OpenedLog {
  fd: number;
  sizeBytes: number;
  release(): void;
}

/** Opens the log as `verifyLog` does: refuse a non-regular file unread, lock, reopen under the lock. */
async function openLocked(logPath: string, lock: boolean): Promise<OpenedLog> {
  const probe = openRegularFile(logPath);
  if (!probe.ok) throw inputError("unreadable_log", `Cannot verify ${logPath}: ${probe.reason}`, { field: "LOG", expected: "a regular file" });
  fs.closeSync(probe.fd);
  let held: { release(): void } | undefined;
  if (lock) {
    try {
      held = await lockFile(logPath, "shared", lockWaitMs);
    } catch (error) {
      throw ioError("lock_failed", `Cannot verify ${logPath}: ${(error as Error).message}`);
    }
  }
  const opened = openRegularFile(logPath);
  if (!opened.ok) {
    held?.release();
    throw inputError("unreadable_log", `Cannot verify ${logPath}: ${opened.reason}`, { field: "LOG", expected: "a regular file" });
  }
  let released = false;
  return {
    fd: opened.fd,
    sizeBytes: opened.sizeBytes,
    release: () => {
      if (released) return;
      released = true;
      held?.release();
    },
  };
}

/** What a verification under the lock found, before events are parsed. */
interface LockedVerdict {
  integrity: IntegrityReport;
  fromCheckpoint: boolean;
  fallbackReason: string | null;
  /** Events before the unverified-by-this-call tail (the checkpoint's seq, or 0). */
  prefixSeq: number;
  prefixBytes: number;
  /** The checkpoint to write now, or undefined when the head did not move or cannot be checkpointed. */
  next: Omit<VerifiedCheckpoint, "schema" | "checksum" | "mac"> | undefined;
  headHash: string | null;
  /** The refusal of a forged checkpoint, or null. */
  refused: string | null;
}

/**
 * The checkpoint for the verified log `fd` (verified `integrity`, stat by `logStat`), given the
 * hash state of the first `hashedBytes` bytes and the physical lines there. Undefined when the
 * verified bytes do not end with a newline (a valid last line awaiting its newline: the next
 * append adds it) or hold no event.
 */
function nextCheckpoint(fd: number, logStat: () => fs.BigIntStats, integrity: IntegrityReport, hash: Hash, hashedBytes: number, linesHashed: number | undefined) {
  const end = integrity.bytes;
  if (!integrity.ok || integrity.interrupted_append !== undefined || integrity.total_events === 0 || end === 0 || byteAt(fd, end - 1) !== 0x0a) return undefined;
  const newlines = hashRange(fd, hashedBytes, end, hash, linesHashed === undefined);
  const headHash = storedHashBefore(fd, end);
  if (headHash === null || !hex64.test(headHash)) return undefined;
  return { seq: integrity.total_events, hash: headHash, bytes: end, lines: linesHashed ?? newlines, prefix_sha256: hash.digest("hex"), file: settledFileIdentity(logStat()) };
}

async function verifyLocked(logPath: string, checkpointFile: string, lock: boolean, write: boolean): Promise<LockedVerdict & { fd: number; release(): void }> {
  const read = readVerifiedCheckpoint(checkpointFile);
  const log = await openLocked(logPath, lock);
  try {
    const { fd, sizeBytes } = log;
    const logStat = logStatOnce(fd);
    let fallbackReason: string;
    if ("problem" in read) {
      fallbackReason = read.problem;
    } else if (fs.existsSync(intentPath(logPath))) {
      fallbackReason = "an append intent is present (an interrupted append is checked in full)";
    } else if (sizeBytes < read.checkpoint.bytes) {
      fallbackReason = `the log (${sizeBytes} bytes) is shorter than its verified prefix (${read.checkpoint.bytes} bytes): truncated or rewritten`;
    } else if (byteAt(fd, read.checkpoint.bytes - 1) !== 0x0a) {
      fallbackReason = `byte ${read.checkpoint.bytes - 1} of the log no longer ends a line`;
    } else {
      const cp = read.checkpoint;
      // Unwritten since it was checkpointed: its prefix is the one verified, unhashed. The hash
      // is still taken when the checkpoint moves on (its digest continues over the new bytes).
      const unwritten = cp.file !== null && cp.file === fileIdentity(logStat());
      const hash = createHash("sha256");
      const prefixHashed = () => {
        hashRange(fd, 0, cp.bytes, hash, false);
        return hash;
      };
      if (!unwritten && prefixHashed().copy().digest("hex") !== cp.prefix_sha256) {
        fallbackReason = `the first ${cp.bytes} bytes of the log changed since they were verified`;
      } else {
        // The prefix is byte-identical to one the full verifier passed: continue from its chain
        // state. Its last event's hash is the authenticated `cp.hash`, taken from these same bytes
        // when the checkpoint was written, so it is not parsed again; a log that is exactly the
        // prefix has no tail to scan, and its verdict is the prefix's (`atVerifiedHead`).
        const range = sizeBytes === cp.bytes ? undefined : scanRange(fd, cp.bytes, sizeBytes, true, { eventBase: cp.seq, lineBase: cp.lines, prevHash: cp.hash });
        const integrity = range === undefined ? atVerifiedHead(sizeBytes, cp.seq) : mergeRanges(sizeBytes, [range], false);
        const moved = integrity.ok && integrity.total_events !== cp.seq;
        // Not moved, but not recorded as unwritten either: record the identity once it has settled.
        const settled = write && !moved && integrity.ok && !unwritten ? settledFileIdentity(logStat()) : null;
        const next = write && moved
          ? nextCheckpoint(fd, logStat, integrity, unwritten ? prefixHashed() : hash, cp.bytes, range?.lastLine)
          : settled !== null
          ? { seq: cp.seq, hash: cp.hash, bytes: cp.bytes, lines: cp.lines, prefix_sha256: cp.prefix_sha256, file: settled }
          : undefined;
        const headHash = !integrity.ok ? null : next?.hash ?? (integrity.total_events === cp.seq ? cp.hash : storedHashBefore(fd, sizeBytes));
        return { integrity, fromCheckpoint: true, fallbackReason: null, prefixSeq: cp.seq, prefixBytes: cp.bytes, next, headHash, refused: null, fd, release: log.release };
      }
    }
    const integrity = await verifyLog(logPath, { lock: false });
    const next = write ? nextCheckpoint(fd, logStat, integrity, createHash("sha256"), 0, undefined) : undefined;
    const headHash = !integrity.ok || integrity.total_events === 0 ? null : next?.hash ?? storedHashBefore(fd, integrity.bytes);
    const refused = "forged" in read && read.forged === true ? read.problem : null;
    return { integrity, fromCheckpoint: false, fallbackReason, prefixSeq: 0, prefixBytes: 0, next, headHash, refused, fd, release: log.release };
  } catch (error) {
    log.release();
    fs.closeSync(log.fd);
    throw error;
  }
}

/**
 * Verifies a log, using (and then refreshing) its verified checkpoint: when the checkpointed
 * prefix is byte-identical (one streaming SHA-256), only the bytes after it are verified;
 * otherwise the whole log is, by `verifyLog`, and that verdict stands. The integrity report is
 * the one `verifyLog` gives for the same log (first failure only). A checkpoint write failure
 * (read-only root, full disk) never fails the verification; it is reported in
 * `checkpointWriteError`. `zaxy verify` does not use this: it always checks every byte.
 *
 * @example
 * const checked = await verifyWithCheckpoint(".eventloom/default.jsonl", verifiedCheckpointPath(".eventloom", "default"));
 * if (!checked.integrity.ok) throw new Error(checked.integrity.broken_reason ?? "");
 * // checked.tailEvents: the events after checked.tailStartSeq; checked.head: { seq, hash, bytes }
 */
export async function verifyWithCheckpoint(logPath: string, checkpointFile: string, options: CheckpointVerifyOptions = {}): Promise<CheckpointVerification> {
  const write = options.writeCheckpoint !== false;
  const verdict = await verifyLocked(logPath, checkpointFile, options.lock !== false, write);
  const { integrity, fd } = verdict;
  let tailEvents: EventRecord[] = [];
  let tailStartSeq = verdict.prefixSeq;
  try {
    // Released before parsing, so appenders wait only for the verification. The open descriptor
    // still reads the file the verdict covers (a rewrite renames a new file over the path), and
    // only its verified bytes are read.
    verdict.release();
    const wanted = options.events ?? "tail";
    if (typeof wanted === "object" && "each" in wanted) {
      tailStartSeq = 0;
      if (integrity.ok) parseEvents(fd, 0, integrity.bytes, 0, integrity.total_events, wanted.each);
    } else if (integrity.ok && typeof wanted === "object") {
      tailStartSeq = wanted.afterSeq;
      const following = integrity.total_events - wanted.afterSeq;
      const followingBytes = integrity.bytes - wanted.afterBytes;
      if (followingBytes >= 0 && followingBytes <= (wanted.bytesMax ?? Infinity) && following >= 0 && following <= (wanted.eventsMax ?? Infinity)) {
        tailEvents = parseEvents(fd, wanted.afterBytes, integrity.bytes, wanted.afterSeq, integrity.total_events);
      }
    } else if (integrity.ok && wanted !== "none") {
      if (wanted === "all") tailStartSeq = 0;
      const start = wanted === "all" ? 0 : verdict.prefixBytes;
      tailEvents = parseEvents(fd, start, integrity.bytes, tailStartSeq, integrity.total_events);
    }
  } finally {
    fs.closeSync(fd);
  }
  let checkpointWriteError: string | null = null;
  if (verdict.next !== undefined) {
    try {
      writeVerifiedCheckpoint(checkpointFile, verdict.next);
    } catch (error) {
      checkpointWriteError = `Cannot write the verified checkpoint ${checkpointFile}: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
  return {
    integrity,
    head: integrity.ok ? { seq: integrity.total_events, hash: verdict.headHash, bytes: integrity.bytes } : null,
    tailEvents,
    tailStartSeq,
    fromCheckpoint: verdict.fromCheckpoint,
    fallbackReason: verdict.fallbackReason,
    checkpointWriteError,
    checkpointRefused: verdict.refused,
  };
}
