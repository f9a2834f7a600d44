/**
 * Timestamps as Python writes them: UTC ISO-8601 with `Z`, microseconds (6 digits) omitted
 * when zero, e.g. `2026-05-20T02:58:49.961953Z` or `2024-06-15T12:00:00Z`. The hash covers the
 * exact stored string.
 */

/** A clock returns microseconds since the Unix epoch; injectable for tests. */
export type MicrosClock = () => number;

export const systemClock: MicrosClock = () => Math.floor((performance.timeOrigin + performance.now()) * 1000);

export function formatTimestamp(epochMicros: number): string {
  const millis = Math.floor(epochMicros / 1000);
  const micros = epochMicros - millis * 1000 + (millis % 1000) * 1000;
  const iso = new Date(millis).toISOString(); // 2026-05-20T02:58:49.961Z
  const base = iso.slice(0, 19);
  return micros === 0 ? `${base}Z` : `${base}.${String(micros).padStart(6, "0")}Z`;
}

const isoPattern = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;

/**
 * An event timestamp as microseconds since the Unix epoch, or null when it is not ISO-8601 with
 * an offset. Logs carry what Python and this binary write, but may hold any offset (`+02:00`)
 * or fraction length; `Date.parse` keeps only milliseconds, so the fraction is read here.
 *
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
