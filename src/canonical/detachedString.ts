/**
 * Strings kept long after the text they were parsed from. `parseJson` returns each string value
 * as a slice of the line's text, and the engines keep a slice as a view that holds the whole line
 * alive: a row that keeps an event's hash or timestamp keeps the event's ~0.5 KB line. Whatever
 * keeps a parsed string for the life of a fold (rows, a BM25 term table) keeps a detached copy.
 *
 * @example
 * const pool = new DetachedStringPool();
 * row.entityType = pool.detached(entity.entityType); // one copy per distinct type
 * row.summary = detachedString(entity.summary);       // a copy that shares no storage
 */

/** A copy of `text` that shares no storage with the text it was sliced from. */
export function detachedString(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}

/**
 * Detached copies shared by equal strings: one copy per distinct value, for the few values
 * repeated on many rows (entity and relation types, inference methods, an event's timestamp).
 */
export class DetachedStringPool {
  private readonly copies = new Map<string, string>();

  /** The pooled copy of `text`, made on first use. */
  detached(text: string): string {
    let copy = this.copies.get(text);
    if (copy === undefined) {
      copy = detachedString(text);
      this.copies.set(copy, copy);
    }
    return copy;
  }

  /** Forgets every copy (the strings themselves stay with whatever kept them). */
  clear(): void {
    this.copies.clear();
  }

  get size(): number {
    return this.copies.size;
  }
}
