/**
 * The local mirror of a store (docs/store.md): `<root>/stores/<id>/<thread>.jsonl`, byte for
 * byte the store's lines of each thread, so every reader of files works unchanged on it. It is a
 * cache the store can always rebuild, and also the anchor that catches a store rewritten behind
 * this root's back:
 * - rows are fetched only after the mirror's last event, their seqs must run on without a gap,
 *   and their chain is verified (every hash recomputed from `line`) before a byte is written;
 * - an audited thread's mirrored prefix is compared with the store's rows (a SHA-256 the server
 *   computes over them, or the rows themselves where it cannot), so a row tampered with in SQL
 *   is refused (`integrity_failure`, exit 1) at its seq instead of being read around.
 * The caller holds the mirror file's exclusive flock.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { checkError, ioError } from "../errors.ts";
import { storedEventHash } from "../eventloom/envelope.ts";
import { recoverInterruptedAppend } from "../eventloom/intent.ts";
import { readLogLines } from "../eventloom/lines.ts";
import { fileSystemReason } from "../eventloom/root.ts";
import { scanBytes } from "../eventloom/verify.ts";
import { lockFile } from "../platform/mod.ts";
import type { Queryable } from "./storeClient.ts";
import { type HeadRow, headRowOf } from "./headRow.ts";
import { lastLineOf, streamThreadLines } from "./threadLines.ts";

/** Rows fetched (and verified, and written) per round trip. */
export const mirrorPageRows = 20_000;

export interface MirrorCount {
  /** Events (lines) in the mirror. */
  lines: number;
  bytes: number;
}

function countPath(logPath: string): string {
  return `${logPath}.count`;
}

/** The mirror's event count, from its side file when that matches the file's size, else counted. */
export function mirrorCount(logPath: string, fd?: number): MirrorCount {
  const size = fd === undefined ? (fs.statSync(logPath, { throwIfNoEntry: false })?.size ?? 0) : fs.fstatSync(fd).size;
  if (size === 0) return { lines: 0, bytes: 0 };
  try {
    const saved = JSON.parse(fs.readFileSync(countPath(logPath), "utf8")) as MirrorCount;
    if (saved.bytes === size && Number.isSafeInteger(saved.lines)) return saved;
  } catch {
    // Missing or torn: count.
  }
  const ownFd = fd ?? fs.openSync(logPath, "r");
  try {
    return { lines: countLinesIn(ownFd, size), bytes: size };
  } finally {
    if (fd === undefined) fs.closeSync(ownFd);
  }
}

export function saveMirrorCount(logPath: string, count: MirrorCount): void {
  try {
    const temp = `${countPath(logPath)}.tmp-${process.pid}`;
    fs.rmSync(temp, { force: true });
    fs.writeFileSync(temp, JSON.stringify(count), { flag: "wx" });
    fs.renameSync(temp, countPath(logPath));
  } catch {
    // Only a shortcut: the next reader counts the lines itself.
  }
}

function lastLineBytes(fd: number, size: number): Buffer {
  // Lines are at most a few MiB; read backwards in growing windows until a newline before the last.
  for (let window = 65536; ; window *= 4) {
    const start = Math.max(0, size - window);
    const buffer = Buffer.alloc(size - start);
    fs.readSync(fd, buffer, 0, buffer.length, start);
    const end = buffer.length - 1; // the final "\n"
    const previous = buffer.lastIndexOf(10, end - 1);
    if (previous !== -1) return buffer.subarray(previous + 1, end);
    if (start === 0) return buffer.subarray(0, end);
  }
}

/** The offset just after the last newline in the first `size` bytes (0 when there is none). */
function endOfLastWholeLine(fd: number, size: number): number {
  const buffer = Buffer.alloc(1 << 16);
  for (let end = size; end > 0; ) {
    const start = Math.max(0, end - buffer.length);
    fs.readSync(fd, buffer, 0, end - start, start);
    const at = buffer.subarray(0, end - start).lastIndexOf(10);
    if (at !== -1) return start + at + 1;
    end = start;
  }
  return 0;
}


function diverged(thread: string, seq: number, detail: string, mirrorDir: string): Error {
  return checkError(
    "integrity_failure",
    `Session ${JSON.stringify(thread)} in the store differs from the copy this root verified before, at event ${seq}: ${detail}. ` +
      "Rows the store had already served were changed or removed; nothing was read from them.",
    {
      field: "store",
      hint: `check the store's chain with \`zaxy verify --store URL --session-id ${thread}\`; if the store is right and this root's copy is not, delete ${mirrorDir} to re-read it`,
    },
  );
}

/** The first seq at which the store's rows and the mirror's lines differ (for the message). */
async function firstDifference(q: Queryable, thread: string, logPath: string, lines: number): Promise<{ seq: number; detail: string }> {
  let seq = 0;
  let page: { seq: number; line: Buffer }[] = [];
  let index = 0;
  for (const { bytes, position } of readLogLines(logPath)) {
    if (position > lines) break;
    if (index === page.length) {
      const rows = await q`SELECT seq, line FROM eventloom_events WHERE thread = ${thread} AND seq > ${seq} ORDER BY seq LIMIT ${mirrorPageRows}`.raw();
      page = rows.map((row) => ({ seq: Number(String(row[0])), line: row[1] as Buffer }));
      index = 0;
      if (page.length === 0) return { seq: position, detail: `the store has no event ${position} (this root has ${lines})` };
    }
    const row = page[index++];
    seq = row.seq;
    if (row.seq !== position) return { seq: position, detail: `the store has no event ${position} (its next row is ${row.seq})` };
    if (Buffer.compare(row.line, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)) !== 0) {
      return { seq: position, detail: "its line in the store is not the line that was sealed" };
    }
  }
  return { seq: lines, detail: "the store holds the same lines but a different count or order" };
}

/**
 * Checks the mirror's first `lines` events against the store. `full`: the whole prefix, by a
 * SHA-256 the server computes over its rows (falling back to fetching them); otherwise only the
 * last line. A difference is `integrity_failure` naming the first differing seq.
 */
async function auditPrefix(q: Queryable, thread: string, logPath: string, fd: number, count: MirrorCount, full: boolean): Promise<void> {
  const mirrorDir = path.dirname(logPath);
  if (count.lines === 0) {
    return;
  }
  if (!full) {
    const rows = await q`SELECT line FROM eventloom_events WHERE thread = ${thread} AND seq = ${count.lines}`.raw();
    const mine = lastLineBytes(fd, count.bytes);
    if (rows.length === 1 && Buffer.compare(rows[0][0] as Buffer, mine) === 0) return;
    const difference = await firstDifference(q, thread, logPath, count.lines);
    throw diverged(thread, difference.seq, difference.detail, mirrorDir);
  }
  // Page by page (a server's text values stop at 1 GB), one page ahead on the server.
  const local = pageDigestsOfFile(fd, count.bytes, auditPageRows);
  const pageOf = (index: number) => {
    const from = index * auditPageRows;
    const to = Math.min(count.lines, from + auditPageRows);
    return q`
      SELECT count(*) AS n, encode(sha256(convert_to(string_agg(line || chr(10), '' ORDER BY seq), 'UTF8')), 'hex') AS digest
      FROM eventloom_events WHERE thread = ${thread} AND seq > ${from} AND seq <= ${to}`.then((rows) => ({ n: Number(rows[0].n), digest: rows[0].digest as string | null }));
  };
  let same = local.length > 0;
  try {
    // Two pages in flight: the server builds one while the other is compared.
    const inFlight = [pageOf(0), ...(local.length > 1 ? [pageOf(1)] : [])];
    for (let index = 0; index < local.length; index++) {
      const page = await (inFlight.shift() as ReturnType<typeof pageOf>);
      if (index + 2 < local.length) inFlight.push(pageOf(index + 2));
      if (page.n !== local[index].lines || page.digest !== local[index].digest) {
        same = false;
        await Promise.allSettled(inFlight);
        break;
      }
    }
  } catch (error) {
    // 42883: the server lacks convert_to or sha256 (some compatible databases): compare the rows.
    if ((error as { code?: unknown }).code !== "42883") throw error;
    const difference = await firstDifference(q, thread, logPath, count.lines);
    if (difference.detail.startsWith("the store holds the same lines")) return;
    throw diverged(thread, difference.seq, difference.detail, mirrorDir);
  }
  if (same) return;
  const difference = await firstDifference(q, thread, logPath, count.lines);
  throw diverged(thread, difference.seq, difference.detail, mirrorDir);
}

/** Rows the one-round-trip catch-up takes; more go through the paged path. */
const quickRowsMax = 1000;
const newlineBytes = Buffer.from("\n");

/**
 * Rows per page of the prefix check: a small share of any table, so the page is read along the
 * primary key (with 20,000, a 200k-event thread in a 600k-row table was read by parallel bitmap
 * scans and external sorts: the server's CPU per check 0.9 s -> 0.5 s at 4,000).
 */
const auditPageRows = 4_000;

/** SHA-256 of each run of `pageLines` lines of the file's first `size` bytes, with its line count. */
function pageDigestsOfFile(fd: number, size: number, pageLines: number): { lines: number; digest: string }[] {
  const pages: { lines: number; digest: string }[] = [];
  let hash = createHash("sha256");
  let lines = 0;
  const buffer = Buffer.alloc(1 << 22);
  for (let offset = 0; offset < size; ) {
    const read = fs.readSync(fd, buffer, 0, Math.min(buffer.length, size - offset), offset);
    if (read === 0) break;
    let start = 0;
    for (let at = buffer.indexOf(10, 0); at !== -1 && at < read; at = buffer.indexOf(10, at + 1)) {
      if (++lines === pageLines) {
        hash.update(buffer.subarray(start, at + 1));
        pages.push({ lines, digest: hash.digest("hex") });
        hash = createHash("sha256");
        lines = 0;
        start = at + 1;
      }
    }
    hash.update(buffer.subarray(start, read));
    offset += read;
  }
  if (lines > 0) pages.push({ lines, digest: hash.digest("hex") });
  return pages;
}

export interface CaughtUp {
  lines: number;
  bytes: number;
  /** The stored hash of the mirror's last event after the catch-up, or null when it has none. */
  lastHash: string | null;
  /**
   * With `audit`: the head row read in the same snapshot as the highest seq the mirror was
   * brought up to (null: the thread has none), for the head row check.
   */
  head?: HeadRow | null;
  /** Rows fetched from the store by this catch-up. */
  fetched: number;
  warnings: string[];
}

/**
 * Brings the mirror of `thread` at `logPath` up to the store's rows on `q` (a pool, or the
 * transaction holding the thread's lock). The caller holds the file's exclusive flock.
 */
export async function catchUpThread(q: Queryable, thread: string, logPath: string, options: { audit: boolean; prefetch?: boolean }): Promise<CaughtUp> {
  const warnings: string[] = [];
  let fd: number;
  try {
    fs.mkdirSync(path.dirname(logPath), { recursive: true });
    fd = fs.openSync(logPath, fs.constants.O_RDWR | fs.constants.O_APPEND | fs.constants.O_CREAT | (fs.constants.O_NOFOLLOW ?? 0), 0o644);
  } catch (error) {
    throw ioError("unwritable_root", `Cannot write the local copy of session ${JSON.stringify(thread)} (${logPath}): ${fileSystemReason(error)}`);
  }
  try {
    // An append whose commit reached the store but whose local write was cut short: drop the
    // partial batch (and any cut line); the rows are fetched again below.
    let size = recoverInterruptedAppend(fd, logPath, fs.fstatSync(fd).size, `Cannot read the local copy of session ${JSON.stringify(thread)}`).size;
    if (size > 0) {
      const last = Buffer.alloc(1);
      fs.readSync(fd, last, 0, 1, size - 1);
      if (last[0] !== 10) {
        size = endOfLastWholeLine(fd, size);
        fs.ftruncateSync(fd, size);
        fs.fsyncSync(fd);
        warnings.push(`the local copy of session ${JSON.stringify(thread)} ended in a cut line (an interrupted write); it was dropped and fetched again`);
      }
    }
    let count = mirrorCount(logPath, fd);
    if (!options.audit) {
      // The common case under an append's lock: the mirror's last line and the few rows other
      // writers added since, in one round trip.
      const quick = await q`SELECT seq, line FROM eventloom_events WHERE thread = ${thread} AND seq >= ${Math.max(1, count.lines)} ORDER BY seq LIMIT ${quickRowsMax + 1}`.raw();
      if (count.lines > 0) {
        const first = quick[0];
        if (first === undefined || Number(String(first[0])) !== count.lines || Buffer.compare(first[1] as Buffer, lastLineBytes(fd, count.bytes)) !== 0) {
          const difference = await firstDifference(q, thread, logPath, count.lines);
          throw diverged(thread, difference.seq, difference.detail, path.dirname(logPath));
        }
      }
      const added = count.lines > 0 ? quick.slice(1) : quick;
      if (added.length <= quickRowsMax) {
        const parts: Buffer[] = [];
        for (const [index, row] of added.entries()) {
          const seq = Number(String(row[0]));
          if (seq !== count.lines + index + 1) {
            throw checkError("integrity_failure", `Session ${JSON.stringify(thread)} in the store has no event ${count.lines + index + 1} (its next row is ${seq}): the chain has a gap`, {
              field: "store",
              hint: `check the store with \`zaxy verify --store URL --session-id ${thread}\``,
            });
          }
          parts.push(row[1] as Buffer, newlineBytes);
        }
        if (parts.length > 0) {
          const lines = Buffer.concat(parts);
          verifyFetched(thread, lines, count.lines, count.lines === 0 ? null : (storedEventHash(lastLineBytes(fd, count.bytes)) ?? null));
          writeAllAt(fd, lines, logPath, thread);
          count = { lines: count.lines + added.length, bytes: count.bytes + lines.length };
          saveMirrorCount(logPath, count);
        }
        return { lines: count.lines, bytes: count.bytes, lastHash: lastHashOf(fd, count), fetched: added.length, warnings };
      }
    }
    await auditPrefix(q, thread, logPath, fd, count, options.audit);
    let prevHash = count.lines === 0 ? null : (storedEventHash(lastLineBytes(fd, count.bytes)) ?? null);
    // The highest seq and the head row in one statement (one snapshot): the rows up to that seq
    // are what the head row must name (headRow.ts), whatever is appended meanwhile.
    const [extent] = await q`SELECT (SELECT max(seq) FROM eventloom_events WHERE thread = ${thread}) AS m, (SELECT seq FROM eventloom_heads WHERE thread = ${thread}) AS hs, (SELECT hash FROM eventloom_heads WHERE thread = ${thread}) AS hh`;
    const upto = Number(extent?.m ?? 0);
    const head = headRowOf({ seq: extent?.hs, hash: extent?.hh }) ?? null;
    const from = count.lines;
    // Each chunk is verified as the continuation of what the mirror holds before a byte of it
    // is written, so the mirror only ever holds a verified prefix of the store's chain.
    const fetched = await streamThreadLines(q, thread, from, upto, (lines, rows) => {
      verifyFetched(thread, lines, count.lines, prevHash);
      writeAllAt(fd, lines, logPath, thread);
      count = { lines: count.lines + rows, bytes: count.bytes + lines.length };
      prevHash = (storedEventHash(lastLineOf(lines)) ?? null);
    }, options.prefetch === true);
    if (upto > from && fetched !== upto - from) {
      throw checkError("integrity_failure", `Session ${JSON.stringify(thread)} in the store has ${fetched} rows between events ${from + 1} and ${upto}, not ${upto - from}: the chain has a gap`, {
        field: "store",
        hint: `check the store with \`zaxy verify --store URL --session-id ${thread}\``,
      });
    }
    // No fsync: the mirror is a cache; a line lost with the page cache is fetched again.
    saveMirrorCount(logPath, count);
    return { lines: count.lines, bytes: count.bytes, lastHash: lastHashOf(fd, count), head, fetched, warnings };
  } finally {
    fs.closeSync(fd);
  }
}

function lastHashOf(fd: number, count: MirrorCount): string | null {
  return count.lines === 0 ? null : (storedEventHash(lastLineBytes(fd, count.bytes)) ?? null);
}

/** What this root verified of a thread before: the mirror's whole lines, held open for reading. */
export interface MirrorSnapshot {
  fd: number;
  lines: number;
  bytes: number;
  close(): void;
}

/**
 * The mirror of a thread as it is now (its whole lines; a cut last line is left out), or
 * undefined when this root has none. Taken under the mirror's lock; the file only ever grows
 * past those bytes, so they can be read after the lock is released.
 */
export async function mirrorSnapshot(logPath: string, waitMs: number): Promise<MirrorSnapshot | undefined> {
  if ((fs.statSync(logPath, { throwIfNoEntry: false })?.size ?? 0) === 0) return undefined;
  let lock: { release(): void };
  try {
    lock = await lockFile(logPath, "exclusive", waitMs, false);
  } catch (error) {
    throw ioError("lock_timeout", `Cannot read this root's copy of ${logPath}: ${(error as Error).message}`);
  }
  let fd: number | undefined;
  try {
    fd = fs.openSync(logPath, "r");
    let size = fs.fstatSync(fd).size;
    if (size > 0) {
      const last = Buffer.alloc(1);
      fs.readSync(fd, last, 0, 1, size - 1);
      if (last[0] !== 10) size = endOfLastWholeLine(fd, size);
    }
    const counted = mirrorCount(logPath, fd);
    const lines = counted.bytes === size ? counted.lines : countLinesIn(fd, size);
    if (lines === 0) {
      fs.closeSync(fd);
      return undefined;
    }
    const held = fd;
    return { fd: held, lines, bytes: size, close: () => fs.closeSync(held) };
  } catch (error) {
    if (fd !== undefined) fs.closeSync(fd);
    throw ioError("unreadable_log", `Cannot read this root's copy of ${logPath}: ${fileSystemReason(error)}`);
  } finally {
    lock.release();
  }
}

function countLinesIn(fd: number, size: number): number {
  const buffer = Buffer.alloc(1 << 20);
  let lines = 0;
  for (let offset = 0; offset < size; ) {
    const read = fs.readSync(fd, buffer, 0, Math.min(buffer.length, size - offset), offset);
    if (read === 0) break;
    for (let i = buffer.indexOf(10, 0); i !== -1 && i < read; i = buffer.indexOf(10, i + 1)) lines++;
    offset += read;
  }
  return lines;
}

/** Verifies fetched lines as the continuation of `eventBase` events ending in `prevHash`. */
function verifyFetched(thread: string, bytes: Buffer, eventBase: number, prevHash: string | null): void {
  // Verified in memory (the fetched lines always end with a newline): no scratch file.
  const result = scanBytes(bytes, { eventBase, lineBase: eventBase, prevHash });
  const issue = result.errors[0];
  if (issue !== undefined) {
    throw checkError("integrity_failure", `Session ${JSON.stringify(thread)} in the store fails verification: ${issue.reason} (seq ${issue.seq}); nothing from it was read`, {
      field: "store",
      hint: `\`zaxy verify --store URL --session-id ${thread}\` reports every failure`,
    });
  }
}

function writeAllAt(fd: number, bytes: Buffer, logPath: string, thread: string): void {
  const before = fs.fstatSync(fd).size;
  try {
    for (let written = 0; written < bytes.length; ) written += fs.writeSync(fd, bytes, written, bytes.length - written);
  } catch (error) {
    try {
      fs.ftruncateSync(fd, before);
    } catch {
      // The next catch-up drops a cut line itself.
    }
    throw ioError("write_failed", `Cannot write the local copy of session ${JSON.stringify(thread)} (${logPath}): ${fileSystemReason(error)}`);
  }
}
