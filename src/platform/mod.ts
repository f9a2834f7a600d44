/**
 * The runtime under the binary, in one place: the calls that differ between Bun, Deno and Node,
 * and the file primitives every layer above opens files through. Sections:
 *
 * - Locks and hashing: file locks (flock through `bun:ffi` under Bun, `Deno.FsFile.lock` under
 *   Deno, both flock-based so the Python implementation, which uses `fcntl.flock` on the JSONL
 *   itself, and this binary exclude each other) and the fastest SHA-256 each runtime offers.
 * - Files: opening a path the user named where a regular file is expected, hashing a file or a
 *   range of it in bounded chunks, and a file's on-disk stamp.
 * - WebAssembly kernels: the one loader of the AssemblyScript kernels.
 *
 * Atomic replacement (atomicFile.ts) and the binary table format (binaryFile.ts) are their own
 * modules: they are file formats and protocols, not calls into the runtime.
 */
import type { Hash } from "node:crypto";
import * as fs from "node:fs";
import { fileHashChunkBytes } from "../limits.ts";

// ---------------------------------------------------------------------------
// Locks and hashing

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

// ---------------------------------------------------------------------------
// Files: hashing and stamps

/**
 * Native SHA-256 (hex) of the first `bytes` bytes of an open file (all of it by default), read in
 * bounded chunks: a derived file can be hundreds of megabytes, and reading it whole to hash it
 * would put all of it in memory. Null when the file is shorter than `bytes`.
 */
export function sha256OfFd(fd: number, bytes?: number): string | null {
  const size = bytes ?? fs.fstatSync(fd).size;
  const hash = createHash("sha256");
  return hashFdRange(hash, fd, 0, size) === size ? hash.digest("hex") : null;
}

/**
 * Feeds bytes [start, end) of `fd` to `hash` in bounded chunks (each also to `onChunk`, e.g. to
 * count lines on the way) and returns how many were read: fewer than asked when the file ends.
 */
export function hashFdRange(hash: Hash, fd: number, start: number, end: number, onChunk?: (chunk: Uint8Array) => void): number {
  const buffer = new Uint8Array(Math.min(fileHashChunkBytes, Math.max(1, end - start)));
  let position = start;
  while (position < end) {
    const read = fs.readSync(fd, buffer, 0, Math.min(buffer.length, end - position), position);
    if (read === 0) break;
    const chunk = buffer.subarray(0, read);
    hash.update(chunk);
    onChunk?.(chunk);
    position += read;
  }
  return position - start;
}

/** `sha256OfFd` of a file by path. */
export function sha256OfFile(file: string, bytes?: number): string | null {
  const fd = fs.openSync(file, "r");
  try {
    return sha256OfFd(fd, bytes);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * What a file is on disk right now: device, inode, size, and modification and change times in
 * nanoseconds. Any write through the file system changes it (a change time cannot be set from
 * user space), so a derived file whose stamp is the one recorded when its SHA-256 was last checked
 * has not been modified since, and need not be hashed again.
 */
export function fileStamp(fdOrPath: number | string): string {
  const stat = typeof fdOrPath === "number" ? fs.fstatSync(fdOrPath, { bigint: true }) : fs.statSync(fdOrPath, { bigint: true });
  return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
}

// ---------------------------------------------------------------------------
// Files: regular files
/*
 * Opening a path the user named where a regular file is expected (a log, a payload file, an
 * ingest file). Opening a FIFO for reading blocks until a writer appears, and a character device
 * such as /dev/zero never ends, so the path is opened with O_NONBLOCK (which regular files
 * ignore) and its type is checked on the open descriptor before a single byte is read. Checking
 * the descriptor rather than a stat of the path leaves no window in which the path can be
 * swapped for a special file.
 */
/** What a path is, in the words an error message uses. */
export function fileKind(stat: fs.Stats): string {
  if (stat.isFile()) return "regular file";
  if (stat.isDirectory()) return "directory";
  if (stat.isFIFO()) return "FIFO";
  if (stat.isCharacterDevice()) return "character device";
  if (stat.isBlockDevice()) return "block device";
  if (stat.isSocket()) return "socket";
  return "special file";
}

export type RegularFileOpening =
  | { ok: true; fd: number; sizeBytes: number }
  | { ok: false; reason: string };

/**
 * Opens `path` read-only if it is a regular file (following symlinks); otherwise says why not,
 * as a phrase for "Cannot <action> <path>: <reason>". The caller closes `fd`.
 *
 * @example
 * const opened = openRegularFile("/dev/zero");
 * opened.ok ? fs.closeSync(opened.fd) : opened.reason; // "it is not a regular file (character device)"
 */
export function openRegularFile(path: string): RegularFileOpening {
  let fd: number;
  try {
    fd = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch (error) {
    return { ok: false, reason: openFailureReason(error) };
  }
  let stat: fs.Stats;
  try {
    stat = fs.fstatSync(fd);
  } catch (error) {
    fs.closeSync(fd);
    return { ok: false, reason: (error as Error).message };
  }
  if (!stat.isFile()) {
    fs.closeSync(fd);
    return { ok: false, reason: stat.isDirectory() ? "it is a directory" : `it is not a regular file (${fileKind(stat)})` };
  }
  return { ok: true, fd, sizeBytes: stat.size };
}

/**
 * Refuses a path that is not a regular file without reading from it; the reason, as
 * `openRegularFile` gives it, or undefined when the path is a readable regular file.
 */
export function regularFileProblem(path: string): string | undefined {
  const opened = openRegularFile(path);
  if (!opened.ok) return opened.reason;
  fs.closeSync(opened.fd);
  return undefined;
}

function openFailureReason(error: unknown): string {
  switch ((error as { code?: string }).code) {
    case "ENOENT":
      return "no such file";
    case "EISDIR":
      return "it is a directory";
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "ENXIO":
      // A socket, or a FIFO opened for writing without a reader.
      return "it is not a regular file (socket)";
    default:
      return (error as Error).message;
  }
}

// ---------------------------------------------------------------------------
// WebAssembly kernels
/*
 * Instantiates the AssemblyScript kernels (wasm/canonical.ts, wasm/vector.ts, wasm/geometry.ts)
 * from the bytes build.ts embeds, base64-encoded, in `src/generated/<name>Wasm.ts`. Each owner
 * (src/canonical/wasmKernel.ts, src/vector/hashEmbedding.ts, src/vector/geometry.ts,
 * src/vector/tokenBuckets.ts) passes its own bytes, so loading one kernel never decodes
 * another's.
 *
 * A kernel's module is compiled once per process and cached by name; every instance gets its own
 * linear memory. The kernels import `env.abort`, AssemblyScript's failure hook: they are built
 * with `--noAssert`, so a call means a kernel bug, reported as "<name> kernel aborted". An owner
 * adds its other imports (the canonical kernel's `formatFloat`) in `env`.
 *
 * kuzu-wasm and TF.js's WebAssembly backend do not come through here: their Emscripten glue
 * compiles and instantiates its own module from a file (src/projection/kuzuRuntime.ts,
 * src/semantic/semanticEmbedder.ts).
 *
 * @example
 * ```ts
 * import { vectorWasmBase64 } from "../generated/vectorWasm.ts";
 * const kernel = instantiateWasmKernel<{ memory: WebAssembly.Memory; heapBase(): number }>("vector", vectorWasmBase64);
 * kernel.heapBase(); // first free byte of this instance's memory
 * ```
 */
/** Functions a kernel imports from `env` besides `abort`, by name. */
export type WasmKernelImports = Record<string, (...args: number[]) => number | void>;

const compiledKernels = new Map<string, WebAssembly.Module>();

/** The compiled module of kernel `name`, decoded from `base64` on first use. */
function compiledKernel(name: string, base64: string): WebAssembly.Module {
  let compiled = compiledKernels.get(name);
  if (compiled === undefined) {
    compiled = new WebAssembly.Module(new Uint8Array(Buffer.from(base64, "base64")) as BufferSource);
    compiledKernels.set(name, compiled);
  }
  return compiled;
}

/**
 * A new instance of kernel `name` (its own memory), its exports typed as `Exports`. `base64` is
 * the kernel's embedded module; `env` holds the kernel's imports other than `abort`.
 */
export function instantiateWasmKernel<Exports>(name: string, base64: string, env: WasmKernelImports = {}): Exports {
  const instance = new WebAssembly.Instance(compiledKernel(name, base64), {
    env: {
      ...env,
      abort: () => {
        throw new Error(`${name} kernel aborted`);
      },
    },
  });
  // The exports' names and signatures live in the compiled kernel, out of the type checker's sight.
  return instance.exports as Exports;
}
