/**
 * Runtime-specific calls live here and nowhere else: file locks (flock through `bun:ffi` under
 * Bun, `Deno.FsFile.lock` under Deno, both flock-based so the Python implementation, which uses
 * `fcntl.flock` on the JSONL itself, and this binary exclude each other) and the fastest SHA-256
 * each runtime offers.
 */
import * as fs from "node:fs";
import { fileKind } from "./regularFile.ts";

// deno-lint-ignore no-explicit-any
const runtimeGlobal = globalThis as any;

export const runtimeName: "bun" | "deno" | "node" =
  runtimeGlobal.Bun !== undefined ? "bun" : runtimeGlobal.Deno !== undefined ? "deno" : "node";

// Bun.SHA256.hash is Bun's dedicated SHA-256 entry point: ~10 % less call overhead per short
// message than CryptoHasher.hash("sha256", ...), which matters at one call per event.
const bunSha256 = runtimeName === "bun" ? runtimeGlobal.Bun.SHA256 : undefined;

/** SHA-256 of `data` written into `out` (32 bytes). Called once per event by the verifier. */
export const sha256Into: (data: Uint8Array, out: Uint8Array) => void =
  bunSha256 !== undefined
    ? (data, out) => {
        bunSha256.hash(data, out);
      }
    : (data, out) => {
        out.set(createHash("sha256").update(data).digest());
      };

/**
 * node:crypto's createHash, looked up on first use: importing node:crypto loads the runtime's
 * stream modules, a large part of the start-up of a command that never hashes (`--version`).
 */
const createHash = (algorithm: string) => process.getBuiltinModule("node:crypto").createHash(algorithm);

const hexDigits = "0123456789abcdef";

export function bytesToHex(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i++) out += hexDigits[bytes[i] >> 4] + hexDigits[bytes[i] & 15];
  return out;
}

/** Lowercase hex SHA-256 of a UTF-8 string or bytes. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/**
 * Asks the runtime to collect garbage soon (Bun: a non-blocking collection). Long loops that
 * allocate a small view per event call it now and then, so peak memory tracks the live data
 * rather than the collector's heuristics.
 *
 * `{ now: true }` collects fully before returning (Bun): for the moment a command drops most of
 * its heap (a parsed log it has reduced to what it needs) and is about to allocate again, so the
 * new allocations reuse that memory instead of adding to the peak.
 */
export function requestGarbageCollection(options: { now?: boolean } = {}): void {
  if (runtimeName === "bun") runtimeGlobal.Bun.gc(options.now === true);
}

/**
 * Collects garbage now and waits for it (Bun: a full collection, ~0.1-0.5 s on a heap of a few
 * hundred MB). Between the phases of a long batch job, so that what one phase dropped is freed
 * before the next one grows memory that is never given back (Kuzu's wasm heap).
 */
export function collectGarbageNow(): void {
  if (runtimeName === "bun") runtimeGlobal.Bun.gc(true);
}

export interface FileLock {
  release(): void;
}

export class LockTimeoutError extends Error {
  readonly code = "lock_timeout";
}

const LOCK_SH = 1;
const LOCK_EX = 2;
const LOCK_NB = 4;
const LOCK_UN = 8;
const EINTR = 4;
const EWOULDBLOCK = 11;
const EWOULDBLOCK_DARWIN = 35;

interface LibcFlock {
  flock(fd: number, operation: number): number;
  errno(): number;
}

let libc: LibcFlock | undefined;

async function bunLibc(): Promise<LibcFlock> {
  if (libc !== undefined) return libc;
  const ffi = await import("bun:ffi");
  const darwin = process.platform === "darwin";
  const lib = ffi.dlopen(darwin ? "libc.dylib" : "libc.so.6", {
    flock: { args: ["i32", "i32"], returns: "i32" },
    [darwin ? "__error" : "__errno_location"]: { args: [], returns: "ptr" },
  });
  const errnoLocation = lib.symbols[darwin ? "__error" : "__errno_location"] as () => number;
  libc = {
    flock: lib.symbols.flock as (fd: number, op: number) => number,
    errno: () => ffi.read.i32(errnoLocation() as never, 0),
  };
  return libc;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Takes an advisory flock on `path` (created if missing when `create`), waiting up to
 * `waitMs`. The lock is tied to a descriptor of its own, so callers do their I/O through any
 * other descriptor and call `release()` when done.
 *
 * The lock is on the file `path` names when it is granted: `zaxy compact` replaces a log by an
 * atomic rename while holding its lock, so a waiter granted the lock of the replaced file would
 * otherwise write to the new file beside a process holding the new file's lock.
 */
export async function lockFile(path: string, mode: "shared" | "exclusive", waitMs: number, create = false): Promise<FileLock> {
  // Opening a FIFO blocks until the other end appears: refuse any special file before opening.
  const stat = fs.statSync(path, { throwIfNoEntry: false });
  if (stat !== undefined && !stat.isFile()) throw new Error(`${path} is not a regular file (${fileKind(stat)})`);
  const deadline = Date.now() + waitMs;
  for (;;) {
    const lock = await lockOpenedFile(path, mode, Math.max(0, deadline - Date.now()), create);
    const current = fs.statSync(path, { throwIfNoEntry: false });
    if (lock.ino === null || (current !== undefined && current.ino === lock.ino)) return lock;
    lock.release();
  }
}

interface InodeLock extends FileLock {
  /** Inode of the locked descriptor (null where the platform has none). */
  ino: number | null;
}

async function lockOpenedFile(path: string, mode: "shared" | "exclusive", waitMs: number, create: boolean): Promise<InodeLock> {
  if (runtimeName === "bun") {
    const c = await bunLibc();
    // Creating never follows a link: the file created is the one `path` names.
    const fd = fs.openSync(path, create ? fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | (fs.constants.O_NOFOLLOW ?? 0) : fs.constants.O_RDONLY, 0o644);
    const op = (mode === "exclusive" ? LOCK_EX : LOCK_SH) | LOCK_NB;
    const deadline = Date.now() + waitMs;
    let delayMs = 1;
    for (;;) {
      if (c.flock(fd, op) === 0) break;
      const errno = c.errno();
      if (errno !== EWOULDBLOCK && errno !== EWOULDBLOCK_DARWIN && errno !== EINTR) {
        fs.closeSync(fd);
        throw new Error(`flock failed on ${path} (errno ${errno})`);
      }
      if (Date.now() >= deadline) {
        fs.closeSync(fd);
        throw new LockTimeoutError(`timed out after ${waitMs} ms waiting for the lock on ${path}`);
      }
      await sleep(delayMs);
      delayMs = Math.min(delayMs * 2, 20);
    }
    return {
      ino: fs.fstatSync(fd).ino,
      release() {
        c.flock(fd, LOCK_UN);
        fs.closeSync(fd);
      },
    };
  }
  if (runtimeName === "deno") {
    const Deno = runtimeGlobal.Deno;
    const file = await Deno.open(path, create ? { read: true, append: true, create: true } : { read: true });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), waitMs);
    });
    const outcome = await Promise.race([file.lock(mode === "exclusive").then(() => "locked" as const), timeout]);
    clearTimeout(timer);
    if (outcome === "timeout") {
      file.close();
      throw new LockTimeoutError(`timed out after ${waitMs} ms waiting for the lock on ${path}`);
    }
    return {
      ino: file.statSync().ino ?? null,
      release() {
        try {
          file.unlockSync();
        } finally {
          file.close();
        }
      },
    };
  }
  throw new Error("file locking needs Bun or Deno; run zaxy with one of them");
}
