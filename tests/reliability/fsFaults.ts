/**
 * Real file-system faults for reliability tests (not a test file itself): a small tmpfs that can
 * be made read-only. We run as root, so chmod does not stop writes; a read-only mount does.
 *
 * @example
 * const mount = mountTmpfs(dir); try { ...; remountReadOnly(dir); ... } finally { unmount(dir); }
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

function run(args: string[]): boolean {
  const result = spawnSync(args[0], args.slice(1), { encoding: "utf8" });
  return result.status === 0;
}

/** Mounts a tmpfs of `sizeKiB` (1 MiB by default) on `dir` (created if missing); false when mounting is not permitted. */
export function mountTmpfs(dir: string, sizeKiB = 1024): boolean {
  fs.mkdirSync(dir, { recursive: true });
  return run(["mount", "-t", "tmpfs", "-o", `size=${sizeKiB}k`, "tmpfs", dir]);
}

/**
 * Fills the file system of `dir` with a filler file until `freeBytes` are left (0: full);
 * returns the filler's path (remove it to free the space).
 */
export function fillDisk(dir: string, freeBytes: number): string {
  const filler = path.join(dir, "filler");
  const fd = fs.openSync(filler, "w");
  const block = new Uint8Array(4096);
  try {
    for (;;) fs.writeSync(fd, block);
  } catch (error) {
    if ((error as { code?: string }).code !== "ENOSPC") throw error;
  }
  fs.ftruncateSync(fd, Math.max(0, fs.fstatSync(fd).size - freeBytes));
  fs.closeSync(fd);
  return filler;
}

export function remountReadOnly(dir: string): void {
  if (!run(["mount", "-o", "remount,ro", dir])) throw new Error(`cannot remount ${dir} read-only`);
}

export function unmount(dir: string): void {
  run(["umount", dir]);
}

/** Whether this machine lets the tests mount a tmpfs (root in a permissive container). */
export const canMountTmpfs: boolean = (() => {
  const probe = fs.mkdtempSync(path.join(os.tmpdir(), "zaxy-tmpfs-probe-"));
  try {
    if (!mountTmpfs(probe)) return false;
    unmount(probe);
    return true;
  } finally {
    fs.rmSync(probe, { recursive: true, force: true });
  }
})();
