/**
 * Content-addressed cache files on the real file system.
 *
 * Some embedded assets must exist as ordinary files: Emscripten's pthread workers re-load their
 * glue script by path, and a worker thread cannot read the binary's virtual file system. Such an
 * asset is written once to `<os tmpdir>/zaxy-<uid>/<stem>-<first 16 hex of sha256><ext>` and
 * reused by every later run. The name carries the content hash, so a new binary version never
 * picks up an old file, and the contents are re-hashed before each reuse (about 1 ms for the
 * 240 KB Kuzu glue), so a truncated or altered file is replaced, never loaded.
 *
 * The directory is per user, created with mode 0700, and refused when it is a symlink, owned by
 * someone else, or writable by group or others: the file is later `require`d, so whoever can
 * write it could run code as us.
 */
import { createHash, randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { ioError } from "../errors.ts";

/** Hex digits of the content hash kept in the file name; 64 bits make a collision irrelevant. */
const nameHashHexChars = 16;

export interface CacheFile {
  path: string;
  /** Lowercase hex SHA-256 of the contents. */
  sha256: string;
  /** True when an identical file from an earlier run was reused. */
  reused: boolean;
}

/** The per-user cache directory, e.g. `/tmp/zaxy-1000` (not created by this call). */
export function cacheDirPath(): string {
  const uid = process.getuid?.();
  return path.join(os.tmpdir(), uid === undefined ? "zaxy" : `zaxy-${uid}`);
}

function cacheFileName(stem: string, ext: string, sha256: string): string {
  return `${stem}-${sha256.slice(0, nameHashHexChars)}${ext}`;
}

/**
 * Contents known by their SHA-256 before they are read: an embedded asset stored compressed is
 * inflated only when its cache file is missing or damaged.
 */
export interface LazyContents {
  sha256: string;
  read(): Uint8Array;
}

type Contents = Uint8Array | LazyContents;

function contentsSha256(contents: Contents): string {
  return contents instanceof Uint8Array ? sha256Hex(contents) : contents.sha256;
}

/** Where `cacheFile(stem, ext, contents)` puts them, e.g. `/tmp/zaxy-1000/kuzu-0123456789abcdef.cjs`. */
export function cacheFilePath(stem: string, ext: string, contents: Contents, dir: string = cacheDirPath()): string {
  return path.join(dir, cacheFileName(stem, ext, contentsSha256(contents)));
}

function ensureCacheDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = fs.lstatSync(dir);
  const uid = process.getuid?.();
  const problem = !stat.isDirectory()
    ? "it is not a directory (or is a symlink)"
    : uid !== undefined && stat.uid !== uid
      ? `it is owned by uid ${stat.uid}, not ${uid}`
      : process.platform !== "win32" && (stat.mode & 0o022) !== 0
        ? `it is writable by group or others (mode ${(stat.mode & 0o777).toString(8)})`
        : undefined;
  if (problem !== undefined) {
    throw ioError("cache_dir_unsafe", `Cannot use cache directory "${dir}": ${problem}`, {
      hint: `remove "${dir}" and run again`,
    });
  }
}

function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

function sameContents(file: string, sha256: string): boolean {
  try {
    return sha256Hex(fs.readFileSync(file)) === sha256;
  } catch {
    return false;
  }
}

/**
 * Returns a real file holding `contents` in `dir` (default `cacheDirPath()`), writing it (temp file
 * + rename, so readers never see a partial file) only when no identical file exists yet.
 *
 * @example
 * ```ts
 * const glue = cacheFile("kuzu", ".cjs", fs.readFileSync(embeddedGluePath));
 * createRequire(import.meta.url)(glue.path);
 * ```
 */
export function cacheFile(stem: string, ext: string, contents: Contents, dir: string = cacheDirPath()): CacheFile {
  const sha256 = contentsSha256(contents);
  ensureCacheDir(dir);
  const target = path.join(dir, cacheFileName(stem, ext, sha256));
  if (sameContents(target, sha256)) return { path: target, sha256, reused: true };
  const bytes = contents instanceof Uint8Array ? contents : contents.read();
  if (!(contents instanceof Uint8Array) && sha256Hex(bytes) !== sha256) {
    throw ioError("cache_write_failed", `Cannot write cache file "${target}": the embedded contents do not match their recorded SHA-256 (a damaged binary)`);
  }
  const temp = `${target}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    fs.writeFileSync(temp, bytes, { mode: 0o600, flag: "wx" });
    fs.renameSync(temp, target);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    const reason = error instanceof Error ? error.message : String(error);
    throw ioError("cache_write_failed", `Cannot write cache file "${target}": ${reason}`);
  }
  return { path: target, sha256, reused: false };
}

/**
 * The Eventloom root's own cache directory (`<root>/projections/cache`), tried when the per-user
 * directory under TMPDIR cannot be written or its files cannot be loaded (a read-only or
 * `noexec` TMPDIR). Set by the CLI once it knows the root; undefined in library use.
 */
let rootCacheDir: string | undefined;

export function setRootCacheDir(dir: string | undefined): void {
  rootCacheDir = dir === undefined ? undefined : path.resolve(dir);
}

/** Where cache files may go, in the order they are tried. */
export function cacheDirCandidates(): string[] {
  const primary = cacheDirPath();
  return rootCacheDir === undefined || path.resolve(rootCacheDir) === path.resolve(primary) ? [primary] : [primary, rootCacheDir];
}

/** Why a cache file could not be used in one directory: it could not be written there, or what loads it failed. */
export interface CacheAttempt {
  dir: string;
  stage: "write" | "load";
  reason: string;
}

/** No cache directory could hold and load the file; `attempts` says why, per directory. */
export class CacheUseError extends Error {
  constructor(readonly attempts: CacheAttempt[]) {
    super(attempts.map((a) => `${a.dir}: ${a.stage === "write" ? "cannot write" : "cannot load"} (${a.reason})`).join("; "));
    this.name = "CacheUseError";
  }
}

/**
 * Writes `bytes` as a cache file and hands it to `use` (e.g. `require`), in the first directory of
 * `cacheDirCandidates()` where both succeed: the per-user TMPDIR directory, then the root's own.
 * Throws `CacheUseError` naming every directory's failure.
 *
 * @example
 * ```ts
 * const { file, value: addon } = useCacheFile("usearch", ".node", bytes, (f) => require(f.path));
 * ```
 */
export function useCacheFile<T>(
  stem: string,
  ext: string,
  bytes: Contents,
  use: (file: CacheFile) => T,
  /** Whether a failure of `use` may be the directory's fault (e.g. `noexec`), so the next one is tried. */
  directoryMayMatter: (error: unknown) => boolean = () => true,
): { file: CacheFile; value: T } {
  const attempts: CacheAttempt[] = [];
  for (const dir of cacheDirCandidates()) {
    let file: CacheFile;
    try {
      file = cacheFile(stem, ext, bytes, dir);
    } catch (error) {
      attempts.push({ dir, stage: "write", reason: firstLine(error) });
      continue;
    }
    try {
      return { file, value: use(file) };
    } catch (error) {
      attempts.push({ dir, stage: "load", reason: firstLine(error) });
      if (!directoryMayMatter(error)) break;
    }
  }
  throw new CacheUseError(attempts);
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0];
}
