/**
 * `lockFile` (src/platform/mod.ts): an exclusive flock that waits, times out with
 * LockTimeoutError, and — when the file is replaced by an atomic rename while a waiter waits
 * (what `zaxy compact` does to a log) — is granted on the file the path names now, never on the
 * replaced one.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, test } from "node:test";
import { lockFile, LockTimeoutError } from "../../src/platform/mod.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";

after(removeTempDirs);

test("a second exclusive lock waits, then times out with LockTimeoutError", async () => {
  const file = path.join(makeTempDir("lock"), "log.jsonl");
  const held = await lockFile(file, "exclusive", 1000, true);
  try {
    await assert.rejects(lockFile(file, "exclusive", 50, true), (error: unknown) => error instanceof LockTimeoutError);
  } finally {
    held.release();
  }
  (await lockFile(file, "exclusive", 50, true)).release();
});

test("a waiter whose file is replaced by a rename is granted the lock of the new file", async () => {
  const dir = makeTempDir("lock");
  const file = path.join(dir, "log.jsonl");
  fs.writeFileSync(file, "old\n");
  const held = await lockFile(file, "exclusive", 1000, true);
  const waiter = lockFile(file, "exclusive", 5000, true);
  await new Promise((resolve) => setTimeout(resolve, 50));
  // Replace the file atomically while the waiter waits on the old one, then release the old one.
  fs.writeFileSync(path.join(dir, "log.jsonl.tmp"), "new\n");
  fs.renameSync(path.join(dir, "log.jsonl.tmp"), file);
  held.release();
  const granted = await waiter;
  try {
    // The waiter holds the file the path names now: nobody else gets it.
    await assert.rejects(lockFile(file, "exclusive", 100, true), (error: unknown) => error instanceof LockTimeoutError);
  } finally {
    granted.release();
  }
  (await lockFile(file, "exclusive", 100, true)).release();
});
