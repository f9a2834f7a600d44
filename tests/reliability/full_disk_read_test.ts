/**
 * A read on a full disk (a real tmpfs): the derived state a read writes (graph store, row
 * cache, vector index, read model, verified checkpoint) is a cache, so a read that cannot write
 * it still answers from the log, says it is degraded, and leaves no partial files to fill the
 * disk further. Kuzu reports the full disk as a short write; closing a database in that state
 * would abort its wasm runtime, so the store is not rebuilt into the same wall.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { runZaxy } from "../cli/zaxy.ts";
import { canMountTmpfs, fillDisk, mountTmpfs, unmount } from "./fsFaults.ts";

after(removeTempDirs);

const slow = { timeout: 180_000, skip: !canMountTmpfs && "cannot mount a tmpfs here" };

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, encoding: "utf8" }).map((name) => String(name)).sort();
}

function checkout(root: string): { code: number; doc: { warnings: string[]; current_facts: Array<{ content: string }> }; stderr: string } {
  const run = runZaxy(["memory", "checkout", "which database", "--json"], { cwd: root });
  return { code: run.code, doc: JSON.parse(run.stdout), stderr: run.stderr };
}

describe("reads on a full disk", () => {
  test("issue 14: the first checkout on a full disk answers from the log (exit 0, degraded warning), leaves no temp files, and a read after space is freed is whole again", slow, () => {
    const dir = makeTempDir("fullDiskRead");
    assert.ok(mountTmpfs(dir, 2048), "mount tmpfs");
    try {
      for (let i = 1; i <= 12; i++) {
        const run = runZaxy(["memory", "append", "decision.made", "--actor", "agent", "--payload-json", JSON.stringify({ decision: `use sqlite database ${i}` })], { cwd: dir });
        assert.equal(run.code, 0, run.stderr);
      }
      const log = fs.readFileSync(path.join(dir, ".eventloom", "default.jsonl"));
      // Room for the verified checkpoint, not for the graph store's first write-ahead log.
      const filler = fillDisk(dir, 24 * 1024);
      const full = checkout(dir);
      assert.equal(full.code, 0, full.stderr);
      assert.match(full.stderr, /graph projection (not updated|unavailable), answering from the log/);
      assert.ok(full.doc.warnings.some((warning) => /retrieval was degraded/.test(warning)), JSON.stringify(full.doc.warnings));
      assert.ok(full.doc.current_facts.some((fact) => fact.content.startsWith("use sqlite database ")), JSON.stringify(full.doc.current_facts));
      assert.doesNotMatch(full.stderr, /Aborted|internal_error|at .*\.ts:\d+/);
      const leftovers = filesUnder(path.join(dir, ".eventloom")).filter((name) => /\.tmp/.test(name));
      assert.deepEqual(leftovers, [], "no temp file left on the full disk");
      assert.deepEqual(fs.readFileSync(path.join(dir, ".eventloom", "default.jsonl")), log, "the log is untouched");

      fs.rmSync(filler);
      const freed = checkout(dir);
      assert.equal(freed.code, 0, freed.stderr);
      assert.deepEqual(freed.doc.warnings, [], freed.stderr);
      assert.ok(freed.doc.current_facts.some((fact) => fact.content.startsWith("use sqlite database ")));
      const verify = runZaxy(["verify"], { cwd: dir });
      assert.equal(verify.code, 0, verify.stdout + verify.stderr);
    } finally {
      unmount(dir);
    }
  });
});
