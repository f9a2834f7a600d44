/**
 * A pause at a named point of a projection write, for crash tests only: with
 * `ZAXY_TEST_PAUSE_AT=<point>` in the environment, the process says `zaxy: test pause at <point>`
 * on stderr and blocks (at most `crashTestPauseMs`), so a test can `kill -9` the real binary at
 * exactly that moment instead of guessing it from timings. Without the variable it does nothing.
 *
 * Points: `projection-head` (a bulk write's rows are committed and checkpointed, its head is not
 * written yet).
 */
import * as fs from "node:fs";

/** Long enough for a loaded test machine to notice the pause and kill; short enough to never hang CI. */
export const crashTestPauseMs = 60_000;

export function crashTestPause(point: string): void {
  if (process.env.ZAXY_TEST_PAUSE_AT !== point) return;
  fs.writeSync(2, `zaxy: test pause at ${point}\n`);
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, crashTestPauseMs);
}
