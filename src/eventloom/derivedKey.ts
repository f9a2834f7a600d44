/**
 * The root's key for derived files: an HMAC-SHA-256 key that authenticates the files under
 * `projections/` a read trusts instead of verifying the log again (the verified checkpoint and
 * the read-model manifest, which pins every read-model file by its SHA-256).
 *
 * Why a key: those files carry SHA-256 checksums over their own public fields, which catch
 * damage but not a forgery: whoever can write `projections/` can recompute them. A MAC under a
 * secret they cannot read cannot be recomputed, so a forged or foreign file is refused, the read
 * verifies the log in full, and the file is written again (docs/reliability.md, "Derived files
 * and the root key").
 *
 * Format (never change without a new file name): `<root>/keys/derived.key` holds 64 lowercase hex
 * (32 random bytes) and a newline; the file is mode 0600 in a directory of mode 0700. It is made
 * by the first read or write of a derived file (not by `zaxy init`, which writes only the
 * config), and is never copied anywhere: not
 * into projections, exports, backups or store imports (they copy logs only). A root whose key
 * cannot be read or made (a read-only root, a damaged key file) has no key: every derived file
 * is then untrusted and reads verify the log in full.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";

export const keysDirName = "keys";
const keyFileName = "derived.key";
const keyPattern = /^[0-9a-f]{64}\n?$/;

/** `<root>/keys`: the directory of the root's secrets. */
export function keysDir(root: string): string {
  return path.join(root, keysDirName);
}

/** `<root>/keys/derived.key`. */
export function derivedKeyPath(root: string): string {
  return path.join(keysDir(root), keyFileName);
}

const keysByRoot = new Map<string, Buffer>();

/** The key in `file`, or null when it is missing, a link, not a regular file, or not 64 hex. */
function readKeyFile(file: string): Buffer | null {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0));
  } catch {
    return null;
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile() || stat.size > 128) return null;
    const text = fs.readFileSync(fd, "utf8");
    return keyPattern.test(text) ? Buffer.from(text.slice(0, 64), "hex") : null;
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Makes `<root>/keys/derived.key` if it does not exist (never the root itself): the key goes to a
 * temp file first and is linked into place, so a concurrent maker's key wins whole or not at all.
 */
function makeKeyFile(root: string): void {
  const dir = keysDir(root);
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
    fs.chmodSync(dir, 0o700);
  } catch (error) {
    if ((error as { code?: string }).code !== "EEXIST") throw error;
  }
  const stat = fs.lstatSync(dir);
  if (!stat.isDirectory()) throw new Error(`${dir} is not a directory`);
  const temp = path.join(dir, `.${keyFileName}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  const fd = fs.openSync(temp, "wx", 0o600);
  try {
    fs.writeFileSync(fd, `${randomBytes(32).toString("hex")}\n`);
    fs.fchmodSync(fd, 0o600);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    fs.linkSync(temp, derivedKeyPath(root));
  } catch (error) {
    if ((error as { code?: string }).code !== "EEXIST") throw error;
  } finally {
    fs.rmSync(temp, { force: true });
  }
}

/**
 * The root's derived-file key, made when missing and `create` is true (the root must exist);
 * null when it cannot be read or made. Cached per process once read.
 *
 * @example
 * const key = derivedFileKey(".eventloom"); // Buffer(32), or null on a read-only root without one
 */
export function derivedFileKey(root: string, create = true): Buffer | null {
  const resolved = path.resolve(root);
  const known = keysByRoot.get(resolved);
  if (known !== undefined) return known;
  let key = readKeyFile(derivedKeyPath(resolved));
  if (key === null && create && fs.existsSync(derivedKeyPath(resolved)) === false) {
    try {
      if (!fs.statSync(resolved).isDirectory()) return null;
      makeKeyFile(resolved);
    } catch {
      return null;
    }
    key = readKeyFile(derivedKeyPath(resolved));
  }
  if (key !== null) keysByRoot.set(resolved, key);
  return key;
}

/**
 * HMAC-SHA-256 hex of `parts` (JSON-encoded as one array, so no two part lists share bytes), e.g.
 * `derivedMac(key, ["zaxy.verified_checkpoint.v3", "default", 7, ...])`.
 */
export function derivedMac(key: Buffer, parts: readonly unknown[]): string {
  return createHmac("sha256", key).update(JSON.stringify(parts)).digest("hex");
}

/** Whether `mac` is `derivedMac(key, parts)`, compared in constant time. */
export function derivedMacMatches(key: Buffer, parts: readonly unknown[], mac: unknown): boolean {
  if (typeof mac !== "string" || !/^[0-9a-f]{64}$/.test(mac)) return false;
  return timingSafeEqual(Buffer.from(derivedMac(key, parts), "hex"), Buffer.from(mac, "hex"));
}

/** Forgets the cached key of one root that is gone (a read model built in a scratch directory). */
export function forgetDerivedKey(root: string): void {
  keysByRoot.delete(path.resolve(root));
}

/** Forgets cached keys (tests that delete a root's key within one process). */
export function forgetDerivedKeys(): void {
  keysByRoot.clear();
}
