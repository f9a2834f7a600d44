/**
 * Moving logs between files and the store (docs/store.md §Moving logs), and verifying the
 * store's own rows. Import verifies the file first and refuses a broken chain (exit 1); it
 * streams the lines with COPY in one transaction under the thread's lock, so a killed import
 * leaves nothing. Export and verify fetch the rows in seq order into a file and verify that file
 * with the same verifier `zaxy verify` uses: the database is never trusted.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { isJsonObject, parseJsonBytes } from "../canonical/mod.ts";
import { checkError, inputError, ioError } from "../errors.ts";
import { recordFromLine } from "../eventloom/envelope.ts";
import { readLogLines } from "../eventloom/lines.ts";
import { fileSystemReason } from "../eventloom/root.ts";
import { validateSessionId } from "../eventloom/session.ts";
import { type IntegrityReport, verifyLog } from "../eventloom/verify.ts";
import { lockWaitMs } from "../limits.ts";
import { mirrorPageRows } from "./mirror.ts";
import type { StoreClient } from "./storeClient.ts";

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

export interface FetchedThread {
  rows: number;
  bytes: number;
  /** The seq the first missing row would have had, when the seqs do not run 1, 2, 3, ... */
  gapAt?: number;
}

/** Writes the thread's lines, in seq order, to `fd`; pages of rows, bounded memory. */
export async function fetchThreadLines(client: StoreClient, thread: string, fd: number, onPage?: (rows: number) => void): Promise<FetchedThread> {
  let last = 0;
  let rows = 0;
  let bytes = 0;
  let gapAt: number | undefined;
  for (;;) {
    const page = await client.run(`read session ${JSON.stringify(thread)} from the store`, (sql) =>
      sql`SELECT seq, line FROM eventloom_events WHERE thread = ${thread} AND seq > ${last} ORDER BY seq LIMIT ${mirrorPageRows}`.raw());
    if (page.length === 0) break;
    const parts: Buffer[] = [];
    for (const row of page) {
      const seq = Number(String(row[0]));
      if (gapAt === undefined && seq !== rows + 1) gapAt = rows + 1;
      rows++;
      parts.push(row[1] as Buffer, newline);
      last = seq;
    }
    const chunk = Buffer.concat(parts);
    for (let written = 0; written < chunk.length; ) written += fs.writeSync(fd, chunk, written, chunk.length - written);
    bytes += chunk.length;
    onPage?.(rows);
    if (page.length < mirrorPageRows) break;
  }
  return { rows, bytes, gapAt };
}

const newline = Buffer.from("\n");

/** A private scratch file for fetched rows: opened, then unlinked by `done`. */
function scratchFile(dir: string | undefined, label: string): { file: string; fd: number; done(): void } {
  const base = dir ?? os.tmpdir();
  const file = path.join(base, `.zaxy-store-${label}-${process.pid}-${Date.now()}.jsonl`);
  let fd: number;
  try {
    fs.mkdirSync(base, { recursive: true });
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
export async function verifyStoreThread(client: StoreClient, thread: string, options: { allErrors?: boolean; scratchDir?: string } = {}): Promise<StoreVerification> {
  const heads = await client.run("read the thread's head", (sql) => sql`SELECT seq FROM eventloom_heads WHERE thread = ${thread}`);
  const headSeq = heads.length === 0 ? null : Number(heads[0].seq);
  const scratch = scratchFile(options.scratchDir, "verify");
  try {
    const fetched = await fetchThreadLines(client, thread, scratch.fd);
    let report = await verifyLog(scratch.file, { allErrors: options.allErrors, lock: false });
    const storeIssue = (seq: number, reason: string): IntegrityReport => ({
      ...report,
      ok: false,
      broken_at_seq: seq,
      broken_reason: reason,
      code: "hash_mismatch" as IntegrityReport["code"],
      line: seq,
      errors: [{ code: "hash_mismatch" as IntegrityReport["errors"][number]["code"], seq, line: seq, reason }, ...report.errors],
    });
    if (report.ok && fetched.gapAt !== undefined) report = storeIssue(fetched.gapAt, `Event ${fetched.gapAt} is missing from the store (the seqs have a gap)`);
    else if (report.ok && headSeq !== null && headSeq !== fetched.rows) {
      report = storeIssue(Math.min(headSeq, fetched.rows) + 1, `The thread's head row says ${headSeq} events but the store holds ${fetched.rows} rows`);
    }
    return { thread, report, head_seq: headSeq };
  } finally {
    scratch.done();
  }
}

/** Copies a thread out of the store, verified, to `output` (atomically) or to `write`. */
export async function exportThread(
  client: StoreClient,
  thread: string,
  target: { output: string } | { write: (chunk: Uint8Array) => Promise<void> },
  scratchDir?: string,
): Promise<{ events: number; bytes: number; sha256?: string }> {
  validateSessionId(thread, "export");
  const dir = "output" in target ? path.dirname(path.resolve(target.output)) : scratchDir;
  const scratch = scratchFile(dir, "export");
  let renamed = false;
  try {
    const fetched = await fetchThreadLines(client, thread, scratch.fd);
    if (fetched.rows === 0) {
      throw inputError("unknown_session", `Session ${JSON.stringify(thread)} has no events in the store ${client.url.redacted}`, {
        field: "--session-id",
        hint: "`zaxy store status` lists the store's threads",
      });
    }
    const report = await verifyLog(scratch.file, { lock: false });
    if (!report.ok || fetched.gapAt !== undefined) {
      const reason = report.ok ? `event ${fetched.gapAt} is missing (the seqs have a gap)` : `${report.broken_reason} (seq ${report.broken_at_seq})`;
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
        throw ioError("write_failed", `Cannot write ${target.output}: ${fileSystemReason(error)}`, { field: "--output" });
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

/** COPY text format: a backslash is written twice, and tab, newline and CR escaped. */
function copyEscape(line: Uint8Array): Buffer {
  const bytes = Buffer.from(line.buffer, line.byteOffset, line.byteLength);
  if (bytes.indexOf(0x5c) === -1 && bytes.indexOf(0x09) === -1 && bytes.indexOf(0x0d) === -1) return bytes;
  const out: number[] = [];
  for (const byte of bytes) {
    if (byte === 0x5c) out.push(0x5c, 0x5c);
    else if (byte === 0x09) out.push(0x5c, 0x74);
    else if (byte === 0x0d) out.push(0x5c, 0x72);
    else out.push(byte);
  }
  return Buffer.from(out);
}

function lastHashOf(line: Uint8Array): string | null {
  try {
    const parsed = parseJsonBytes(line);
    return isJsonObject(parsed) ? recordFromLine(parsed, 0).hash : null;
  } catch {
    return null;
  }
}

/**
 * Imports one verified log file as session `thread`. A thread the store already has must hold
 * exactly the file's first events (then only the rest is added); anything else is refused.
 */
export async function importLogFile(client: StoreClient, file: string, thread: string, onProgress?: (events: number) => void): Promise<ImportResult> {
  validateSessionId(thread, "import");
  const report = await verifyLog(file);
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
      const pending: Buffer[] = [];
      let pendingBytes = 0;
      let events = 0;
      let lastLine: Uint8Array | undefined;
      const copy = present < report.total_events ? await tx`COPY eventloom_events (thread, seq, line) FROM STDIN`.writable() : undefined;
      const flush = async () => {
        if (copy === undefined || pending.length === 0) return;
        const chunk = Buffer.concat(pending);
        pending.length = 0;
        pendingBytes = 0;
        if (!copy.write(chunk)) await new Promise<void>((resolve) => copy.once("drain", () => resolve()));
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
          lastLine = bytes;
          if (position <= present) {
            if (index === page.length) {
              const rows = await tx`SELECT line FROM eventloom_events WHERE thread = ${thread} AND seq > ${compared} ORDER BY seq LIMIT ${mirrorPageRows}`.raw();
              page = rows.map((row) => row[0] as Buffer);
              index = 0;
            }
            const stored = page[index++];
            compared++;
            if (stored === undefined || Buffer.compare(stored, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)) !== 0) {
              throw inputError("session_exists", `Refusing to import ${file} as session ${JSON.stringify(thread)}: the store already holds that session with ${present} events, and its event ${position} is not the file's. Nothing was written.`, {
                field: "--session-id",
                hint: "import it under another --session-id",
              });
            }
            continue;
          }
          pending.push(Buffer.from(`${thread}\t${position}\t`), copyEscape(bytes), newline);
          pendingBytes += bytes.length + 32;
          if (pendingBytes >= 1 << 20) {
            await flush();
            onProgress?.(position);
          }
        }
        if (present > events) {
          throw inputError("session_exists", `Refusing to import ${file} as session ${JSON.stringify(thread)}: the store already holds that session with ${present} events, more than the file's ${events}. Nothing was written.`, {
            field: "--session-id",
            hint: "import it under another --session-id",
          });
        }
        await flush();
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
      if (events > 0) await tx`UPDATE eventloom_heads SET seq = ${events}, hash = ${lastHashOf(lastLine as Uint8Array)}, updated_at = now() WHERE thread = ${thread}`;
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
