/**
 * Stdout that cannot take the output (`zaxy ... > /dev/full`): one line on stderr naming the
 * failure, exit 3 (an I/O error), never a stack trace.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import { childEnv, stackTraceLines, zaxyInvocation } from "./zaxy.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { after } from "node:test";

after(removeTempDirs);

const skip = fs.existsSync("/dev/full") ? false : "no /dev/full on this machine";

test("zaxy --version and verify with stdout on /dev/full exit 3 with one clear line", { skip }, () => {
  const cwd = makeTempDir("zaxy-stdout-full-");
  for (const args of [["--version"], ["init"]]) {
    const full = fs.openSync("/dev/full", "w");
    try {
      const run = spawnSync(zaxyInvocation.command, [...zaxyInvocation.args, ...args], { cwd, env: childEnv(), stdio: ["ignore", full, "pipe"], encoding: "utf8", timeout: 60_000 });
      assert.equal(run.status, 3, `${args.join(" ")}: ${run.stderr}`);
      assert.match(run.stderr, /^zaxy: cannot write to stdout: .*no space left on device/m);
      assert.deepEqual(stackTraceLines(run.stderr), []);
    } finally {
      fs.closeSync(full);
    }
  }
});
