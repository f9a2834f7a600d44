/**
 * A thread's head row (`eventloom_heads`: seq, hash) against its rows (docs/store.md, "Head
 * rows"). Every commit moves the rows and the head row together, so in any one snapshot (and
 * under the head row's lock) the head row names exactly the rows: as many events as rows, and
 * the hash of the last one. A head row that disagrees means rows or the head row were changed
 * behind zaxy's back (a deleted last row, a head row moved ahead, lowered or re-hashed):
 * appends and reads refuse the thread (`integrity_failure`, exit 1) and `verify --store`
 * reports it; nothing repairs it silently, since the next append would otherwise write over
 * the evidence.
 */
import { checkError, type ZaxyError } from "../errors.ts";

export interface HeadRow {
  seq: number;
  /** 64 hex of the last event, or null for a thread with none. */
  hash: string | null;
}

export interface HeadMismatch {
  /** The seq the report names: the first event the head row and the rows disagree about. */
  seq: number;
  reason: string;
}

function short(hash: string | null): string {
  return hash === null ? "none" : `${hash.slice(0, 12)}...`;
}

/**
 * How `head` (undefined: the thread has no head row) disagrees with `rows` rows ending in an
 * event whose hash is `lastHash`, or undefined when it agrees.
 *
 * @example
 * headRowMismatch({ seq: 6, hash: "ab..." }, 5, "cd...")
 * // { seq: 6, reason: "The thread's head row says 6 events but the store holds 5 rows" }
 */
export function headRowMismatch(head: HeadRow | undefined, rows: number, lastHash: string | null): HeadMismatch | undefined {
  if (head === undefined) {
    return rows === 0 ? undefined : { seq: 1, reason: `The store holds ${rows} rows for the thread but it has no head row` };
  }
  if (head.seq !== rows) {
    return { seq: Math.min(head.seq, rows) + 1, reason: `The thread's head row says ${head.seq} events but the store holds ${rows} rows` };
  }
  if (rows > 0 && head.hash !== lastHash) {
    return { seq: rows, reason: `The thread's head row gives hash ${short(head.hash)} for its last event, but event ${rows} has hash ${short(lastHash)}` };
  }
  return undefined;
}

/** The refusal of a thread whose head row disagrees with its rows (exit 1), or undefined. */
export function headRowProblem(thread: string, head: HeadRow | undefined, rows: number, lastHash: string | null): ZaxyError | undefined {
  const mismatch = headRowMismatch(head, rows, lastHash);
  if (mismatch === undefined) return undefined;
  return checkError(
    "integrity_failure",
    `Session ${JSON.stringify(thread)} in the store fails its head row check at event ${mismatch.seq}: ${mismatch.reason}. ` +
      "Rows or the head row were changed outside zaxy; nothing was read from the thread or written to it.",
    {
      field: "store",
      hint: `\`zaxy verify --store URL --session-id ${thread}\` reports it; restore the rows (or the head row) from a backup or an exported copy before appending again`,
    },
  );
}

/** A head row as the store returns it (seq as text or number), or undefined for none. */
export function headRowOf(row: { seq?: unknown; hash?: unknown } | undefined): HeadRow | undefined {
  if (row === undefined || row.seq === null || row.seq === undefined) return undefined;
  return { seq: Number(String(row.seq)), hash: typeof row.hash === "string" ? row.hash : null };
}
