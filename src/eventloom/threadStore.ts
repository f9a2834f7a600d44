/**
 * Where a root's logs live when they are not only files: a shared store (docs/store.md) binds
 * a local mirror root, and appends to a thread under that root go through the store's lock and
 * commit instead of the file's flock. The Eventloom layer knows only this interface; the
 * PostgreSQL implementation binds itself to the root's handle (`Root.bindThreadStore`,
 * rootHandle.ts; src/store/), so nothing here loads a client.
 */

/** The local copy of a thread, locked and caught up with the store, open for the append. */
export interface LockedMirror {
  fd: number;
  /** Bytes of the local copy: every event the store holds for the thread, no more. */
  size: number;
  logPath: string;
  warnings: string[];
  /**
   * Set when this append is a retry of one the store already committed (its request record is
   * there, docs/store.md): the lines that attempt wrote, from `firstSeq`. The body then stages
   * nothing and reports those events as its own.
   */
  committed?: CommittedBatch;
}

/** The lines an earlier attempt of the same append committed, from seq `firstSeq` on. */
export interface CommittedBatch {
  firstSeq: number;
  lines: readonly Uint8Array[];
}

/** What a locked append hands back to be committed: the sealed lines and the new head's hash. */
export interface StagedLines {
  lines: readonly string[];
  hashAfter: string;
  /** Writes the same lines to the local copy once the store has committed them. */
  writeMirror: () => void;
}

export interface ThreadStore {
  /**
   * Runs `body` with the thread's head locked in the store and its local copy caught up and
   * locked; commits what `body` stages, all or nothing, then writes it to the local copy.
   */
  appendLocked<T>(sessionId: string, lockWaitMs: number, body: (mirror: LockedMirror, stage: (staged: StagedLines) => void) => Promise<T>): Promise<T>;
}
