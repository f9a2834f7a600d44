/**
 * Assertions at the seams of a pipeline: a stage checks what the next one relies on (a count,
 * an ordering) and a broken promise is a programmer error, never an expected failure. It is a
 * plain `Error` (not a `ZaxyError`), so the CLI reports it as an internal error (exit 3).
 *
 * @example
 * invariant(rows.length === n, `pass two read ${rows.length} rows, pass one ${n}`);
 */

/** The error an `invariant` throws: a bug in zaxy, not bad input. */
export class InvariantError extends Error {
  constructor(message: string) {
    super(`internal invariant broken: ${message}`);
    this.name = "InvariantError";
  }
}

/** Throws `InvariantError` with `message` unless `condition` holds. */
export function invariant(condition: boolean, message: string): asserts condition {
  if (!condition) throw new InvariantError(message);
}
