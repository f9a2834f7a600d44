/**
 * `install.sh` from the command line, before any tarball is involved: `--help` (and `-h`) print
 * the usage on stdout and exit 0; a usage error prints it on stderr and exits 2. Run with `sh`,
 * as the README says, so a bash-only construct would fail here under dash.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";

const installScript = fileURLToPath(new URL("../../install.sh", import.meta.url));
const usageLine = "usage: sh install.sh [--prefix DIR] zaxy-<version>-<os>-<arch>.tar.gz [SHA256SUMS]";

function install(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync("sh", [installScript, ...args], { encoding: "utf8", timeout: 30_000 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe("sh install.sh", () => {
  for (const flag of ["--help", "-h"]) {
    test(`${flag} prints the usage and the options on stdout and exits 0`, () => {
      const run = install([flag]);
      assert.equal(run.status, 0, run.stderr);
      assert.equal(run.stderr, "");
      assert.equal(run.stdout.split("\n")[0], usageLine);
      assert.match(run.stdout, /^ {2}--prefix DIR {3}install DIR\/bin\/zaxy/m);
      assert.match(run.stdout, /^ {2}-h, --help {5}print this help and exit$/m);
    });
  }

  test("--help after --prefix still prints the usage and installs nothing", () => {
    const run = install(["--prefix", "/nonexistent/zaxy-prefix", "--help"]);
    assert.equal(run.status, 0);
    assert.equal(run.stdout.split("\n")[0], usageLine);
  });

  test("no tarball or an unknown option is a usage error: the usage on stderr, exit 2", () => {
    const none = install([]);
    assert.deepEqual(none, { status: 2, stdout: "", stderr: `${usageLine}\n` });
    const unknown = install(["--bogus"]);
    assert.deepEqual(unknown, { status: 2, stdout: "", stderr: `install.sh: unknown option --bogus\n${usageLine}\n` });
  });
});
