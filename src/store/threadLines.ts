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
 * line-aligned chunks; returns the number of rows the store sent. Each page is one aggregate
 * the server builds (`string_agg(line || chr(10) ORDER BY seq)` over a seq range): a few large
 * values instead of a message per row, in SQL that PostgreSQL-compatible databases share.
 * Page sizes adapt to the lines' size; on a pool (`prefetch`) the next pages are already being
 * built while one is handed on. The chunks are the rows' own bytes: nothing is re-encoded.
 */
export async function streamThreadLines(q: Queryable, thread: string, afterSeq: number, uptoSeq: number, sink: LineChunkSink, prefetch = false): Promise<number> {
  if (uptoSeq <= afterSeq) return 0;
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
