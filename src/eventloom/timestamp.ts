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
