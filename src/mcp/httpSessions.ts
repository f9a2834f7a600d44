/**
 * The MCP sessions `zaxy serve --http` holds, bounded in time and number (docs/mcp.md
 * §Security): a session unused for `idleMs` is closed (at the next sweep, or when next named),
 * and at `max` sessions a new one closes the least recently used idle one; when every session
 * has a call running the new one is refused. A session with a call running is never closed here.
 *
 * Recency is the table's insertion order: using a session moves it to the end, so the first
 * idle entry is always the least recently used.
 *
 * @example
 * const table = new HttpSessionTable<Session>({ idleMs: 1_800_000, max: 1000 });
 * if (!table.add(session)) refuse503();
 * table.get(id) // the session (now most recent), or undefined when unknown or expired
 */
import type { HttpSessionTransport } from "./httpSessionTransport.ts";

export interface TableEntry {
  transport: HttpSessionTransport;
  /** Its tool router: shutdown waits for the calls it runs. */
  router: { idle(): Promise<void> };
}

export class HttpSessionTable<S extends TableEntry> {
  readonly #entries = new Map<string, { session: S; usedAt: number }>();
  readonly #idleMs: number;
  readonly #max: number;
  readonly #now: () => number;

  constructor(options: { idleMs: number; max: number; now?: () => number }) {
    this.#idleMs = options.idleMs;
    this.#max = options.max;
    this.#now = options.now ?? Date.now;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The session with this id, marked used now; undefined when unknown or past its idle time (then closed). */
  get(id: string): S | undefined {
    const entry = this.#entries.get(id);
    if (entry === undefined) return undefined;
    const now = this.#now();
    if (this.#expired(entry, now)) {
      this.#remove(id, entry.session);
      return undefined;
    }
    this.#entries.delete(id);
    this.#entries.set(id, { session: entry.session, usedAt: now });
    return entry.session;
  }

  /** Marks a session used now (at the end of a call, so a long call does not count as idle time). */
  touch(id: string): void {
    const entry = this.#entries.get(id);
    if (entry !== undefined) entry.usedAt = this.#now();
  }

  /**
   * Adds a session; at the bound first closes the least recently used idle one. False (nothing
   * added) when the table is full of sessions with calls running.
   */
  add(session: S): boolean {
    this.sweep();
    if (this.#entries.size >= this.#max) {
      const victim = [...this.#entries].find(([, entry]) => entry.session.transport.busyCount === 0);
      if (victim === undefined) return false;
      this.#remove(victim[0], victim[1].session);
    }
    this.#entries.set(session.transport.sessionId, { session, usedAt: this.#now() });
    return true;
  }

  /** Forgets a session (closed by its client); does not close it. */
  delete(id: string): void {
    this.#entries.delete(id);
  }

  /** Closes every session idle past its time; the server calls it now and then. */
  sweep(): void {
    const now = this.#now();
    for (const [id, entry] of this.#entries) {
      if (this.#expired(entry, now)) this.#remove(id, entry.session);
    }
  }

  /** Every open session. */
  list(): S[] {
    return [...this.#entries.values()].map((entry) => entry.session);
  }

  /** Closes every session (shutdown). */
  async closeAll(): Promise<void> {
    const sessions = [...this.#entries.values()].map((entry) => entry.session);
    this.#entries.clear();
    await Promise.all(sessions.map((session) => session.transport.close().catch(() => {})));
  }

  #expired(entry: { session: S; usedAt: number }, now: number): boolean {
    return entry.session.transport.busyCount === 0 && now - entry.usedAt >= this.#idleMs;
  }

  #remove(id: string, session: S): void {
    this.#entries.delete(id);
    void session.transport.close().catch(() => {});
  }
}
