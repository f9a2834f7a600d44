/**
 * A pause at a named point of a projection write, for crash tests only: with
 * `ZAXY_TEST_PAUSE_AT=<point>` in the environment, the process says `zaxy: test pause at <point>`
 * on stderr and blocks (at most `crashTestPauseMs`), so a test can `kill -9` the real binary at
 * exactly that moment instead of guessing it from timings. Without the variable it does nothing.
 *
 * Points: `projection-head` (a bulk write's rows are committed and checkpointed, its head is not
 * written yet; blocks, for `kill -9`) and `projection-copy` (inside a catch-up's row transaction,
 * after the first COPY; waits on the event loop until a stop is requested, for SIGINT/SIGTERM),
 * and `forget-key-destroyed` (memory/forget.ts: the key is destroyed in the vault, the
 * `memory.forgotten` record is not written yet; blocks, for `kill -9`).
 */
import * as fs from "node:fs";

/** Long enough for a loaded test machine to notice the pause and kill; short enough to never hang CI. */
export const crashTestPauseMs = 60_000;

export function crashTestPause(point: string): void {
  if (process.env.ZAXY_TEST_PAUSE_AT !== point) return;
  fs.writeSync(2, `zaxy: test pause at ${point}\n`);
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, crashTestPauseMs);
}

/** Like `crashTestPause`, but waits on the event loop (signal handlers run) until `stopRequested()`. */
export async function crashTestPauseUntilStopped(point: string, stopRequested: () => boolean): Promise<void> {
  if (process.env.ZAXY_TEST_PAUSE_AT !== point) return;
  fs.writeSync(2, `zaxy: test pause at ${point}\n`);
  const untilMs = Date.now() + crashTestPauseMs;
  while (Date.now() < untilMs && !stopRequested()) await new Promise((resolve) => setTimeout(resolve, 10));
}
