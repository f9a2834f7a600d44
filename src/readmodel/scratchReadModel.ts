/**
 * A session's read model built for one read outside its root, when the root's own cannot be
 * written or opened (a read-only root, another process holding the store, a full disk, a log
 * whose last append was interrupted): the same writer and the same `DiskSessionIndex` as every
 * other read, in a private directory under the system temp directory, so a degraded answer is
 * computed by the code a whole one is. The directory is removed as soon as the model is open (its
 * descriptors stay readable); nothing of it is written under the root.
 *
 * The model is built over a copy of the log cut at the events read (a longer log, or a torn last
 * line, would not be the head the model was built at), and is opened with the vector index the
 * read already holds (or none).
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { ioError, isZaxyError } from "../errors.ts";
import { forgetDerivedKey } from "../eventloom/root.ts";
import type { EventRecord } from "../eventloom/envelope.ts";
import type { SessionGraphRows } from "../projection/types.ts";
import type { SessionVectorIndex } from "../projection/vectorIndex.ts";
import { EmptySessionIndex, type SessionIndex } from "../retrieval/sessionIndex.ts";
import { openReadModel } from "./diskSessionIndex.ts";
import { RowsReadModelSource } from "./readModelSource.ts";
import { writeReadModel } from "./writeReadModel.ts";

/** Builds this process started, so two reads of one session at one head get two directories. */
let scratchBuilds = 0;

/** `<temp>/zaxy-scratch-<uid>`, created private to this user; refused if someone else's or a link. */
function scratchParent(tempDir: string): string {
  const uid = typeof process.getuid === "function" ? process.getuid() : null;
  const dir = path.join(tempDir, `zaxy-scratch-${uid ?? "user"}`);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = fs.lstatSync(dir);
  if (!stat.isDirectory() || (uid !== null && stat.uid !== uid)) throw new Error(`${dir} is not a directory of this user`);
  return dir;
}

/** Neither the root nor the temp directory could hold the read model a read needs (the service then answers from memory). */
function scratchUnwritable(sessionId: string, tempDir: string, error: unknown): Error {
  const reason = error instanceof Error ? error.message : String(error);
  return ioError(
    "unwritable_scratch",
    `read model of session ${JSON.stringify(sessionId)} cannot be written under the root, nor under the temp directory ${tempDir} (${reason}); ` +
      "make the root writable, or set TMPDIR to a writable directory outside it",
  );
}

function isInside(parent: string, child: string): boolean {
  const relative = path.relative(parent, child);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

/**
 * The index over `rows` and `events` (the verified events at the head the rows were folded to,
 * read from `logPath`) as a read model written and opened in a scratch directory; an
 * `EmptySessionIndex` when there are no events.
 */
export async function openScratchReadModel(
  root: string,
  sessionId: string,
  logPath: string,
  rows: SessionGraphRows,
  events: readonly EventRecord[],
  vectors: SessionVectorIndex | null,
  tempDir: string = os.tmpdir(),
): Promise<SessionIndex> {
  if (events.length === 0) return new EmptySessionIndex(sessionId, rows);
  const last = events[events.length - 1];
  const name = createHash("sha256").update(JSON.stringify([path.resolve(root), sessionId, last.seq, last.hash])).digest("hex").slice(0, 24);
  let dir: string;
  try {
    dir = path.join(scratchParent(tempDir), `${name}-${process.pid}-${++scratchBuilds}`);
    if (isInside(path.resolve(root), dir)) throw new Error(`it is inside the root`);
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    throw scratchUnwritable(sessionId, tempDir, error);
  }
  try {
    const logCopy = path.join(dir, "log.jsonl");
    fs.copyFileSync(logPath, logCopy);
    let problem = "";
    const manifest = writeReadModel(dir, logCopy, new RowsReadModelSource(sessionId, rows, events), rows, events, (message) => problem = message);
    if (manifest === null) throw new Error(problem);
    fs.truncateSync(logCopy, manifest.log_bytes);
    const opening = await openReadModel(dir, sessionId, logCopy, async () => vectors);
    if (opening.status === "opened") return opening.index;
    throw new Error(`read model of session ${JSON.stringify(sessionId)} built for this read cannot be opened: ${opening.status === "missing" ? "it is missing" : opening.reason}`);
  } catch (error) {
    // A file system that refuses the scratch files (full, read-only) is the user's to fix.
    throw typeof (error as NodeJS.ErrnoException).code === "string" && !isZaxyError(error) ? scratchUnwritable(sessionId, tempDir, error) : error;
  } finally {
    // Open descriptors keep what the index reads; a server must not keep the gone directory's key.
    fs.rmSync(dir, { recursive: true, force: true });
    forgetDerivedKey(dir);
  }
}
