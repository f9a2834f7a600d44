/**
 * Reads an entity's `valid_from` (its source event's timestamp) as microseconds since the Unix
 * epoch, for the temporal strategy's 24-hour window. Timestamps are what Python and this
 * binary write (`2026-05-20T02:58:49.961953Z`, `2024-06-15T12:00:00Z`), but a log may carry any
 * ISO-8601 offset (`+02:00`) or fraction length; `Date.parse` keeps only milliseconds, so the
 * fraction is read here. Anything else gives null and the memory takes part in no temporal pair.
 */

const isoPattern = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;

/**
 * @example
 * timestampMicros("1970-01-01T00:00:01.000002Z") // 1000002
 * timestampMicros("yesterday") // null
 */
export function timestampMicros(timestamp: string): number | null {
  const match = isoPattern.exec(timestamp);
  if (match === null) return null;
  const seconds = Date.parse(`${match[1]}${match[3]}`);
  if (Number.isNaN(seconds)) return null;
  const micros = match[2] === undefined ? 0 : Math.floor(Number(match[2].padEnd(9, "0")) / 1000);
  return seconds * 1000 + micros;
}
