/**
 * The shape of a refused write, from the binary (not a test file itself): exit 2, nothing on
 * stdout, the expected message on stderr, and no stack trace.
 */
import assert from "node:assert/strict";
import { stackTraceLines, type ZaxyRun } from "../cli/zaxy.ts";

export function refused(run: ZaxyRun, message: RegExp, label: string): void {
  assert.equal(run.code, 2, `${label}: ${run.stdout}${run.stderr}`);
  assert.equal(run.stdout, "", label);
  assert.match(run.stderr, message, label);
  assert.deepEqual(stackTraceLines(run.stderr), [], label);
}
