/**
 * Temp files of atomic writes (`<file>.tmp-<pid>`: the vector index and its side
 * file) are renamed into place when complete; a process killed between write and rename leaves
 * one behind. They are never read, only wasted space, so whoever opens the store removes those
 * whose writer is gone. A live pid (the writer, or an unrelated process that reused the number)
 * keeps its file: removing a file being written would fail that writer's rename.
 */
import * as fs from "node:fs";
import * as path from "node:path";

const tempNamePattern = /\.tmp-(\d+)$/;

function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but is not ours.
    return (error as { code?: unknown }).code === "EPERM";
  }
}

/**
 * Removes `*.tmp-<pid>` files (or files whose name `pattern` matches, its first group the pid)
 * in `dirs` whose pid is not a running process; returns their paths.
 */
export function removeOrphanTempFiles(dirs: readonly string[], pattern: RegExp = tempNamePattern): string[] {
  const removed: string[] = [];
  for (const dir of dirs) {
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      const match = pattern.exec(name);
      if (match === null || processAlive(Number(match[1]))) continue;
      const file = path.join(dir, name);
      try {
        if (!fs.lstatSync(file).isFile()) continue;
        fs.rmSync(file, { force: true });
        removed.push(file);
      } catch {
        // Gone already, or not ours to remove: it is only wasted space.
      }
    }
  }
  return removed;
}
