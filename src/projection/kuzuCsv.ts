/**
 * CSV files for Kuzu's `COPY ... FROM` bulk load.
 *
 * Format (must match `csvCopyOptions`): no header, `,` delimiter, every string quoted with `"`
 * and inner quotes doubled, a null is an empty unquoted field. Kuzu 0.11 reads a quoted empty
 * field (`""`) as null as well, so an empty string cannot be expressed: callers route rows that
 * hold one (`rowHasEmptyString`) through a prepared statement instead. Strings may contain
 * newlines, which Kuzu's parallel CSV reader rejects, hence `PARALLEL=false`.
 */
import * as fs from "node:fs";

/** One CSV cell: a string (quoted), null (empty), a number or a boolean (bare). */
export type CsvCell = string | number | boolean | null;

/** Rows are flushed to disk in blocks of about this many characters to bound memory. */
const flushCharsMin = 4 * 1024 * 1024;

export function csvCopyOptions(): string {
  return `(HEADER=false, DELIM=',', QUOTE='"', ESCAPE='"', PARALLEL=false, AUTO_DETECT=false)`;
}

function encodeCell(cell: CsvCell): string {
  if (cell === null) return "";
  if (typeof cell === "string") return `"${cell.includes('"') ? cell.replaceAll('"', '""') : cell}"`;
  // Shortest round-trip decimal: Kuzu parses it back to the same double.
  return String(cell);
}

export function rowHasEmptyString(row: readonly CsvCell[]): boolean {
  for (const cell of row) if (cell === "") return true;
  return false;
}

/** Writes `rows` to `path` as CSV (see module header) and returns the row count. */
export function writeCsvFile(path: string, rows: Iterable<readonly CsvCell[]>): number {
  const fd = fs.openSync(path, "w", 0o600);
  let rowCount = 0;
  try {
    let block = "";
    for (const row of rows) {
      let line = "";
      for (let i = 0; i < row.length; i++) line += (i === 0 ? "" : ",") + encodeCell(row[i]);
      block += line + "\n";
      rowCount++;
      if (block.length >= flushCharsMin) {
        fs.writeSync(fd, block);
        block = "";
      }
    }
    if (block.length > 0) fs.writeSync(fd, block);
  } finally {
    fs.closeSync(fd);
  }
  return rowCount;
}

/** A path as a Cypher single-quoted string literal. */
export function cypherStringLiteral(value: string): string {
  return `'${value.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;
}
