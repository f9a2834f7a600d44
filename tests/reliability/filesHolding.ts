/**
 * Where a value survives under a root, as `grep -r` would find it (not a test file itself).
 */
import * as fs from "node:fs";
import * as path from "node:path";

/** Every file below `dir`, recursively. */
export function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(full) : [full];
  });
}

/** Every file under `dir` holding `needle` as UTF-8 bytes. */
export function holding(dir: string, needle: string): string[] {
  return filesUnder(dir).filter((file) => fs.readFileSync(file).includes(Buffer.from(needle)));
}
