/**
 * Moving logs between files and the store (docs/store.md §Moving logs), and verifying the
 * store's own rows. Import verifies the file first and refuses a broken chain (exit 1); it
 * streams the lines with COPY in one transaction under the thread's lock, so a killed import
 * leaves nothing. Export and verify fetch the rows in seq order and verify them as they arrive
 * with the same verifier `zaxy verify` uses (export also keeps them in a scratch file renamed
 * into place once they verify): the database is never trusted.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { checkError, inputError, ioError } from "../errors.ts";
import { storedEventHash } from "../eventloom/envelope.ts";
import { readLogLines } from "../eventloom/lines.ts";
import { fileSystemReason, validateSessionId } from "../eventloom/root.ts";
import { type IntegrityReport, mergeRanges, verifyLog } from "../eventloom/verify.ts";
import { lockWaitMs } from "../limits.ts";
import { removeOrphanTempFiles } from "../platform/orphanTempFiles.ts";
import type { ProgressSink } from "../progress.ts";
import { headRowMismatch } from "./headRow.ts";
import { type MirrorSnapshot, mirrorPageRows, mirrorSnapshot } from "./mirror.ts";
import { type ParallelVerdict, storeReaders, verifyOnReaders } from "./parallelVerify.ts";
import { RangeVerifier } from "./rangeVerifier.ts";
import { schemaProblem } from "./schema.ts";
import { lastLineOf, type LineChunkSink, lineChunkBytes } from "./threadLines.ts";
import type { StoreClient } from "./storeClient.ts";
import type { StoreUrl } from "./storeUrl.ts";

export interface ThreadHead {
  thread: string;
  seq: number;
  hash: string | null;
  updated_at: string;
}

/** Every thread's head row, by thread. */
export async function readHeads(client: StoreClient): Promise<ThreadHead[]> {
  const rows = await client.run("read the store's threads", (sql) => sql`SELECT thread, seq, hash, updated_at FROM eventloom_heads ORDER BY thread`);
  return rows.map((row) => ({
    thread: row.thread as string,
    seq: Number(row.seq),
    hash: (row.hash as string | null) ?? null,
    updated_at: new Date(row.updated_at as string).toISOString(),
  }));
}

const extentSql =
  "SELECT (SELECT value FROM zaxy_store_meta WHERE key = 'schema_version'), (SELECT seq FROM eventloom_heads WHERE thread = $1), (SELECT max(seq) FROM eventloom_events WHERE thread = $1), (SELECT hash FROM eventloom_heads WHERE thread = $1)";

/** Events from which a thread is verified on workers started before the first rows arrive. */
const prestartEventsMin = 10_000;
/** Fetched bytes that may wait for a verifier before the stream is held back. */
const pendingVerifyBytesMax = 32 << 20;

export interface FetchedThread {
  rows: number;
  bytes: number;
  /** The chain verified chunk by chunk as the rows arrived (the verifier `zaxy verify` uses). */
  report: IntegrityReport;
  /** The highest seq the store holds, and its head row's seq (null when it has none). */
  max_seq: number;
  head_seq: number | null;
}

export interface FetchOptions {
  allErrors?: boolean;
  progress?: ProgressSink;
  env?: Record<string, string | undefined>;
  /**
   * This root's mirror of the thread (`<root>/stores/<id>/<thread>.jsonl`), when it has one:
   * the rows it verified before. The store's rows must begin with exactly those bytes, so a
   * forgery re-hashed from some event on (whose chain verifies) is refused here too.
   */
  anchor?: string;
}

/**
 * Streams the thread's rows in seq order (into `scratch` when given) and verifies them as they arrive: every
 * hash recomputed from `line`, chunk after chunk, so the network and the verifier overlap and
 * memory stays bounded. A missing row or a head row ahead of the rows fails the report too.
 * Checks the schema version first (store_not_initialised, store_schema_too_new), in the same
 * statement as the thread's extent, so callers need not.
 */
export async function fetchVerifiedThread(
  client: StoreClient,
  thread: string,
  scratch: { file: string; fd: number } | null,
  options: FetchOptions = {},
): Promise<FetchedThread> {
  // A bad ZAXY_STORE_READERS is bad input before anything is asked of the server.
  if (scratch === null) storeReaders(0, options.env ?? process.env);
  const anchor = options.anchor === undefined ? undefined : await mirrorSnapshot(options.anchor, lockWaitMs);
  try {
    return await fetchAnchored(client, thread, scratch, options, anchor);
  } finally {
    anchor?.close();
  }
}

async function fetchAnchored(client: StoreClient, thread: string, scratch: { file: string; fd: number } | null, options: FetchOptions, anchor: MirrorSnapshot | undefined): Promise<FetchedThread> {
  let headSeq: number | null = null;
  let headHash: string | null = null;
  // The first event at which the rows differ from this root's copy, and how.
  let diverged: { seq: number; detail: string } | undefined;
  const anchorBuffer = anchor === undefined ? undefined : Buffer.alloc(1 << 20);
  let readers = 1;
  let maxSeq = 0;
  const verifier = new RangeVerifier(options.allErrors === true);
  let offset = 0;
  let linesBefore = 0;
  let prevHash: string | null = null;
  let blankAt: number | undefined;
  const sink: LineChunkSink = (lines, count, emptyRows) => {
    if (scratch !== null) {
      try {
        for (let written = 0; written < lines.length; ) written += fs.writeSync(scratch.fd, lines, written, lines.length - written, offset + written);
      } catch (error) {
        throw ioError("write_failed", `Cannot write the fetched rows to ${path.dirname(scratch.file)}: ${fileSystemReason(error)}; nothing was exported`);
      }
    }
    // A row is one event: an empty one would be skipped by the verifier, so it is named here.
    if (blankAt === undefined && emptyRows.length > 0) blankAt = linesBefore + emptyRows[0];
    // Compared before the bytes may be handed (transferred) to a verifier.
    if (anchor !== undefined && diverged === undefined && offset < anchor.bytes) {
      const at = firstDifferentByte(lines, anchor, offset, anchorBuffer as Buffer);
      if (at !== undefined) diverged = { seq: linesBefore + countNewlines(lines, at) + 1, detail: "its line in the store is not the line this root verified" };
    }
    const chain = { eventBase: linesBefore, lineBase: linesBefore, prevHash };
    const length = lines.length;
    // Read before the bytes may be handed (transferred) to a verifier.
    prevHash = (storedEventHash(lastLineOf(lines)) ?? null);
    // A thread that fits in one chunk is verified here and now (no worker to start); a larger
    // one's first chunk goes to a worker too, so reading goes on meanwhile.
    const inline = offset === 0 && count === maxSeq && length < lineChunkBytes;
    offset += length;
    linesBefore += count;
    options.progress?.update(linesBefore);
    // Verified from memory also when kept in a scratch file (already written above): the lines'
    // buffer is the stream's own, so the worker takes it without a copy (and gives it back).
    verifier.addBytes(lines, chain, inline, true);
    // Verifiers slower than the network hold the stream back: bounded memory, whatever the thread's size.
    return verifier.drained(pendingVerifyBytesMax);
  };
  // The schema version, the head row and the highest seq in one statement (one snapshot: the
  // head row and the rows agree as committed), on the connection the rows then come through.
  let rows = await client.streamAfter(`read session ${JSON.stringify(thread)} from the store`, thread, { sql: extentSql, params: [thread] }, ([extent]) => {
    const version = extent?.[0];
    const problem = schemaProblem(client.url, version === null || version === undefined ? undefined : Number(version));
    if (problem !== undefined) throw problem;
    headSeq = extent[1] === null ? null : Number(extent[1]);
    maxSeq = Number(extent[2] ?? 0);
    headHash = extent[3] ?? null;
    options.progress?.phase("fetching and verifying rows", maxSeq, "events");
    // A large thread being verified (not exported: that writes the rows in order) is read on
    // several connections by the workers themselves; this connection's work is done.
    // A root holding a copy compares every row with it as the rows arrive: one connection.
    if (scratch === null && anchor === undefined) {
      const wanted = storeReaders(maxSeq, options.env ?? process.env);
      if (options.allErrors !== true && client.readerTarget !== undefined) readers = wanted;
    }
    if (readers > 1) return { afterSeq: 0, uptoSeq: 0, sink };
    // A thread of many chunks: the workers start while the rows are being asked for.
    if (maxSeq >= prestartEventsMin) verifier.prestart();
    return { afterSeq: 0, uptoSeq: maxSeq, sink, timeoutMs: client.queryTimeoutMs + 2 * maxSeq, allocate: (bytes) => verifier.buffer(bytes) };
  });
  let verdict: ParallelVerdict | undefined;
  if (readers > 1) {
    verdict = await verifyOnReaders(client, thread, maxSeq, readers, options.progress);
    if (verdict === undefined) {
      // Something is wrong with the rows: one sequential pass names it exactly.
      verifier.prestart();
      rows = await client.streamLines(`read session ${JSON.stringify(thread)} from the store`, thread, 0, maxSeq, sink, { timeoutMs: client.queryTimeoutMs + 2 * maxSeq, allocate: (bytes) => verifier.buffer(bytes) });
    } else {
      rows = verdict.rows;
      offset = verdict.bytes;
      prevHash = verdict.lastHash;
    }
  }
  let report = verdict?.report ?? mergeRanges(offset, await verifier.results(), options.allErrors === true);
  const failed = (seq: number, reason: string): IntegrityReport => ({
    ...report,
    ok: false,
    broken_at_seq: seq,
    broken_reason: reason,
    code: "store_mismatch",
    line: seq,
    errors: [{ code: "store_mismatch", seq, line: seq, reason }, ...report.errors],
  });
  if (diverged === undefined && anchor !== undefined && rows < anchor.lines) {
    diverged = { seq: rows + 1, detail: `the store has no event ${rows + 1} (this root has ${anchor.lines})` };
  }
  if (blankAt !== undefined) report = failed(blankAt, `Event ${blankAt} is an empty row in the store`);
  else if (report.ok && rows !== maxSeq) report = failed(rows + 1, `The store holds ${rows} rows for events 1 to ${maxSeq}: ${maxSeq - rows} are missing (the seqs have a gap)`);
  else if (report.ok) {
    // The head row and the rows are read in one statement's snapshot: they must agree exactly.
    const mismatch = headRowMismatch(headSeq === null ? undefined : { seq: headSeq, hash: headHash }, rows, rows === 0 ? null : prevHash);
    if (mismatch !== undefined) report = failed(mismatch.seq, mismatch.reason);
    else if (diverged !== undefined) report = failed(diverged.seq, `The store's rows differ from the copy this root verified before, at event ${diverged.seq}: ${diverged.detail}`);
  }
  return { rows, bytes: offset, report, max_seq: maxSeq, head_seq: headSeq };
}


/** The offset in `lines` (fetched bytes at `offset` of the thread) of the first byte that differs from the mirror, if any. */
function firstDifferentByte(lines: Buffer, anchor: MirrorSnapshot, offset: number, buffer: Buffer): number | undefined {
  const end = Math.min(lines.length, anchor.bytes - offset);
  for (let at = 0; at < end; ) {
    const want = Math.min(buffer.length, end - at);
    const read = fs.readSync(anchor.fd, buffer, 0, want, offset + at);
    if (read <= 0) return at;
    if (!lines.subarray(at, at + read).equals(buffer.subarray(0, read))) {
      for (let i = 0; i < read; i++) if (lines[at + i] !== buffer[i]) return at + i;
    }
    at += read;
  }
  return undefined;
}

function countNewlines(bytes: Buffer, end: number): number {
  let count = 0;
  for (let i = bytes.indexOf(10, 0); i !== -1 && i < end; i = bytes.indexOf(10, i + 1)) count++;
  return count;
}

/**
 * This root's mirror of `thread` of the store `url` (`<root>/stores/<id>/<thread>.jsonl`, see
 * mirror.ts), to anchor a verify or an export in what the root verified before; undefined for a
 * thread name that cannot be a file (it has no mirror).
 */
export function mirrorLogOf(localRoot: string, url: StoreUrl, thread: string): string | undefined {
  try {
    validateSessionId(thread, "mirror");
  } catch {
    return undefined;
  }
  // As activeStore.ts mirrorRootOf (not imported: a verify loads no append code).
  return path.join(localRoot, "stores", url.id, `${thread}.jsonl`);
}

/** Scratch files of fetched rows: `.zaxy-store-<label>-<pid>-<ms>.jsonl`. */
const scratchNamePattern = /^\.zaxy-store-[a-z]+-(\d+)-\d+\.jsonl$/;

/**
 * A private scratch file for fetched rows: opened, then unlinked by `done` (or renamed into place).
 * A process killed meanwhile leaves it behind; the next one in the same directory removes those
 * of processes that are gone.
 */
function scratchFile(dir: string | undefined, label: string): { file: string; fd: number; done(): void } {
  const base = dir ?? os.tmpdir();
  const file = path.join(base, `.zaxy-store-${label}-${process.pid}-${Date.now()}.jsonl`);
  let fd: number;
  try {
    fs.mkdirSync(base, { recursive: true });
    removeOrphanTempFiles([base], scratchNamePattern);
    fd = fs.openSync(file, "wx+", 0o600);
  } catch (error) {
    throw ioError("write_failed", `Cannot write a scratch file in ${base}: ${fileSystemReason(error)}`);
  }
  return {
    file,
    fd,
    done() {
      try {
        fs.closeSync(fd);
      } catch {
        // already closed
      }
      fs.rmSync(file, { force: true });
    },
  };
}

export interface StoreVerification {
  thread: string;
  report: IntegrityReport;
  head_seq: number | null;
}

/**
 * Verifies a thread from the store's rows: every hash recomputed from `line`, the seqs without
 * a gap, and the head row agreeing with the rows. `scratchDir` holds the fetched copy meanwhile.
 */
export async function verifyStoreThread(client: StoreClient, thread: string, options: FetchOptions = {}): Promise<StoreVerification> {
  const fetched = await fetchVerifiedThread(client, thread, null, options);
  return { thread, report: fetched.report, head_seq: fetched.head_seq };
}

/** Copies a thread out of the store, verified, to `output` (atomically) or to `write`. */
export async function exportThread(
  client: StoreClient,
  thread: string,
  target: { output: string } | { write: (chunk: Uint8Array) => Promise<void> },
  scratchDir?: string,
  progress?: ProgressSink,
  anchor?: string,
): Promise<{ events: number; bytes: number; sha256?: string }> {
  validateSessionId(thread, "export");
  const dir = "output" in target ? path.dirname(path.resolve(target.output)) : scratchDir;
  const scratch = scratchFile(dir, "export");
  let renamed = false;
  try {
    const fetched = await fetchVerifiedThread(client, thread, scratch, { progress, anchor });
    if (fetched.rows === 0) {
      throw inputError("unknown_session", `Session ${JSON.stringify(thread)} has no events in the store ${client.url.redacted}`, {
        field: "session_id",
        hint: "`zaxy store status` lists the store's threads",
      });
    }
    const report = fetched.report;
    if (!report.ok) {
      const reason = `${report.broken_reason} (seq ${report.broken_at_seq})`;
      throw checkError("integrity_failure", `Refusing to export session ${JSON.stringify(thread)}: its rows in the store fail verification: ${reason}. Nothing was written.`, {
        field: "store",
        hint: `\`zaxy verify --store URL --session-id ${thread} --all-errors\` lists every failure`,
      });
    }
    fs.fsyncSync(scratch.fd);
    if ("output" in target) {
      try {
        fs.renameSync(scratch.file, target.output);
      } catch (error) {
        throw ioError("write_failed", `Cannot write ${target.output}: ${fileSystemReason(error)}`, { field: "output" });
      }
      renamed = true;
      fs.chmodSync(target.output, 0o644 & ~process.umask());
      return { events: fetched.rows, bytes: fetched.bytes };
    }
    const buffer = Buffer.alloc(1 << 20);
    for (let offset = 0; offset < fetched.bytes; ) {
      const read = fs.readSync(scratch.fd, buffer, 0, buffer.length, offset);
      if (read === 0) break;
      await target.write(buffer.subarray(0, read));
      offset += read;
    }
    return { events: fetched.rows, bytes: fetched.bytes };
  } finally {
    if (renamed) fs.closeSync(scratch.fd);
    else scratch.done();
  }
}

export interface ImportResult {
  session_id: string;
  file: string;
  events: number;
  bytes: number;
  /** Events the store already held (a re-import of the same file, or of a file that grew). */
  already_present: number;
  imported: number;
  warnings: string[];
}

/** The binary COPY signature, flags (none) and header extension length (none). */
const copyBinaryHeader = Buffer.concat([Buffer.from("PGCOPY\n\xff\r\n\0", "latin1"), Buffer.alloc(8)]);
/** A field count of -1: the binary COPY trailer. */
const copyBinaryTrailer = Buffer.from([0xff, 0xff]);
/** Bytes of rows gathered before they are written to the COPY stream. */
const copyChunkBytes = 1 << 20;

/**
 * The rows of an import as binary COPY data (thread, seq, line per row): each line's bytes go in
 * as they are, so nothing is escaped on either side. Text COPY escaped every backslash, and JSON
 * lines have many (`\"`): building the escaped rows byte by byte took most of an import's client
 * CPU. Rows are laid end to end in one buffer and handed on in chunks of about 1 MiB.
 */
class BinaryCopyRows {
  readonly #thread: Buffer;
  #chunk = Buffer.allocUnsafe(copyChunkBytes);
  #length = 0;
  /**
   * Where the last row's line is: a chunk handed on (or outgrown) is never written again, so it
   * is found there at the end without a copy per row.
   */
  #lastChunk: Buffer | undefined;
  #lastStart = 0;
  #lastEnd = 0;

  constructor(thread: string) {
    this.#thread = Buffer.from(thread, "utf8");
    this.#length = copyBinaryHeader.copy(this.#chunk, 0);
  }

  /** Bytes waiting to be handed on. */
  get length(): number {
    return this.#length;
  }

  add(seq: number, line: Uint8Array): void {
    const needed = 2 + 4 + this.#thread.length + 4 + 8 + 4 + line.length;
    if (this.#length + needed > this.#chunk.length) this.#grow(needed);
    const chunk = this.#chunk;
    let at = chunk.writeInt16BE(3, this.#length);
    at = chunk.writeInt32BE(this.#thread.length, at);
    at += this.#thread.copy(chunk, at);
    at = chunk.writeInt32BE(8, at);
    at = chunk.writeBigInt64BE(BigInt(seq), at);
    at = chunk.writeInt32BE(line.length, at);
    chunk.set(line, at);
    this.#length = at + line.length;
    this.#lastChunk = chunk;
    this.#lastStart = at;
    this.#lastEnd = this.#length;
  }

  /** The bytes gathered so far (the trailer too with `last`), to be written as they are. */
  take(last = false): Buffer {
    if (last) {
      if (this.#length + copyBinaryTrailer.length > this.#chunk.length) this.#grow(copyBinaryTrailer.length);
      this.#length += copyBinaryTrailer.copy(this.#chunk, this.#length);
    }
    // Handed on as it is (the stream may hold it until the socket takes it): a new buffer follows.
    const taken = this.#chunk.subarray(0, this.#length);
    this.#chunk = Buffer.allocUnsafe(copyChunkBytes);
    this.#length = 0;
    return taken;
  }

  /** The last row's line, or undefined before any. */
  lastLine(): Buffer | undefined {
    return this.#lastChunk?.subarray(this.#lastStart, this.#lastEnd);
  }

  #grow(needed: number): void {
    const grown = Buffer.allocUnsafe(Math.max(this.#chunk.length * 2, this.#length + needed));
    this.#chunk.copy(grown, 0, 0, this.#length);
    this.#chunk = grown;
  }
}

/**
 * Imports one verified log file as session `thread`. A thread the store already has must hold
 * exactly the file's first events (then only the rest is added); anything else is refused.
 */
export async function importLogFile(client: StoreClient, file: string, thread: string, progress?: ProgressSink): Promise<ImportResult> {
  validateSessionId(thread, "import");
  progress?.phase("verifying", undefined, "bytes");
  const report = await verifyLog(file, { onProgress: progress === undefined ? undefined : (done, total) => progress.update(done, total) });
  if (!report.ok) {
    throw checkError("integrity_failure", `Refusing to import ${file}: ${report.broken_reason} (seq ${report.broken_at_seq}, line ${report.line}). Nothing was written.`, {
      field: "FILE",
      hint: report.torn_tail ? "run `zaxy repair --truncate-torn-tail` on a copy first" : "`zaxy verify FILE --all-errors` lists every failure",
    });
  }
  if (report.interrupted_append !== undefined) {
    throw inputError("interrupted_append", `Refusing to import ${file}: an interrupted append left an intent beside it; run \`zaxy repair ${file}\` first. Nothing was written.`, { field: "FILE" });
  }
  const warnings: string[] = [];
  const size = fs.statSync(file).size;
  if (size > 0) {
    const fd = fs.openSync(file, "r");
    try {
      const last = Buffer.alloc(1);
      fs.readSync(fd, last, 0, 1, size - 1);
      if (last[0] !== 10) warnings.push(`${file} does not end with a newline; the store keeps its lines, and an export ends the last one with a newline`);
    } finally {
      fs.closeSync(fd);
    }
  }
  const result = await client.run(`import ${file} as session ${JSON.stringify(thread)}`, (sql) =>
    sql.begin(async (tx) => {
      await tx.unsafe(`SET LOCAL lock_timeout = '${lockWaitMs}ms'`);
      await tx`INSERT INTO eventloom_heads (thread, seq) VALUES (${thread}, 0) ON CONFLICT (thread) DO NOTHING`;
      await tx`SELECT seq FROM eventloom_heads WHERE thread = ${thread} FOR UPDATE`;
      const [{ n }] = await tx`SELECT count(*) AS n FROM eventloom_events WHERE thread = ${thread}`;
      const present = Number(n);
      // Compare what the store has with the file's first lines, page by page.
      let compared = 0;
      let page: Buffer[] = [];
      let index = 0;
      const lines = readLogLines(file);
      let events = 0;
      let lastLine: Uint8Array | undefined;
      progress?.phase("copying rows", report.total_events, "events");
      // Opened at the first new event: while a COPY is open the connection runs no other
      // statement, and the events the store already has are compared page by page first.
      let copy: Awaited<ReturnType<ReturnType<typeof tx>["writable"]>> | undefined;
      const rows = new BinaryCopyRows(thread);
      const flush = async (last = false) => {
        const stream = copy;
        if (stream === undefined) return;
        const chunk = rows.take(last);
        if (!stream.write(chunk)) await new Promise<void>((resolve) => stream.once("drain", () => resolve()));
      };
      try {
        for (const { bytes, line, position } of lines) {
          if (line !== position) {
            throw inputError("blank_lines", `Refusing to import ${file}: line ${line - 1} is blank; the store keeps one event per row, so the file could not be exported byte for byte. Nothing was written.`, {
              field: "FILE",
              line: line - 1,
              hint: "remove the blank lines from a copy (the chain does not depend on them), then import the copy",
            });
          }
          events = position;
          if (position <= present) {
            if (position === present) lastLine = Buffer.from(bytes);
            if (index === page.length) {
              const rows = await tx`SELECT line FROM eventloom_events WHERE thread = ${thread} AND seq > ${compared} ORDER BY seq LIMIT ${mirrorPageRows}`.raw();
              page = rows.map((row) => row[0] as Buffer);
              index = 0;
            }
            const stored = page[index++];
            compared++;
            if (stored === undefined || Buffer.compare(stored, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)) !== 0) {
              throw inputError("session_exists", `Refusing to import ${file} as session ${JSON.stringify(thread)}: the store already holds that session with ${present} events, and its event ${position} is not the file's. Nothing was written.`, {
                field: "session_id",
                hint: "import it under another --session-id",
              });
            }
            continue;
          }
          copy ??= await tx`COPY eventloom_events (thread, seq, line) FROM STDIN WITH BINARY`.writable();
          rows.add(position, bytes);
          if (rows.length >= copyChunkBytes) {
            await flush();
            progress?.update(position);
          }
        }
        if (present > events) {
          throw inputError("session_exists", `Refusing to import ${file} as session ${JSON.stringify(thread)}: the store already holds that session with ${present} events, more than the file's ${events}. Nothing was written.`, {
            field: "session_id",
            hint: "import it under another --session-id",
          });
        }
        await flush(true);
        lastLine = rows.lastLine() ?? lastLine;
      } catch (error) {
        // Abandons the COPY (the transaction then rolls back); its own error event is expected.
        copy?.on("error", () => {});
        copy?.destroy(error as Error);
        throw error;
      }
      if (copy !== undefined) {
        await new Promise<void>((resolve, reject) => {
          copy.once("finish", () => resolve());
          copy.once("error", reject);
          copy.end();
        });
      }
      if (events > 0) await tx`UPDATE eventloom_heads SET seq = ${events}, hash = ${(storedEventHash(lastLine as Uint8Array) ?? null)}, updated_at = now() WHERE thread = ${thread}`;
      return { present, events };
    }), client.queryTimeoutMs + Math.ceil(size / 1000));
  return {
    session_id: thread,
    file,
    events: result.events,
    bytes: size,
    already_present: result.present,
    imported: result.events - result.present,
    warnings,
  };
}
