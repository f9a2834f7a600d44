/**
 * Append intents: what makes a batch all or nothing across a crash. A write of megabytes is not
 * atomic under `kill -9` or a power cut, so before the first byte of a batch is written the
 * appender records, in `<log>.intent` (fsynced, with its directory), the log's length before the
 * batch, the length after it, a SHA-256 of the (up to) 4 KiB the batch follows, a SHA-256 of the
 * batch's bytes and a 16-hex prefix of every event hash in it. The intent is removed once the
 * batch is fsynced. An intent found later (under the log's exclusive lock, where no append can
 * be in flight) belongs to an append that died; recovery compares the log with it:
 *
 *   nothing_written  the log still has its pre-batch length, or another writer's events follow
 *                    it directly: drop the intent, change nothing;
 *   complete         the whole batch is there (byte-identical): keep it, drop the intent;
 *   partial          some of the batch is there, nothing else: save the bytes after the
 *                    pre-batch length to `<log>.interrupted-append-<ms>.bak`, truncate, fsync;
 *   conflict         the log no longer matches (shorter than before, other bytes before the
 *                    batch, or lines the batch did not write after it): refuse, change nothing.
 *
 * The Python implementation ignores intents. After a zaxy crash that left a torn line it refuses
 * to append (its tail line does not parse); otherwise it appends after whatever is there, and the
 * next zaxy recovery finds lines the batch did not write: `nothing_written` when they follow the
 * pre-batch log directly (kept), `conflict` when they follow part of the batch (they chain onto
 * it, so rolling back would orphan them), `complete` when they follow the whole batch (kept).
 *
 * Format (one JSON line; never change a key without a new schema):
 *   {"schema":"zaxy.append_intent.v1","log_bytes_before":N,"log_bytes_after":N,
 *    "bytes_before_sha256":hex,"batch_sha256":hex,"event_hash_prefixes":[hex16,...]}
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { checkError } from "../errors.ts";
import { saveBackup } from "./backup.ts";
import { storedEventHash } from "./envelope.ts";
import { hashFdRange } from "../platform/mod.ts";
import { readRangeLines } from "./lines.ts";
import { intentPath } from "./root.ts";

const intentSchema = "zaxy.append_intent.v1";
/** Event hashes are recorded by prefix: 64 bits tell a batch's line from another writer's. */
export const eventHashPrefixChars = 16;
/** An intent is about 20 bytes per event; a file much larger than any batch's is not ours. */
const intentBytesMax = 16 << 20;
/** How much of the log before a batch its intent pins: enough to notice a rewritten log. */
const pinnedBytesBefore = 4096;

export interface AppendIntent {
  logBytesBefore: number;
  logBytesAfter: number;
  /** SHA-256 of the (up to) 4 KiB before the batch. */
  bytesBeforeSha256: string;
  batchSha256: string;
  eventHashPrefixes: string[];
}

export type InterruptedAppendState = "unreadable_intent" | "nothing_written" | "complete" | "partial" | "conflict";

/** An intent left by an append that did not finish, and how the log compares with it. */
export interface InterruptedAppend {
  state: InterruptedAppendState;
  intent_path: string;
  /** Log length before the interrupted batch (null when the intent is unreadable). */
  log_bytes_before: number | null;
  log_bytes_after: number | null;
  log_bytes_now: number;
  events_in_batch: number | null;
  /** Whole events of the batch found in the log. */
  events_written: number | null;
  /** What was found, in a sentence. */
  message: string;
}

/**
 * Records `intent` before a batch is written. For a batch of several events the file and its
 * directory entry are fsynced, so after a power cut no batch byte can be on disk without its
 * intent. A batch of one event skips both fsyncs (they would triple the cost of every single
 * append): a crash of the process still finds the intent in the page cache, and after a power
 * cut one line can only be torn (no final newline), which appends refuse and `zaxy repair`
 * removes, never half a batch committed. On failure the partial intent is removed and the
 * error rethrown (the log is untouched).
 */
export function beginAppend(logPath: string, intent: AppendIntent): void {
  const file = intentPath(logPath);
  const text = JSON.stringify({
    schema: intentSchema,
    log_bytes_before: intent.logBytesBefore,
    log_bytes_after: intent.logBytesAfter,
    bytes_before_sha256: intent.bytesBeforeSha256,
    batch_sha256: intent.batchSha256,
    event_hash_prefixes: intent.eventHashPrefixes,
  }) + "\n";
  const bytes = new TextEncoder().encode(text);
  let fd: number | undefined;
  try {
    // Never through a link planted at the intent's path: that would write outside the root.
    fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_TRUNC | (fs.constants.O_NOFOLLOW ?? 0), 0o644);
    for (let written = 0; written < bytes.length; ) written += fs.writeSync(fd, bytes, written, bytes.length - written);
    const durable = intent.eventHashPrefixes.length > 1;
    if (durable) fs.fsyncSync(fd);
    fs.closeSync(fd);
    fd = undefined;
    if (durable) fsyncDirectory(path.dirname(file));
  } catch (error) {
    if (fd !== undefined) {
      try {
        fs.closeSync(fd);
      } catch {
        // The write already failed.
      }
    }
    try {
      fs.unlinkSync(file);
    } catch {
      // Nothing of the batch was written: a leftover intent reads as nothing_written.
    }
    throw error;
  }
}

/**
 * Drops the intent once the batch is fsynced. Its removal need not be durable: an intent that
 * reappears after a power cut finds its batch complete and is dropped again.
 */
export function endAppend(logPath: string): void {
  try {
    fs.unlinkSync(intentPath(logPath));
  } catch (error) {
    if ((error as { code?: string }).code !== "ENOENT") throw error;
  }
}

function fsyncDirectory(dir: string): void {
  const fd = fs.openSync(dir, "r");
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

function readIntent(file: string): AppendIntent | undefined {
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile() || stat.size > intentBytesMax) return undefined;
    // Written by JSON.stringify above: plain JSON numbers and strings, no lossless parse needed.
    const parsed = JSON.parse(fs.readFileSync(file, "utf8"));
    if (typeof parsed !== "object" || parsed === null || parsed.schema !== intentSchema) return undefined;
    const { log_bytes_before: before, log_bytes_after: after, bytes_before_sha256: pinned, batch_sha256: batch, event_hash_prefixes: prefixes } = parsed;
    if (!Number.isSafeInteger(before) || !Number.isSafeInteger(after) || before < 0 || after <= before) return undefined;
    if (typeof pinned !== "string" || typeof batch !== "string" || !Array.isArray(prefixes)) return undefined;
    if (!prefixes.every((p: unknown) => typeof p === "string" && p.length === eventHashPrefixChars)) return undefined;
    return { logBytesBefore: before, logBytesAfter: after, bytesBeforeSha256: pinned, batchSha256: batch, eventHashPrefixes: prefixes };
  } catch {
    return undefined;
  }
}

/** SHA-256 of the bytes an intent pins before a batch that starts at `logBytesBefore`. */
export function sha256BeforeBatch(fd: number, logBytesBefore: number): string {
  return sha256OfRange(fd, Math.max(0, logBytesBefore - pinnedBytesBefore), logBytesBefore);
}

function sha256OfRange(fd: number, start: number, end: number): string {
  const hash = createHash("sha256");
  hashFdRange(hash, fd, start, end);
  return hash.digest("hex");
}


/**
 * Compares the log (open as `fd`, `size` bytes) with the intent left next to it, if any. Reads
 * only; callers hold the log's lock (shared is enough to inspect, exclusive to recover).
 */
export function inspectInterruptedAppend(fd: number, logPath: string, size: number): InterruptedAppend | undefined {
  const file = intentPath(logPath);
  if (!fs.existsSync(file)) return undefined;
  const intent = readIntent(file);
  const base = { intent_path: file, log_bytes_now: size };
  if (intent === undefined) {
    return {
      ...base,
      state: "unreadable_intent",
      log_bytes_before: null,
      log_bytes_after: null,
      events_in_batch: null,
      events_written: null,
      message: `the append intent ${file} is unreadable: its append died while recording it, before writing to the log`,
    };
  }
  const known = {
    ...base,
    log_bytes_before: intent.logBytesBefore,
    log_bytes_after: intent.logBytesAfter,
    events_in_batch: intent.eventHashPrefixes.length,
  };
  const batchSize = `an append of ${intent.eventHashPrefixes.length} events (${intent.logBytesAfter - intent.logBytesBefore} bytes after byte ${intent.logBytesBefore})`;
  const conflict = (why: string, eventsWritten: number | null): InterruptedAppend => ({
    ...known,
    state: "conflict",
    events_written: eventsWritten,
    message: `${batchSize} was interrupted (intent ${file}), and ${why}`,
  });
  if (size < intent.logBytesBefore) return conflict(`the log is now shorter (${size} bytes) than before it`, null);
  if (sha256BeforeBatch(fd, intent.logBytesBefore) !== intent.bytesBeforeSha256) {
    return conflict(`the bytes before byte ${intent.logBytesBefore} are not the ones it followed: the log was rewritten since`, null);
  }
  if (size === intent.logBytesBefore) {
    return { ...known, state: "nothing_written", events_written: 0, message: `${batchSize} was interrupted before writing anything` };
  }
  if (size >= intent.logBytesAfter && sha256OfRange(fd, intent.logBytesBefore, intent.logBytesAfter) === intent.batchSha256) {
    const extra = size > intent.logBytesAfter ? `; ${size - intent.logBytesAfter} bytes another writer appended follow it` : "";
    return { ...known, state: "complete", events_written: intent.eventHashPrefixes.length, message: `${batchSize} was interrupted after writing all of it${extra}` };
  }
  let eventsWritten = 0;
  for (const line of readRangeLines(fd, intent.logBytesBefore, size)) {
    // An unterminated last piece is the batch's next line cut mid-write.
    if (!line.terminated) break;
    const expected = intent.eventHashPrefixes[eventsWritten];
    const hash = storedEventHash(line.bytes);
    if (eventsWritten === 0 && expected !== undefined && hash !== undefined && !hash.startsWith(expected)) {
      // The batch's bytes would start at its pre-batch length: a whole event there that is not
      // its first means it wrote no event (at most the newline it starts with), and another
      // writer appended after the pre-batch log. Those events stay.
      return {
        ...known,
        state: "nothing_written",
        events_written: 0,
        message: `${batchSize} was interrupted before writing any of its events; the ${size - intent.logBytesBefore} bytes after byte ${intent.logBytesBefore} are another writer's`,
      };
    }
    if (expected === undefined || hash === undefined || !hash.startsWith(expected)) {
      return conflict(`after ${eventsWritten} of its events the log holds a line it did not write (another writer appended after the interrupted batch); rolling it back would delete that writer's events`, eventsWritten);
    }
    eventsWritten++;
  }
  return {
    ...known,
    state: "partial",
    events_written: eventsWritten,
    message: `${batchSize} was interrupted after writing ${eventsWritten} whole events and ${size - intent.logBytesBefore} bytes; none of it is committed`,
  };
}

export interface RecoveryResult {
  /** Log length after recovery. */
  size: number;
  /** What recovery did, for stderr and `warnings` (empty when there was nothing to recover). */
  warnings: string[];
  interrupted?: InterruptedAppend;
  backupPath?: string;
}

/**
 * Finishes what an interrupted append left, under the log's exclusive lock (`fd` open for
 * writing). `action` starts error messages, e.g. `Cannot append to session "default"`. A
 * conflict throws `interrupted_append_conflict` (exit 1) and changes nothing.
 */
export function recoverInterruptedAppend(fd: number, logPath: string, size: number, action: string, now: () => number = Date.now): RecoveryResult {
  const interrupted = inspectInterruptedAppend(fd, logPath, size);
  if (interrupted === undefined) return { size, warnings: [] };
  switch (interrupted.state) {
    case "unreadable_intent":
    case "nothing_written":
      endAppend(logPath);
      return { size, interrupted, warnings: [`${capitalize(interrupted.message)}; removed the intent (the log is unchanged).`] };
    case "complete":
      fs.fsyncSync(fd);
      endAppend(logPath);
      return { size, interrupted, warnings: [`${capitalize(interrupted.message)}; the batch is whole, so it stays committed.`] };
    case "partial": {
      const before = interrupted.log_bytes_before as number;
      const backupPath = `${logPath}.interrupted-append-${now()}.bak`;
      saveBackup(fd, before, size, backupPath, action);
      fs.ftruncateSync(fd, before);
      fs.fsyncSync(fd);
      endAppend(logPath);
      return {
        size: before,
        interrupted,
        backupPath,
        warnings: [`${capitalize(interrupted.message)}; rolled it back to the log's ${before} bytes before it and saved the ${size - before} removed bytes to ${backupPath}.`],
      };
    }
    case "conflict":
      throw checkError("interrupted_append_conflict", `${action}: ${interrupted.message}`, {
        hint: `nothing was changed; inspect the log with 'zaxy verify', then either delete ${interrupted.intent_path} to keep the log as it is, or truncate the log to ${interrupted.log_bytes_before ?? "its pre-append"} bytes to drop the interrupted batch and everything after it`,
      });
  }
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
