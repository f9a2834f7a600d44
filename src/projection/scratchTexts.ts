/**
 * Long strings kept in a scratch file instead of the heap, by id. A million-event session with
 * long payloads folds to ~940k entity versions whose summaries and properties were ~1 GB of
 * strings held from the fold until the read model and the vectors were written, the largest part
 * of `zaxy reproject`'s peak. Here a string longer than `inlineCharsMax` is appended to the file
 * (one byte per code unit when every unit fits, else UTF-16: any JS string, a lone surrogate
 * included, reads back as the same code units) and only its place, length and a hash stay in typed
 * columns; shorter ones (`{}`, a name-like summary, null) stay in memory as they are.
 *
 * Reading in id order (the table writers, the keyword index, the vectors) goes through a window
 * of the file read in large blocks; `holds` compares by length and hash first and reads the
 * stored text only when both match, so telling texts apart costs no read.
 *
 * The file is created in `dir` when the first long string comes (a log that fails verification
 * folds nothing and leaves no directory behind) and, where the system allows, unlinked at once,
 * so nothing is left behind by a process that dies; otherwise `close` removes it. A reader on
 * another thread of the same process (`zaxy reproject`'s vectors worker, sent where each text is
 * as `SharedTexts`) opens it through the process's descriptor (`share`), so it needs no name.
 *
 * @example
 * const texts = new ScratchTexts(dir);
 * const id = texts.add(longSummary);
 * texts.text(id) === longSummary; // true
 * texts.holds(id, otherText);     // false unless otherText === longSummary
 * texts.close();
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { randomBytes } from "node:crypto";
import { detachedString } from "../canonical/detachedString.ts";
import { GrowableArray } from "../growableArray.ts";

/** Strings up to this many code units stay in memory (most bare versions' `{}` and short names). */
export const inlineCharsMax = 64;

/** Pending appends are written in blocks of this size. */
const writeBlockBytes = 1 << 20;

/** A read in id order fetches this much of the file at once. */
const readWindowBytes = 1 << 20;

/** Two 32-bit FNV-1a style hashes of a string's code units as one 53-bit number, and whether a unit is past 0xff. */
function hashOf(text: string): { hash: number; wide: boolean } {
  let low = 0x811c9dc5;
  let high = 0x050c5d1f;
  let widest = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    widest |= code;
    low = Math.imul(low ^ code, 0x01000193);
    high = Math.imul(high ^ code, 0x5bd1e995);
  }
  return { hash: (low >>> 0) * 0x200000 + (high >>> 11), wide: widest > 0xff };
}

export class ScratchTexts {
  /** By id: the string itself when kept in memory, undefined when it is in the file. */
  private readonly inline: (string | null | undefined)[] = [];
  /** By id, for a string in the file: its byte offset, its length in code units, its hash, 1 if stored as UTF-16. */
  private readonly offsets = new GrowableArray(new Float64Array(64), (n) => new Float64Array(n));
  private readonly lengths = new GrowableArray(new Uint32Array(64), (n) => new Uint32Array(n));
  private readonly hashes = new GrowableArray(new Float64Array(64), (n) => new Float64Array(n));
  private readonly wide = new GrowableArray(new Uint8Array(64), (n) => new Uint8Array(n));
  /** The file, once opened; closed for good when `closed`. */
  private fd: number | null = null;
  private closed = false;
  /** The file's path while it is still linked (where unlinking an open file is refused). */
  private linkedPath: string | null = null;
  /** Bytes in the file, and appended bytes not yet written after them. */
  private fileBytes = 0;
  private readonly pending = Buffer.allocUnsafe(writeBlockBytes);
  private pendingBytes = 0;
  /** The part of the file last read for a read in id order: `windowStart`..`windowStart + windowBytes`. */
  private readonly window = Buffer.allocUnsafe(readWindowBytes);
  private windowStart = 0;
  private windowBytes = 0;

  /**
   * A store whose file will be created in `dir` (made if missing); `beforeCreate` runs first (a
   * check that the directory may be written).
   */
  constructor(private readonly dir: string, private readonly beforeCreate: () => void = () => {}) {}

  /** Number of ids given. */
  get length(): number {
    return this.inline.length;
  }

  /** Keeps `text` under a new id (a string kept in memory is a detached copy, canonical/detachedString.ts). */
  add(text: string | null): number {
    if (this.closed) throw new Error("scratch texts: the store is closed");
    const id = this.inline.length;
    if (text === null || text.length <= inlineCharsMax) {
      this.inline.push(text === null ? null : detachedString(text));
      this.offsets.push(0);
      this.lengths.push(0);
      this.hashes.push(0);
      this.wide.push(0);
      return id;
    }
    const { hash, wide } = hashOf(text);
    this.inline.push(undefined);
    this.offsets.push(this.fileBytes + this.pendingBytes);
    this.lengths.push(text.length);
    this.hashes.push(hash);
    this.wide.push(wide ? 1 : 0);
    this.append(text, wide);
    return id;
  }

  /** The string kept under `id`. */
  text(id: number): string | null {
    const inline = this.inline[id];
    if (inline !== undefined) return inline;
    return this.readText(id, true);
  }

  /** Whether `id` holds a string equal to `text`. */
  holds(id: number, text: string | null): boolean {
    const inline = this.inline[id];
    if (inline !== undefined) return inline === text;
    // A string in the file is longer than any kept in memory.
    if (text === null || text.length !== this.lengths.data[id]) return false;
    const { hash, wide } = hashOf(text);
    if (hash !== this.hashes.data[id] || (wide ? 1 : 0) !== this.wide.data[id]) return false;
    return this.readText(id, false) === text;
  }

  /**
   * Records where `id`'s string is in the file as entry `at` of `shared`, a string kept in memory
   * appended to the file first (once more, under no id): a reader on another thread then finds
   * every entry in the file, once `share` has written the pending appends.
   */
  placeIn(id: number, shared: SharedTexts, at: number): void {
    const inline = this.inline[id];
    if (inline !== undefined) {
      this.placeText(inline, shared, at);
      return;
    }
    shared.kind[at] = sharedInFile;
    shared.offsets[at] = this.offsets.data[id];
    shared.lengths[at] = this.lengths.data[id];
    shared.wide[at] = this.wide.data[id];
  }

  /** Appends `text` to the file (under no id) and records where it is as entry `at` of `shared` (null as null). */
  placeText(text: string | null, shared: SharedTexts, at: number): void {
    if (text === null) {
      shared.kind[at] = sharedNull;
      return;
    }
    const { wide } = hashOf(text);
    shared.kind[at] = sharedInFile;
    shared.offsets[at] = this.fileBytes + this.pendingBytes;
    shared.lengths[at] = text.length;
    shared.wide[at] = wide ? 1 : 0;
    this.append(text, wide);
  }

  /** Whether a reader on another thread can still be given the file (`share`): not closed. */
  get shareable(): boolean {
    return !this.closed;
  }

  /**
   * Writes the pending appends and gives a path a reader on another thread of this process opens
   * the file by, for the entries placed (`placeIn`, `placeText`): the file's own path where it
   * could not be unlinked, else the process's descriptor (`/proc/self/fd/N` on Linux, `/dev/fd/N`
   * elsewhere), which opens the unlinked file and stays valid after this store closes it.
   */
  share(): string {
    this.flush();
    const fd = this.openFd();
    if (this.linkedPath !== null) return this.linkedPath;
    return process.platform === "linux" ? `/proc/self/fd/${fd}` : `/dev/fd/${fd}`;
  }

  /** Closes the file (and removes it if it is still linked); the store is unusable after. */
  close(): void {
    this.closed = true;
    if (this.fd === null) return;
    fs.closeSync(this.fd);
    this.fd = null;
    if (this.linkedPath !== null) fs.rmSync(this.linkedPath, { force: true });
    this.linkedPath = null;
  }

  private append(text: string, wide: boolean): void {
    const bytes = wide ? 2 * text.length : text.length;
    if (this.pendingBytes + bytes > this.pending.length) this.flush();
    if (bytes > this.pending.length) {
      this.writeAt(Buffer.from(text, wide ? "utf16le" : "latin1"), this.fileBytes);
      this.fileBytes += bytes;
      return;
    }
    this.pending.write(text, this.pendingBytes, bytes, wide ? "utf16le" : "latin1");
    this.pendingBytes += bytes;
  }

  private flush(): void {
    if (this.pendingBytes === 0) return;
    this.writeAt(this.pending.subarray(0, this.pendingBytes), this.fileBytes);
    this.fileBytes += this.pendingBytes;
    this.pendingBytes = 0;
  }

  private writeAt(bytes: Uint8Array, position: number): void {
    let done = 0;
    while (done < bytes.length) done += fs.writeSync(this.openFd(), bytes, done, bytes.length - done, position + done);
  }

  /**
   * Reads a string of the file back: through the window when `inOrder` (the next ids' strings
   * follow it in the file), else exactly its bytes (a lookup out of order must not fetch a block).
   */
  private readText(id: number, inOrder: boolean): string {
    const offset = this.offsets.data[id];
    const encoding = this.wide.data[id] === 1 ? "utf16le" : "latin1";
    const bytes = this.wide.data[id] === 1 ? 2 * this.lengths.data[id] : this.lengths.data[id];
    if (offset + bytes > this.fileBytes) this.flush();
    const windowEnd = this.windowStart + this.windowBytes;
    if (offset >= this.windowStart && offset + bytes <= windowEnd) {
      const at = offset - this.windowStart;
      return this.window.toString(encoding, at, at + bytes);
    }
    if (!inOrder || bytes > this.window.length) {
      const exact = Buffer.allocUnsafe(bytes);
      this.readAt(exact, bytes, offset);
      return exact.toString(encoding);
    }
    this.windowStart = offset;
    this.windowBytes = this.readAt(this.window, Math.min(this.window.length, this.fileBytes - offset), offset);
    return this.window.toString(encoding, 0, bytes);
  }

  /** Reads `bytes` bytes at `position` into the start of `into`; returns the count. */
  private readAt(into: Buffer, bytes: number, position: number): number {
    let done = 0;
    while (done < bytes) {
      const read = fs.readSync(this.openFd(), into, done, bytes - done, position + done);
      if (read === 0) throw new Error(`scratch texts: the file ended at ${position + done} bytes, ${bytes - done} short of a stored string`);
      done += read;
    }
    return done;
  }

  private openFd(): number {
    if (this.closed) throw new Error("scratch texts: the store is closed");
    if (this.fd !== null) return this.fd;
    this.beforeCreate();
    fs.mkdirSync(this.dir, { recursive: true });
    const file = path.join(this.dir, `.scratch-texts.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
    const fd = fs.openSync(file, "wx+", 0o600);
    this.fd = fd;
    try {
      fs.unlinkSync(file);
    } catch {
      this.linkedPath = file;
    }
    return fd;
  }
}

/**
 * Strings for a reader on another thread, all in a `ScratchTexts` file (`ScratchTexts.placeIn`,
 * `placeText`): entry i is null when `kind[i]` is `sharedNull`, else the `lengths[i]` code units
 * at byte `offsets[i]` of the file, UTF-16 when `wide[i]` is 1. Only typed arrays, which a
 * message transfers without copying: a structured clone copies each string (a million names,
 * types and short summaries: ~350 MB at once, across both threads, on top of the read model).
 */
export interface SharedTexts {
  kind: Uint8Array;
  offsets: Float64Array;
  lengths: Uint32Array;
  wide: Uint8Array;
}

export const sharedNull = 0;
export const sharedInFile = 1;

export function sharedTexts(count: number): SharedTexts {
  return { kind: new Uint8Array(count), offsets: new Float64Array(count), lengths: new Uint32Array(count), wide: new Uint8Array(count) };
}

/** The buffers of `shared`, for a message's transfer list. */
export function sharedTextsBuffers(shared: SharedTexts): ArrayBuffer[] {
  return [shared.kind.buffer as ArrayBuffer, shared.offsets.buffer as ArrayBuffer, shared.lengths.buffer as ArrayBuffer, shared.wide.buffer as ArrayBuffer];
}

/**
 * Reads `SharedTexts` in entry order from the file at `fd` (opened from `share`'s path) through a
 * window read in large blocks, as `ScratchTexts` reads its own in id order.
 */
export class SharedTextsReader {
  /**
   * Two windows, the one used less recently refilled on a miss: a version's summary is either in
   * the part of the file the fold wrote or among the texts appended for the reader, so the
   * entries alternate between two places that each advance in order.
   */
  private readonly windows = [{ buffer: Buffer.allocUnsafe(readWindowBytes), start: 0, bytes: 0 }, { buffer: Buffer.allocUnsafe(readWindowBytes), start: 0, bytes: 0 }];
  private lastUsed = 0;

  constructor(private readonly shared: SharedTexts, private readonly fd: number | null) {}

  text(at: number): string | null {
    const shared = this.shared;
    if (shared.kind[at] === sharedNull) return null;
    if (this.fd === null) throw new Error("shared texts: a string is in a scratch file that was not opened");
    const offset = shared.offsets[at];
    const encoding = shared.wide[at] === 1 ? "utf16le" : "latin1";
    const bytes = shared.wide[at] === 1 ? 2 * shared.lengths[at] : shared.lengths[at];
    let use = this.windows.findIndex((w) => offset >= w.start && offset + bytes <= w.start + w.bytes);
    if (use < 0) {
      if (bytes > readWindowBytes) {
        const exact = Buffer.allocUnsafe(bytes);
        if (readFully(this.fd, exact, bytes, offset) < bytes) throw new Error(`shared texts: the scratch file ended before a stored string of ${bytes} bytes at ${offset}`);
        return exact.toString(encoding);
      }
      use = 1 - this.lastUsed;
      const window = this.windows[use];
      window.start = offset;
      window.bytes = readFully(this.fd, window.buffer, window.buffer.length, offset);
      if (window.bytes < bytes) throw new Error(`shared texts: the scratch file ended at ${offset + window.bytes} bytes, ${bytes - window.bytes} short of a stored string`);
    }
    this.lastUsed = use;
    const window = this.windows[use];
    const from = offset - window.start;
    return window.buffer.toString(encoding, from, from + bytes);
  }
}

/** Reads up to `bytes` bytes at `position` into the start of `into` (fewer at the end of the file); returns the count. */
function readFully(fd: number, into: Buffer, bytes: number, position: number): number {
  let done = 0;
  while (done < bytes) {
    const read = fs.readSync(fd, into, done, bytes - done, position + done);
    if (read === 0) break;
    done += read;
  }
  return done;
}
