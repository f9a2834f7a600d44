/**
 * A process killed between writing a projection temp file and renaming it into place leaves
 * `<file>.tmp-<pid>` behind. The next process that opens the store removes those whose writer is
 * gone, with a warning; a file whose pid is alive may still be being written and stays.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { runZaxy } from "../cli/zaxy.ts";

after(removeTempDirs);

/** The pid of a process that has exited (and was reaped): no process has it right now. */
function deadPid(): number {
  const child = spawnSync("sh", ["-c", "echo $$"], { encoding: "utf8" });
  return Number(child.stdout.trim());
}

function appendGoal(dir: string, title: string): void {
  const run = runZaxy(["memory", "append", "goal.created", "--actor", "agent", "--payload-json", JSON.stringify({ title })], { cwd: dir });
  assert.equal(run.code, 0, run.stderr);
}

describe("temp files left by an interrupted projection write", () => {
  test("the next read that catches the projection up removes those of dead writers with a warning and keeps a live writer's", () => {
    const dir = makeTempDir("zaxy-orphan-temp-");
    appendGoal(dir, "Ship the release");
    const first = runZaxy(["memory", "query", "release", "--json"], { cwd: dir });
    assert.equal(first.code, 0, first.stderr);
    const projections = path.join(dir, ".eventloom", "projections");
    const dead = deadPid();
    const orphans = [
      path.join(projections, "vectors", `default.vectors.tmp-${dead}`),
      path.join(projections, "vectors", `default.vectors.json.tmp-${dead}`),
    ];
    for (const file of orphans) fs.writeFileSync(file, "partial");
    const live = path.join(projections, "vectors", `default.vectors.tmp-${process.pid}`);
    fs.writeFileSync(live, "being written");

    appendGoal(dir, "Tag the release");
    // The read below must catch the projection up (a short tail is otherwise folded on the read
    // model without writing anything, and the orphans wait for the next full catch-up).
    fs.rmSync(path.join(projections, "readmodel"), { recursive: true, force: true });
    const read = runZaxy(["memory", "query", "release", "--json"], { cwd: dir });
    assert.equal(read.code, 0, read.stderr);
    for (const file of orphans) assert.equal(fs.existsSync(file), false, `${file} is still there`);
    assert.equal(fs.existsSync(live), true, "a live writer's temp file was removed");
    assert.match(read.stderr, /Removed 2 temp file\(s\) left by an interrupted projection write: /);
    for (const file of orphans) assert.ok(read.stderr.includes(path.basename(file)), read.stderr);
    const results = JSON.parse(read.stdout).results as Array<{ content: string }>;
    assert.ok(results.some((r) => r.content.includes("Tag the release")), JSON.stringify(results));
  });
});
