/**
 * Streams a thread's lines out of the store in seq order as line-aligned chunks (each line with
 * its newline). Rows are counted as they arrive, so a caller that knows the seq range it asked
 * for detects a missing row (a gap) without trusting the database.
 */
import type { Queryable } from "./storeClient.ts";

/** Bytes at which a chunk is large enough to verify on a worker rather than inline. */
export const lineChunkBytes = 4 << 20;

export type LineChunkSink = (lines: Buffer, rows: number) => void | Promise<void>;

/** Bytes one page of rows aims at: big enough that per-query costs vanish, small enough to bound memory. */
const pageTargetBytes = 4 << 20;
const firstPageRows = 256;
const pageRowsMax = 20_000;
/** Pages requested ahead of the one being handed on (on a pool; a transaction has one connection). */
const pagesAhead = 2;

/**
 * Streams the lines of rows with `afterSeq < seq <= uptoSeq` to `sink`, in seq order, as
 * line-aligned chunks; returns the number of rows the store sent. On a pool, one binary COPY
 * (`copyThreadLines`); otherwise, or where the server has no such COPY, pages: each one aggregate
 * the server builds (`string_agg(line || chr(10) ORDER BY seq)` over a seq range): a few large
 * values instead of a message per row, in SQL that PostgreSQL-compatible databases share.
 * Page sizes adapt to the lines' size; on a pool (`prefetch`) the next pages are already being
 * built while one is handed on. The chunks are the rows' own bytes: nothing is re-encoded.
 */
export async function streamThreadLines(q: Queryable, thread: string, afterSeq: number, uptoSeq: number, sink: LineChunkSink, prefetch = false): Promise<number> {
  if (uptoSeq <= afterSeq) return 0;
  // On a pool (not in a transaction, where a refused statement would abort it) the rows come
  // as one COPY, when the server has it.
  if (prefetch && !copyUnsupported.has(q)) {
    const copied = await copyThreadLines(q, thread, afterSeq, uptoSeq, sink);
    if (copied !== null) return copied;
    copyUnsupported.add(q);
  }
  return await pagedThreadLines(q, thread, afterSeq, uptoSeq, sink, prefetch);
}

/** Pools whose server refused `COPY (query) TO STDOUT (FORMAT binary)`: they are read in pages. */
const copyUnsupported = new WeakSet<Queryable>();

/** SQLSTATE classes of a server that does not know the statement: syntax, access rule, feature. */
const unsupportedStatement = /^(42|0A)/;

export const copySignature = Buffer.from("PGCOPY\n\xff\r\n\0", "latin1");

/**
 * The rows as one `COPY (SELECT line ... ORDER BY seq) TO STDOUT (FORMAT binary)`: the server
 * sends each row as it reads it, with no aggregate to build and no sort (the primary key's
 * order), and the client copies each line once into line-aligned chunks of about
 * `pageTargetBytes`. On this machine it fetched a 158 MB thread in ~0.2 s where the
 * `string_agg` pages took ~0.5 s (both server and client on two vCPUs). Null when the server
 * does not support it (nothing was read). COPY takes no parameters: the bounds are integers
 * and the thread a quoted literal (standard_conforming_strings: only `'` needs doubling).
 */
async function copyThreadLines(q: Queryable, thread: string, afterSeq: number, uptoSeq: number, sink: LineChunkSink): Promise<number | null> {
  if (!Number.isSafeInteger(afterSeq) || !Number.isSafeInteger(uptoSeq)) throw new RangeError(`seq bounds must be integers, got ${afterSeq}..${uptoSeq}`);
  const literal = `'${thread.replace(/'/g, "''")}'`;
  let stream: import("node:stream").Readable;
  try {
    stream = await q.unsafe(
      `COPY (SELECT line FROM eventloom_events WHERE thread = ${literal} AND seq > ${afterSeq} AND seq <= ${uptoSeq} ORDER BY seq) TO STDOUT (FORMAT binary)`,
    ).readable();
  } catch (error) {
    if (unsupportedStatement.test(String((error as { code?: unknown }).code ?? ""))) return null;
    throw error;
  }
  const reader = new BinaryCopyRows();
  const ready: Array<{ lines: Buffer; rows: number }> = [];
  let out = Buffer.allocUnsafe(pageTargetBytes);
  let used = 0;
  let rowsInChunk = 0;
  let rows = 0;
  const cut = () => {
    if (rowsInChunk === 0) return;
    ready.push({ lines: out.subarray(0, used), rows: rowsInChunk });
    out = Buffer.allocUnsafe(pageTargetBytes);
    used = 0;
    rowsInChunk = 0;
  };
  const take = (line: Buffer) => {
    if (used + line.length + 1 > out.length) {
      cut();
      if (line.length + 1 > out.length) out = Buffer.allocUnsafe(line.length + 1);
    }
    line.copy(out, used);
    out[used + line.length] = 0x0a;
    used += line.length + 1;
    rowsInChunk++;
    rows++;
  };
  // Messages are handled as they come ('data', not an async iterator: one promise per row was
  // a fifth of the client's time); the stream is paused while chunks are handed on, so a slow
  // sink holds it back.
  await new Promise<void>((resolve, reject) => {
    const fail = (error: unknown) => {
      stream.destroy();
      reject(error);
    };
    let handing: Promise<void> = Promise.resolve();
    const handOn = async () => {
      while (ready.length > 0) {
        const chunk = ready.shift()!;
        await sink(chunk.lines, chunk.rows);
      }
    };
    stream.on("data", (data: Buffer) => {
      try {
        reader.read(data, take);
      } catch (error) {
        fail(error);
        return;
      }
      if (ready.length === 0) return;
      stream.pause();
      handing = handOn();
      handing.then(() => stream.resume(), fail);
    });
    // The chunks being handed on when the stream ends are handed on before what follows.
    stream.once("end", () => handing.then(resolve, reject));
    stream.once("error", reject);
  });
  reader.finish();
  cut();
  for (const chunk of ready) await sink(chunk.lines, chunk.rows);
  return rows;
}

/**
 * Rows of a one-column binary COPY stream, however its bytes are split into messages (the
 * server sends a message per row): the signature and header, then per row a field count (1),
 * the value's length and bytes, then the trailer (-1). A NULL, a row of another width, bytes
 * after the trailer or a stream cut before it is an error: the server sent something other than
 * a thread's lines.
 */
export class BinaryCopyRows {
  #pending: Buffer = Buffer.alloc(0);
  #headerSeen = false;
  #ended = false;

  /** Calls `take` with each complete row's value (a view, valid during the call) in `data`. */
  read(data: Buffer, take: (value: Buffer) => void): void {
    const buffer = this.#pending.length === 0 ? data : Buffer.concat([this.#pending, data]);
    let at = 0;
    if (this.#ended && buffer.length > 0) throw new Error("the store's COPY output goes on after its trailer");
    if (!this.#headerSeen) {
      if (buffer.length < copySignature.length + 8) {
        this.#pending = Buffer.from(buffer);
        return;
      }
      if (!buffer.subarray(0, copySignature.length).equals(copySignature)) throw new Error("the store's COPY output is not PostgreSQL's binary format");
      const extension = buffer.readUInt32BE(copySignature.length + 4);
      if (buffer.length < copySignature.length + 8 + extension) {
        this.#pending = Buffer.from(buffer);
        return;
      }
      at = copySignature.length + 8 + extension;
      this.#headerSeen = true;
    }
    while (at + 2 <= buffer.length) {
      const fields = buffer.readInt16BE(at);
      if (fields === -1) {
        this.#ended = true;
        at += 2;
        if (at !== buffer.length) throw new Error("the store's COPY output goes on after its trailer");
        break;
      }
      if (fields !== 1) throw new Error(`the store's COPY output has a row of ${fields} fields, not 1`);
      if (at + 6 > buffer.length) break;
      const length = buffer.readInt32BE(at + 2);
      if (length < 0) throw new Error("the store's COPY output has a NULL line");
      if (at + 6 + length > buffer.length) break;
      take(buffer.subarray(at + 6, at + 6 + length));
      at += 6 + length;
    }
    this.#pending = at === buffer.length ? Buffer.alloc(0) : Buffer.from(buffer.subarray(at));
  }

  /** Throws unless the trailer was read. */
  finish(): void {
    if (!this.#ended || this.#pending.length > 0) throw new Error("the store's COPY output ended before its trailer");
  }
}

/** The rows as `string_agg` pages (see `streamThreadLines`): SQL every PostgreSQL-compatible database has. */
async function pagedThreadLines(q: Queryable, thread: string, afterSeq: number, uptoSeq: number, sink: LineChunkSink, prefetch: boolean): Promise<number> {
  let rows = 0;
  let next = afterSeq;
  let pageRows = firstPageRows;
  const inFlight: Promise<{ count: number; lines: Buffer | null }>[] = [];
  const request = () => {
    const from = next;
    const to = Math.min(uptoSeq, from + pageRows);
    next = to;
    inFlight.push(
      q`SELECT count(*) AS n, string_agg(line || chr(10), '' ORDER BY seq) AS lines FROM eventloom_events WHERE thread = ${thread} AND seq > ${from} AND seq <= ${to}`
        .raw()
        .then((result) => ({ count: Number(String(result[0][0])), lines: (result[0][1] as Buffer | null) ?? null })),
    );
  };
  request();
  while (inFlight.length > 0) {
    while (prefetch && inFlight.length <= pagesAhead && next < uptoSeq) request();
    const page = await (inFlight.shift() as Promise<{ count: number; lines: Buffer | null }>);
    if (page.count > 0 && page.lines !== null) {
      rows += page.count;
      // Adapt the page to the lines seen so far (requests already made keep their size).
      pageRows = Math.max(1, Math.min(pageRowsMax, Math.floor(pageTargetBytes / Math.max(1, page.lines.length / page.count))));
      await sink(page.lines, page.count);
    }
    if (!prefetch && inFlight.length === 0 && next < uptoSeq) request();
  }
  return rows;
}

/** The highest seq the store holds for `thread` (0 when none): one index lookup. */
export async function maxSeqOf(q: Queryable, thread: string): Promise<number> {
  const rows = await q`SELECT max(seq) AS m FROM eventloom_events WHERE thread = ${thread}`;
  return Number(rows[0]?.m ?? 0);
}

/** Lines (newlines) in `bytes`. */
export function countLines(bytes: Buffer): number {
  let count = 0;
  for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) count++;
  return count;
}

/** The last line (without its newline) of line-aligned bytes. */
export function lastLineOf(lines: Buffer): Buffer {
  const end = lines.length - 1;
  return lines.subarray(lines.lastIndexOf(10, end - 1) + 1, end);
}
