/**
 * What the audit keeps of every event between its two passes over the log, column by column
 * in typed arrays: seq, citation flag, UTC window, thread, the 12 hash characters of its event
 * ref, and its content identities as numbers into one pool of distinct identity strings.
 *
 * Why columns: one object per event (strings and an array each) was ~450 bytes and ~5 heap
 * objects per event; at a million events that is ~450 MB the collector walks at every
 * collection. Here an event costs ~40 bytes and no heap objects, and a content identity
 * repeated across events (a path, a session turn, a code) is stored once.
 *
 * Pool ids are handed out in first-seen order over the log (event order, then each event's
 * content order), which is the order the report lists content identities in. Event refs are
 * rebuilt on demand (`eventRef`) exactly as `citationUri` writes them.
 *
 * @example
 * const facts = new AuditFacts();
 * facts.add({ seq: 1, thread: "default", hash: "ab12…", content: ["docs/a.md:1-5"], cited: true, window: 0 });
 * facts.eventRef(0); // "eventloom://default/events/1#ab12…"
 * facts.identityText(facts.contentOf(0)[0]); // "docs/a.md:1-5"
 */
import { citationHashChars, citationUri } from "../eventloom/mod.ts";
import { invariant } from "../invariant.ts";
import { GrowableArray } from "../growableArray.ts";

/** One event's facts as pass one reads them. */
export interface EventFactInput {
  seq: number;
  thread: string;
  /** The sealed event's hash (only its first `citationHashChars` characters are kept). */
  hash: string;
  /** Content identities in the event's order, without duplicates. */
  content: readonly string[];
  cited: boolean;
  /** UTC window index, or NaN when the timestamp does not parse. */
  window: number;
}

/**
 * A copy of `text` that shares no storage with the line it was parsed from. Engines return
 * slices of the parsed line's text as views that keep the whole line alive (~1 KB per event);
 * pooled strings live as long as the audit, so they must not pin lines of the log.
 */
export function detached(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}

// `eventRef` reads the prefix back as twelve code units.
invariant(citationHashChars === 12, `event refs carry ${citationHashChars} hash characters, the fact table reads 12`);

export class AuditFacts {
  private readonly seqs = new GrowableArray(new Float64Array(1 << 12), (n) => new Float64Array(n));
  private readonly windows = new GrowableArray(new Float64Array(1 << 12), (n) => new Float64Array(n));
  private readonly citedFlags = new GrowableArray(new Uint8Array(1 << 12), (n) => new Uint8Array(n));
  private readonly threadIds = new GrowableArray(new Uint32Array(1 << 12), (n) => new Uint32Array(n));
  // Each event's hash prefix as code units, `citationHashChars` per event; an event whose prefix
  // is shorter or not Latin-1 keeps it in `oddHashPrefixes` instead (a verified chain has none).
  private readonly hashChars = new GrowableArray(new Uint8Array(citationHashChars << 12), (n) => new Uint8Array(n));
  private readonly oddHashPrefixes = new Map<number, string>();
  // Content identities: event e's pool ids are contentIds[contentStart[e], contentStart[e + 1]).
  private readonly contentStart = new GrowableArray(new Uint32Array(1 << 12), (n) => new Uint32Array(n));
  private readonly contentIds = new GrowableArray(new Uint32Array(1 << 12), (n) => new Uint32Array(n));
  private readonly threads: string[] = [];
  private readonly threadIdOf = new Map<string, number>();
  private readonly identities: string[] = [];
  private readonly identityIdOf = new Map<string, number>();
  private citedTotal = 0;

  constructor() {
    this.contentStart.push(0);
  }

  /** Events added. */
  get count(): number {
    return this.seqs.length;
  }

  /** Distinct content identities over every event added (pool ids are 0 .. this − 1). */
  get identityCount(): number {
    return this.identities.length;
  }

  /** Events that can be cited back to their source. */
  get citedCount(): number {
    return this.citedTotal;
  }

  /** Adds the next event; events are numbered (rows) in order from 0. */
  add(event: EventFactInput): void {
    const row = this.count;
    this.seqs.push(event.seq);
    this.windows.push(event.window);
    this.citedFlags.push(event.cited ? 1 : 0);
    if (event.cited) this.citedTotal++;
    let threadId = this.threadIdOf.get(event.thread);
    if (threadId === undefined) {
      threadId = this.threads.length;
      const thread = detached(event.thread);
      this.threads.push(thread);
      this.threadIdOf.set(thread, threadId);
    }
    this.threadIds.push(threadId);
    this.hashChars.reserve(citationHashChars);
    const prefix = event.hash.slice(0, citationHashChars);
    let latin1 = prefix.length === citationHashChars;
    for (let i = 0; latin1 && i < citationHashChars; i++) latin1 = prefix.charCodeAt(i) <= 0xff;
    const base = this.hashChars.length;
    if (latin1) {
      for (let i = 0; i < citationHashChars; i++) this.hashChars.data[base + i] = prefix.charCodeAt(i);
    } else {
      this.oddHashPrefixes.set(row, detached(prefix));
    }
    this.hashChars.length = base + citationHashChars;
    for (const identity of event.content) this.contentIds.push(this.intern(identity));
    this.contentStart.push(this.contentIds.length);
  }

  private intern(identity: string): number {
    let id = this.identityIdOf.get(identity);
    if (id === undefined) {
      id = this.identities.length;
      const kept = detached(identity);
      this.identities.push(kept);
      this.identityIdOf.set(kept, id);
    }
    return id;
  }

  seq(row: number): number {
    return this.seqs.data[row];
  }

  /** UTC window index, or NaN when the timestamp did not parse. */
  window(row: number): number {
    return this.windows.data[row];
  }

  cited(row: number): boolean {
    return this.citedFlags.data[row] === 1;
  }

  /** The event's content identities (pool ids, the event's order): a view, valid until the next `add`. */
  contentOf(row: number): Uint32Array {
    return this.contentIds.data.subarray(this.contentStart.data[row], this.contentStart.data[row + 1]);
  }

  /**
   * Calls `visit` with each of the event's content identities (pool ids, the event's order):
   * `contentOf` without a view object per event, for the loops over every event.
   */
  eachContent(row: number, visit: (id: number) => void): void {
    const ids = this.contentIds.data;
    const end = this.contentStart.data[row + 1];
    for (let k = this.contentStart.data[row]; k < end; k++) visit(ids[k]);
  }

  /** How many content identities the event has. */
  contentCount(row: number): number {
    return this.contentStart.data[row + 1] - this.contentStart.data[row];
  }

  /** The text of content identity `id`. */
  identityText(id: number): string {
    return this.identities[id];
  }

  /** The pool id of `text` when it is some event's content identity. */
  identityIdOfText(text: string): number | undefined {
    return this.identityIdOf.get(text);
  }

  /** The event's own ref (`citationUri` of its thread, seq and hash): a new string each call. */
  eventRef(row: number): string {
    let prefix = this.oddHashPrefixes.get(row);
    if (prefix === undefined) {
      const chars = this.hashChars.data;
      const at = row * citationHashChars;
      // Twelve arguments, not a spread: one flat string and no garbage per event.
      prefix = String.fromCharCode(
        chars[at], chars[at + 1], chars[at + 2], chars[at + 3], chars[at + 4], chars[at + 5],
        chars[at + 6], chars[at + 7], chars[at + 8], chars[at + 9], chars[at + 10], chars[at + 11],
      );
    }
    return citationUri(this.threads[this.threadIds.data[row]], this.seqs.data[row], prefix);
  }
}
