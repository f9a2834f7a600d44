// deno-test: own-process (runs zaxy in this process, which may load kuzu-wasm; scripts/deno-test.sh runs it alone)
// test-lane: full (slow)
/**
 * A read on a full disk (a real tmpfs): the derived state a read writes (vector index,
 * read model, verified checkpoint) is a cache, so a read that cannot write it still
 * answers, says it is degraded, and leaves no partial files to fill the disk further. The graph
 * store is written only by `zaxy graph sync` (and reproject --graph-store): Kuzu reports the full
 * disk as a short write, and closing a database in that state would abort its wasm runtime, so
 * the sync fails cleanly (exit 3) without rebuilding the store into the same wall.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { runZaxy } from "../cli/zaxy.ts";
import { runZaxyInProcess } from "../cli/inProcessRoot.ts";
import { canMountTmpfs, fillDisk, mountTmpfs, unmount } from "./fsFaults.ts";

after(removeTempDirs);

const slow = { timeout: 180_000, skip: !canMountTmpfs && "cannot mount a tmpfs here" };

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, encoding: "utf8" }).map((name) => String(name)).sort();
}

/** The set-up's 12 appends, run in this process: only the reads and syncs on the full disk are under test. */
async function appendDecisions(dir: string): Promise<void> {
  for (let i = 1; i <= 12; i++) {
    const run = await runZaxyInProcess(["memory", "append", "decision.made", "--actor", "agent", "--payload-json", JSON.stringify({ decision: `use sqlite database ${i}` })], { cwd: dir });
    assert.equal(run.code, 0, run.stderr);
  }
}

function checkout(root: string): { code: number | null; doc: { warnings: string[]; current_facts: Array<{ content: string }> }; stderr: string } {
  const run = runZaxy(["memory", "checkout", "which database", "--json"], { cwd: root });
  return { code: run.code, doc: JSON.parse(run.stdout), stderr: run.stderr };
}

describe("reads on a full disk", () => {
  test("issue 14: the first checkout on a full disk answers degraded (exit 0, degraded warning), leaves no temp files, and a read after space is freed is whole again", slow, async () => {
    const dir = makeTempDir("fullDiskRead");
    assert.ok(mountTmpfs(dir, 2048), "mount tmpfs");
    try {
      await appendDecisions(dir);
      const log = fs.readFileSync(path.join(dir, ".eventloom", "default.jsonl"));
      // Room for the verified checkpoint, not for the vector index
      // (its bucket offsets alone are 6 KB at dimension 1536).
      const filler = fillDisk(dir, 8 * 1024);
      const full = checkout(dir);
      assert.equal(full.code, 0, full.stderr);
      // The vector index does not fit: the answer goes without the vector lane and says so.
      assert.match(full.stderr, /vector index unavailable, vector lane skipped: /);
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

  test("issue 14: zaxy graph sync on a full disk exits 3 with projection_write_failed, no abort, no temp files; after space is freed it completes", slow, async () => {
    const dir = makeTempDir("fullDiskGraphSync");
    assert.ok(mountTmpfs(dir, 2048), "mount tmpfs");
    try {
      await appendDecisions(dir);
      assert.equal(checkout(dir).code, 0);
      // Room for the store's lock file, not for its first write-ahead log.
      const filler = fillDisk(dir, 4 * 1024);
      const full = runZaxy(["graph", "sync", "--json"], { cwd: dir });
      assert.equal(full.code, 3, full.stdout + full.stderr);
      assert.equal(JSON.parse(full.stdout).error.code, "projection_write_failed");
      assert.doesNotMatch(full.stderr, /Aborted|internal_error|at .*\.ts:\d+/);
      const leftovers = filesUnder(path.join(dir, ".eventloom")).filter((name) => /\.tmp|\.load-/.test(name));
      assert.deepEqual(leftovers, [], "no temp file left on the full disk");
      // Reads do not need the store.
      const read = checkout(dir);
      assert.equal(read.code, 0, read.stderr);
      assert.deepEqual(read.doc.warnings, [], read.stderr);

      fs.rmSync(filler);
      const freed = runZaxy(["graph", "sync", "--json"], { cwd: dir });
      assert.equal(freed.code, 0, freed.stderr);
      assert.equal(JSON.parse(freed.stdout).sessions[0].head_seq, 12);
      const status = runZaxy(["memory", "status", "--graph", "--json"], { cwd: dir });
      assert.equal(status.code, 0, status.stderr);
      assert.equal(JSON.parse(status.stdout).graph.behind_by, 0);
    } finally {
      unmount(dir);
    }
  });
});
